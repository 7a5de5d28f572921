//! A seat that is a headless GNOME Shell: its apps draw to Wayland natively, and `desk_gnome`
//! drives it through shuttle's Shell extension and Mutter's RemoteDesktop.

use std::path::Path;
use std::sync::Arc;

use desk::Platform;
use private_display::{Auth, DisplayError, Extension, PrivateDisplay, Requirement, Screen};

use super::{Kind, Session};
use crate::platform::Person;
use crate::platform::gnome::LinuxGnome;

pub(super) struct Gnome;

impl Kind for Gnome {
    fn name(&self) -> &'static str {
        "gnome"
    }

    fn system(&self) -> &'static str {
        "wayland"
    }

    fn needs(&self) -> Vec<Requirement> {
        private_display::gnome_requirements()
    }

    fn start(&self, dir: &Path, _auth: &Auth) -> Result<PrivateDisplay, DisplayError> {
        let shell = self
            .needs()
            .into_iter()
            .find(|n| n.program == "gnome-shell")
            .and_then(|n| n.found)
            .ok_or(DisplayError::Missing {
                program: "gnome-shell",
                package: "gnome-shell",
            })?;
        let major =
            desk_gnome::extension::shell_major(&shell).ok_or_else(|| DisplayError::Start {
                part: "GNOME Shell",
                reason: format!("`{} --version` did not say its version", shell.display()),
            })?;
        if major < desk_gnome::extension::OLDEST {
            return Err(DisplayError::Start {
                part: "GNOME Shell",
                reason: format!(
                    "it is version {major}, and shuttle's extension needs {} or newer",
                    desk_gnome::extension::OLDEST
                ),
            });
        }
        let extension = Extension {
            uuid: desk_gnome::extension::UUID.into(),
            files: desk_gnome::extension::files(major)
                .into_iter()
                .map(|(name, text)| (name.to_string(), text))
                .collect(),
            bus_name: desk_gnome::shell::BUS_NAME.into(),
        };
        PrivateDisplay::start_gnome(dir, Screen::default(), &extension)
    }

    fn platform(
        &self,
        display: &PrivateDisplay,
        person: Person,
        session: Session,
    ) -> Arc<dyn Platform> {
        Arc::new(LinuxGnome::private(
            display.name().to_string(),
            person,
            session,
        ))
    }
}
