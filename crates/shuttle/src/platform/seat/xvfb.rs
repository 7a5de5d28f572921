//! A seat that is an Xvfb X server with openbox: its apps draw to X11, and `desk_x11` drives it.

use std::path::Path;
use std::sync::Arc;

use desk::Platform;
use private_display::{Auth, DisplayError, PrivateDisplay, Requirement, Screen};

use super::{Kind, Session};
use crate::platform::{LinuxX11, Person};

pub(super) struct Xvfb;

impl Kind for Xvfb {
    fn name(&self) -> &'static str {
        "xvfb"
    }

    fn system(&self) -> &'static str {
        "x11"
    }

    fn needs(&self) -> Vec<Requirement> {
        private_display::xvfb_requirements().to_vec()
    }

    fn start(&self, dir: &Path, auth: &Auth) -> Result<PrivateDisplay, DisplayError> {
        PrivateDisplay::start_xvfb(dir, Screen::default(), auth)
    }

    fn platform(
        &self,
        display: &PrivateDisplay,
        person: Person,
        session: Session,
    ) -> Arc<dyn Platform> {
        Arc::new(LinuxX11::private(
            display.name().to_string(),
            person,
            session,
        ))
    }
}
