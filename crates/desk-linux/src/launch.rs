//! Starting apps detached from the daemon.
//!
//! An app is started in a session of its own with its output sent nowhere, so it neither dies
//! with the daemon nor writes into its log. Where a systemd user manager runs, the app also gets
//! a scope of its own (`systemd-run --user --scope`), so it is not accounted to, or killed with,
//! the daemon's cgroup.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use desk::{DeskError, Launched};

use crate::chromium;

/// Makes `command` start detached: in a session of its own (so it outlives its starter and no
/// terminal hangup reaches it), its input and output going nowhere.
pub fn detach(command: &mut Command) {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: setsid is async-signal-safe and touches nothing but the child itself.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Changes to the daemon's environment for the apps it starts.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Env {
    /// Variables set (replacing the daemon's).
    pub set: Vec<(String, String)>,
    /// Variables removed.
    pub remove: Vec<String>,
}

/// Starts `app` with `args` and `env`, and with the switch a Chromium-based app needs to
/// expose its pages to accessibility. A program that could not be found or started is
/// reported as [`DeskError::Unsent`]: nothing ran.
pub fn spawn(app: &str, args: &[String], env: &Env) -> Result<Launched, DeskError> {
    let unsent = DeskError::unsent;
    let program = resolve(app).map_err(unsent)?;
    let scoped = scopes_work();
    let mut command = if scoped {
        let mut c = Command::new("systemd-run");
        c.args(["--user", "--scope", "--quiet", "--collect", "--"])
            .arg(&program);
        c
    } else {
        Command::new(&program)
    };
    let added = chromium::accessibility_args(&program, args);
    // Before the caller's arguments, which may end switches (`--`) or be files.
    command.args(&added).args(args);
    for var in &env.remove {
        command.env_remove(var);
    }
    command.envs(env.set.iter().map(|(k, v)| (k, v)));
    detach(&mut command);
    let mut child = command.spawn().map_err(|e| {
        unsent(DeskError::Invalid(format!(
            "cannot start {}: {e}",
            program.display()
        )))
    })?;
    let pid = child.id();
    // Reap the app when it exits, so it leaves no zombie behind in the daemon.
    std::thread::spawn(move || child.wait());
    Ok(Launched { pid, scoped, added })
}

/// The program `app` names: a path, or a name found on PATH.
fn resolve(app: &str) -> Result<PathBuf, DeskError> {
    let not_found = |why: &str| DeskError::Invalid(format!("cannot launch {app:?}: {why}"));
    if app.contains('/') {
        let path = Path::new(app);
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(not_found("no such file"))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(app))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| not_found("it is not on the daemon's PATH; pass an absolute path"))
}

/// Whether `systemd-run --user --scope` works here; tried once.
fn scopes_work() -> bool {
    static WORKS: OnceLock<bool> = OnceLock::new();
    *WORKS.get_or_init(|| {
        Command::new("systemd-run")
            .args(["--user", "--scope", "--quiet", "--collect", "true"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_programs_are_refused_by_name() {
        let err = spawn("no-such-program-shuttle", &[], &Env::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("not on the daemon's PATH"), "{err}");
        let err = spawn("/nope/prog", &[], &Env::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("no such file"), "{err}");
    }
}
