//! A sway session, driven natively: the desk of `desk_wayland`, with `desk_linux` for the
//! processes and the accessibility tree (its positions placed where sway shows each window).

use std::path::PathBuf;
use std::sync::Arc;

use desk::{Backend, DeskError, Hotkey, Platform};
use desk_linux::LinuxApps;
use desk_linux::atspi::OnDemand;
use desk_wayland::hotkey::SwayHotkey;
use desk_wayland::{Placed, WaylandBackend};

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

/// The person's sway session.
#[derive(Debug, Clone)]
pub struct LinuxWayland {
    session: WaylandSession,
    /// The X display XWayland serves, where confirm questions are shown; none without
    /// XWayland.
    person: Option<String>,
}

impl LinuxWayland {
    /// Drives `session`; asks the person on `person`, XWayland's display.
    pub fn new(session: WaylandSession, person: Option<String>) -> Self {
        Self { session, person }
    }
}

impl Platform for LinuxWayland {
    fn connect(&self) -> Result<Backend, DeskError> {
        let wayland = Arc::new(WaylandBackend::connect(
            &self.session.name,
            Some(&self.session.socket),
            &self.session.ipc,
        )?);
        Ok(Backend {
            display: wayland.clone(),
            input: wayland.clone(),
            // No marker is drawn yet (it needs a layer-shell surface); questions go to the
            // person through XWayland.
            presence: Arc::new(desk_x11::AskThePerson {
                person: self.person.clone(),
            }),
            apps: Arc::new(LinuxApps::inherit()),
            accessibility: Arc::new(Placed::new(Arc::new(OnDemand::default()), wayland.sway())),
        })
    }

    fn grab_hotkey(
        &self,
        combo: &str,
        pressed: Box<dyn Fn() + Send + Sync>,
    ) -> Result<Box<dyn Hotkey>, DeskError> {
        Ok(Box::new(SwayHotkey::grab(
            &self.session.ipc,
            combo,
            pressed,
        )?))
    }
}
