//! A private X desktop: Xvfb with a cookie of its own and openbox, beside its buses.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::reap::{self, Record};
use crate::{
    Auth, DisplayError, PrivateDisplay, Reach, Requirement, START_TIMEOUT, Screen, buses,
    create_dir, on_path, wait_until, xauth,
};

/// Display numbers are tried from here up: far from the :0 and :1 a person's session takes.
const FIRST_NUMBER: u32 = 100;
const NUMBERS_TRIED: u32 = 50;
/// The window manager's settings: new windows take the focus, no animation, no key bindings.
const OPENBOX_CONFIG: &str = include_str!("../openbox.xml");

impl PrivateDisplay {
    /// Starts a display whose files (bus socket, record) live in `dir`, created 0700, with
    /// `auth`'s cookie.
    pub fn start_xvfb(dir: &Path, screen: Screen, auth: &Auth) -> Result<Self, DisplayError> {
        let dir_error = |source| DisplayError::Dir {
            dir: dir.to_path_buf(),
            source,
        };
        create_dir(dir)?;
        let [xvfb, openbox, dbus, launcher] = xvfb_requirements().map(|needed| {
            needed.found.ok_or(DisplayError::Missing {
                program: needed.program,
                package: needed.package,
            })
        });
        let (xvfb, openbox, dbus, launcher) = (xvfb?, openbox?, dbus?, launcher?);
        let cookie = auth.cookie;
        let record_path = dir.join("display.json");

        let (server, number) = start_server(&xvfb, dir, screen, &cookie, &record_path)?;
        let group = server.id() as i32;
        let started = reap::stat(group).map_or(0, |s| s.started);
        let mut display = Self {
            record: Record {
                display: format!(":{number}"),
                group,
                started,
                runtime: None,
                owner: None,
                boot: reap::boot_id(),
            },
            record_path,
            env: Vec::new(),
            children: vec![server],
            reach: Reach::default(),
        };
        auth.add(number).map_err(dir_error)?;
        display.env = vec![
            ("DISPLAY".into(), display.record.display.clone()),
            ("XAUTHORITY".into(), auth.file().display().to_string()),
            ("XDG_SESSION_TYPE".into(), "x11".into()),
            ("GDK_BACKEND".into(), "x11".into()),
            ("QT_QPA_PLATFORM".into(), "xcb".into()),
        ];
        display.start_buses(dir, &dbus, &launcher)?;

        let config = dir.join("openbox.xml");
        std::fs::write(&config, OPENBOX_CONFIG).map_err(dir_error)?;
        let wm = display.spawn(
            "window manager",
            Command::new(openbox)
                .arg("--sm-disable")
                .arg("--config-file")
                .arg(&config),
        )?;
        display.children.push(wm);
        wait_for_window_manager(number, &cookie)?;
        // Xvfb's own cookie file holds this display's entry alone.
        let cookie_file = dir.join("Xauthority.server");
        display.set_reach(
            dir,
            [
                PathBuf::from(format!("/tmp/.X11-unix/X{number}")),
                cookie_file.clone(),
            ],
            Some(("XAUTHORITY", cookie_file)),
        );
        let name = display.record.display.clone();
        tracing::info!(display = %name, group, "private display ready");
        Ok(display)
    }
}

/// What a private X display runs: the X server, the window manager, the session bus and the
/// AT-SPI bus launcher, each with where it was found.
pub fn xvfb_requirements() -> [Requirement; 4] {
    let [dbus, launcher] = buses();
    [
        on_path("Xvfb", "xvfb"),
        on_path("openbox", "openbox"),
        dbus,
        launcher,
    ]
}

