//! A seat that is a headless KWin: its apps draw to Wayland natively, and `desk_kde` drives it
//! through KWin's scripts, screenshots and fake input, which KWin grants the daemon by a
//! desktop file naming the daemon's own path.

use std::path::Path;
use std::sync::Arc;

use desk::Platform;
use private_display::{Auth, DisplayError, PrivateDisplay, Requirement, Screen};

use super::{Kind, Session};
use crate::platform::Person;
use crate::platform::kde::LinuxKde;

pub(super) struct Kde;

impl Kind for Kde {
    fn name(&self) -> &'static str {
        "kde"
    }

    fn system(&self) -> &'static str {
        "wayland"
    }

    fn needs(&self) -> Vec<Requirement> {
        private_display::kde_requirements()
    }

    fn start(&self, dir: &Path, _auth: &Auth) -> Result<PrivateDisplay, DisplayError> {
        let authorised = [(
            desk_kde::DESKTOP_FILE.to_string(),
            desk_kde::desktop_file(&desk_kde::own_exe()),
        )];
        PrivateDisplay::start_kde(dir, Screen::default(), &authorised)
    }

    fn platform(
        &self,
        display: &PrivateDisplay,
        person: Person,
        session: Session,
    ) -> Arc<dyn Platform> {
        Arc::new(LinuxKde::private(display, person, session))
    }
}
