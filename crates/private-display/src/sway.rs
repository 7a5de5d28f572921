//! A private Wayland desktop: a headless sway (software rendering, one output, no XWayland)
//! with a session D-Bus and an AT-SPI bus, started and ended together like an X one.
//!
//! sway will not run as root. Under root it runs as `nobody`, in a runtime directory of its
//! own outside the daemon's private state directory (which nobody else may enter); the
//! daemon, as root, still reaches its sockets, and so do the apps it starts there.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::reap::{self, Record};
use crate::{DisplayError, PrivateDisplay, START_TIMEOUT, Screen, create_dir, sway_requirements};

/// The user and group a root daemon runs sway as.
const NOBODY: u32 = 65534;

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
        let root = unsafe { libc::geteuid() } == 0;
        let runtime = runtime_dir(dir, root)?;
        let config = runtime.join("sway.conf");
        std::fs::write(&config, sway_config(screen)).map_err(dir_error)?;
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
        if root {
            command.uid(NOBODY).gid(NOBODY);
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
                runtime: Some(runtime.clone()),
            },
            record_path,
            env: Vec::new(),
            children: vec![server],
        };
        display.write_record();
        let deadline = Instant::now() + START_TIMEOUT;
        let ready = runtime.join("ready");
        while !ready.exists() {
            if let Ok(Some(status)) = display.children[0].try_wait() {
                let said = std::fs::read_to_string(dir.join("sway.log")).unwrap_or_default();
                let last: Vec<&str> = said.lines().rev().take(5).collect();
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
            ("XDG_RUNTIME_DIR".into(), runtime.display().to_string()),
            ("XDG_SESSION_TYPE".into(), "wayland".into()),
            ("GDK_BACKEND".into(), "wayland".into()),
            ("QT_QPA_PLATFORM".into(), "wayland".into()),
        ];
        display.start_buses(dir, &dbus, &launcher)?;
        tracing::info!(socket = %socket.display(), group, "private sway ready");
        Ok(display)
    }

    fn write_record(&self) {
        if let Ok(text) = serde_json::to_vec(&self.record) {
            let _ = std::fs::write(&self.record_path, text);
        }
    }
}

/// sway's runtime directory: inside `dir`, or under root a directory in the system's temporary
/// directory owned by nobody (sway's user), mode 0700.
fn runtime_dir(dir: &Path, root: bool) -> Result<PathBuf, DisplayError> {
    use std::os::unix::fs::DirBuilderExt;
    let runtime = if root {
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("seat")
            .to_string();
        std::env::temp_dir().join(format!("shuttle-sway-{}-{name}", std::process::id()))
    } else {
        dir.join("run")
    };
    let failed = |source| DisplayError::Dir {
        dir: runtime.clone(),
        source,
    };
    let _ = std::fs::remove_dir_all(&runtime);
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&runtime)
        .map_err(failed)?;
    if root {
        std::os::unix::fs::chown(&runtime, Some(NOBODY), Some(NOBODY)).map_err(failed)?;
    }
    Ok(runtime)
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
