//! Where the person is, and their own desktop: the display and the sway, GNOME or KDE session the
//! daemon found at start, which backend drives it under `inherit`, what its sandboxed apps
//! reach, and how the person is asked and heard (the confirm dialog, the kill hotkey).

use std::path::PathBuf;
use std::sync::Arc;

use desk::{Answer, Cancel, DeskError, Hotkey, Platform, Presence, Question};
use desk_core::geometry::Rect;

use super::finding::Finding;
use super::gnome::{GnomeSession, LinuxGnome};
use super::kde::{KdeSession, LinuxKde};
use super::{LinuxWayland, LinuxX11, Room, WaylandSession};
use crate::config::InputSetting;

/// The person's session as the daemon found it at start, before a private display's settings
/// replace theirs in its environment.
#[derive(Debug, Clone, Default)]
pub struct PersonsSession {
    /// Their X display (XWayland's, in a sway session).
    pub display: Option<String>,
    /// Their sway session, which the daemon drives natively.
    sway: Option<WaylandSession>,
    /// Their GNOME session on Wayland, which the daemon drives natively.
    gnome: Option<GnomeSession>,
    /// Their KDE Plasma session on Wayland, which the daemon drives natively.
    kde: Option<KdeSession>,
}

/// The person's own desktop, as the daemon drives it under `inherit`.
pub struct PersonsDesk {
    /// Its platform.
    pub platform: Arc<dyn Platform>,
    /// Its name: their X display, or their Wayland socket's name.
    pub name: Option<String>,
    /// The window system it is driven through: `x11` or `wayland`.
    pub system: &'static str,
}

impl PersonsSession {
    /// The session the daemon's environment names: `DISPLAY`, and a sway session
    /// (`WAYLAND_DISPLAY` and `SWAYSOCK`), a GNOME one or a KDE one (`WAYLAND_DISPLAY`, and
    /// GNOME or KDE in `XDG_CURRENT_DESKTOP`).
    pub fn from_env() -> Self {
        let sway = WaylandSession::from_env();
        let gnome = sway.is_none().then(GnomeSession::from_env).flatten();
        let kde = (sway.is_none() && gnome.is_none())
            .then(KdeSession::from_env)
            .flatten();
        Self {
            display: std::env::var("DISPLAY").ok().filter(|d| !d.is_empty()),
            gnome,
            kde,
            sway,
        }
    }

    /// Where the person is heard and asked.
    pub fn person(&self) -> Person {
        Person {
            display: self.display.clone(),
            sway: self.sway.as_ref().map(|s| s.ipc.clone()),
            gnome: self.gnome.clone(),
            kde: self.kde.clone(),
        }
    }

    /// Their desktop, driven natively: their sway, GNOME or KDE session when they work in one
    /// (its native windows are beyond XWayland's reach), else their X display; its sandboxed
    /// apps reach `room`.
    pub fn desk(&self, room: Room) -> PersonsDesk {
        if let Some(session) = &self.kde {
            return PersonsDesk {
                platform: Arc::new(LinuxKde::new(session.clone(), self.person(), room)),
                name: Some(session.name.clone()),
                system: "wayland",
            };
        }
        match (&self.sway, &self.gnome) {
            (Some(session), _) => PersonsDesk {
                platform: Arc::new(LinuxWayland::new(session.clone(), self.person(), room)),
                name: Some(session.name.clone()),
                system: "wayland",
            },
            (None, Some(session)) => PersonsDesk {
                platform: Arc::new(LinuxGnome::new(session.clone(), self.person(), room)),
                name: Some(session.name.clone()),
                system: "wayland",
            },
            (None, None) => PersonsDesk {
                platform: Arc::new(LinuxX11::new(self.display.clone(), self.person(), room)),
                name: self.display.clone(),
                system: "x11",
            },
        }
    }

    /// The platform that only grabs the kill hotkey and asks the person, for a daemon whose
    /// agents all have displays of their own.
    pub fn presence_only(&self) -> Arc<dyn Platform> {
        Arc::new(LinuxX11::new(None, self.person(), Room::default()))
    }

    /// Whether the person's session is driven natively on Wayland (sway, GNOME, KDE) rather
    /// than through X11.
    pub fn native(&self) -> bool {
        self.sway.is_some() || self.gnome.is_some() || self.kde.is_some()
    }

    /// How the person's Wayland session stands for the desk that would drive it, for doctor;
    /// `None` outside Wayland. `inherit`: the daemon drives the person's desktop.
    pub fn finding(&self, inherit: bool, input: InputSetting) -> Option<Finding> {
        let name = std::env::var("WAYLAND_DISPLAY")
            .ok()
            .filter(|n| !n.is_empty())?;
        Some(match (&self.gnome, &self.kde) {
            (Some(_), _) => super::gnome::finding(&name, inherit),
            (None, Some(_)) => super::kde::finding(&name, inherit),
            (None, None) => super::wayland::finding(self.sway.is_some(), &name, inherit, input),
        })
    }
}

/// Where the person is: their X display (where confirm questions open) and, when they work
/// in sway or GNOME on Wayland, where the kill hotkey is bound there (an X grab would hear the
/// keys only while an XWayland window has the focus).
#[derive(Debug, Clone, Default)]
pub struct Person {
    /// Their X display (XWayland's, in a Wayland session).
    pub display: Option<String>,
    /// Their sway's IPC socket.
    pub sway: Option<PathBuf>,
    /// Their GNOME session, whose Shell grabs the hotkey through shuttle's extension.
    pub gnome: Option<GnomeSession>,
    /// Their KDE session, whose KWin grabs the hotkey through a script of shuttle's.
    pub kde: Option<KdeSession>,
}

