//! What the tests of the newer desktops share: Debian 13's KWin 6 and GNOME Shell 48, unpacked
//! into a tree by scripts/trixie.sh, whose `bin` holds wrappers that run the tree's programs
//! under bubblewrap with the tree as their root.

use std::path::Path;

/// PATH with `bin` (a tree's wrappers) first, so a seat or session finds its programs there.
pub(crate) fn path_first(bin: &str) -> String {
    format!("{bin}:{}", std::env::var("PATH").unwrap_or_default())
}

/// Asserts that a process of process group `group` runs from the tree beside `bin`, not from
/// this machine's own.
pub(crate) fn runs_from(bin: &str, group: i64) {
    let tree = Path::new(bin).with_file_name("tree").display().to_string();
    let commands = in_group(group);
    assert!(
        commands
            .iter()
            .any(|cmd| cmd.starts_with(&format!("bwrap --bind {tree} / "))),
        "no process of group {group} runs from {tree}: {commands:?}"
    );
}

/// The command lines of process group `group`'s processes.
fn in_group(group: i64) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // The fields after the command's closing parenthesis: state, ppid, pgrp.
            let pgrp: i64 = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(2)?
                .parse()
                .ok()?;
            (pgrp == group).then(|| {
                std::fs::read_to_string(entry.path().join("cmdline"))
                    .unwrap_or_default()
                    .replace('\0', " ")
            })
        })
        .collect()
}
