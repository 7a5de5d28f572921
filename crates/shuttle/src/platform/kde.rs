//! A KDE Plasma session on Wayland, driven natively: the desk of `desk_kde` (windows through
//! KWin scripts, pixels through ScreenShot2, input through fake input), with `desk_linux` for
//! the processes and the accessibility tree (its positions placed where KWin shows each
//! window). The person's own Plasma session under `inherit`, or a headless KWin as a private
//! seat (docs/kde.md).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::finding::{Finding, Level};
use super::person::{MarkedPresence, Marks, ask_where_the_person_is, grab_where_the_person_is};
use super::seat::Session;
use super::{Person, Room};

use desk::{Answer, Backend, Cancel, DeskError, Display, Hotkey, Platform, Presence, Question};
use desk_core::geometry::Rect;
use desk_kde::KdeBackend;
use desk_linux::LinuxApps;
use desk_linux::atspi::OnDemand;
use desk_linux::placed::{CountsFrom, Placed, Surface, Surfaces};
use desk_wayland::marker::Marker;
use private_display::PrivateDisplay;

/// Where a KDE Plasma session on Wayland is: its Wayland socket, and its session bus, where
/// KWin answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KdeSession {
    /// Its name in replies, as `WAYLAND_DISPLAY` gives it (`wayland-0`).
    pub name: String,
    /// Its Wayland socket's path.
    pub socket: PathBuf,
    /// Its session bus; `None` for the environment's.
    pub bus: Option<String>,
}

impl KdeSession {
    /// The KDE session on Wayland the environment names: `XDG_CURRENT_DESKTOP` lists KDE and
    /// `WAYLAND_DISPLAY` is set. Whether KWin answers and grants shuttle its interfaces is
    /// found when the desk connects, and said then.
    pub fn from_env() -> Option<Self> {
        let desktop = std::env::var("XDG_CURRENT_DESKTOP").unwrap_or_default();
        if !desktop.split(':').any(|d| d.eq_ignore_ascii_case("KDE")) {
            return None;
        }
        let name = std::env::var("WAYLAND_DISPLAY")
            .ok()
            .filter(|n| !n.is_empty())?;
        let socket = match std::env::var("XDG_RUNTIME_DIR") {
            Ok(runtime) if !name.starts_with('/') => Path::new(&runtime).join(&name),
            _ => PathBuf::from(&name),
        };
        Some(Self {
            name,
            socket,
            bus: std::env::var("DBUS_SESSION_BUS_ADDRESS")
                .ok()
                .filter(|b| !b.is_empty()),
        })
    }
}

/// A KDE Plasma session: the person's, or a headless KWin of the daemon's own (a seat).
#[derive(Debug, Clone)]
pub struct LinuxKde {
    session: KdeSession,
    /// Where the person is: confirm questions go there, and a seat's kill hotkey is grabbed
    /// there.
    person: Person,
    /// A seat's session, its directory and where shuttle's input method, which its KWin
    /// runs, listens.
    private: Option<Seat>,
    /// What its apps reach from a sandbox.
    room: Room,
}

#[derive(Debug, Clone)]
struct Seat {
    session: Session,
    dir: PathBuf,
    input_method: PathBuf,
}

impl LinuxKde {
    /// Drives the person's KDE `session`; asks the person on `person`; its apps reach `room`
    /// from a sandbox.
    pub fn new(session: KdeSession, person: Person, room: Room) -> Self {
        Self {
            session,
            person,
            private: None,
            room,
        }
    }

    /// Drives the headless KWin `display`, launching its apps into `session`.
    pub(super) fn private(display: &PrivateDisplay, person: Person, session: Session) -> Self {
        let bus = session
            .env
            .iter()
            .find(|(k, _)| k == "DBUS_SESSION_BUS_ADDRESS")
            .map(|(_, v)| v.clone());
        let name = display.name().to_string();
        Self {
            session: KdeSession {
                socket: PathBuf::from(&name),
                name,
                bus,
            },
            person,
            room: session.room.clone(),
            private: Some(Seat {
                session,
                dir: display.dir().to_path_buf(),
                input_method: super::seat::kde_input_method(display.dir()),
            }),
        }
    }

    /// A directory of the daemon's alone for the scripts it has KWin run: in a seat's
    /// directory, else a new one under the system's temporary directory.
    fn scripts(&self, purpose: &str) -> Result<PathBuf, DeskError> {
        match &self.private {
            Some(seat) => Ok(seat.dir.join(format!("kwin-{purpose}"))),
            None => {
                private_display::fresh_dir(&format!("shuttle-kwin-{purpose}"), 0o700).map_err(|e| {
                    DeskError::Unreachable {
                        system: "wayland",
                        reason: format!("cannot make a directory for KWin's scripts: {e}"),
                    }
                })
            }
        }
    }
}