/// What apps on the person's own display reach from a sandbox, from the daemon's environment:
/// the display's socket and cookie, their Wayland socket, their accessibility bus when it has
/// a socket file, and a runtime directory and home of the sandbox's own under `dir`. Never
/// their session bus, whose services would run outside the sandbox.
pub fn persons_room(dir: &std::path::Path) -> Room {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let mut room = Room {
        home: dir.join("home"),
        ..Room::default()
    };
    if let Some(display) = var("DISPLAY") {
        if let Some(number) = display.strip_prefix(':').and_then(|n| n.split('.').next()) {
            room.reach.push(format!("/tmp/.X11-unix/X{number}").into());
        }
        room.env.push(("DISPLAY".into(), display));
    }
    let cookie = var("XAUTHORITY")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".Xauthority")))
        .filter(|p| p.is_file());
    if let Some(cookie) = cookie {
        room.env
            .push(("XAUTHORITY".into(), cookie.display().to_string()));
        room.reach.push(cookie);
    }
    if let Some(wayland) = var("WAYLAND_DISPLAY") {
        let socket = match var("XDG_RUNTIME_DIR") {
            Some(runtime) if !wayland.starts_with('/') => PathBuf::from(runtime).join(wayland),
            _ => PathBuf::from(wayland),
        };
        room.env
            .push(("WAYLAND_DISPLAY".into(), socket.display().to_string()));
        room.reach.push(socket);
    }
    if let Some(bus) = var("AT_SPI_BUS_ADDRESS") {
        if let Some(path) = bus.strip_prefix("unix:path=") {
            room.reach
                .push(path.split(',').next().unwrap_or(path).into());
        }
        room.env.push(("AT_SPI_BUS_ADDRESS".into(), bus));
    }
    for var in ["XDG_SESSION_TYPE", "GDK_BACKEND", "QT_QPA_PLATFORM"] {
        if let Ok(value) = std::env::var(var) {
            room.env.push((var.into(), value));
        }
    }
    let runtime = dir.join("runtime");
    if std::fs::create_dir_all(&runtime).is_ok() {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700));
        room.env
            .push(("XDG_RUNTIME_DIR".into(), runtime.display().to_string()));
        room.reach.push(runtime);
    }
    room
}

/// A desk that draws the acting marker on the person's own Wayland session.
pub(super) trait Marks: Send + Sync {
    /// Shows (`true`) or, after a linger, hides the marker.
    fn indicate(&self, acting: bool);
    /// Where the marker is drawn while it shows.
    fn overlays(&self) -> Vec<Rect>;
}

/// The person's side of their Wayland session: the marker its desk draws there, and questions
/// through XWayland.
pub(super) struct MarkedPresence<M> {
    pub asker: desk_x11::AskThePerson,
    pub desk: Arc<M>,
}

impl<M: Marks> Presence for MarkedPresence<M> {
    fn ask(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        self.asker.ask(question, cancel)
    }

    fn indicate(&self, acting: bool) {
        self.desk.indicate(acting);
    }

    fn overlays(&self) -> Vec<Rect> {
        self.desk.overlays()
    }
}

/// Asks `person` on their X display (XWayland's, in a sway session).
pub(super) fn ask_where_the_person_is(
    person: &Person,
    question: &Question,
    cancel: &Cancel,
) -> Result<Answer, DeskError> {
    if person.display.is_none() {
        return Err(DeskError::Unreachable {
            system: "x11",
            reason: "the daemon started without a DISPLAY, so it knows no display of the \
                     person's to ask on"
                .into(),
        });
    }
    desk_x11::AskThePerson {
        person: person.display.clone(),
    }
    .ask(question, cancel)
}

/// Grabs the kill hotkey `combo` where `person` is: a binding in their sway, a grab by their
/// GNOME Shell or their KWin, else a grab on their X display.
pub(super) fn grab_where_the_person_is(
    person: &Person,
    combo: &str,
    pressed: Box<dyn Fn() + Send + Sync>,
) -> Result<Box<dyn Hotkey>, DeskError> {
    if let Some(ipc) = &person.sway {
        return Ok(Box::new(desk_wayland::hotkey::SwayHotkey::grab(
            ipc, combo, pressed,
        )?));
    }
    if let Some(gnome) = &person.gnome {
        return Ok(Box::new(desk_gnome::hotkey::GnomeHotkey::grab(
            gnome.bus.as_deref(),
            combo,
            pressed,
        )?));
    }
    if let Some(kde) = &person.kde {
        return LinuxKde::new(kde.clone(), person.clone(), Room::default())
            .grab_hotkey(combo, pressed);
    }
    let display = person
        .display
        .as_deref()
        .ok_or_else(|| DeskError::Unreachable {
            system: "x11",
            reason: "the daemon started without a DISPLAY, so there is no person's display to \
                     grab the kill hotkey on; use shuttle stop"
                .into(),
        })?;
    let hotkey = desk_x11::Hotkey::grab(display, combo, pressed)?;
    Ok(Box::new(hotkey))
}
