//! Running an app an agent launches in a sandbox (bubblewrap): it sees the system read-only,
//! a home of its own where the person's home was, the parts of the person's home they chose
//! (read-write or read-only), and its display's sockets; nothing of the person's session
//! (their buses, agents, keyring, runtime directory, `/tmp`), and of the processes only its
//! own, in a process namespace of its own.
//!
//! Where the kernel has Landlock's scopes (Linux 6.12 and newer), the app is also kept from
//! abstract unix sockets made outside the sandbox (an X server's or a session bus's that a
//! mount cannot hide) and from signalling processes outside it, and Landlock's ptrace rule
//! keeps it from reading any outside process's memory or environment.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use desk::{DeskError, Sandbox};
use landlock::{CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreated, Scope};

/// Variables of the daemon's environment an app keeps inside: the system's, the locale's and
/// the person's names; nothing that points at their session.
const KEPT: &[&str] = &["PATH", "LANG", "LANGUAGE", "TZ", "USER", "LOGNAME", "SHELL"];

/// What a display's apps must reach from inside a sandbox, and what they are told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Room {
    /// Paths bound in where they are: the display's sockets, its runtime directory, the file
    /// of its credential.
    pub reach: Vec<PathBuf>,
    /// The variables its apps get inside (DISPLAY, XAUTHORITY, the buses, XDG_RUNTIME_DIR,
    /// toolkit settings).
    pub env: Vec<(String, String)>,
    /// The display's own home for its apps, made on first use and removed with the display,
    /// unless the sandbox names a lasting one.
    pub home: PathBuf,
}

/// Whether sandboxes can be made here, and how tight they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// bubblewrap, ready to run; else why not and the fix.
    pub bwrap: Result<PathBuf, String>,
    /// Whether the kernel keeps a sandboxed app from outside abstract sockets and signals.
    pub scoped: bool,
}

/// Looks once whether bubblewrap is installed and can make a sandbox here, and whether the
/// kernel has Landlock's scopes.
pub fn probe() -> &'static Probe {
    static PROBE: OnceLock<Probe> = OnceLock::new();
    PROBE.get_or_init(|| Probe {
        bwrap: find_bwrap(),
        scoped: scope(CompatLevel::HardRequirement).is_ok(),
    })
}

fn find_bwrap() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    let bwrap = std::env::split_paths(&path)
        .map(|dir| dir.join("bwrap"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "bubblewrap is not installed: install the Debian package bubblewrap (apt install \
             bubblewrap), or set [apps] sandbox = \"none\" to run apps as the person"
                .to_string()
        })?;
    let out = Command::new(&bwrap)
        .args([
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--unshare-pid",
            "--proc",
            "/proc",
            "true",
        ])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("bubblewrap ({}) cannot start: {e}", bwrap.display()))?;
    if !out.status.success() {
        return Err(format!(
            "bubblewrap ({}) cannot make a sandbox here: {}; unprivileged user namespaces may \
             be off (sysctl kernel.unprivileged_userns_clone=1), or set [apps] sandbox = \
             \"none\"",
            bwrap.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(bwrap)
}

/// A Landlock ruleset that scopes abstract unix sockets and signals to the sandbox.
fn scope(level: CompatLevel) -> Result<RulesetCreated, landlock::RulesetError> {
    Ruleset::default()
        .set_compatibility(level)
        .scope(Scope::AbstractUnixSocket | Scope::Signal)?
        .create()
}

/// The command that runs `argv` (the program, then its arguments) in `sandbox`, in `room`:
/// refused, with nothing started, when bubblewrap cannot run or a path the sandbox names is
/// not there.
pub fn command(sandbox: &Sandbox, room: &Room, argv: &[OsString]) -> Result<Command, DeskError> {
    let refused = |reason: String| DeskError::Invalid(reason).unsent();
    let bwrap = probe().bwrap.clone().map_err(refused)?;
    let program = Path::new(&argv[0]);
    if !sandbox.shows(program) {
        return Err(refused(format!(
            "{} is in the person's home, which the sandbox hides from the apps agents launch; \
             install it elsewhere, or ask the person to show it ([apps] show)",
            program.display()
        )));
    }
    let home = sandbox.home.clone().unwrap_or_else(|| room.home.clone());
    for (setting, paths) in [("share", &sandbox.share), ("show", &sandbox.show)] {
        if let Some(missing) = paths.iter().find(|p| !p.exists()) {
            return Err(refused(format!(
                "[apps] {setting} names {}, which does not exist; create it or take it out of \
                 config.toml. Nothing was launched",
                missing.display()
            )));
        }
    }
    make_home(&home).map_err(|e| {
        refused(format!(
            "cannot make the sandbox's home {}: {e}; nothing was launched",
            home.display()
        ))
    })?;
    let mut command = Command::new(bwrap);
    command
        .args(arguments(sandbox, room, &home))
        .arg("--")
        .args(argv);
    command.env_clear();
    for (key, value) in std::env::vars_os() {
        let Some(name) = key.to_str() else { continue };
        if KEPT.contains(&name) || name.starts_with("LC_") {
            command.env(&key, value);
        }
    }
    command
        .env("HOME", &sandbox.persons_home)
        .envs(room.env.iter().map(|(k, v)| (k, v)));
    // Prepared here, where allocating is safe; only applied in the child.
    let mut ruleset = scope(CompatLevel::BestEffort).ok();
    // SAFETY: restrict_self only makes system calls (prctl, landlock_restrict_self) on the
    // child itself, and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if let Some(ruleset) = ruleset.take() {
                ruleset.restrict_self().map_err(std::io::Error::other)?;
            }
            Ok(())
        });
    }
    Ok(command)
}

