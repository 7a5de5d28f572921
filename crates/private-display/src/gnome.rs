//! A private GNOME desktop: a headless GNOME Shell on Wayland (one virtual monitor, no
//! XWayland) with a session D-Bus, an AT-SPI bus and PipeWire (Mutter's screen-cast streams,
//! which its RemoteDesktop input points into, need it), started and ended together like the
//! others.
//!
//! GNOME Shell wants a system bus, and where `/run/systemd/seats` exists it asks logind for
//! its session, which a headless shell does not have. It gets a system bus of its own, which
//! serves nothing, and where systemd's directory is present it runs in a mount namespace
//! (bubblewrap) that hides it. It loads the extensions the caller gives, from a data
//! directory of the display's own, with settings in a key file there.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::reap::{self, Record};
use crate::{
    DisplayError, PrivateDisplay, Requirement, START_TIMEOUT, Screen, buses, create_dir, on_path,
    wait_until,
};

/// The Wayland socket's name, in the display's runtime directory.
const SOCKET: &str = "wayland-gnome";

/// An extension to install and enable: its UUID, its files (name, contents), and the D-Bus
/// name it owns once loaded, which the start waits for.
#[derive(Debug, Clone)]
pub struct Extension {
    pub uuid: String,
    pub files: Vec<(String, String)>,
    pub bus_name: String,
}

/// What a private GNOME seat runs: GNOME Shell, PipeWire, the buses, and bubblewrap where
/// systemd's runtime directory must be hidden.
pub fn gnome_requirements() -> Vec<Requirement> {
    let [dbus, launcher] = buses();
    let mut needs = vec![
        on_path("gnome-shell", "gnome-shell"),
        on_path("pipewire", "pipewire"),
        dbus,
        launcher,
    ];
    if systemd_seats() {
        needs.push(on_path("bwrap", "bubblewrap"));
    }
    needs
}

fn systemd_seats() -> bool {
    Path::new("/run/systemd/seats").exists()
}

/// A system bus that serves nothing but lets GNOME Shell start.
fn system_bus(socket: &Path) -> String {
    format!(
        r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
        socket.display()
    )
}

/// The Shell's settings: `extension` enabled, no animations, no welcome tour.
fn settings(extension: &str) -> String {
    format!(
        "[org/gnome/shell]\nenabled-extensions=['{extension}']\ndisable-user-extensions=false\n\
         welcome-dialog-last-shown-version='999'\n\n\
         [org/gnome/desktop/interface]\nenable-animations=false\n"
    )
}

impl PrivateDisplay {
    /// Starts a headless GNOME Shell whose state lives in `dir`, with one virtual monitor of
    /// `screen`'s size and `extension` loaded. Its name is its Wayland socket's path.
    pub fn start_gnome(
        dir: &Path,
        screen: Screen,
        extension: &Extension,
    ) -> Result<Self, DisplayError> {
        let dir_error = |source| DisplayError::Dir {
            dir: dir.to_path_buf(),
            source,
        };
        create_dir(dir)?;
        let mut found = Vec::new();
        for needed in gnome_requirements() {
            found.push(needed.found.ok_or(DisplayError::Missing {
                program: needed.program,
                package: needed.package,
            })?);
        }
        let (shell, pipewire, dbus, launcher) = (&found[0], &found[1], &found[2], &found[3]);
        let bwrap = found.get(4);

        // The Shell's own home: its settings and the extension.
        let home = dir.join("gnome");
        let _ = std::fs::remove_dir_all(&home);
        let installed = home
            .join("data/gnome-shell/extensions")
            .join(&extension.uuid);
        std::fs::create_dir_all(&installed).map_err(dir_error)?;
        for (name, text) in &extension.files {
            std::fs::write(installed.join(name), text).map_err(dir_error)?;
        }
        let settings_dir = home.join("config/glib-2.0/settings");
        std::fs::create_dir_all(&settings_dir).map_err(dir_error)?;
        std::fs::write(settings_dir.join("keyfile"), settings(&extension.uuid))
            .map_err(dir_error)?;

        let runtime = dir.join("runtime");
        // The system bus leads the display's process group.
        let system_socket = dir.join("system_bus");
        let _ = std::fs::remove_file(&system_socket);
        let config = dir.join("system.conf");
        std::fs::write(&config, system_bus(&system_socket)).map_err(dir_error)?;
        let leader = Command::new(dbus)
            .arg(format!("--config-file={}", config.display()))
            .args(["--nofork", "--nopidfile"])
            .env_clear()
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| DisplayError::Start {
                part: "system D-Bus",
                reason: e.to_string(),
            })?;
        let group = leader.id() as i32;
        let socket = runtime.join(SOCKET);
        let mut display = Self {
            record: Record {
                display: socket.display().to_string(),
                group,
                started: reap::stat(group).map_or(0, |s| s.started),
                // Its sockets live there; a Shell killed outright leaves them behind.
                runtime: Some(runtime.clone()),
                owner: None,
                boot: reap::boot_id(),
            },
            record_path: dir.join("display.json"),
            env: Vec::new(),
            children: vec![leader],
            reach: crate::Reach::default(),
        };
        display.write_record();
        wait_until("system D-Bus", START_TIMEOUT, || {
            std::os::unix::net::UnixStream::connect(&system_socket).is_ok()
        })?;
        display.start_buses(dir, dbus, launcher)?;

