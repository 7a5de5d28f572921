//! The Node.js that scripts run on: the pin it must match and where it is found.
//!
//! Node is never taken from the person's PATH, so a script runs on the same Node (and the same
//! TypeScript stripping) on every machine. It is found at `SHUTTLE_NODE`, else at
//! `node/bin/node` beside the shuttle binary (the release archive's and the Debian package's
//! layout), else where `scripts/node.sh` installs it. The pin lives in `packaging/node.pin`,
//! which the install scripts read too.

use std::path::{Path, PathBuf};

/// Names a Node binary to run scripts with, instead of the bundled one.
pub const NODE_ENV: &str = "SHUTTLE_NODE";

const PIN_FILE: &str = include_str!("../../../packaging/node.pin");

/// The pinned Node: its version and the sha256 of its binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// The version, without the `v`: `24.22.3`.
    pub version: &'static str,
    /// The sha256 of `bin/node`, in hex.
    pub binary_sha256: &'static str,
}

/// The pin `packaging/node.pin` holds.
pub fn pin() -> Pin {
    Pin {
        version: pinned("NODE_VERSION"),
        binary_sha256: pinned("NODE_BINARY_SHA256"),
    }
}

fn pinned(key: &str) -> &'static str {
    PIN_FILE
        .lines()
        .filter_map(|line| line.split_once('='))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim())
        .unwrap_or_else(|| panic!("packaging/node.pin sets {key}"))
}

/// Where a Node was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `SHUTTLE_NODE` names it: the person chose it, pin or not.
    Env,
    /// `node/bin/node` beside the shuttle binary.
    Beside,
    /// Where `scripts/node.sh` installs it.
    Installed,
}

/// A Node binary for scripts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The binary.
    pub path: PathBuf,
    /// How it was found.
    pub source: Source,
}

/// Why no Node could be used.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// `SHUTTLE_NODE` names something that is not a file.
    #[error("{NODE_ENV} names {}, which is not a file; point it at a Node 24 binary or unset it", .0.display())]
    NotAFile(PathBuf),
    /// Neither beside the binary nor installed.
    #[error(
        "no Node.js for scripts: none beside {beside} nor in {installed}; install shuttle from \
         its release archive or Debian package (both carry Node), or from a source tree run \
         scripts/node.sh, or set {NODE_ENV} to a Node 24 binary"
    )]
    Missing {
        /// Where it was looked for beside the binary.
        beside: String,
        /// Where `scripts/node.sh` installs it.
        installed: String,
    },
}

/// The Node binary for `script_run`.
pub fn find() -> Result<Found, NodeError> {
    if let Some(path) = std::env::var_os(NODE_ENV).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(Found {
                path,
                source: Source::Env,
            })
        } else {
            Err(NodeError::NotAFile(path))
        };
    }
    let beside = beside_binary();
    let installed = installed_home().map(|home| home.join("bin/node"));
    let candidates = [(&beside, Source::Beside), (&installed, Source::Installed)];
    for (candidate, source) in candidates {
        if let Some(path) = candidate.as_ref().filter(|p| p.is_file()) {
            return Ok(Found {
                path: path.clone(),
                source,
            });
        }
    }
    let shown = |p: Option<PathBuf>, default: &str| {
        p.map_or_else(|| default.to_string(), |p| p.display().to_string())
    };
    Err(NodeError::Missing {
        beside: shown(beside, "the shuttle binary"),
        installed: shown(installed, "~/.local/share/loomhand/shuttle/node/bin/node"),
    })
}

/// `node/bin/node` in the directory of the running binary (symlinks resolved, so
/// `/usr/bin/shuttle` finds `/usr/lib/shuttle/node`).
fn beside_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.join("node/bin/node"))
}

/// `$XDG_DATA_HOME/loomhand/shuttle/node`, where `scripts/node.sh` puts Node.
pub fn installed_home() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|home| PathBuf::from(home).join(".local/share"))
        })?;
    Some(data.join("loomhand/shuttle/node"))
}

/// The sha256 of `path`, in hex.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut digest = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        digest.update(&buffer[..n]);
    }
    Ok(digest
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pin_names_a_version_and_a_checksum() {
        let pin = pin();
        assert_eq!(pin.version.split('.').count(), 3, "{pin:?}");
        assert!(pin.version.starts_with("24."), "{pin:?}");
        assert_eq!(pin.binary_sha256.len(), 64, "{pin:?}");
        assert!(pin.binary_sha256.chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn a_file_hashes_to_its_sha256() {
        let path = std::env::temp_dir().join(format!("shuttle-sha-{}", std::process::id()));
        std::fs::write(&path, b"abc").unwrap();
        let hash = sha256_file(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            hash,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
