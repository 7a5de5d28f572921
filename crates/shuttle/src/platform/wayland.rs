//! A sway session, driven natively: the desk of `desk_wayland`, with `desk_linux` for the
//! processes and the accessibility tree (its positions placed where sway shows each window).
//! The person's own sway session under `inherit`, or a headless sway as a private seat.

use std::path::PathBuf;

use super::finding::{Finding, Level, PER_AGENT_FIX};
use super::person::{MarkedPresence, Marks, ask_where_the_person_is, grab_where_the_person_is};
use super::seat::Session;
use super::{Person, Room};
use std::sync::Arc;

use desk::{Answer, Backend, Cancel, DeskError, Hotkey, Platform, Presence, Question};
use desk_core::geometry::Rect;
use desk_linux::LinuxApps;
use desk_linux::atspi::OnDemand;
use desk_linux::placed::{CountsFrom, Placed, Surface, Surfaces};
use desk_wayland::hotkey::SwayHotkey;
use desk_wayland::{Sway, WaylandBackend};

use crate::config::InputSetting;

/// Where a Wayland session is: its compositor's socket and sway's IPC socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaylandSession {
    /// The session's name, as `WAYLAND_DISPLAY` gives it (`wayland-1`).
    pub name: String,
    /// The compositor's socket.
    pub socket: PathBuf,
    /// sway's IPC socket.
    pub ipc: PathBuf,
}

impl WaylandSession {
    /// The sway session the environment names: `WAYLAND_DISPLAY` (under `XDG_RUNTIME_DIR`
    /// unless absolute) and `SWAYSOCK`. `None` when either is missing: another compositor, or
    /// none, is served through X11 as before.
    pub fn from_env() -> Option<Self> {
        let name = std::env::var("WAYLAND_DISPLAY")
            .ok()
            .filter(|n| !n.is_empty())?;
        let ipc = desk_wayland::Sway::socket_from_env()?;
        let socket = if name.starts_with('/') {
            PathBuf::from(&name)
        } else {
            PathBuf::from(std::env::var_os("XDG_RUNTIME_DIR")?).join(&name)
        };
        Some(Self { name, socket, ipc })
    }
}

/// A sway session: the person's, or a headless one of the daemon's own (a private seat).
#[derive(Debug, Clone)]
pub struct LinuxWayland {
    session: WaylandSession,
    /// Where the person is: confirm questions go to their X display, and a private seat's
    /// kill hotkey is grabbed where they are.
    person: Person,
    /// A private seat's session: what its apps get, and its accessibility bus.
    private: Option<Session>,
    /// What its apps reach from a sandbox.
    room: Room,
}

impl LinuxWayland {
    /// Drives the person's `session`; asks the person on `person`, XWayland's display; its
    /// apps reach `room` from a sandbox.
    pub fn new(session: WaylandSession, person: Person, room: Room) -> Self {
        Self {
            session,
            person,
            private: None,
            room,
        }
    }

    /// Drives the headless sway `session`, launching its apps into `private`.
    pub(super) fn private(session: WaylandSession, person: Person, private: Session) -> Self {
        Self {
            session,
            person,
            room: private.room.clone(),
            private: Some(private),
        }
    }
}

impl Platform for LinuxWayland {
    fn connect(&self) -> Result<Backend, DeskError> {
        let wayland = Arc::new(WaylandBackend::connect(
            &self.session.name,
            Some(&self.session.socket),
            &self.session.ipc,
        )?);
        // Questions go to the person's X display (XWayland's, in their sway session).
        let asker = desk_x11::AskThePerson {
            person: self.person.display.clone(),
        };
        Ok(Backend {
            display: wayland.clone(),
            input: wayland.clone(),
            presence: match &self.private {
                // Nobody watches a private seat: the person is asked on their own display.
                Some(_) => Arc::new(asker) as Arc<dyn Presence>,
                None => Arc::new(MarkedPresence {
                    asker,
                    desk: wayland.clone(),
                }),
            },
            apps: Arc::new(match &self.private {
                Some(session) => LinuxApps::with_env(
                    session.env.clone(),
                    session.remove.clone(),
                    self.room.clone(),
                ),
                None => LinuxApps::inherit(self.room.clone()),
            }),
            accessibility: Arc::new(Placed::new(
                Arc::new(
                    match self.private.as_ref().and_then(|s| s.accessibility.clone()) {
                        Some(address) => OnDemand::at(address),
                        None => OnDemand::default(),
                    },
                ),
                Arc::new(SwaySurfaces(wayland.sway())),
            )),
            background: None,
        })
    }