/// Starts Xvfb on the first free display number, leading a new process group, and records it
/// at once. Answers the server and its number once it accepts a client with the cookie.
fn start_server(
    xvfb: &Path,
    dir: &Path,
    screen: Screen,
    cookie: &[u8],
    record_path: &Path,
) -> Result<(Child, u32), DisplayError> {
    // Xvfb reads its cookie from a file of its own, holding only the private entry.
    let server_auth = dir.join("Xauthority.server");
    let mut last = String::from("every display number was taken");
    for number in FIRST_NUMBER..FIRST_NUMBER + NUMBERS_TRIED {
        if taken(number) {
            continue;
        }
        xauth::write(&server_auth, &[number], cookie, None).map_err(|source| {
            DisplayError::Dir {
                dir: dir.to_path_buf(),
                source,
            }
        })?;
        let log_path = dir.join("Xvfb.log");
        let log = std::fs::File::create(&log_path).map_err(|source| DisplayError::Dir {
            dir: dir.to_path_buf(),
            source,
        })?;
        let mut server = Command::new(xvfb)
            .arg(format!(":{number}"))
            .args(["-screen", "0"])
            .arg(format!("{}x{}x24", screen.width, screen.height))
            // No abstract socket: a sandboxed app, kept from abstract sockets made outside its
            // sandbox, finds this display at its socket file (which libxcb tries only when no
            // abstract socket answers).
            .args([
                "-nolisten",
                "tcp",
                "-nolisten",
                "local",
                "-noreset",
                "-auth",
            ])
            .arg(&server_auth)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| DisplayError::Start {
                part: "X server",
                reason: e.to_string(),
            })?;
        let record = Record {
            display: format!(":{number}"),
            group: server.id() as i32,
            started: reap::stat(server.id() as i32).map_or(0, |s| s.started),
            runtime: None,
            owner: None,
            boot: reap::boot_id(),
        };
        if let Ok(text) = serde_json::to_vec(&record) {
            let _ = std::fs::write(record_path, text);
        }
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(Some(status)) = server.try_wait() {
                let said = std::fs::read_to_string(&log_path).unwrap_or_default();
                last = format!("Xvfb :{number} exited ({status}): {}", said.trim());
                break;
            }
            if x_connect(number, cookie).is_some() {
                return Ok((server, number));
            }
            if Instant::now() >= deadline {
                let _ = server.kill();
                let _ = server.wait();
                let _ = std::fs::remove_file(record_path);
                return Err(DisplayError::Start {
                    part: "X server",
                    reason: format!(
                        "Xvfb :{number} did not accept a client within {} s",
                        START_TIMEOUT.as_secs()
                    ),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let _ = std::fs::remove_file(record_path);
    Err(DisplayError::Start {
        part: "X server",
        reason: last,
    })
}

/// Whether an X server holds display `number`: its lock file names a live process. A lock a
/// killed server left is stale, and Xvfb replaces it.
fn taken(number: u32) -> bool {
    match std::fs::read_to_string(format!("/tmp/.X{number}-lock")) {
        Ok(pid) => pid
            .trim()
            .parse::<i32>()
            .map_or(true, |pid| Path::new(&format!("/proc/{pid}")).exists()),
        Err(_) => Path::new(&format!("/tmp/.X11-unix/X{number}")).exists(),
    }
}

/// A connection to display `number` with the cookie, when the server takes one.
fn x_connect(number: u32, cookie: &[u8]) -> Option<x11rb::rust_connection::RustConnection> {
    let stream =
        std::os::unix::net::UnixStream::connect(format!("/tmp/.X11-unix/X{number}")).ok()?;
    let stream = x11rb::rust_connection::DefaultStream::from_unix_stream(stream)
        .ok()?
        .0;
    x11rb::rust_connection::RustConnection::connect_to_stream_with_auth_info(
        stream,
        0,
        xauth::PROTOCOL.as_bytes().to_vec(),
        cookie.to_vec(),
    )
    .ok()
}

/// Waits for the window manager to claim the screen (`_NET_SUPPORTING_WM_CHECK` on the root)
/// and to publish its client list (openbox sets that a moment later, and an empty list is
/// still a list), so the first app is placed and focused by it and the first call can list
/// windows.
fn wait_for_window_manager(number: u32, cookie: &[u8]) -> Result<(), DisplayError> {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{AtomEnum, ConnectionExt};
    let failed = |reason: &str| DisplayError::Start {
        part: "window manager",
        reason: reason.into(),
    };
    let conn = x_connect(number, cookie).ok_or_else(|| failed("the X server went away"))?;
    let root = conn.setup().roots[0].root;
    let atom = |name: &[u8]| {
        conn.intern_atom(false, name)
            .ok()
            .and_then(|c| c.reply().ok())
            .map(|r| r.atom)
            .ok_or_else(|| failed("the X server did not answer"))
    };
    let (check, clients) = (
        atom(b"_NET_SUPPORTING_WM_CHECK")?,
        atom(b"_NET_CLIENT_LIST")?,
    );
    let property = |name| {
        conn.get_property(false, root, name, AtomEnum::WINDOW, 0, 1)
            .ok()
            .and_then(|c| c.reply().ok())
    };
    wait_until("window manager", START_TIMEOUT, || {
        property(check).is_some_and(|r| r.value_len > 0)
            && property(clients).is_some_and(|r| r.type_ == u32::from(AtomEnum::WINDOW))
    })
}
