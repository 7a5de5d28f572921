//! A GNOME session on Wayland, driven natively: the desk of `desk_gnome` (windows and pixels
//! through shuttle's Shell extension, input through Mutter's RemoteDesktop), with `desk_linux`
//! for the processes and the accessibility tree (its positions placed where GNOME shows each
//! window). The person's own GNOME session under `inherit`, or a headless GNOME Shell as a
//! private seat.

use std::sync::Arc;

use super::finding::{Finding, Level};
use super::person::{MarkedPresence, Marks, ask_where_the_person_is, grab_where_the_person_is};
use super::seat::Session;
use super::{Person, Room};

use desk::{Answer, Backend, Cancel, DeskError, Hotkey, Platform, Presence, Question};
use desk_core::geometry::Rect;
use desk_gnome::GnomeBackend;
use desk_gnome::hotkey::GnomeHotkey;
use desk_linux::LinuxApps;
use desk_linux::atspi::OnDemand;
use desk_linux::placed::{CountsFrom, Placed, Surface, Surfaces};

/// Where a GNOME session is: its Wayland socket's name, and its session bus, where the Shell
/// and Mutter answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GnomeSession {
    /// The session's name, as `WAYLAND_DISPLAY` gives it (`wayland-0`).
    pub name: String,
    /// Its session bus; `None` for the environment's.
    pub bus: Option<String>,
}

impl GnomeSession {
    /// The GNOME session on Wayland the environment names: `XDG_CURRENT_DESKTOP` lists GNOME
    /// (`GNOME`, `ubuntu:GNOME`) and `WAYLAND_DISPLAY` is set. Whether the Shell and Mutter
    /// answer is found when the desk connects, and said then.
    pub fn from_env() -> Option<Self> {
        let desktop = std::env::var("XDG_CURRENT_DESKTOP").unwrap_or_default();
        if !desktop.split(':').any(|d| d.eq_ignore_ascii_case("GNOME")) {
            return None;
        }
        let name = std::env::var("WAYLAND_DISPLAY")
            .ok()
            .filter(|n| !n.is_empty())?;
        Some(Self {
            name,
            bus: std::env::var("DBUS_SESSION_BUS_ADDRESS")
                .ok()
                .filter(|b| !b.is_empty()),
        })
    }
}

/// A GNOME session: the person's, or a headless one of the daemon's own (a private seat).
#[derive(Debug, Clone)]
pub struct LinuxGnome {
    session: GnomeSession,
    /// Where the person is: confirm questions go there, and a private seat's kill hotkey is
    /// grabbed there.
    person: Person,
    /// A private seat's session: what its apps get, and its accessibility bus.
    private: Option<Session>,
    /// What its apps reach from a sandbox.
    room: Room,
}

impl LinuxGnome {
    /// Drives the person's GNOME `session`; asks the person on `person`; its apps reach `room`
    /// from a sandbox.
    pub fn new(session: GnomeSession, person: Person, room: Room) -> Self {
        Self {
            session,
            person,
            private: None,
            room,
        }
    }

    /// Drives the headless GNOME Shell named `name`, launching its apps into `private`.
    pub(super) fn private(name: String, person: Person, private: Session) -> Self {
        let bus = private
            .env
            .iter()
            .find(|(k, _)| k == "DBUS_SESSION_BUS_ADDRESS")
            .map(|(_, v)| v.clone());
        Self {
            session: GnomeSession { name, bus },
            person,
            room: private.room.clone(),
            private: Some(private),
        }
    }
}

