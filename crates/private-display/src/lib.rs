//! A private desktop for an agent: a display server (Xvfb with openbox, `xvfb`, a headless
//! sway, `sway`, or a headless GNOME Shell, `gnome`) with a session D-Bus and an AT-SPI bus,
//! started together and ended together.
//!
//! The display server leads a process group the window manager and the buses join, and the
//! display writes a [`Record`] of that group (with the server's start time) before it starts
//! anything else, so a daemon that was killed outright has its display ended by the next one
//! ([`reap`]). Apps that run on the display are found by their DISPLAY or WAYLAND_DISPLAY and
//! ended with it.
//!
//! Linux only: it reads `/proc` and runs the Debian packages xvfb, openbox (or sway, or
//! gnome-shell with pipewire), dbus-daemon and at-spi2-core.

mod gnome;
mod kde;
mod reap;
mod sway;
mod xauth;
mod xvfb;

pub use gnome::{Extension, gnome_requirements};
pub use kde::kde_requirements;
pub use sway::fresh_dir;
pub use xvfb::xvfb_requirements;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub use reap::Record;

/// How long each part may take to come up.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the parts get to end after SIGTERM before SIGKILL.
const END_GRACE: Duration = Duration::from_secs(2);
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
  <!-- A session bus's limits, as D-Bus's own session.conf sets them: the daemon's defaults
       (32 MiB a message) are a system bus's, and a bus drops a client that sends more, as a
       GNOME Shell answering with a large clipboard would. -->
  <limit name="max_incoming_bytes">1000000000</limit>
  <limit name="max_outgoing_bytes">1000000000</limit>
  <limit name="max_message_size">1000000000</limit>
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
    /// The display's name, such as `:100`.
    pub fn name(&self) -> &str {
        &self.record.display
    }

    /// The directory of its own state, the daemon's alone.
    pub fn dir(&self) -> &Path {
        self.record_path.parent().unwrap_or(Path::new("/"))
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
    /// AT-SPI bus in the display's process group (which the bus leads when there is none yet),
    /// and adds their addresses to its environment.
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
        if self.record.group == 0 {
            // No group yet: the bus leads one, and the record is written before anything else
            // starts.
            self.record.group = dbus_child.id() as i32;
            self.record.started = reap::stat(self.record.group).map_or(0, |s| s.started);
            self.write_record();
        }
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
