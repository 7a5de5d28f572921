//! shuttle's GNOME Shell extension, as files to install. Its body (`extension/desk.js`) is the
//! same for every GNOME version; GNOME Shell 45 changed how an extension is loaded (an ES module
//! instead of a script), so the body is wrapped in the form the Shell in use expects.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The extension's UUID: its directory's name under `gnome-shell/extensions`.
pub const UUID: &str = "desk@shuttle";

const BODY: &str = include_str!("../extension/desk.js");
const SCRIPT: &str = include_str!("../extension/legacy.js");
const MODULE: &str = include_str!("../extension/module.js");
/// Where the wrappers take the body.
const SLOT: &str = "/* the desk */";

/// The version of the extension's interface (the body's `VERSION`), which this shuttle speaks;
/// `metadata.json` carries it as the extension's version.
pub const VERSION: u32 = 2;

/// The oldest GNOME Shell the extension is written for.
pub const OLDEST: u32 = 43;

/// The extension's files (name, contents) for GNOME Shell `major`.
pub fn files(major: u32) -> Vec<(&'static str, String)> {
    let wrapper = if major >= 45 { MODULE } else { SCRIPT };
    let metadata = serde_json::json!({
        "uuid": UUID,
        "name": "shuttle desk",
        "description": "Lets shuttle list and act on windows, take screenshots and type text. \
                        It answers only the first client that claims it.",
        "shell-version": [major.to_string()],
        "version": VERSION,
        "url": "https://github.com/shuttle-desk/shuttle",
    });
    vec![
        ("extension.js", wrapper.replace(SLOT, BODY)),
        ("metadata.json", format!("{metadata:#}\n")),
    ]
}

/// Writes the extension for GNOME Shell `major` into `data/gnome-shell/extensions/UUID`,
/// where `data` is an XDG data directory; answers the directory.
pub fn install(data: &Path, major: u32) -> std::io::Result<PathBuf> {
    let dir = data.join("gnome-shell/extensions").join(UUID);
    std::fs::create_dir_all(&dir)?;
    for (name, text) in files(major) {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(dir)
}

/// The major version of the GNOME Shell `program` (`gnome-shell --version` prints "GNOME Shell
/// 43.9"); `None` when it does not run or says something else.
pub fn shell_major(program: &Path) -> Option<u32> {
    let out = Command::new(program).arg("--version").output().ok()?;
    parse_major(&String::from_utf8_lossy(&out.stdout))
}

fn parse_major(said: &str) -> Option<u32> {
    said.trim()
        .strip_prefix("GNOME Shell ")?
        .split('.')
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_read_from_what_the_shell_prints() {
        assert_eq!(parse_major("GNOME Shell 43.9\n"), Some(43));
        assert_eq!(parse_major("GNOME Shell 46.rc"), Some(46));
        assert_eq!(parse_major("mutter 43.8"), None);
    }

    #[test]
    fn each_version_gets_the_form_it_loads() {
        let script = files(43);
        assert!(script[0].1.contains("function init()"));
        assert!(!script[0].1.contains("export default"));
        let module = files(45);
        assert!(module[0].1.contains("export default class"));
        assert!(!module[0].1.contains("imports.gi"));
        for (_, text) in [&script[0], &module[0]] {
            assert!(text.contains("class Desk"), "the body is in");
            assert!(!text.contains(SLOT));
        }
        let metadata: serde_json::Value = serde_json::from_str(&script[1].1).unwrap();
        assert_eq!(metadata["uuid"], UUID);
        assert_eq!(metadata["shell-version"], serde_json::json!(["43"]));
        assert_eq!(metadata["version"], VERSION);
        assert!(
            BODY.contains(&format!("const VERSION = {VERSION};")),
            "the body speaks it"
        );
    }

    #[test]
    fn the_shell_reads_a_byte_more_of_the_clipboard_than_the_largest_limit() {
        use desk_core::call::ClipFormat;
        let largest = [ClipFormat::Text, ClipFormat::Image, ClipFormat::Files]
            .map(desk::clip::limit)
            .into_iter()
            .max()
            .unwrap();
        let bound = BODY
            .lines()
            .find_map(|l| l.strip_prefix("const CLIPBOARD_READ_MOST = "))
            .expect("the extension bounds its clipboard reads");
        // A sum of products of numbers, as the constant is written.
        let value: usize = bound
            .trim_end_matches(';')
            .split('+')
            .map(|term| {
                term.split('*')
                    .map(|n| n.trim().parse::<usize>().unwrap())
                    .product::<usize>()
            })
            .sum();
        assert_eq!(value, largest + 1);
    }
}
