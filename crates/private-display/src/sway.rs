//! A private Wayland desktop: a headless sway (software rendering, one output, no XWayland)
//! with a session D-Bus and an AT-SPI bus, started and ended together like an X one.
//!
//! sway will not run as root. Under root it runs as `nobody`, with a runtime directory of its
//! own outside the daemon's private state directory (which nobody else may enter); the
//! daemon, as root, still reaches its sockets, and so do the apps it starts there. The apps
//! get a runtime directory of the daemon's own (see `PrivateDisplay::start_buses`).

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::reap::{self, Record};
use crate::{DisplayError, PrivateDisplay, START_TIMEOUT, Screen, create_dir, sway_requirements};

impl PrivateDisplay {
    /// Starts a headless sway whose state (record, bus socket, log) lives in `dir`, with one
    /// output of `screen`'s size. Its name is its Wayland socket's path, which its clients get
    /// as WAYLAND_DISPLAY; SWAYSOCK names its IPC.
    pub fn start_sway(dir: &Path, screen: Screen) -> Result<Self, DisplayError> {
        let dir_error = |source| DisplayError::Dir {
            dir: dir.to_path_buf(),
            source,
        };
        create_dir(dir)?;
        let [sway, dbus, launcher] = sway_requirements().map(|needed| {
            needed.found.ok_or(DisplayError::Missing {
                program: needed.program,
                package: needed.package,
            })
        });
        let (sway, dbus, launcher) = (sway?, dbus?, launcher?);
        let user = sway_user()?;
        let home = sway_home(dir, user)?;
        let runtime = home.join("run");
        let config = home.join("sway.conf");
        let home_error = |source| DisplayError::Dir {
            dir: home.clone(),
            source,
        };
        // Written by the daemon where sway's user cannot change it.
        std::fs::write(&config, sway_config(screen)).map_err(home_error)?;
        make_dir(&runtime, 0o700).map_err(home_error)?;
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(&runtime, Some(uid), Some(gid)).map_err(home_error)?;
        }
        let log = std::fs::File::create(dir.join("sway.log")).map_err(dir_error)?;
        let mut command = Command::new(&sway);
        command
            .arg("-c")
            .arg(&config)
            .env_clear()
            .env(
                "PATH",
                std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
            )
            .env("HOME", &runtime)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("WLR_BACKENDS", "headless")
            .env("WLR_RENDERER", "pixman")
            .env("WLR_LIBINPUT_NO_DEVICES", "1")
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        if let Some((uid, gid)) = user {
            command.uid(uid).gid(gid);
        }
        let server = command.spawn().map_err(|e| DisplayError::Start {
            part: "sway",
            reason: e.to_string(),
        })?;
        let group = server.id() as i32;
        let record_path = dir.join("display.json");
        let mut display = Self {
            record: Record {
                display: runtime.display().to_string(),
                group,
                started: reap::stat(group).map_or(0, |s| s.started),
                runtime: (home != dir.join("sway")).then(|| home.clone()),
                owner: user.map(|(uid, _)| uid),
                boot: reap::boot_id(),
            },
            record_path,
            env: Vec::new(),
            children: vec![server],
            reach: crate::Reach::default(),
        };
        display.write_record();
        let deadline = Instant::now() + START_TIMEOUT;
        let ready = runtime.join("ready");
        while !ready.exists() {
            if let Ok(Some(status)) = display.children[0].try_wait() {
                let said = std::fs::read_to_string(dir.join("sway.log")).unwrap_or_default();
                let mut last: Vec<&str> = said.lines().rev().take(5).collect();
                last.reverse();
                return Err(DisplayError::Start {
                    part: "sway",
                    reason: format!("it exited ({status}): {}", last.join(" / ")),
                });
            }
            if Instant::now() >= deadline {
                return Err(DisplayError::Start {
                    part: "sway",
                    reason: format!("not ready within {} s", START_TIMEOUT.as_secs()),
                });
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let find = |prefix: &str, suffix: &str| {
            use std::os::unix::fs::FileTypeExt;
            std::fs::read_dir(&runtime).ok().and_then(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_socket()))
                    .map(|e| e.path())
                    .find(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with(prefix) && n.ends_with(suffix))
                    })
            })
        };
        let (Some(socket), Some(ipc)) = (find("wayland-", ""), find("sway-ipc.", ".sock")) else {
            return Err(DisplayError::Start {
                part: "sway",
                reason: format!("it made no sockets in {}", runtime.display()),
            });
        };
        // Named by its socket from now on, as its apps' WAYLAND_DISPLAY names it.
        display.record.display = socket.display().to_string();
        display.write_record();
        display.env = vec![
            ("WAYLAND_DISPLAY".into(), socket.display().to_string()),
            ("SWAYSOCK".into(), ipc.display().to_string()),
            ("XDG_SESSION_TYPE".into(), "wayland".into()),
            ("GDK_BACKEND".into(), "wayland".into()),
            ("QT_QPA_PLATFORM".into(), "wayland".into()),
        ];
        display.start_buses(dir, &dbus, &launcher)?;
        display.set_reach(dir, [socket.clone()], None);
        tracing::info!(socket = %socket.display(), group, "private sway ready");
        Ok(display)
    }

    pub(crate) fn write_record(&self) {
        if let Ok(text) = serde_json::to_vec(&self.record) {
            let _ = std::fs::write(&self.record_path, text);
        }
    }
}

