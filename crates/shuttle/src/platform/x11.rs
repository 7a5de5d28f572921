//! An X11 desktop on Linux: `desk_x11` for the screen, input and the person's side, with
//! `desk_linux` for processes and accessibility. The person's own display, or a private one.

use std::sync::Arc;

use desk::{
    Answer, Backend, Background, Cancel, DeskError, Display, Hotkey, Platform, Presence, Question,
};
use desk_linux::LinuxApps;
use desk_linux::atspi::OnDemand;
use desk_linux::placed::{CountsFrom, Placed, Surface, Surfaces};
use desk_linux::toolkits;
use desk_x11::X11Backend;

use super::person::{ask_where_the_person_is, grab_where_the_person_is};
use super::seat::Session;
use super::{Person, Room};

/// An X11 desktop on Linux.
#[derive(Debug, Clone)]
pub struct LinuxX11 {
    display: Option<String>,
    person: Person,
    session: Option<Session>,
    /// What its apps reach from a sandbox.
    room: Room,
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
    pub(super) fn private(display: String, person: Person, session: Session) -> Self {
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
            // Placed for the apps drawn at a scale, whose positions are the screen's divided by it.
            accessibility: Arc::new(Placed::new(
                Arc::new(
                    match self.session.as_ref().and_then(|s| s.accessibility.clone()) {
                        Some(address) => OnDemand::at(address),
                        None => OnDemand::default(),
                    },
                ),
                Arc::new(X11Surfaces(x11.clone())),
            )),
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

/// Where an X11 display shows a process's windows: their client areas, whose apps count
/// positions from the screen's corner.
struct X11Surfaces(Arc<X11Backend>);

impl Surfaces for X11Surfaces {
    fn native_windows(&self, pid: u32) -> Result<Vec<Surface>, DeskError> {
        // An app's positions count from the screen's corner whatever the window list says:
        // without it, a scaled app's positions go as the app gives them.
        let windows = match self.0.windows() {
            Ok(windows) => windows,
            Err(e) => {
                tracing::debug!(error = %e, "no window list to find an app's scale by");
                return Ok(Vec::new());
            }
        };
        // GTK 4 counts from its window even on X11.
        let counts_from = if toolkits::runs_gtk4(pid) {
            CountsFrom::XWindow
        } else {
            CountsFrom::Screen
        };
        let mut surfaces = Vec::new();
        for window in windows.into_iter().filter(|w| w.pid == Some(pid)) {
            if let Ok(Some(rect)) = self.0.window_rect(&window.id) {
                surfaces.push(Surface {
                    title: window.title,
                    frame: rect,
                    buffer: rect,
                    counts_from,
                });
            }
        }
        Ok(surfaces)
    }
}
