//! What a run executes: the bundled Node (or a plugin's program) and the runtime's entry module.
//!
//! The runtime (`runtime/lib/*.mts`) is compiled into the binary and written out, once per
//! content, to a private directory beside the socket; Node 24 strips its types as it loads
//! them. Node itself is found by [`crate::node`], never on the person's PATH.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The runtime's plan executor, which `gui_plan` runs as its script.
pub const PLAN_EXECUTOR: &str = "gui_plan.mts";

/// The runtime's files: its entry module first.
const RUNTIME: &[(&str, &str)] = &[
    (
        "run.mts",
        include_str!("../../../../../runtime/lib/run.mts"),
    ),
    (
        "desk.mts",
        include_str!("../../../../../runtime/lib/desk.mts"),
    ),
    (
        "wire.mts",
        include_str!("../../../../../runtime/lib/wire.mts"),
    ),
    (
        "verbs.gen.mts",
        include_str!("../../../../../runtime/lib/verbs.gen.mts"),
    ),
    (
        PLAN_EXECUTOR,
        include_str!("../../../../../runtime/lib/gui_plan.mts"),
    ),
];

/// The Node binary for `script_run`.
pub fn node() -> Result<PathBuf, String> {
    crate::node::find()
        .map(|found| found.path)
        .map_err(|e| e.to_string())
}

/// Writes the runtime under `dir` (once per content) and answers its entry module.
pub fn entry(dir: &Path) -> Result<PathBuf, String> {
    let mut digest = Sha256::new();
    for (name, text) in RUNTIME {
        digest.update(name.as_bytes());
        digest.update(text.as_bytes());
    }
    let hash: String = digest
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    let home = dir.join(format!("runtime-{hash}"));
    let entry = home.join(RUNTIME[0].0);
    if entry.is_file() {
        return Ok(entry);
    }
    let fail = |what: &str, e: std::io::Error| format!("cannot write the runtime {what}: {e}");
    // Written aside and renamed into place, so a run never sees half a runtime.
    let staging = dir.join(format!("runtime-{hash}.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&staging)
        .map_err(|e| fail(&staging.display().to_string(), e))?;
    for (name, text) in RUNTIME {
        std::fs::write(staging.join(name), text).map_err(|e| fail(name, e))?;
    }
    match std::fs::rename(&staging, &home) {
        Ok(()) => Ok(entry),
        // Another daemon's write won the race; its copy is the same content.
        Err(_) if entry.is_file() => {
            let _ = std::fs::remove_dir_all(&staging);
            Ok(entry)
        }
        Err(e) => Err(fail(&home.display().to_string(), e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_is_written_once_and_whole() {
        let dir = std::env::temp_dir().join(format!("shuttle-runtime-{}", std::process::id()));
        let first = entry(&dir).unwrap();
        assert!(first.ends_with("run.mts"));
        for (name, text) in RUNTIME {
            let on_disk = std::fs::read_to_string(first.with_file_name(name)).unwrap();
            assert_eq!(&on_disk, text);
        }
        assert_eq!(entry(&dir).unwrap(), first);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_desk_api_covers_every_verb() {
        let desk = RUNTIME
            .iter()
            .find(|(name, _)| *name == "verbs.gen.mts")
            .unwrap()
            .1;
        let listed: Vec<&str> = desk
            .split("export const VERBS = [")
            .nth(1)
            .and_then(|rest| rest.split(']').next())
            .expect("verbs.gen.mts exports VERBS")
            .split(',')
            .map(|s| s.trim().trim_matches('"'))
            .filter(|s| !s.is_empty())
            .collect();
        let verbs: Vec<&str> = desk_core::call::Verb::ALL
            .iter()
            .map(|v| v.name())
            .collect();
        assert_eq!(
            listed, verbs,
            "runtime/lib/verbs.gen.mts VERBS and the verb table differ"
        );
    }
}
