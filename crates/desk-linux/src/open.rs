//! The desktop's default app for a file or URL, from the XDG MIME associations: the type of
//! the target (`xdg-mime query filetype`, or `x-scheme-handler/SCHEME` for a URL), the desktop
//! entry set for that type (`xdg-mime query default`), and the command its `Exec` line gives.

use std::path::{Path, PathBuf};
use std::process::Command;

use desk::{DeskError, Opener};

/// The default app for `target`, an absolute path or a URL.
pub fn opener(target: &str) -> Result<Opener, DeskError> {
    let kind = match url_scheme(target) {
        Some(scheme) => format!("x-scheme-handler/{}", scheme.to_ascii_lowercase()),
        None => xdg_mime(&["query", "filetype", target])?,
    };
    let entry = xdg_mime(&["query", "default", &kind])?;
    if entry.is_empty() {
        return Err(invalid(format!(
            "no app is set to open {kind} ({target}); set one with xdg-mime default APP.desktop \
             {kind}, then open it again"
        )));
    }
    let file = find_entry(&entry).ok_or_else(|| {
        invalid(format!(
            "{kind} is set to open with {entry}, but no such desktop entry is installed"
        ))
    })?;
    let text = std::fs::read_to_string(&file)
        .map_err(|e| invalid(format!("cannot read {}: {e}", file.display())))?;
    let exec =
        exec_line(&text).ok_or_else(|| invalid(format!("{} has no Exec line", file.display())))?;
    let mut words = command(&exec, target);
    if words.is_empty() {
        return Err(invalid(format!("{}'s Exec line is empty", file.display())));
    }
    let program = words.remove(0);
    Ok(Opener {
        kind,
        entry,
        program,
        args: words,
    })
}

fn invalid(reason: String) -> DeskError {
    DeskError::Invalid(reason).unsent()
}

/// The scheme of a URL (`https` of `https://...`, `mailto` of `mailto:...`), or none for a path.
pub fn url_scheme(target: &str) -> Option<&str> {
    if target.starts_with('/') {
        return None;
    }
    let (scheme, _) = target.split_once(':')?;
    let valid = !scheme.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    valid.then_some(scheme)
}

fn xdg_mime(args: &[&str]) -> Result<String, DeskError> {
    let out = Command::new("xdg-mime").args(args).output().map_err(|e| {
        invalid(format!(
            "cannot run xdg-mime ({e}): install the Debian package xdg-utils"
        ))
    })?;
    if !out.status.success() {
        return Err(invalid(format!(
            "xdg-mime {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Where desktop entry `id` is installed: the XDG data directories' `applications`.
fn find_entry(id: &str) -> Option<PathBuf> {
    let home = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".local/share")));
    let dirs = std::env::var("XDG_DATA_DIRS")
        .ok()
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
    home.into_iter()
        .chain(dirs.split(':').map(PathBuf::from))
        .map(|dir| dir.join("applications").join(id))
        .find(|path| path.is_file())
}

/// The `Exec` value of a desktop entry's `[Desktop Entry]` group.
fn exec_line(text: &str) -> Option<String> {
    let mut in_entry = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_entry = line == "[Desktop Entry]";
        } else if in_entry && let Some(value) = line.strip_prefix("Exec=") {
            return Some(value.to_string());
        }
    }
    None
}

/// The words of an Exec value with the target put in place of its field code (`%f`, `%F`,
/// `%u`, `%U`; after the command when it has none), other field codes dropped, quoting undone.
fn command(exec: &str, target: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut in_word = false;
    let mut chars = exec.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            '\\' if quoted => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    let mut placed = false;
    let mut out = Vec::new();
    for word in words {
        match word.as_str() {
            "%f" | "%F" | "%u" | "%U" => {
                if !placed {
                    out.push(target.to_string());
                    placed = true;
                }
            }
            w if w.len() == 2 && w.starts_with('%') => {}
            w => out.push(w.replace("%%", "%")),
        }
    }
    if !placed {
        out.push(target.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_have_schemes_and_paths_do_not() {
        assert_eq!(url_scheme("https://example.org"), Some("https"));
        assert_eq!(url_scheme("mailto:a@b"), Some("mailto"));
        assert_eq!(url_scheme("/tmp/a:b.txt"), None);
        assert_eq!(url_scheme("1http://x"), None);
    }

    #[test]
    fn the_target_takes_the_field_codes_place_and_quotes_are_undone() {
        assert_eq!(
            command("mousepad %U", "/tmp/a b.txt"),
            ["mousepad", "/tmp/a b.txt"]
        );
        assert_eq!(
            command(r#""/opt/My App/run" --new-window %u %i"#, "https://x"),
            ["/opt/My App/run", "--new-window", "https://x"]
        );
        assert_eq!(command("viewer", "/f"), ["viewer", "/f"]);
        assert_eq!(
            command("app --pct=100%% %f", "/f"),
            ["app", "--pct=100%", "/f"]
        );
    }

    #[test]
    fn only_the_desktop_entry_group_gives_exec() {
        let text = "[Desktop Action new]\nExec=app --new\n[Desktop Entry]\nName=App\nExec=app %F\n";
        assert_eq!(exec_line(text).as_deref(), Some("app %F"));
    }
}
