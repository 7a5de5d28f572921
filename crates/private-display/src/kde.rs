//! A private KDE desktop: a headless KWin on Wayland (one virtual output, no XWayland) with a
//! session D-Bus and an AT-SPI bus, started and ended together like the others. The session
//! bus leads its process group, since KWin needs the bus when it starts.
//!
//! KWin serves its fake input and screenshots only to programs a desktop file authorises: the
//! caller gives those files, which go into a data directory of the display's own that KWin
//! reads. Debian installs `kwin_wayland` with a file capability (`cap_sys_resource`) that a
//! container may refuse to grant, failing its start with "Operation not permitted"; then a
//! copy without the capability runs instead (under the same file name, which KWin's Qt
//! platform plugin checks).

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::reap::Record;
use crate::{DisplayError, PrivateDisplay, Requirement, Screen, buses, create_dir, on_path};

/// The Wayland socket's name, in the display's runtime directory.
const SOCKET: &str = "wayland-kde";

/// A menu of every installed application, for KWin 6's lookup of desktop files.
const MENU: &str = r#"<!DOCTYPE Menu PUBLIC "-//freedesktop//DTD Menu 1.0//EN"
 "http://www.freedesktop.org/standards/menu-spec/1.0/menu.dtd">
<Menu>
  <Name>Applications</Name>
  <DefaultAppDirs/>
  <Include><All/></Include>
</Menu>
"#;

/// KWin's name on the session bus, which the start waits for.
const KWIN: &str = "org.kde.KWin";

/// What a private KDE seat runs: KWin and the buses.
pub fn kde_requirements() -> Vec<Requirement> {
    let [dbus, launcher] = buses();
    vec![on_path("kwin_wayland", "kwin-wayland"), dbus, launcher]
}

impl PrivateDisplay {
    /// Starts a headless KWin whose state lives in `dir`, with one virtual output of `screen`'s
    /// size, reading the desktop files `authorised` (name, contents) as installed
    /// applications, and running `input_method`'s command as its input method with the one
    /// variable given in its environment. Its name is its Wayland socket's path.
    pub fn start_kde(
        dir: &Path,
        screen: Screen,
        authorised: &[(String, String)],
        input_method: Option<(String, (&str, PathBuf))>,
    ) -> Result<Self, DisplayError> {
        let dir_error = |source| DisplayError::Dir {
            dir: dir.to_path_buf(),
            source,
        };
        create_dir(dir)?;
        let mut found = Vec::new();
        for needed in kde_requirements() {
            found.push(needed.found.ok_or(DisplayError::Missing {
                program: needed.program,
                package: needed.package,
            })?);
        }
        let (kwin, dbus, launcher) = (&found[0], &found[1], &found[2]);

        // KWin's own home: its settings, caches, and the applications it reads.
        let home = dir.join("kde");
        let _ = std::fs::remove_dir_all(&home);
        let applications = home.join("data/applications");
        std::fs::create_dir_all(&applications).map_err(dir_error)?;
        for (name, text) in authorised {
            std::fs::write(applications.join(name), text).map_err(dir_error)?;
        }
        // KDE Frameworks 6 index the applications through the XDG menu, which a Plasma desktop
        // installs and a lone KWin lacks: without one KWin 6 finds no desktop file at all.
        let menus = home.join("config/menus");
        std::fs::create_dir_all(&menus)
            .and_then(|()| std::fs::write(menus.join("applications.menu"), MENU))
            .map_err(dir_error)?;
        let runtime = dir.join("runtime");
        let socket = runtime.join(SOCKET);
        let mut display = Self {
            record: Record {
                display: socket.display().to_string(),
                // The session bus, started first, leads the group.
                group: 0,
                started: 0,
                // Its sockets live there; a KWin killed outright leaves them behind.
                runtime: Some(runtime.clone()),
                owner: None,
                boot: crate::reap::boot_id(),
            },
            record_path: dir.join("display.json"),
            env: Vec::new(),
            children: Vec::new(),
            reach: crate::Reach::default(),
        };
        display.start_buses(dir, dbus, launcher)?;

        let data_dirs = std::env::var("XDG_DATA_DIRS")
            .ok()
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
        let log = dir.join("kwin.log");
        let start = |program: &Path| -> Result<Child, DisplayError> {
            let log = std::fs::File::create(&log).map_err(dir_error)?;
            let mut command = Command::new(program);
            command
                .args([
                    "--virtual",
                    "--no-lockscreen",
                    "--no-kactivities",
                    "--socket",
                    SOCKET,
                ])
                .arg("--width")
                .arg(screen.width.to_string())
                .arg("--height")
                .arg(screen.height.to_string())
                .env("HOME", &home)
                .env("XDG_CONFIG_HOME", home.join("config"))
                .env("XDG_DATA_HOME", home.join("data"))
                .env("XDG_CACHE_HOME", home.join("cache"))
                .env(
                    "XDG_DATA_DIRS",
                    format!("{}:{data_dirs}", home.join("data").display()),
                )
                .env("XDG_SESSION_TYPE", "wayland")
                .env("XDG_CURRENT_DESKTOP", "KDE")
                // The menu's name takes this prefix (a daemon started in GNOME or Plasma has
                // one): unset, KWin reads the seat's applications.menu.
                .env_remove("XDG_MENU_PREFIX");
            if let Some((program, (key, value))) = &input_method {
                command.arg("--inputmethod").arg(program).env(key, value);
            }
            for var in Self::persons_session() {
                command.env_remove(var);
            }
            command
                .envs(display.env.iter().map(|(k, v)| (k, v)))
                .process_group(display.record.group)
                .stdin(Stdio::null())
                .stdout(log.try_clone().map_err(dir_error)?)
                .stderr(log)
                .spawn()
                .map_err(|e| DisplayError::Start {
                    part: "KWin",
                    reason: e.to_string(),
                })
        };
        let child = match start(kwin) {
            Err(DisplayError::Start { reason, .. })
                if reason.contains("Operation not permitted") =>
            {
                let copy = copy_without_capabilities(kwin, &home)?;
                tracing::info!(copy = %copy.display(), "KWin's file capability was refused; running a copy without it");
                start(&copy)?
            }
            started => started?,
        };
        display.children.push(child);
        let bus = display
            .env
            .iter()
            .find(|(k, _)| k == "DBUS_SESSION_BUS_ADDRESS")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        display.wait_for_compositor(
            "KWin",
            &dir.join("kwin.log"),
            &socket,
            &bus,
            (KWIN, "KWin"),
        )?;

        display.env.extend([
            ("WAYLAND_DISPLAY".into(), socket.display().to_string()),
            ("XDG_SESSION_TYPE".into(), "wayland".into()),
            ("XDG_CURRENT_DESKTOP".into(), "KDE".into()),
            ("GDK_BACKEND".into(), "wayland".into()),
            ("QT_QPA_PLATFORM".into(), "wayland".into()),
        ]);
        display.set_reach(dir, [socket.clone()], None);
        let group = display.record.group;
        tracing::info!(socket = %socket.display(), group, "private KWin ready");
        Ok(display)
    }
}

/// A copy of `kwin` (without its file capability, which a copy does not keep) under `home`,
/// named as KWin must be.
fn copy_without_capabilities(kwin: &Path, home: &Path) -> Result<PathBuf, DisplayError> {
    let bin = home.join("bin");
    let copy = bin.join("kwin_wayland");
    std::fs::create_dir_all(&bin)
        .and_then(|()| std::fs::copy(kwin, &copy))
        .map_err(|source| DisplayError::Dir { dir: bin, source })?;
    Ok(copy)
}