impl Platform for LinuxKde {
    fn connect(&self) -> Result<Backend, DeskError> {
        let unreachable = |reason: String| DeskError::Unreachable {
            system: "wayland",
            reason,
        };
        let bus = self
            .session
            .bus
            .clone()
            .or_else(|| std::env::var("DBUS_SESSION_BUS_ADDRESS").ok())
            .ok_or_else(|| {
                unreachable("no session bus: DBUS_SESSION_BUS_ADDRESS is not set".into())
            })?;
        let exe = std::env::current_exe()
            .map_err(|e| unreachable(format!("cannot find this program's path: {e}")))?;
        let mut helper = std::process::Command::new(exe);
        helper.arg("kwin-connect").env_clear();
        let sockets = desk_kde::credit::connect(helper, &self.session.socket, &bus)
            .map_err(desk_kde::backend::desk_error)?;
        let kde = Arc::new(KdeBackend::connect(
            &self.session.name,
            sockets,
            &self.scripts("scripts")?,
            self.private.as_ref().map(|seat| seat.input_method.clone()),
            desk_wayland::Clipboard::at(Some(&self.session.socket)),
        )?);
        let asker = desk_x11::AskThePerson {
            person: self.person.display.clone(),
        };
        let (presence, apps, accessibility): (Arc<dyn Presence>, _, _) = match &self.private {
            // Nobody watches a private seat: the person is asked on their own display.
            Some(seat) => (
                Arc::new(asker),
                LinuxApps::with_env(
                    seat.session.env.clone(),
                    seat.session.remove.clone(),
                    self.room.clone(),
                ),
                seat.session
                    .accessibility
                    .clone()
                    .map_or_else(OnDemand::default, OnDemand::at),
            ),
            None => (
                Arc::new(MarkedPresence {
                    asker,
                    desk: Arc::new(KdeMarks {
                        socket: self.session.socket.clone(),
                        marker: OnceLock::new(),
                        desk: kde.clone(),
                    }),
                }),
                LinuxApps::inherit(self.room.clone()),
                OnDemand::default(),
            ),
        };
        Ok(Backend {
            display: kde.clone(),
            input: kde.clone(),
            presence,
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
        if self.private.is_some() {
            return grab_where_the_person_is(&self.person, combo, pressed);
        }
        Ok(Box::new(desk_kde::hotkey::KdeHotkey::grab(
            self.session.bus.as_deref(),
            &self.scripts("hotkey")?,
            combo,
            pressed,
        )?))
    }

    fn ask_person(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        ask_where_the_person_is(&self.person, question, cancel)
    }
}

/// `shuttle kwin-connect WAYLAND BUS`: connects the sockets the daemon hands over to KWin's
/// Wayland socket and the session bus, so that KWin credits them to a process it can identify
/// (the daemon is not dumpable), and stays while the daemon keeps its stdin open.
pub fn kwin_connect(wayland: &Path, bus: &str) -> anyhow::Result<()> {
    desk_kde::credit::serve(wayland, bus)?;
    Ok(())
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

/// The acting marker in the person's Plasma session: a square on KWin's layer shell, drawn
/// as on sway.
struct KdeMarks {
    socket: PathBuf,
    marker: OnceLock<Option<Marker>>,
    desk: Arc<KdeBackend>,
}

impl Marks for KdeMarks {
    fn indicate(&self, acting: bool) {
        let marker = self
            .marker
            .get_or_init(|| match Marker::start(Some(&self.socket)) {
                Ok(marker) => Some(marker),
                Err(e) => {
                    tracing::warn!(error = %e, "could not create the acting marker");
                    None
                }
            });
        if let Some(marker) = marker {
            marker.set(acting);
        }
    }

    fn overlays(&self) -> Vec<Rect> {
        match (self.marker.get(), self.desk.screen()) {
            (Some(Some(_)), Ok(screen)) => vec![Marker::rect(screen)],
            _ => Vec::new(),
        }
    }
}

/// How the person's Plasma session `name` stands: whether KWin answers, its version, and
/// whether it grants shuttle fake input and screenshots (`shuttle setup kde`).
pub(super) fn finding(name: &str, inherit: bool) -> Finding {
    let version = match desk_kde::kwin::probe(None) {
        Ok(version) => version,
        Err(e) if inherit => {
            return Finding::new(Level::Fail, format!("KDE session {name}: {e}"))
                .fix("start shuttle from your desktop session (DBUS_SESSION_BUS_ADDRESS)");
        }
        Err(e) => return Finding::not_driven(&format!("KDE session {name}: {e}")),
    };
    let found = desktop_file_found();
    let installed = found.as_deref().is_some_and(names_this_binary);
    let detail = format!(
        "KDE session {name}: KWin {version} answers; {}",
        match &found {
            _ if installed => "shuttle's desktop file grants it fake input and screenshots".into(),
            Some(file) => format!(
                "the desktop file KWin reads, {}, is not the one this shuttle writes (it names \
                 another binary, or an older shuttle wrote it)",
                file.display()
            ),
            None => "no desktop file grants shuttle fake input and screenshots".into(),
        }
    );
    if !inherit {
        return Finding::not_driven(&detail);
    }
    if !installed {
        return Finding::new(Level::Fail, detail)
            .fix("run `shuttle setup kde`, then log out and in");
    }
    Finding::new(
        Level::Ok,
        format!("{detail}; driven natively (docs/kde.md)"),
    )
}

/// Where `shuttle setup kde` puts the desktop file that has KWin grant shuttle its
/// interfaces: among the person's applications (`$XDG_DATA_HOME`, else `~/.local/share`).
pub fn desktop_file_path(data: &Path) -> PathBuf {
    data.join("applications").join(desk_kde::DESKTOP_FILE)
}

/// The desktop file for this binary, as `shuttle setup kde` writes it.
pub fn desktop_file() -> Option<String> {
    desk_kde::own_exe().map(|exe| desk_kde::desktop_file(&exe))
}

/// Whether the desktop file at `file` is the one this binary needs.
pub fn names_this_binary(file: &Path) -> bool {
    desktop_file()
        .is_some_and(|wanted| std::fs::read_to_string(file).is_ok_and(|held| held == wanted))
}

/// The desktop file KWin finds for shuttle: in `$XDG_DATA_HOME` (else `~/.local/share`), then
/// in each of `$XDG_DATA_DIRS` (else `/usr/local/share:/usr/share`). The first found hides the
/// others: the person's (`shuttle setup kde`), then the system's (the .deb).
pub fn desktop_file_found() -> Option<PathBuf> {
    super::data_dirs()
        .into_iter()
        .map(|data| desktop_file_path(&data))
        .find(|file| file.is_file())
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
