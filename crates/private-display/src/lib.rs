//! A private X desktop for an agent: an X server (Xvfb) with a cookie of its own, a window
//! manager (openbox), a session D-Bus and an AT-SPI bus, started together and ended together.
//!
//! The X server leads a process group the window manager and the buses join, and the display
//! writes a [`Record`] of that group (with the server's start time) before it starts anything
//! else, so a daemon that was killed outright has its display ended by the next one
//! ([`reap`]). Apps that run on the display are found by their DISPLAY and ended with it.
//!
//! Linux only: it reads `/proc` and runs the Debian packages xvfb, openbox, dbus-daemon and
//! at-spi2-core.

mod reap;
mod sway;
mod xauth;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub use reap::Record;

/// How long each part may take to come up.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the parts get to end after SIGTERM before SIGKILL.
const END_GRACE: Duration = Duration::from_secs(2);
/// Display numbers are tried from here up: far from the :0 and :1 a person's session takes.
const FIRST_NUMBER: u32 = 100;
const NUMBERS_TRIED: u32 = 50;
/// The window manager's settings: new windows take the focus, no animation, no key bindings.
const OPENBOX_CONFIG: &str = include_str!("../openbox.xml");
/// The session bus's settings, listening on `address`: the standard session bus's, without
/// starting services on demand. A service the bus would start (a file manager, a terminal
/// server, a portal) would run outside any sandbox the display's apps are in, with the
/// person's files in reach.
fn session_bus(address: &str) -> String {
    let address = address
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!(
        r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>{address}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#
    )
}

/// Where Debian and others keep the AT-SPI bus launcher.
const AT_SPI_LAUNCHERS: &[&str] = &[
    "/usr/libexec/at-spi-bus-launcher",
    "/usr/lib/at-spi2-core/at-spi-bus-launcher",
    "/usr/lib/at-spi2/at-spi-bus-launcher",
];

/// Why a private display could not start.
#[derive(Debug, thiserror::Error)]
pub enum DisplayError {
    /// A program it needs is not installed.
    #[error(
        "{program} is not installed: install the Debian package {package} (apt install {package})"
    )]
    Missing {
        program: &'static str,
        package: &'static str,
    },
    /// A part did not come up.
    #[error("the private display's {part} did not start: {reason}")]
    Start { part: &'static str, reason: String },
    /// Its state directory could not be written.
    #[error("cannot prepare the private display's directory {}: {source}", dir.display())]
    Dir {
        dir: PathBuf,
        source: std::io::Error,
    },
}

/// The screen a private display has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Screen {
    pub width: u32,
    pub height: u32,
}

impl Default for Screen {
    fn default() -> Self {
        Self {
            width: 1920,
            height: 1080,
        }
    }
}

/// The cookie every private display of one daemon demands, and the Xauthority file that holds
/// it for each of them (after the person's own entries, so one XAUTHORITY reaches every display
/// the daemon talks to). Made once, before the daemon's threads, since XAUTHORITY is set in the
/// daemon's environment.
#[derive(Debug)]
pub struct Auth {
    cookie: [u8; 16],
    file: PathBuf,
    inherited: Option<PathBuf>,
    numbers: std::sync::Mutex<Vec<u32>>,
}

impl Auth {
    /// A new cookie, and its file `dir/Xauthority` (mode 0600) holding `inherited`'s entries.
    pub fn new(dir: &Path, inherited: Option<&Path>) -> Result<Self, DisplayError> {
        create_dir(dir)?;
        let dir_error = |source| DisplayError::Dir {
            dir: dir.to_path_buf(),
            source,
        };
        let auth = Self {
            cookie: xauth::new_cookie().map_err(dir_error)?,
            file: dir.join("Xauthority"),
            inherited: inherited.map(Path::to_path_buf),
            numbers: std::sync::Mutex::new(Vec::new()),
        };
        auth.rewrite(&[]).map_err(dir_error)?;
        Ok(auth)
    }