        let pipewire_child = display.spawn("PipeWire", &mut Command::new(pipewire))?;
        display.children.push(pipewire_child);
        wait_until("PipeWire", START_TIMEOUT, || {
            std::os::unix::net::UnixStream::connect(runtime.join("pipewire-0")).is_ok()
        })?;

        let log = std::fs::File::create(dir.join("gnome-shell.log")).map_err(dir_error)?;
        let mut command = match bwrap {
            Some(bwrap) => {
                let mut c = Command::new(bwrap);
                c.args(["--dev-bind", "/", "/", "--tmpfs", "/run/systemd", "--"])
                    .arg(shell);
                c
            }
            None => Command::new(shell),
        };
        command
            .args([
                "--headless",
                "--wayland",
                "--no-x11",
                "--wayland-display",
                SOCKET,
            ])
            .arg("--virtual-monitor")
            .arg(format!("{}x{}", screen.width, screen.height))
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("GSETTINGS_BACKEND", "keyfile")
            .env("XDG_SESSION_TYPE", "wayland")
            .env("XDG_CURRENT_DESKTOP", "GNOME")
            .env(
                "DBUS_SYSTEM_BUS_ADDRESS",
                format!("unix:path={}", system_socket.display()),
            )
            // The extension opens the seat on its windows, not on the overview.
            .env("SHUTTLE_SEAT", "1");
        for var in Self::persons_session() {
            command.env_remove(var);
        }
        let shell_child = command
            .envs(display.env.iter().map(|(k, v)| (k, v)))
            .process_group(group)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(dir_error)?)
            .stderr(log)
            .spawn()
            .map_err(|e| DisplayError::Start {
                part: "GNOME Shell",
                reason: e.to_string(),
            })?;
        display.children.push(shell_child);
        let bus = display
            .env
            .iter()
            .find(|(k, _)| k == "DBUS_SESSION_BUS_ADDRESS")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        display.wait_for_compositor(
            "GNOME Shell",
            &dir.join("gnome-shell.log"),
            &socket,
            &bus,
            (&extension.bus_name, "its extension"),
        )?;

        display.env.extend([
            ("WAYLAND_DISPLAY".into(), socket.display().to_string()),
            ("XDG_SESSION_TYPE".into(), "wayland".into()),
            ("XDG_CURRENT_DESKTOP".into(), "GNOME".into()),
            ("GDK_BACKEND".into(), "wayland".into()),
            ("QT_QPA_PLATFORM".into(), "wayland".into()),
            // Mutter draws no title bars for Wayland apps, so Qt draws its own, and then
            // reports accessibility positions from below it, where its window's origin is not.
            // Without it, the two agree (and an agent closes windows with `close`).
            ("QT_WAYLAND_DISABLE_WINDOWDECORATION".into(), "1".into()),
        ]);
        display.set_reach(dir, [socket.clone()], None);
        tracing::info!(socket = %socket.display(), group, "private GNOME Shell ready");
        Ok(display)
    }

    /// Waits until the display's compositor, its last child (`part`, logging to `log`), serves
    /// its Wayland socket and `name` is owned on the session bus at `bus` (by `owner`, in the
    /// words of the error); one that exits is reported with its last words.
    pub(crate) fn wait_for_compositor(
        &mut self,
        part: &'static str,
        log: &Path,
        socket: &Path,
        bus: &str,
        (name, owner): (&str, &str),
    ) -> Result<(), DisplayError> {
        let failed = |reason: String| DisplayError::Start { part, reason };
        let connection = zbus::blocking::connection::Builder::address(bus)
            .and_then(|b| b.build())
            .map_err(|e| failed(format!("cannot connect to its session bus: {e}")))?;
        let dbus =
            zbus::blocking::fdo::DBusProxy::new(&connection).map_err(|e| failed(e.to_string()))?;
        let bus_name =
            zbus::names::BusName::try_from(name.to_string()).map_err(|e| failed(e.to_string()))?;
        let deadline = Instant::now() + START_TIMEOUT * 2;
        let last_words = || {
            let said = std::fs::read_to_string(log).unwrap_or_default();
            let mut last: Vec<&str> = said.lines().rev().take(5).collect();
            last.reverse();
            last.join(" / ")
        };
        loop {
            let compositor = self
                .children
                .last_mut()
                .expect("the compositor was started");
            if let Ok(Some(status)) = compositor.try_wait() {
                return Err(failed(format!("it exited ({status}): {}", last_words())));
            }
            let serving = std::os::unix::net::UnixStream::connect(socket).is_ok();
            if serving && dbus.name_has_owner(bus_name.clone()).unwrap_or(false) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(failed(if serving {
                    format!(
                        "{owner} never took the bus name {name}; it said: {}",
                        last_words()
                    )
                } else {
                    format!(
                        "no Wayland socket within {} s; it said: {}",
                        (START_TIMEOUT * 2).as_secs(),
                        last_words()
                    )
                }));
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}
