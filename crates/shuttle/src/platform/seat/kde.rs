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

/// Where the input method of the seat whose directory is `dir` listens.
pub(in crate::platform) fn kde_input_method(dir: &Path) -> std::path::PathBuf {
    dir.join("input-method")
}

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
        let exe = desk_kde::own_exe().ok_or(DisplayError::Start {
            part: "KWin",
            reason: "the daemon cannot read its own path (/proc/self/exe), which KWin's \
                     desktop file must name to grant it input and screenshots"
                .into(),
        })?;
        let authorised = [(
            desk_kde::DESKTOP_FILE.to_string(),
            desk_kde::desktop_file(&exe),
        )];
        // KWin starts shuttle itself as its input method, which then listens where the desk
        // finds it.
        let input_method = (
            format!("'{}' kwin-input-method", exe.replace('\'', "'\\''")),
            (desk_kde::im::SOCKET_ENV, kde_input_method(dir)),
        );
        PrivateDisplay::start_kde(dir, Screen::default(), &authorised, Some(input_method))
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
