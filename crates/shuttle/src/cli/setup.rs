//! `shuttle setup [CLIENT...] [--print | --remove]`: shuttle's entry in MCP clients' configs,
//! `shuttle setup gnome`: shuttle's GNOME Shell extension, and `shuttle setup kde`: the desktop
//! file that has KWin grant shuttle fake input and screenshots.

use std::process::ExitCode;

use super::EXIT_FAILED;
use crate::setup::{self, Change, Client, Entry, State, Target};

/// What to do with each client's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Write it.
    Add,
    /// Print it, changing nothing.
    Print,
    /// Take it out.
    Remove,
}

/// Does `action` for each of `targets`; with none, lists every client and whether it is set up.
pub fn run(targets: &[Target], action: Action) -> anyhow::Result<ExitCode> {
    if targets.is_empty() {
        list();
        return Ok(ExitCode::SUCCESS);
    }
    let mut failed = false;
    let clients: Vec<Client> = targets
        .iter()
        .filter_map(|t| match t {
            Target::Client(client) => Some(*client),
            Target::Gnome | Target::Kde => None,
        })
        .collect();
    if targets.contains(&Target::Gnome)
        && let Err(e) = gnome(action)
    {
        eprintln!("shuttle setup gnome: {e}");
        failed = true;
    }
    if targets.contains(&Target::Kde)
        && let Err(e) = kde(action)
    {
        eprintln!("shuttle setup kde: {e}");
        failed = true;
    }
    if clients.is_empty() {
        return Ok(exit(failed));
    }
    let entry = Entry::this_binary()?;
    for client in clients {
        let title = client.title();
        let done = match action {
            Action::Print => {
                let file = client.file()?;
                eprintln!(
                    "# {title}: this goes in {}, under {}",
                    file.display(),
                    client.place()
                );
                print!("{}", setup::snippet(client, &entry));
                continue;
            }
            Action::Add => setup::add(client, &entry),
            Action::Remove => setup::remove(client),
        };
        match done {
            Ok((file, change)) => {
                let file = file.display();
                let shown = entry.shown();
                println!(
                    "{title}: {}",
                    match change {
                        Change::Added => format!(
                            "added shuttle to {file} (it runs {shown}); restart {title} to load it"
                        ),
                        Change::Replaced { was } => format!(
                            "shuttle's entry in {file} ran {}; it runs {shown} now; restart \
                             {title} to load it",
                            was.shown()
                        ),
                        Change::Unchanged =>
                            format!("{file} already runs {shown}; nothing changed"),
                        Change::Removed => format!("took shuttle out of {file}"),
                        Change::Absent => format!("{file} has no shuttle entry; nothing changed"),
                    }
                );
            }
            Err(e) => {
                eprintln!("shuttle setup {}: {e}", client.name());
                failed = true;
            }
        }
    }
    Ok(exit(failed))
}

fn exit(failed: bool) -> ExitCode {
    if failed {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    }
}

/// The person's XDG data directory: `$XDG_DATA_HOME`, else `~/.local/share`.
fn data_dir() -> anyhow::Result<std::path::PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(data) = var("XDG_DATA_HOME") {
        return Ok(data.into());
    }
    let home = var("HOME").ok_or_else(|| anyhow::anyhow!("HOME is not set"))?;
    Ok(std::path::Path::new(&home).join(".local/share"))
}

/// Installs (or with `Remove` takes out) shuttle's GNOME Shell extension, and enables it in
/// GNOME's settings; GNOME Shell on Wayland loads it at the next login.
fn gnome(action: Action) -> anyhow::Result<()> {
    let data = data_dir()?;
    let dir = crate::platform::extension_dir(&data);
    match action {
        Action::Print => {
            println!(
                "gnome: shuttle's extension goes in {}, enabled in GNOME's settings \
                 (org.gnome.shell enabled-extensions); GNOME Shell loads it at the next login",
                dir.display()
            );
        }
        Action::Add => {
            let (dir, major) =
                crate::platform::install_extension(&data).map_err(anyhow::Error::msg)?;
            let enabled = enable(true)?;
            println!(
                "gnome: installed shuttle's extension for GNOME Shell {major} in {}{}; log out \
                 and in for GNOME Shell to load it",
                dir.display(),
                if enabled {
                    ", and enabled it"
                } else {
                    " (it was enabled)"
                }
            );
        }
        Action::Remove => {
            let existed = dir.exists();
            if existed {
                std::fs::remove_dir_all(&dir)
                    .map_err(|e| anyhow::anyhow!("cannot remove {}: {e}", dir.display()))?;
            }
            enable(false)?;
            println!(
                "gnome: {}; it stays loaded until the next login",
                if existed {
                    format!("took shuttle's extension out of {}", dir.display())
                } else {
                    format!("{} does not exist; nothing to take out", dir.display())
                }
            );
        }
    }
    Ok(())
}

