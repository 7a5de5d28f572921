//! Starting apps detached from the daemon.
//!
//! An app is started in a session of its own, so it does not die with the daemon. Its output
//! goes to a file with no name (kept under 1 MiB while the daemon runs), whose end the desk
//! reads when the app exits before showing a window: that is where it says why. Where a systemd
//! user manager runs, the app also gets a scope of its own (`systemd-run --user --scope`), so it
//! is not accounted to, or killed with, the daemon's cgroup.

use std::ffi::OsString;
use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use desk::{DeskError, Exit, Launched, Sandbox};

use crate::chromium;
use crate::sandbox::Room;

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

/// Starts `app` with `args` and `env` (or in a sandbox, in its room), with the switch a
/// Chromium-based app needs to expose its pages to accessibility, and the settings that turn
/// accessibility on in toolkits that keep it off (`toolkits`). A program that could not be
/// found or started, or a sandbox that cannot be made, is reported as [`DeskError::Unsent`]:
/// nothing ran.
pub fn spawn(
    app: &str,
    args: &[String],
    env: &Env,
    sandbox: Option<(&Sandbox, &Room)>,
) -> Result<Launched, DeskError> {
    let unsent = DeskError::unsent;
    let program = resolve(app).map_err(unsent)?;
    let added = chromium::accessibility_args(&program, args);
    // The switches before the caller's arguments, which may end switches (`--`) or be files.
    let argv: Vec<OsString> = std::iter::once(program.clone().into_os_string())
        .chain(added.iter().chain(args).map(OsString::from))
        .collect();
    // A sandboxed app needs no scope: it lives and ends with its display, and systemd-run
    // would need the person's session, which the sandbox keeps from it.
    let scoped = sandbox.is_none() && scopes_work();
    // Toolkits that keep accessibility off unless asked are asked, in the app's own room too.
    let inherited = |name: &str| match env.set.iter().find(|(k, _)| k == name) {
        Some((_, value)) => Some(value.clone()),
        None if env.remove.iter().any(|r| r == name) => None,
        None => std::env::var(name).ok(),
    };
    let toolkits = crate::toolkits::accessibility_env(inherited);
    let mut command = match sandbox {
        Some((sandbox, room)) => {
            let mut room = room.clone();
            room.env
                .retain(|(k, _)| !toolkits.iter().any(|(t, _)| t == k));
            room.env.extend(toolkits.iter().cloned());
            crate::sandbox::command(sandbox, &room, &argv)?
        }
        None if scoped => {
            let mut command = Command::new("systemd-run");
            command
                .args(["--user", "--scope", "--quiet", "--collect", "--"])
                .args(&argv);
            command
        }
        None => {
            let mut command = Command::new(&argv[0]);
            command.args(&argv[1..]);
            command
        }
    };
    if sandbox.is_none() {
        for var in &env.remove {
            command.env_remove(var);
        }
        command.envs(env.set.iter().map(|(k, v)| (k, v)));
        command.envs(toolkits.iter().map(|(k, v)| (k, v)));
    }
    detach(&mut command);
    let output = output_file();
    if let Some(file) = &output
        && let (Ok(out), Ok(err)) = (file.try_clone(), file.try_clone())
    {
        command.stdout(out).stderr(err);
    }
    let child = command.spawn().map_err(|e| {
        unsent(DeskError::Invalid(format!(
            "cannot start {}: {e}",
            program.display()
        )))
    })?;
    let pid = child.id();
    // It leads a session of its own: whatever it starts stays known as the agent's.
    crate::lineage::note_leader(pid);
    let exit = Arc::new(OnceLock::new());
    let noted = exit.clone();
    std::thread::spawn(move || reap(child, output, &noted));
    Ok(Launched {
        pid,
        sandboxed: sandbox.is_some(),
        scoped,
        added,
        exit,
    })
}

/// The most of an app's output kept on disk while the daemon runs.
const OUTPUT_MAX: u64 = 1 << 20;
/// How much of its end an exit reports.
const OUTPUT_TAIL: u64 = 2048;
/// How often the reaper looks while an app starts (when an early exit is news), and after.
const REAP_POLL_STARTING: Duration = Duration::from_millis(50);
const REAP_POLL: Duration = Duration::from_secs(5);
/// How long an app counts as starting.
const STARTING: Duration = Duration::from_secs(20);

/// A file with no name for an app's output, readable and writable by this user only, or none
/// where the temporary directory cannot make one (the output then goes nowhere).
fn output_file() -> Option<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .mode(0o600)
        .custom_flags(libc::O_TMPFILE)
        .open(std::env::temp_dir())
        .ok()
}

/// Waits for the app to exit, keeping its output file small meanwhile (the app appends, so
/// emptying it is safe), then notes how it ended and the end of what it wrote. Reaping also
/// leaves no zombie behind in the daemon.
fn reap(mut child: Child, output: Option<File>, exit: &OnceLock<Exit>) {
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break child.wait().ok(),
        }
        if let Some(file) = &output
            && file.metadata().is_ok_and(|m| m.len() > OUTPUT_MAX)
        {
            let _ = file.set_len(0);
        }
        std::thread::sleep(if started.elapsed() < STARTING {
            REAP_POLL_STARTING
        } else {
            REAP_POLL
        });
    };
    let Some(status) = status else { return };
    let _ = exit.set(Exit {
        status: status.to_string(),
        success: status.success(),
        output: output.as_ref().map(tail),
    });
}

/// The last lines of `file`, at most [`OUTPUT_TAIL`] bytes of them.
fn tail(file: &File) -> String {
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let from = len.saturating_sub(OUTPUT_TAIL);
    let mut bytes = vec![0; (len - from) as usize];
    if file.read_exact_at(&mut bytes, from).is_err() {
        return String::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    // A cut through a line drops the part before the first whole line.
    let text = match (from > 0, text.find('\n')) {
        (true, Some(newline)) => &text[newline + 1..],
        _ => &text[..],
    };
    text.trim().to_string()
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
    fn an_exit_is_noted_with_the_end_of_the_apps_output() {
        let script = "echo starting; echo 'it failed: no display' >&2; exit 3".to_string();
        let launched = spawn("sh", &["-c".into(), script], &Env::default(), None).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let exit = loop {
            if let Some(exit) = launched.exit.get() {
                break exit.clone();
            }
            assert!(Instant::now() < deadline, "the exit was never noted");
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(!exit.success);
        assert!(exit.status.contains('3'), "{}", exit.status);
        assert_eq!(
            exit.output.as_deref(),
            Some("starting\nit failed: no display")
        );
    }

    #[test]
    fn the_tail_starts_at_a_whole_line() {
        let file = output_file().unwrap();
        let long = "x".repeat(OUTPUT_TAIL as usize);
        std::io::Write::write_all(&mut &file, format!("{long}\nlast line\n").as_bytes()).unwrap();
        assert_eq!(tail(&file), "last line");
    }

    #[test]
    fn unknown_programs_are_refused_by_name() {
        let err = spawn("no-such-program-shuttle", &[], &Env::default(), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("not on the daemon's PATH"), "{err}");
        let err = spawn("/nope/prog", &[], &Env::default(), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("no such file"), "{err}");
    }
}