/// The user a root daemon runs sway as (sway refuses root): `nobody`; `None` when the daemon
/// is not root, and sway runs as the daemon's user.
fn sway_user() -> Result<Option<(u32, u32)>, DisplayError> {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(None);
    }
    // SAFETY: a valid C string; the entry is read at once, before another lookup.
    let entry = unsafe { libc::getpwnam(c"nobody".as_ptr()) };
    if entry.is_null() {
        return Err(DisplayError::Start {
            part: "sway",
            reason: "sway will not run as root, and there is no user nobody to run it as; run \
                     the daemon as your own user"
                .into(),
        });
    }
    // SAFETY: checked non-null above.
    let entry = unsafe { &*entry };
    Ok(Some((entry.pw_uid, entry.pw_gid)))
}

/// The directory that holds sway's config and its runtime directory `run`. For a daemon of
/// the seat's own user it is `dir/sway`. Under root, sway's user must reach it, and `dir` is
/// closed to others, so it is a new directory in the system's temporary directory, under a
/// random name (never one made beforehand), owned by root and readable by all; only `run` in
/// it belongs to sway's user.
fn sway_home(dir: &Path, user: Option<(u32, u32)>) -> Result<PathBuf, DisplayError> {
    if user.is_none() {
        let home = dir.join("sway");
        let _ = std::fs::remove_dir_all(&home);
        make_dir(&home, 0o700).map_err(|source| DisplayError::Dir {
            dir: home.clone(),
            source,
        })?;
        return Ok(home);
    }
    fresh_dir("shuttle-sway", 0o755)
}

/// A new directory in the system's temporary directory, named `prefix` and 16 random hex
/// digits (never one made beforehand), with `mode`.
pub fn fresh_dir(prefix: &str, mode: u32) -> Result<PathBuf, DisplayError> {
    let mut last = None;
    for _ in 0..8 {
        let dir = std::env::temp_dir().join(format!("{prefix}-{}", random_name()?));
        match make_dir(&dir, mode) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(source) => return Err(DisplayError::Dir { dir, source }),
        }
    }
    Err(DisplayError::Dir {
        dir: std::env::temp_dir(),
        source: last.unwrap_or_else(|| std::io::Error::other("no free name")),
    })
}

/// Makes one directory with `mode`, failing when it exists.
fn make_dir(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new().mode(mode).create(path)?;
    // The umask may have taken bits away.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// 16 random hex digits.
fn random_name() -> Result<String, DisplayError> {
    let mut bytes = [0u8; 8];
    std::io::Read::read_exact(
        &mut std::fs::File::open("/dev/urandom").map_err(|source| DisplayError::Dir {
            dir: "/dev/urandom".into(),
            source,
        })?,
        &mut bytes,
    )
    .map_err(|source| DisplayError::Dir {
        dir: "/dev/urandom".into(),
        source,
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// One output of `screen`'s size, no XWayland (a seat's apps run native), no borders, and a
/// file that says sway is ready.
fn sway_config(screen: Screen) -> String {
    format!(
        "xwayland disable\n\
         output HEADLESS-1 resolution {}x{} position 0 0\n\
         default_border none\n\
         default_floating_border none\n\
         seat seat0 fallback true\n\
         exec_always touch $XDG_RUNTIME_DIR/ready\n",
        screen.width, screen.height
    )
}
