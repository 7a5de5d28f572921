//! Chromium and the apps built on it (Chrome, Edge, Brave, Electron apps such as VS Code): they
//! put their pages on the accessibility bus only when a screen reader runs at their start or
//! they are started with [`FORCE_ACCESSIBILITY`].

use std::path::Path;

pub use desk::FORCE_ACCESSIBILITY;

/// Program names of Chromium-based apps whose launcher is a script or a link elsewhere.
const NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "chrome",
    "google-chrome",
    "google-chrome-stable",
    "brave-browser",
    "microsoft-edge",
    "microsoft-edge-stable",
    "vivaldi",
    "electron",
    "code",
    "codium",
];

/// Files every Chromium build ships beside its executable.
const MARKERS: &[&str] = &["v8_context_snapshot.bin", "snapshot_blob.bin"];

/// Whether `program` is a Chromium-based app: by its name, or by what lies beside the
/// executable it resolves to.
pub fn is_chromium_program(program: &Path) -> bool {
    let named = |path: &Path| {
        path.file_name()
            .is_some_and(|name| NAMES.contains(&&*name.to_string_lossy()))
    };
    if named(program) {
        return true;
    }
    let Ok(real) = program.canonicalize() else {
        return false;
    };
    named(&real)
        || real
            .parent()
            .is_some_and(|dir| MARKERS.iter().any(|m| dir.join(m).is_file()))
}

/// Whether process `pid` runs a Chromium-based app.
pub fn is_chromium_process(pid: u32) -> bool {
    std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| is_chromium_program(&exe))
}

/// Whether process `pid` was started with [`FORCE_ACCESSIBILITY`]. Chromium rewrites its
/// command line as one string of words, so words count as well as arguments.
pub fn started_with_accessibility(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
        cmdline
            .split(|&b| b == 0 || b == b' ')
            .any(|word| word == FORCE_ACCESSIBILITY.as_bytes())
    })
}

/// The arguments to add when launching `program` with `args` so that its pages can be read:
/// the switch for a Chromium-based app that does not have it yet.
pub fn accessibility_args(program: &Path, args: &[String]) -> Vec<String> {
    if is_chromium_program(program) && !args.iter().any(|a| a == FORCE_ACCESSIBILITY) {
        vec![FORCE_ACCESSIBILITY.to_string()]
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromium_is_known_by_name_or_by_the_files_beside_it() {
        assert!(is_chromium_program(Path::new("/usr/bin/chromium")));
        assert!(is_chromium_program(Path::new(
            "/opt/google/chrome/google-chrome"
        )));
        assert!(!is_chromium_program(Path::new("/usr/bin/firefox-esr")));
        let dir = std::env::temp_dir().join(format!("shuttle-chromium-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let app = dir.join("some-electron-app");
        std::fs::write(&app, "").unwrap();
        assert!(!is_chromium_program(&app));
        std::fs::write(dir.join("v8_context_snapshot.bin"), "").unwrap();
        assert!(is_chromium_program(&app));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_switch_is_added_once() {
        let chromium = Path::new("/usr/bin/chromium");
        assert_eq!(accessibility_args(chromium, &[]), [FORCE_ACCESSIBILITY]);
        assert!(accessibility_args(chromium, &[FORCE_ACCESSIBILITY.into()]).is_empty());
        assert!(accessibility_args(Path::new("/usr/bin/mousepad"), &[]).is_empty());
    }
}