/// Writes (or with `Remove` takes out) the desktop file that has KWin grant this binary fake
/// input and screenshots; KWin reads it when it starts.
fn kde(action: Action) -> anyhow::Result<()> {
    let file = crate::platform::desktop_file_path(&data_dir()?);
    let text = crate::platform::desktop_file()
        .ok_or_else(|| anyhow::anyhow!("cannot read this program's own path (/proc/self/exe)"))?;
    match action {
        Action::Print => {
            println!("# kde: this goes in {}", file.display());
            print!("{text}");
        }
        Action::Add => {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| anyhow::anyhow!("cannot make {}: {e}", dir.display()))?;
            }
            std::fs::write(&file, &text)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", file.display()))?;
            println!(
                "kde: wrote {}, which has KWin grant this shuttle fake input and screenshots; log \
                 out and in for KWin to read it",
                file.display()
            );
        }
        Action::Remove => {
            let existed = file.exists();
            if existed {
                std::fs::remove_file(&file)
                    .map_err(|e| anyhow::anyhow!("cannot remove {}: {e}", file.display()))?;
            }
            println!(
                "kde: {}",
                if existed {
                    format!("took out {}", file.display())
                } else {
                    format!("{} does not exist; nothing to take out", file.display())
                }
            );
        }
    }
    Ok(())
}

/// Adds shuttle's extension to (or takes it off) GNOME's list of enabled extensions, with
/// `gsettings`; answers whether the list changed.
fn enable(on: bool) -> anyhow::Result<bool> {
    let key = ["org.gnome.shell", "enabled-extensions"];
    let listed = gsettings(&["get", key[0], key[1]])?;
    let mut names = extension_list(&listed);
    let uuid = crate::platform::EXTENSION.to_string();
    let had = names.contains(&uuid);
    if had == on {
        return Ok(false);
    }
    names.retain(|n| n != &uuid);
    if on {
        names.push(uuid);
    }
    let value = format!(
        "[{}]",
        names
            .iter()
            .map(|n| format!("'{n}'"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    gsettings(&["set", key[0], key[1], &value])?;
    Ok(true)
}

/// Runs `gsettings` with `args`; answers what it printed, or why it failed.
fn gsettings(args: &[&str]) -> anyhow::Result<String> {
    let out = std::process::Command::new("gsettings")
        .args(args)
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run gsettings (package libglib2.0-bin): {e}"))?;
    if !out.status.success() {
        anyhow::bail!(
            "gsettings {} failed: {}",
            args[..3.min(args.len())].join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The names in a string list as `gsettings get` prints it: `['a@b', 'c@d']`, or `@as []`.
fn extension_list(printed: &str) -> Vec<String> {
    printed
        .trim()
        .trim_start_matches("@as")
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .map(|n| n.trim().trim_matches('\'').to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

/// One line per client: set up (and what it runs), not set up, or why its file is unreadable.
fn list() {
    for client in Client::ALL {
        let line = match setup::state(client) {
            Ok((file, State::SetUp(entry))) => {
                format!("set up: {} runs {}", file.display(), entry.shown())
            }
            Ok((file, State::NotSetUp)) => {
                format!("not set up: {} has no shuttle entry", file.display())
            }
            Ok((file, State::NoFile)) => format!("not set up: no {}", file.display()),
            Err(e) => format!("unreadable: {e}"),
        };
        println!("{:<15} {line}", client.name());
    }
    if let Ok(data) = data_dir() {
        let dir = crate::platform::extension_dir(&data);
        let line = if dir.join("extension.js").is_file() {
            format!("installed: {}", dir.display())
        } else {
            format!("not installed: no {}", dir.display())
        };
        println!("{:<15} {line}", "gnome");
        let line = match crate::platform::desktop_file_found() {
            Some(file) if crate::platform::names_this_binary(&file) => {
                format!("installed: {}", file.display())
            }
            Some(file) => format!("not this shuttle's: {}", file.display()),
            None => format!(
                "not installed: no {}",
                crate::platform::desktop_file_path(&data).display()
            ),
        };
        println!("{:<15} {line}", "kde");
    }
    println!(
        "\nshuttle setup CLIENT adds shuttle to a client; --print shows the entry, --remove takes it out."
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_enabled_extensions_are_read_as_gsettings_prints_them() {
        assert_eq!(extension_list("@as []\n"), Vec::<String>::new());
        assert_eq!(
            extension_list("['ding@rastersoft.com', 'desk@shuttle']\n"),
            ["ding@rastersoft.com", "desk@shuttle"]
        );
    }
}
