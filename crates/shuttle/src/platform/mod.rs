//! The one module that names the backend crates: which desktop this daemon drives, and the
//! seats ([`seat`]) it starts for agents.
//!
//! On Linux with X11 the desk is `desk_x11` for the screen, input and the person's side, with
//! `desk_linux` for processes and accessibility, and a seat is a private X display. A sway
//! session is driven by `desk_wayland` instead ([`wayland`]), chosen from the session's
//! environment; a headless compositor would be another kind of seat.

mod seat;
mod wayland;

pub use seat::{PrivateSeat, PrivateSeats, reap_seats};
pub use wayland::{LinuxWayland, WaylandSession};

use std::sync::Arc;

use desk::{Answer, Backend, Background, Cancel, DeskError, Hotkey, Platform, Presence, Question};
use desk_linux::LinuxApps;
use desk_linux::atspi::OnDemand;
pub use desk_linux::sandbox::Room;
use desk_x11::X11Backend;
pub use desk_x11::watch::{WatchEnd, WatchOptions, watch};

/// What `shuttle doctor` reads: the X display, the accessibility bus, and what private
/// displays run.
pub mod probe {
    pub use desk_linux::atspi::probe::probe as accessibility;
    pub use desk_linux::atspi::probe::{AppOnBus, BusProbe, enable as enable_accessibility};
    pub use desk_linux::sandbox::probe as sandbox;
    pub use desk_x11::{Probe as DisplayProbe, probe as display};
    pub use private_display::{
        Requirement, requirements as private_display_needs, sway_requirements as sway_seat_needs,
    };
}

/// Notes `pid`, the leader of a process group the daemon started for an agent (a script run,
/// a plugin's program, a service), so its processes are known as the agent's.
pub fn note_agent_group(pid: u32) {
    desk_linux::lineage::note_leader(pid);
}

/// Whether apps can be launched in a sandbox here: bubblewrap is installed and can make one.
pub fn can_sandbox() -> bool {
    desk_linux::sandbox::probe().bwrap.is_ok()
}

/// Notes the daemon's keeper, which adopts what the daemon's descendants leave behind: its
/// adopted processes are the agent's too.
pub fn note_keeper(pid: u32) {
    desk_linux::lineage::note_keeper(pid);
}

/// Whether process `pid` is one the daemon started for an agent, or a child of one: a script
/// run, a plugin, a service, an app it launched.
pub fn started_for_agent(pid: u32) -> bool {
    desk_linux::lineage::started_here(pid)
}

/// The program process `pid` runs, in one word, for the person to read; `?` when gone.
pub fn process_name(pid: u32) -> String {
    desk_linux::proc::exe_name(pid).unwrap_or_else(|| "?".into())
}

/// The controlling terminal of process `pid`, where the person may be asked; `None` when it
/// has none.
pub fn terminal_of(pid: u32) -> Option<std::path::PathBuf> {
    desk_linux::terminal::controlling(pid)
}

/// Asks at `terminal`: writes `prompt`, and answers the line typed after it within `limit`.
pub fn ask_at_terminal(
    terminal: &std::path::Path,
    prompt: &str,
    limit: std::time::Duration,
) -> std::io::Result<Option<String>> {
    desk_linux::terminal::ask(terminal, prompt, limit)
}