impl Platform for LinuxGnome {
    fn connect(&self) -> Result<Backend, DeskError> {
        // A seat's PipeWire serves its own runtime directory; the person's, the environment's.
        let pipewire = self.private.as_ref().and_then(|p| {
            p.env
                .iter()
                .find(|(k, _)| k == "XDG_RUNTIME_DIR")
                .map(|(_, dir)| std::path::Path::new(dir).join("pipewire-0"))
        });
        let gnome = Arc::new(GnomeBackend::connect(
            &self.session.name,
            self.session.bus.as_deref(),
            pipewire,
        )?);
        let asker = desk_x11::AskThePerson {
            person: self.person.display.clone(),
        };
        let (presence, apps, accessibility): (Arc<dyn Presence>, _, _) = match &self.private {
            // Nobody watches a private seat: the person is asked on their own display.
            Some(session) => (
                Arc::new(asker),
                LinuxApps::with_env(
                    session.env.clone(),
                    session.remove.clone(),
                    self.room.clone(),
                ),
                session
                    .accessibility
                    .clone()
                    .map_or_else(OnDemand::default, OnDemand::at),
            ),
            None => (
                Arc::new(MarkedPresence {
                    asker,
                    desk: gnome.clone(),
                }),
                LinuxApps::inherit(self.room.clone()),
                OnDemand::default(),
            ),
        };
        Ok(Backend {
            display: gnome.clone(),
            input: gnome.clone(),
            presence,
            apps: Arc::new(apps),
            accessibility: Arc::new(Placed::new(
                Arc::new(accessibility),
                Arc::new(GnomeSurfaces(gnome)),
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
        Ok(Box::new(GnomeHotkey::grab(
            self.session.bus.as_deref(),
            combo,
            pressed,
        )?))
    }

    fn ask_person(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        ask_where_the_person_is(&self.person, question, cancel)
    }
}

impl Marks for GnomeBackend {
    fn indicate(&self, acting: bool) {
        GnomeBackend::indicate(self, acting);
    }

    fn overlays(&self) -> Vec<Rect> {
        GnomeBackend::overlays(self)
    }
}

/// Where GNOME shows a process's native windows: their window geometry, and the buffer
/// around it with the shadows their app draws.
struct GnomeSurfaces(Arc<GnomeBackend>);

impl Surfaces for GnomeSurfaces {
    fn native_windows(&self, pid: u32) -> Result<Vec<Surface>, DeskError> {
        Ok(self
            .0
            .shell()
            .windows()
            .map_err(desk_gnome::backend::desk_error)?
            .into_iter()
            .filter(|w| w.top_level() && !w.x11 && w.process() == Some(pid))
            .map(|w| Surface {
                frame: w.content(),
                buffer: w.buffer(),
                title: w.title,
                counts_from: CountsFrom::Window,
            })
            .collect())
    }
}

/// Where `shuttle setup gnome` puts shuttle's Shell extension: under the person's data
/// directory (`$XDG_DATA_HOME`, else `~/.local/share`).
pub fn extension_dir(data: &std::path::Path) -> std::path::PathBuf {
    data.join("gnome-shell/extensions")
        .join(desk_gnome::extension::UUID)
}

/// The extension's UUID, as GNOME's settings list it among the enabled ones.
pub const EXTENSION: &str = desk_gnome::extension::UUID;

/// Installs shuttle's Shell extension under the data directory `data`, in the form the
/// installed GNOME Shell loads; answers its directory and the Shell's major version.
pub fn install_extension(data: &std::path::Path) -> Result<(std::path::PathBuf, u32), String> {
    let shell = private_display::gnome_requirements()
        .into_iter()
        .find(|n| n.program == "gnome-shell")
        .and_then(|n| n.found)
        .ok_or("GNOME Shell is not installed (no gnome-shell on PATH)")?;
    let major = desk_gnome::extension::shell_major(&shell)
        .ok_or_else(|| format!("`{} --version` did not say its version", shell.display()))?;
    if major < desk_gnome::extension::OLDEST {
        return Err(format!(
            "GNOME Shell {major} is older than {}, the oldest shuttle's extension is written for",
            desk_gnome::extension::OLDEST
        ));
    }
    let dir = desk_gnome::extension::install(data, major)
        .map_err(|e| format!("cannot write {}: {e}", extension_dir(data).display()))?;
    Ok((dir, major))
}

/// shuttle's extension as installed where GNOME Shell looks for it, the person's data
/// directory first: the GNOME versions it is written for, and its interface's version (absent
/// from what a shuttle older than the field wrote).
struct Installed {
    shells: Vec<String>,
    version: Option<u64>,
}

fn installed_extension() -> Option<Installed> {
    super::data_dirs().into_iter().find_map(|data| {
        let text = std::fs::read_to_string(extension_dir(&data).join("metadata.json")).ok()?;
        let metadata: serde_json::Value = serde_json::from_str(&text).ok()?;
        Some(Installed {
            shells: metadata["shell-version"]
                .as_array()
                .map(|v| {
                    v.iter()
                        .filter_map(|s| s.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default(),
            version: metadata["version"].as_u64(),
        })
    })
}

/// Why an extension that is not running is not, from what is installed and the Shell's
/// version.
fn why_not_running(installed: Option<&Installed>, shell: Option<&str>) -> String {
    let Some(installed) = installed else {
        return "it is not installed".into();
    };
    let written_for = installed.shells.join(", ");
    match shell.and_then(|v| v.split('.').next()) {
        Some(major) if !installed.shells.iter().any(|s| s == major) => format!(
            "it is installed for GNOME {written_for}, and GNOME Shell {major} loads only an \
             extension written for it"
        ),
        Some(_) => "it is installed for this GNOME: it is turned off, or this session started \
                    before it was installed"
            .into(),
        None => format!("it is installed for GNOME {written_for}"),
    }
}

/// How the person's GNOME session `name` stands: whether shuttle's extension runs in its Shell
/// and Mutter's RemoteDesktop answers, which the GNOME desk drives it through, and the
/// versions of the Shell and of the extension installed.
pub(super) fn finding(name: &str, inherit: bool) -> Finding {
    let probe = match desk_gnome::shell::probe(None) {
        Ok(probe) => probe,
        Err(e) if inherit => {
            return Finding::new(Level::Fail, format!("GNOME session {name}: {e}"))
                .fix("start shuttle from your desktop session (DBUS_SESSION_BUS_ADDRESS)");
        }
        Err(e) => return Finding::not_driven(&format!("GNOME session {name}: {e}")),
    };
    let session = match &probe.shell_version {
        Some(version) => format!("GNOME Shell {version} session {name}"),
        None => format!("GNOME session {name}"),
    };
    let installed = installed_extension();
    let detail = match (probe.extension, probe.remote_desktop) {
        (true, true) => {
            let detail = format!(
                "{session}: shuttle's Shell extension runs and Mutter's RemoteDesktop answers"
            );
            let speaks = desk_gnome::extension::VERSION;
            return match installed.and_then(|i| i.version) {
                Some(version) if inherit && version != u64::from(speaks) => Finding::new(
                    Level::Warn,
                    format!(
                        "{detail}, but the extension installed speaks version {version} of its \
                         interface and this shuttle {speaks}"
                    ),
                )
                .fix("run `shuttle setup gnome`, then log out and in"),
                _ if inherit => Finding::new(
                    Level::Ok,
                    format!("{detail}; driven natively (docs/gnome.md)"),
                ),
                _ => Finding::not_driven(&detail),
            };
        }
        (false, _) => format!(
            "{session}: shuttle's Shell extension is not running ({}), so windows, shots and \
             the marker are out of reach",
            why_not_running(installed.as_ref(), probe.shell_version.as_deref())
        ),
        (true, false) => format!(
            "{session}: Mutter's RemoteDesktop API is not on the session bus, so input is out \
             of reach"
        ),
    };
    if !inherit {
        return Finding::not_driven(&detail);
    }
    let fix = if probe.extension {
        "GNOME Shell 43 or newer on Wayland serves org.gnome.Mutter.RemoteDesktop; check that \
         the session is GNOME's own"
    } else {
        "run `shuttle setup gnome`, then log out and in"
    };
    Finding::new(Level::Fail, detail).fix(fix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_extension_not_running_is_told_why_from_what_is_installed() {
        let for_47 = Installed {
            shells: vec!["47".into()],
            version: Some(2),
        };
        assert_eq!(why_not_running(None, Some("48.7")), "it is not installed");
        assert_eq!(
            why_not_running(Some(&for_47), Some("48.7")),
            "it is installed for GNOME 47, and GNOME Shell 48 loads only an extension written \
             for it"
        );
        assert!(why_not_running(Some(&for_47), Some("47.2")).contains("turned off"));
        assert_eq!(
            why_not_running(Some(&for_47), None),
            "it is installed for GNOME 47"
        );
    }
}