    /// The Xauthority file, for XAUTHORITY.
    pub fn file(&self) -> &Path {
        &self.file
    }

    fn add(&self, number: u32) -> std::io::Result<()> {
        let mut numbers = self
            .numbers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if numbers.contains(&number) {
            return Ok(());
        }
        numbers.push(number);
        // Written under the lock: two displays starting at once never interleave their files.
        self.rewrite(&numbers)
    }

    /// Writes the file anew beside itself and renames it into place, so a reader never sees
    /// half of it.
    fn rewrite(&self, numbers: &[u32]) -> std::io::Result<()> {
        let staging = self.file.with_extension("new");
        xauth::write(&staging, numbers, &self.cookie, self.inherited.as_deref())?;
        std::fs::rename(&staging, &self.file)
    }
}

fn create_dir(dir: &Path) -> Result<(), DisplayError> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|source| DisplayError::Dir {
            dir: dir.to_path_buf(),
            source,
        })
}

/// A running private display; dropping it ends the display and every app on it.
#[derive(Debug)]
pub struct PrivateDisplay {
    record: Record,
    record_path: PathBuf,
    env: Vec<(String, String)>,
    children: Vec<Child>,
    /// What its apps reach from a sandbox.
    reach: Reach,
}

/// What a display's apps reach from a sandbox: its sockets and runtime directory, and the file
/// of its own cookie alone (never the daemon's, which holds the person's too).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// The paths, bound into the sandbox where they are.
    pub paths: Vec<PathBuf>,
    /// The variables its apps get there.
    pub env: Vec<(String, String)>,
    /// A home for its sandboxed apps, removed with the display.
    pub home: PathBuf,
}