    fn grab_hotkey(
        &self,
        combo: &str,
        pressed: Box<dyn Fn() + Send + Sync>,
    ) -> Result<Box<dyn Hotkey>, DeskError> {
        // Nobody sits at a private seat: the person presses the hotkey where they are.
        if self.private.is_some() {
            return grab_where_the_person_is(&self.person, combo, pressed);
        }
        Ok(Box::new(SwayHotkey::grab(
            &self.session.ipc,
            combo,
            pressed,
        )?))
    }

    fn ask_person(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        ask_where_the_person_is(&self.person, question, cancel)
    }
}

impl Marks for WaylandBackend {
    fn indicate(&self, acting: bool) {
        WaylandBackend::indicate(self, acting);
    }

    fn overlays(&self) -> Vec<Rect> {
        WaylandBackend::overlays(self)
    }
}

/// Where sway shows a process's native windows: their own surface's place, inside sway's
/// decorations.
struct SwaySurfaces(Arc<Sway>);

impl Surfaces for SwaySurfaces {
    fn native_windows(&self, pid: u32) -> Result<Vec<Surface>, DeskError> {
        Ok(self
            .0
            .windows()
            .map_err(desk_wayland::backend::desk_error)?
            .into_iter()
            .filter(|w| w.pid == Some(pid) && !w.xwayland)
            // sway draws the decorations, so an app's buffer is its window.
            .map(|w| Surface {
                title: w.title,
                frame: w.content,
                buffer: w.content,
                counts_from: CountsFrom::Window,
            })
            .collect())
    }
}

/// How the person's Wayland session `name` stands for the Wayland desk: whether its compositor
/// offers the wlroots protocols the desk builds on, and whether the daemon drives it natively
/// (a sway session, whose IPC socket `SWAYSOCK` names: `sway`) or only its XWayland apps.
pub(super) fn finding(sway: bool, name: &str, inherit: bool, input: InputSetting) -> Finding {
    let protocols = match desk_wayland::Session::connect() {
        Ok(session) => desk_wayland::desk_protocols(&session.advertised()),
        Err(e) => return Finding::new(Level::Warn, e.to_string()),
    };
    let offered: Vec<String> = protocols
        .iter()
        .filter_map(|p| Some(format!("{} v{}", p.interface, p.version?)))
        .collect();
    let lacking: Vec<String> = protocols
        .iter()
        .filter(|p| p.version.is_none())
        .map(|p| format!("{} ({})", p.interface, p.needed_for))
        .collect();
    let compositor = if lacking.is_empty() {
        format!(
            "its compositor offers all a Wayland desk needs ({})",
            offered.join(", ")
        )
    } else if offered.is_empty() {
        "its compositor offers none of the wlroots protocols a Wayland desk needs (GNOME and KDE \
         keep them from clients: their apps need the desktop portals)"
            .to_string()
    } else {
        format!(
            "its compositor offers {} but lacks {}",
            offered.join(", "),
            lacking.join(", ")
        )
    };
    if sway {
        let detail = format!("sway session {name}: {compositor}");
        return match (inherit, lacking.is_empty()) {
            (false, _) => Finding::not_driven(&detail),
            (true, true) if input == InputSetting::Background => Finding::new(
                Level::Warn,
                format!(
                    "{detail}; driven natively, but input = \"background\" is refused here: \
                     sway gives virtual input one seat"
                ),
            )
            .fix("set [daemon] input = \"auto\" or \"foreground\""),
            (true, true) => Finding::new(
                Level::Ok,
                format!("{detail}; driven natively, its XWayland windows among the rest"),
            ),
            (true, false) => Finding::new(
                Level::Warn,
                format!("{detail}; driven natively, refusing the verbs that need what it lacks"),
            )
            .fix("update sway, or use another wlroots compositor that offers them"),
        };
    }
    let detail = format!(
        "Wayland session {name}: {compositor}; shuttle drives only sway and GNOME natively, so \
         native Wayland windows are out of its reach here (docs/wayland.md)"
    );
    if inherit {
        Finding::new(Level::Warn, detail).fix(format!(
            "on sway, start shuttle from the session so that SWAYSOCK is set; elsewhere run the \
             apps an agent needs under XWayland (GDK_BACKEND=x11, QT_QPA_PLATFORM=xcb), \
             {PER_AGENT_FIX}"
        ))
    } else {
        Finding::new(
            Level::Skip,
            format!("{detail}; not needed: agents get displays of their own"),
        )
    }
}