/// What apps on the person's own display reach from a sandbox, from the daemon's environment:
/// the display's socket and cookie, their Wayland socket, their accessibility bus when it has
/// a socket file, and a runtime directory and home of the sandbox's own under `dir`. Never
/// their session bus, whose services would run outside the sandbox.
pub fn persons_room(dir: &std::path::Path) -> Room {
    use std::path::PathBuf;
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

/// Where the person is: their X display (where confirm questions open) and, when they work
/// in sway, its IPC socket, where the kill hotkey is bound (an X grab would hear the keys only
/// while an XWayland window has the focus).
#[derive(Debug, Clone, Default)]
pub struct Person {
    /// Their X display (XWayland's, in a sway session).
    pub display: Option<String>,
    /// Their sway's IPC socket.
    pub sway: Option<std::path::PathBuf>,
}

/// The desktop on `display` (none: the daemon has none), whose kill hotkey is grabbed where
/// `person` is.
pub fn desktop(display: Option<String>, person: Person, room: Room) -> Arc<dyn Platform> {
    Arc::new(LinuxX11::new(display, person, room))
}

/// An X11 desktop on Linux.
#[derive(Debug, Clone)]
pub struct LinuxX11 {
    display: Option<String>,
    person: Person,
    session: Option<Session>,
    /// What its apps reach from a sandbox.
    room: Room,
}

/// A private display's session: what apps launched there get, and its accessibility bus.
#[derive(Debug, Clone, Default)]
struct Session {
    /// Variables set for its apps (DISPLAY, XAUTHORITY, the buses).
    pub env: Vec<(String, String)>,
    /// Variables its apps must not inherit from the daemon.
    pub remove: Vec<String>,
    /// Its accessibility bus.
    pub accessibility: Option<String>,
    /// What its apps reach from a sandbox.
    pub room: Room,
}

impl LinuxX11 {
    /// Drives `display` with the daemon's environment; grabs the kill hotkey where `person`
    /// is; its apps reach `room` from a sandbox.
    pub fn new(display: Option<String>, person: Person, room: Room) -> Self {
        Self {
            display,
            person,
            session: None,
            room,
        }
    }

    /// Drives the private display `display`, launching its apps into `session`.
    fn private(display: String, person: Person, session: Session) -> Self {
        Self {
            display: Some(display),
            person,
            room: session.room.clone(),
            session: Some(session),
        }
    }

    fn display(&self) -> Result<&str, DeskError> {
        self.display
            .as_deref()
            .ok_or_else(|| DeskError::Unreachable {
                system: "x11",
                reason: "DISPLAY is not set in the environment shuttle serve started with; set it \
                     (for example DISPLAY=:0) and restart the daemon, or run \
                     scripts/desktop.sh for a virtual desktop"
                    .into(),
            })
    }
}

impl Platform for LinuxX11 {
    fn connect(&self) -> Result<Backend, DeskError> {
        let x11 = Arc::new(X11Backend::connect(self.display()?)?);
        Ok(Backend {
            display: x11.clone(),
            input: x11.clone(),
            presence: match &self.session {
                // Nobody watches a private display: the person is asked on their own.
                Some(_) => Arc::new(desk_x11::AskThePerson {
                    person: self.person.display.clone(),
                }) as Arc<dyn Presence>,
                None => x11.clone(),
            },
            apps: Arc::new(match &self.session {
                Some(session) => LinuxApps::with_env(
                    session.env.clone(),
                    session.remove.clone(),
                    self.room.clone(),
                ),
                None => LinuxApps::inherit(self.room.clone()),
            }),
            accessibility: Arc::new(
                match self.session.as_ref().and_then(|s| s.accessibility.clone()) {
                    Some(address) => OnDemand::at(address),
                    None => OnDemand::default(),
                },
            ),
            // Only the person's display needs input kept off their pointer and focus.
            background: match &self.session {
                Some(_) => None,
                None => Some(x11 as Arc<dyn Background>),
            },
        })
    }

    fn grab_hotkey(
        &self,
        combo: &str,
        pressed: Box<dyn Fn() + Send + Sync>,
    ) -> Result<Box<dyn Hotkey>, DeskError> {
        grab_where_the_person_is(&self.person, combo, pressed)
    }

    fn ask_person(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        ask_where_the_person_is(&self.person, question, cancel)
    }
}

/// Asks `person` on their X display (XWayland's, in a sway session).
fn ask_where_the_person_is(
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

/// Grabs the kill hotkey `combo` where `person` is: a binding in their sway, else a grab on
/// their X display.
fn grab_where_the_person_is(
    person: &Person,
    combo: &str,
    pressed: Box<dyn Fn() + Send + Sync>,
) -> Result<Box<dyn Hotkey>, DeskError> {
    if let Some(ipc) = &person.sway {
        return Ok(Box::new(desk_wayland::hotkey::SwayHotkey::grab(
            ipc, combo, pressed,
        )?));
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
