//! The daemon's log: a file under the user's state directory, or stderr in the foreground.
//!
//! Log lines name tools, agents, outcomes and durations, never arguments or results: those can
//! hold what a user typed, passwords included.

use std::fs::{DirBuilder, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::PathBuf;

use anyhow::Context;
use tracing_subscriber::EnvFilter;

/// `$XDG_STATE_HOME/loomhand/shuttle`, else `~/.local/state/loomhand/shuttle`: the log and the
/// journal live here.
pub fn state_dir() -> PathBuf {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into()))
                .join(".local/state")
        });
    state.join("loomhand/shuttle")
}

/// The daemon's log file, `serve.log` in [`state_dir`].
pub fn log_path() -> PathBuf {
    state_dir().join("serve.log")
}

/// Sends the daemon's log to stderr (`foreground`) or appends it to [`log_path`].
/// `SHUTTLE_LOG` sets the filter (default `info`).
pub fn init(foreground: bool) -> anyhow::Result<()> {
    let filter = EnvFilter::try_from_env("SHUTTLE_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    if foreground {
        builder.with_writer(std::io::stderr).init();
        return Ok(());
    }
    let path = log_path();
    let dir = path.parent().expect("the log path has a directory");
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| format!("cannot create the log directory {}", dir.display()))?;
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)
        .with_context(|| format!("cannot open the log file {}", path.display()))?;
    builder
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .init();
    Ok(())
}