impl PrivateDisplay {
    /// Starts a display whose files (bus socket, record) live in `dir`, created 0700, with
    /// `auth`'s cookie.
    pub fn start(dir: &Path, screen: Screen, auth: &Auth) -> Result<Self, DisplayError> {
        let dir_error = |source| DisplayError::Dir {
            dir: dir.to_path_buf(),
            source,
        };
        create_dir(dir)?;
        let [xvfb, openbox, dbus, launcher] = requirements().map(|needed| {
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

    /// The display's name, such as `:100`.
    pub fn name(&self) -> &str {
        &self.record.display
    }

    /// What its apps reach from a sandbox.
    pub fn reach(&self) -> &Reach {
        &self.reach
    }

    /// Sets what its apps reach from a sandbox: `own` (its server's socket, ...), its buses and
    /// runtime directory, with its environment but what `overridden` sets.
    fn set_reach(
        &mut self,
        dir: &Path,
        own: impl IntoIterator<Item = PathBuf>,
        overridden: Option<(&str, PathBuf)>,
    ) {
        let mut env = self.env.clone();
        if let Some((key, value)) = overridden {
            env.retain(|(k, _)| k != key);
            env.push((key.to_string(), value.display().to_string()));
        }
        let mut paths: Vec<PathBuf> = own.into_iter().collect();
        paths.extend([dir.join("bus"), dir.join("runtime")]);
        self.reach = Reach {
            paths,
            env,
            home: dir.join("home"),
        };
    }

    /// Whether its X server still runs.
    pub fn alive(&self) -> bool {
        reap::running(self.record.group)
    }

    /// What it recorded about itself.
    pub fn record(&self) -> &Record {
        &self.record
    }

    /// The environment its clients need: DISPLAY, XAUTHORITY, the session and accessibility
    /// buses, and the toolkit settings that keep apps on X11.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// The variables that name the person's session (their X server, session and
    /// accessibility buses, Wayland compositor and its IPC, runtime directory, session
    /// manager): a client of a private display
    /// inherits none of them, whatever the daemon started with, so nothing on it reaches the
    /// person's. Those the display has its own of are then set in [`PrivateDisplay::env`].
    pub fn persons_session() -> &'static [&'static str] {
        &[
            "DISPLAY",
            "XAUTHORITY",
            "DBUS_SESSION_BUS_ADDRESS",
            "DBUS_STARTER_ADDRESS",
            "DBUS_STARTER_BUS_TYPE",
            "AT_SPI_BUS_ADDRESS",
            "WAYLAND_DISPLAY",
            "WAYLAND_SOCKET",
            "SWAYSOCK",
            "I3SOCK",
            "HYPRLAND_INSTANCE_SIGNATURE",
            "XDG_RUNTIME_DIR",
            "SESSION_MANAGER",
            "DESKTOP_STARTUP_ID",
            "XDG_ACTIVATION_TOKEN",
            "NO_AT_BRIDGE",
        ]
    }

    /// Gives the display's clients a runtime directory of their own (`dir/runtime`, so none
    /// reaches the person's), then starts the session D-Bus (its socket `dir/bus`) and the
    /// AT-SPI bus in the display's process group, and adds their addresses to its environment.
    fn start_buses(
        &mut self,
        dir: &Path,
        dbus: &Path,
        launcher: &Path,
    ) -> Result<(), DisplayError> {
        let runtime = dir.join("runtime");
        create_dir(&runtime)?;
        self.env
            .push(("XDG_RUNTIME_DIR".into(), runtime.display().to_string()));
        let bus = dir.join("bus");
        let _ = std::fs::remove_file(&bus);
        let bus_address = format!("unix:path={}", bus.display());
        self.env
            .push(("DBUS_SESSION_BUS_ADDRESS".into(), bus_address.clone()));
        let config = dir.join("session.conf");
        std::fs::write(&config, session_bus(&bus_address)).map_err(|source| DisplayError::Dir {
            dir: dir.to_path_buf(),
            source,
        })?;
        let dbus_child = self.spawn(
            "session D-Bus",
            Command::new(dbus)
                .arg(format!("--config-file={}", config.display()))
                .args(["--nofork", "--nopidfile"]),
        )?;
        self.children.push(dbus_child);
        wait_until("session D-Bus", START_TIMEOUT, || {
            std::os::unix::net::UnixStream::connect(&bus).is_ok()
        })?;
        let launcher_child = self.spawn(
            "AT-SPI bus",
            Command::new(launcher).arg("--launch-immediately"),
        )?;
        self.children.push(launcher_child);
        let a11y = accessibility_bus(&bus_address)?;
        self.env.push(("AT_SPI_BUS_ADDRESS".into(), a11y));
        Ok(())
    }

    /// Spawns a part of the display in the X server's process group, with the display's
    /// environment and nothing of the person's session: the AT-SPI bus launcher, for one,
    /// hands AT_SPI_BUS_ADDRESS on to the registry it starts, which would then serve the
    /// person's accessibility bus instead of this display's.
    fn spawn(&self, part: &'static str, command: &mut Command) -> Result<Child, DisplayError> {
        for var in Self::persons_session() {
            command.env_remove(var);
        }
        command
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .process_group(self.record.group)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| DisplayError::Start {
                part,
                reason: e.to_string(),
            })
    }
}

impl Drop for PrivateDisplay {
    fn drop(&mut self) {
        let children = &mut self.children;
        let ended = reap::end(&self.record, END_GRACE, || {
            for child in children.iter_mut() {
                let _ = child.try_wait();
            }
        });
        // What SIGKILL ended is collected here, so no zombie of the display stays behind.
        let deadline = Instant::now() + END_GRACE;
        for child in &mut self.children {
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let _ = std::fs::remove_file(&self.record_path);
        self.record.remove_runtime();
        let _ = std::fs::remove_dir_all(&self.reach.home);
        tracing::info!(display = %self.record.display, processes = ended, "private display ended");
    }
}

/// Ends every display a killed daemon left behind under `dir` (each in a directory of its
/// own, with its record); answers what it ended.
pub fn reap(dir: &Path) -> Vec<Record> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut reaped = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path().join("display.json");
        let Ok(text) = std::fs::read(&path) else {
            continue;
        };
        let _ = std::fs::remove_file(&path);
        let Ok(record) = serde_json::from_slice::<Record>(&text) else {
            continue;
        };
        let ended = reap::end(&record, END_GRACE, || {});
        record.remove_runtime();
        tracing::warn!(display = %record.display, processes = ended, "ended a private display left by a daemon that did not exit");
        reaped.push(record);
    }
    reaped
}

