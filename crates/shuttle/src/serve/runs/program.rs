//! What a run executes: the bundled Node (or a plugin's program) and the runtime's entry module.
//!
//! The runtime (`runtime/lib/*.mts`) is compiled into the binary and written out, once per
//! content, to a private directory beside the socket; Node 24 strips its types as it loads
//! them. Node itself is found without the person's PATH: `SHUTTLE_NODE`, then `node/bin/node`
//! beside the shuttle binary (the release layout), then where `scripts/node.sh` installs it.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Names a Node binary to run scripts with, instead of the bundled one.
pub const NODE_ENV: &str = "SHUTTLE_NODE";

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
    if let Some(path) = std::env::var_os(NODE_ENV).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "{NODE_ENV} names {}, which is not a file; point it at a Node 24 binary or unset it",
                path.display()
            ))
        };
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("node/bin/node")));
    let installed = installed_node();
    for candidate in beside.iter().chain(installed.iter()) {
        if candidate.is_file() {
            return Ok(candidate.clone());
        }
    }
    Err(format!(
        "no Node.js for scripts: run scripts/node.sh, which installs the pinned Node 24 into {}, \
         or set {NODE_ENV} to a Node 24 binary",
        installed
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "~/.local/share/loomhand/shuttle/node".into())
    ))
}

/// `$XDG_DATA_HOME/loomhand/shuttle/node/bin/node`, where `scripts/node.sh` puts it.
fn installed_node() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|home| PathBuf::from(home).join(".local/share"))
        })?;
    Some(data.join("loomhand/shuttle/node/bin/node"))
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