/// bubblewrap's arguments: the system read-only, private `/tmp`, `/var/tmp` and `/run`, the
/// home of its own where the person's was, then what the person shares and shows, then the
/// display's sockets.
fn arguments(sandbox: &Sandbox, room: &Room, home: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    let mut push = |words: &[&std::ffi::OsStr]| args.extend(words.iter().map(|w| w.to_os_string()));
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    push(&[os("--ro-bind"), os("/"), os("/")]);
    push(&[os("--dev"), os("/dev"), os("--tmpfs"), os("/dev/shm")]);
    // A process namespace of its own: the app's /proc lists only the sandbox's processes, so
    // it cannot reach the person's home or environment through another process's
    // /proc/PID/root or /proc/PID/environ, on any kernel (Landlock's ptrace rule needs a
    // domain, which older kernels may not give).
    push(&[os("--unshare-pid"), os("--proc"), os("/proc")]);
    for private in ["/tmp", "/var/tmp", "/run"] {
        push(&[os("--tmpfs"), os(private)]);
    }
    // Name lookups may go through a resolver whose files live in /run.
    for resolver in ["/run/systemd/resolve", "/run/resolvconf"] {
        push(&[os("--ro-bind-try"), os(resolver), os(resolver)]);
    }
    push(&[
        os("--bind"),
        home.as_os_str(),
        sandbox.persons_home.as_os_str(),
    ]);
    for path in &sandbox.share {
        push(&[os("--bind"), path.as_os_str(), path.as_os_str()]);
    }
    for path in &sandbox.show {
        push(&[os("--ro-bind"), path.as_os_str(), path.as_os_str()]);
    }
    for path in &room.reach {
        push(&[os("--bind-try"), path.as_os_str(), path.as_os_str()]);
    }
    push(&[os("--chdir"), sandbox.persons_home.as_os_str()]);
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        // A root daemon's apps run as root: they keep what root's files need (a terminal
        // chowns its pty) and nothing that would undo the mounts, trace, or reach devices.
        push(&[os("--cap-drop"), os("ALL")]);
        for kept in ROOTS_KEPT {
            push(&[os("--cap-add"), os(kept)]);
        }
    }
    args
}

/// The capabilities an app of a root daemon keeps in its sandbox: a terminal chowns its pty,
/// and a browser's own sandbox maps root into a user namespace of its own, which takes
/// CAP_SETFCAP.
const ROOTS_KEPT: [&str; 7] = [
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETFCAP",
];

fn make_home(home: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(home)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox() -> Sandbox {
        Sandbox {
            persons_home: "/home/ada".into(),
            home: None,
            share: vec!["/home/ada/work".into()],
            show: vec!["/home/ada/ref".into()],
        }
    }

    #[test]
    fn the_home_comes_before_what_is_shared_in_it_and_the_sockets_last() {
        let room = Room {
            reach: vec!["/tmp/.X11-unix/X100".into()],
            env: Vec::new(),
            home: "/run/user/1/shuttle/display/a/home".into(),
        };
        let args: Vec<String> = arguments(&sandbox(), &room, &room.home)
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        let at = |words: &[&str]| {
            args.windows(words.len())
                .position(|w| w == words)
                .unwrap_or_else(|| panic!("{words:?} not in {args:?}"))
        };
        let tmp = at(&["--tmpfs", "/tmp"]);
        let home = at(&["--bind", "/run/user/1/shuttle/display/a/home", "/home/ada"]);
        let share = at(&["--bind", "/home/ada/work", "/home/ada/work"]);
        let show = at(&["--ro-bind", "/home/ada/ref", "/home/ada/ref"]);
        let socket = at(&["--bind-try", "/tmp/.X11-unix/X100", "/tmp/.X11-unix/X100"]);
        assert!(
            tmp < home && home < share && share < show && show < socket,
            "{args:?}"
        );
        assert!(at(&["--ro-bind", "/", "/"]) < tmp);
        at(&["--tmpfs", "/run"]);
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            assert!(at(&["--cap-drop", "ALL"]) < at(&["--cap-add", "CAP_CHOWN"]));
            assert!(!args.iter().any(|a| a == "CAP_SYS_ADMIN"), "{args:?}");
        }
    }

    #[test]
    fn the_sandbox_shows_the_system_and_only_the_lent_parts_of_the_home() {
        let sandbox = sandbox();
        assert!(sandbox.shows(Path::new("/usr/bin/gedit")));
        assert!(sandbox.shows(Path::new("/home/ada/work/a.txt")));
        assert!(sandbox.shows(Path::new("/home/ada/ref/b.pdf")));
        assert!(!sandbox.shows(Path::new("/home/ada/secret.txt")));
        assert!(!sandbox.shows(Path::new("/home/ada/workshop/c.txt")));
        assert!(!sandbox.shows(Path::new("/tmp/x")));
        assert!(!sandbox.shows(Path::new("/run/user/1000/bus")));
    }
}
