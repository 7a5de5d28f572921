//! A KDE Plasma session on Wayland, driven natively: the desk of `desk_kde` (windows through
//! KWin scripts, pixels through ScreenShot2, input through fake input), with `desk_linux` for
//! the processes and the accessibility tree (its positions placed where KWin shows each
//! window). For now a headless KWin as a private seat; the person's own Plasma session is
//! still reached through XWayland (docs/kde.md).

use std::path::PathBuf;
use std::sync::Arc;

use super::person::{ask_where_the_person_is, grab_where_the_person_is};
use super::seat::Session;
use super::{Person, Room};

use desk::{Answer, Backend, Cancel, DeskError, Hotkey, Platform, Question};
use desk_kde::KdeBackend;
use desk_linux::LinuxApps;
use desk_linux::atspi::OnDemand;
use desk_linux::placed::{CountsFrom, Placed, Surface, Surfaces};
use private_display::PrivateDisplay;

/// A headless KWin of the daemon's own (a private seat).
#[derive(Debug, Clone)]
pub struct LinuxKde {
    /// Its name in replies: its Wayland socket's path.
    name: String,
    /// Its session bus, where KWin answers.
    bus: Option<String>,
    /// Where the desk writes the scripts it has KWin run: the seat's own directory.
    scripts: PathBuf,
    /// Where shuttle's input method, which KWin runs, listens.
    input_method: PathBuf,
    /// Where the person is: confirm questions go there, and the kill hotkey is grabbed there.
    person: Person,
    /// What its apps get, and its accessibility bus.
    session: Session,
    /// What its apps reach from a sandbox.
    room: Room,
}

impl LinuxKde {
    /// Drives the headless KWin `display`, launching its apps into `session`.
    pub(super) fn private(display: &PrivateDisplay, person: Person, session: Session) -> Self {
        let bus = session
            .env
            .iter()
            .find(|(k, _)| k == "DBUS_SESSION_BUS_ADDRESS")
            .map(|(_, v)| v.clone());
        Self {
            name: display.name().to_string(),
            bus,
            scripts: display.dir().join("kwin-scripts"),
            input_method: super::seat::kde_input_method(display.dir()),
            person,
            room: session.room.clone(),
            session,
        }
    }
}

impl Platform for LinuxKde {
    fn connect(&self) -> Result<Backend, DeskError> {
        let kde = Arc::new(KdeBackend::connect(
            &self.name,
            std::path::Path::new(&self.name),
            self.bus.as_deref(),
            &self.scripts,
            Some(self.input_method.clone()),
        )?);
        let apps = LinuxApps::with_env(
            self.session.env.clone(),
            self.session.remove.clone(),
            self.room.clone(),
        );
        let accessibility = self
            .session
            .accessibility
            .clone()
            .map_or_else(OnDemand::default, OnDemand::at);
        Ok(Backend {
            display: kde.clone(),
            input: kde.clone(),
            // Nobody watches a private seat: the person is asked on their own display.
            presence: Arc::new(desk_x11::AskThePerson {
                person: self.person.display.clone(),
            }),
            apps: Arc::new(apps),
            accessibility: Arc::new(Placed::new(
                Arc::new(accessibility),
                Arc::new(KdeSurfaces(kde)),
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
        grab_where_the_person_is(&self.person, combo, pressed)
    }

    fn ask_person(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        ask_where_the_person_is(&self.person, question, cancel)
    }
}

/// `shuttle kwin-input-method`: the input method a seat's KWin starts, serving the daemon on
/// the socket its environment names until KWin ends it.
pub fn kwin_input_method() -> anyhow::Result<()> {
    let socket = std::env::var_os(desk_kde::im::SOCKET_ENV).ok_or_else(|| {
        anyhow::anyhow!(
            "{} is not set: this command is the input method a KDE seat's KWin starts, not one \
             to run by hand",
            desk_kde::im::SOCKET_ENV
        )
    })?;
    desk_kde::im::serve(std::path::Path::new(&socket))?;
    Ok(())
}

/// Where KWin shows a process's windows: its app's own area, and the buffer around it.
struct KdeSurfaces(Arc<KdeBackend>);

impl Surfaces for KdeSurfaces {
    fn native_windows(&self, pid: u32) -> Result<Vec<Surface>, DeskError> {
        Ok(self
            .0
            .all()?
            .into_iter()
            .filter(|w| w.top_level() && w.process() == Some(pid))
            .map(|w| Surface {
                frame: w.content(),
                buffer: w.surface(),
                title: w.title,
                counts_from: CountsFrom::Window,
            })
            .collect())
    }
}