/// A program a private display runs, and where it is on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// The program's name.
    pub program: &'static str,
    /// The Debian package that has it.
    pub package: &'static str,
    /// Where it is; `None` when it is not installed.
    pub found: Option<PathBuf>,
}

/// What a private X display runs: the X server, the window manager, the session bus and the
/// AT-SPI bus launcher, each with where it was found.
pub fn requirements() -> [Requirement; 4] {
    let [dbus, launcher] = buses();
    [
        on_path("Xvfb", "xvfb"),
        on_path("openbox", "openbox"),
        dbus,
        launcher,
    ]
}

/// What a private sway seat runs: sway, the session bus and the AT-SPI bus launcher.
pub fn sway_requirements() -> [Requirement; 3] {
    let [dbus, launcher] = buses();
    [on_path("sway", "sway"), dbus, launcher]
}

/// The session bus and the AT-SPI bus launcher, which every kind of private display runs.
fn buses() -> [Requirement; 2] {
    [
        on_path("dbus-daemon", "dbus-daemon"),
        Requirement {
            program: "at-spi-bus-launcher",
            package: "at-spi2-core",
            found: AT_SPI_LAUNCHERS
                .iter()
                .map(PathBuf::from)
                .find(|p| p.exists()),
        },
    ]
}

/// `program` (from Debian's `package`), looked up on PATH.
fn on_path(program: &'static str, package: &'static str) -> Requirement {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    let found = std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file());
    Requirement {
        program,
        package,
        found,
    }
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

/// The accessibility bus's address, once the launcher owns `org.a11y.Bus` on the session bus;
/// also turns accessibility on, which toolkits read before they expose their trees.
fn accessibility_bus(session: &str) -> Result<String, DisplayError> {
    let failed = |reason: String| DisplayError::Start {
        part: "AT-SPI bus",
        reason,
    };
    let conn = zbus::blocking::connection::Builder::address(session)
        .and_then(|b| b.build())
        .map_err(|e| failed(format!("cannot connect to the session bus: {e}")))?;
    let dbus = zbus::blocking::fdo::DBusProxy::new(&conn).map_err(|e| failed(e.to_string()))?;
    let name = zbus::names::BusName::try_from("org.a11y.Bus").map_err(|e| failed(e.to_string()))?;
    wait_until("AT-SPI bus", START_TIMEOUT, || {
        dbus.name_has_owner(name.clone()).unwrap_or(false)
    })?;
    let bus = zbus::blocking::Proxy::new(&conn, "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus")
        .map_err(|e| failed(e.to_string()))?;
    let address: String = bus
        .call("GetAddress", &())
        .map_err(|e| failed(format!("GetAddress: {e}")))?;
    let status = zbus::blocking::Proxy::new(
        &conn,
        "org.a11y.Bus",
        "/org/a11y/bus",
        "org.freedesktop.DBus.Properties",
    )
    .map_err(|e| failed(e.to_string()))?;
    let enabled = zbus::zvariant::Value::from(true);
    let _: () = status
        .call("Set", &("org.a11y.Status", "IsEnabled", enabled))
        .map_err(|e| failed(format!("turning accessibility on: {e}")))?;
    Ok(address)
}

fn wait_until(
    part: &'static str,
    limit: Duration,
    mut ready: impl FnMut() -> bool,
) -> Result<(), DisplayError> {
    let deadline = Instant::now() + limit;
    while !ready() {
        if Instant::now() >= deadline {
            return Err(DisplayError::Start {
                part,
                reason: format!("not ready within {} s", limit.as_secs()),
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}
