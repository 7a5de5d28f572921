//! Displays of the daemon's own for agents, one seat each: the daemon starts, reaches, watches
//! and ends them without knowing what they are. On Linux a seat is an Xvfb X server with
//! openbox, driven by [`LinuxX11`], or a headless sway, driven by [`LinuxWayland`]; either
//! with a session D-Bus and an AT-SPI bus ([`private_display`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use desk::Platform;
use private_display::{Auth, PrivateDisplay, Screen};

use super::{LinuxWayland, LinuxX11, Person, Session, WaylandSession};
use crate::config::SeatKind;

/// Ends the seats a killed daemon left under `dir`; answers their names.
pub fn reap_seats(dir: &Path) -> Vec<String> {
    private_display::reap(dir)
        .into_iter()
        .map(|record| record.display)
        .collect()
}

/// How the daemon starts seats: under one directory, with one credential every seat of the
/// daemon shares (the X cookie, in a file the daemon's own environment names).
pub struct PrivateSeats {
    auth: Auth,
    dir: PathBuf,
    person: Person,
    kind: SeatKind,
}

impl PrivateSeats {
    /// Seats of `kind` under `dir`, whose kill hotkey and confirm dialogs go where `person`
    /// is.
    ///
    /// # Safety
    ///
    /// Sets XAUTHORITY in the process environment (to a file holding the person's cookies and
    /// the seats'), so call it before the program starts any thread.
    pub unsafe fn new(dir: &Path, person: Person, kind: SeatKind) -> Result<Self, String> {
        let inherited = std::env::var_os("XAUTHORITY")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".Xauthority")))
            .filter(|p| p.is_file());
        let auth = Auth::new(dir, inherited.as_deref())
            .map_err(|e| format!("cannot write the private displays' cookie: {e}"))?;
        // SAFETY: the caller guarantees no other thread runs.
        unsafe { std::env::set_var("XAUTHORITY", auth.file()) };
        Ok(Self {
            auth,
            dir: dir.to_path_buf(),
            person,
            kind,
        })
    }

    /// Starts a seat named `name` (its files in a directory of that name).
    pub fn start(&self, name: &str) -> Result<PrivateSeat, String> {
        let dir = self.dir.join(name);
        let display = match self.kind {
            SeatKind::Xvfb => PrivateDisplay::start(&dir, Screen::default(), &self.auth),
            SeatKind::Sway => PrivateDisplay::start_sway(&dir, Screen::default()),
        }
        .map_err(|e| e.to_string())?;
        let env = display.env().to_vec();
        let unset: Vec<String> = PrivateDisplay::persons_session()
            .iter()
            .map(|v| v.to_string())
            .collect();
        let value = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        let reach = display.reach();
        let session = Session {
            env: env.clone(),
            remove: unset.clone(),
            accessibility: value("AT_SPI_BUS_ADDRESS"),
            room: super::Room {
                reach: reach.paths.clone(),
                env: reach.env.clone(),
                home: reach.home.clone(),
            },
        };
        let person = self.person.clone();
        let platform: Arc<dyn Platform> = match (value("WAYLAND_DISPLAY"), value("SWAYSOCK")) {
            (Some(socket), Some(ipc)) => Arc::new(LinuxWayland::private(
                WaylandSession {
                    name: socket.clone(),
                    socket: socket.into(),
                    ipc: ipc.into(),
                },
                person,
                session,
            )),
            _ => Arc::new(LinuxX11::private(
                display.name().to_string(),
                person,
                session,
            )),
        };
        Ok(PrivateSeat {
            display,
            platform,
            env,
            unset,
        })
    }

    /// What the seats are.
    pub fn kind(&self) -> SeatKind {
        self.kind
    }

    /// The file that holds the seats' credential, for `status`.
    pub fn credentials(&self) -> &Path {
        self.auth.file()
    }
}

/// A running seat. Dropping it ends it, with every app on it.
pub struct PrivateSeat {
    display: PrivateDisplay,
    platform: Arc<dyn Platform>,
    env: Vec<(String, String)>,
    unset: Vec<String>,
}

impl PrivateSeat {
    /// Its display's name, as `status`, the journal and `shuttle watch` name it (a sway seat
    /// by its socket's path).
    pub fn name(&self) -> &str {
        self.display.name()
    }

    /// Whether it still runs.
    pub fn alive(&self) -> bool {
        self.display.alive()
    }

    /// The process that leads it (its X server or compositor), for `status`.
    pub fn leader(&self) -> i32 {
        self.display.record().group
    }

    /// What runs started for its agent get over the daemon's environment.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// What they must not inherit from it: the person's session.
    pub fn unset(&self) -> &[String] {
        &self.unset
    }

    /// Its desk.
    pub fn platform(&self) -> Arc<dyn Platform> {
        self.platform.clone()
    }
}
