//! Displays of the daemon's own for agents, one seat each: the daemon starts, reaches, watches
//! and ends them without knowing what they are. A kind of seat ([`SeatKind`]) is a file of
//! this module: what it runs, how it starts ([`private_display`]) and which desk drives it.
//! Each has a session D-Bus and an AT-SPI bus.
//!
//! - [`xvfb`]: an Xvfb X server with openbox, driven by [`super::LinuxX11`].
//! - [`sway`]: a headless sway, driven natively by [`super::LinuxWayland`].
//! - [`gnome`]: a headless GNOME Shell, driven natively by `desk_gnome`.
//! - [`kde`]: a headless KWin, driven natively by `desk_kde`.

mod gnome;
mod kde;

pub(super) use kde::kde_input_method;
mod sway;
mod xvfb;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use desk::Platform;
use private_display::{Auth, DisplayError, PrivateDisplay, Requirement};

use super::{Person, Room};

/// The kinds of seat there are, the default first.
const KINDS: [&dyn Kind; 4] = [&xvfb::Xvfb, &sway::Sway, &gnome::Gnome, &kde::Kde];

/// A kind of private seat.
trait Kind: Send + Sync {
    /// Its name, as `[daemon] private_seat` spells it.
    fn name(&self) -> &'static str;
    /// The window system its apps draw to: `x11` or `wayland`.
    fn system(&self) -> &'static str;
    /// The programs it runs, and where each is on this machine.
    fn needs(&self) -> Vec<Requirement>;
    /// Starts one whose files live in `dir`, with the seats' shared credential `auth`.
    fn start(&self, dir: &Path, auth: &Auth) -> Result<PrivateDisplay, DisplayError>;
    /// The desk that drives a started one: its apps get `session`; the person is asked and
    /// heard where `person` is.
    fn platform(
        &self,
        display: &PrivateDisplay,
        person: Person,
        session: Session,
    ) -> Arc<dyn Platform>;
}

/// What the daemon's private seats are (`[daemon] private_seat`).
#[derive(Clone, Copy)]
pub struct SeatKind(&'static dyn Kind);

impl SeatKind {
    /// The kind's name as config.toml spells it.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The window system its apps draw to: `x11` or `wayland`.
    pub fn system(self) -> &'static str {
        self.0.system()
    }

    /// The programs it runs, and where each is on this machine (what doctor reports).
    pub fn needs(self) -> Vec<Requirement> {
        self.0.needs()
    }
}

impl Default for SeatKind {
    fn default() -> Self {
        Self(KINDS[0])
    }
}

impl PartialEq for SeatKind {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for SeatKind {}

impl std::fmt::Debug for SeatKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SeatKind {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        KINDS
            .iter()
            .find(|kind| kind.name() == name)
            .map(|&kind| Self(kind))
            .ok_or_else(|| {
                let names: Vec<String> = KINDS.iter().map(|k| format!("`{}`", k.name())).collect();
                format!(
                    "unknown variant `{name}`, expected one of {}",
                    names.join(", ")
                )
            })
    }
}

impl serde::Serialize for SeatKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for SeatKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// A private display's session: what apps launched there get, and its accessibility bus.
#[derive(Debug, Clone, Default)]
pub(super) struct Session {
    /// Variables set for its apps (DISPLAY, XAUTHORITY, the buses).
    pub env: Vec<(String, String)>,
    /// Variables its apps must not inherit from the daemon.
    pub remove: Vec<String>,
    /// Its accessibility bus.
    pub accessibility: Option<String>,
    /// What its apps reach from a sandbox.
    pub room: Room,
}

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
        let display = self
            .kind
            .0
            .start(&self.dir.join(name), &self.auth)
            .map_err(|e| e.to_string())?;
        let env = display.env().to_vec();
        let unset: Vec<String> = PrivateDisplay::persons_session()
            .iter()
            .map(|v| v.to_string())
            .collect();
        let reach = display.reach();
        let session = Session {
            env: env.clone(),
            remove: unset.clone(),
            accessibility: env
                .iter()
                .find(|(k, _)| k == "AT_SPI_BUS_ADDRESS")
                .map(|(_, v)| v.clone()),
            room: Room {
                reach: reach.paths.clone(),
                env: reach.env.clone(),
                home: reach.home.clone(),
            },
        };
        let platform = self.kind.0.platform(&display, self.person.clone(), session);
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
