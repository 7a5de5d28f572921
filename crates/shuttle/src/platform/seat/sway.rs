//! A seat that is a headless sway: its apps draw to Wayland natively, and `desk_wayland`
//! drives it through sway's IPC.

use std::path::Path;
use std::sync::Arc;

use desk::Platform;
use private_display::{Auth, DisplayError, PrivateDisplay, Requirement, Screen};

use super::{Kind, Session};
use crate::platform::{LinuxWayland, Person, WaylandSession};

pub(super) struct Sway;

impl Kind for Sway {
    fn name(&self) -> &'static str {
        "sway"
    }

    fn system(&self) -> &'static str {
        "wayland"
    }

    fn needs(&self) -> Vec<Requirement> {
        private_display::sway_requirements().to_vec()
    }

    fn start(&self, dir: &Path, _auth: &Auth) -> Result<PrivateDisplay, DisplayError> {
        PrivateDisplay::start_sway(dir, Screen::default())
    }

    fn platform(
        &self,
        display: &PrivateDisplay,
        person: Person,
        session: Session,
    ) -> Arc<dyn Platform> {
        let value = |key: &str| {
            display
                .env()
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let socket = value("WAYLAND_DISPLAY");
        Arc::new(LinuxWayland::private(
            WaylandSession {
                name: socket.clone(),
                socket: socket.into(),
                ipc: value("SWAYSOCK").into(),
            },
            person,
            session,
        ))
    }
}
