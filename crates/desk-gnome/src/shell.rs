//! shuttle's GNOME Shell extension over the session bus. The extension serves only the client
//! that claimed it first, for as long as that client stays on the bus, so a [`Shell`] claims
//! it when it connects and keeps its connection.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use desk::image::RgbImage;
use desk_core::geometry::Rect;
use serde::Deserialize;
use zbus::blocking::Connection;
use zbus::zvariant::OwnedValue;

use crate::extension::VERSION;

/// The extension's name on the bus, its object and its interface.
pub const BUS_NAME: &str = "dev.shuttle.Gnome";
pub const OBJECT: &str = "/dev/shuttle/Gnome";
pub const INTERFACE: &str = "dev.shuttle.Gnome1";

/// What went wrong on the GNOME side.
#[derive(Debug, thiserror::Error)]
pub enum GnomeError {
    /// The session bus could not be reached.
    #[error("cannot reach the session bus at {address}: {reason}")]
    Bus { address: String, reason: String },
    /// The extension does not run in this session.
    #[error(
        "shuttle's GNOME Shell extension ({uuid}) is not running in this session: install it \
         with `shuttle setup gnome`, then log out and in (GNOME Shell loads extensions at login)",
        uuid = crate::extension::UUID
    )]
    NoExtension,
    /// Another client holds the extension.
    #[error("shuttle's GNOME Shell extension refused this daemon: {0}; stop the other client")]
    Claimed(String),
    /// The extension speaks another version of the interface.
    #[error(
        "shuttle's GNOME Shell extension speaks version {found} and this shuttle version \
         {VERSION}: reinstall it with `shuttle setup gnome`, then log out and in"
    )]
    Version { found: u32 },
    /// Mutter refused or failed a request.
    #[error("{what} failed: {reason}")]
    Failed { what: String, reason: String },
    /// The connection broke (the Shell restarted or ended).
    #[error("the connection to GNOME Shell broke: {0}")]
    Broken(String),
}

/// A window as the extension reports it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct GnomeWindow {
    /// Mutter's id for it, stable while it lives.
    pub id: u64,
    pub title: String,
    /// Its app id (Wayland), or class (X11).
    pub app: Option<String>,
    /// Its process; 0 or less when Mutter does not know it.
    pub pid: i32,
    /// Mutter's window type (`Meta.WindowType`).
    #[serde(rename = "type")]
    pub kind: i32,
    /// Whether it is a menu, tooltip or other window no window manager manages.
    pub popup: bool,
    /// Whether it is an X11 window under XWayland.
    pub x11: bool,
    /// Where it is as the person sees it (for a native app, its window geometry: no shadows),
    /// x, y, width, height.
    pub frame: [i32; 4],
    /// Where its client area is, inside the window manager's decorations (X11).
    pub client: [i32; 4],
    /// Where its whole buffer is, shadows included: the origin of its own pixels.
    pub buffer: [i32; 4],
    pub focused: bool,
    pub minimized: bool,
    pub maximized: bool,
    /// Whether the screen shows it (not minimized, on the shown workspace).
    pub shown: bool,
    /// The window it is transient for, 0 for none.
    pub transient: u64,
}

/// Mutter's window types (`Meta.WindowType`) the desk tells apart.
pub mod kind {
    pub const NORMAL: i32 = 0;
    pub const DIALOG: i32 = 3;
    pub const MODAL_DIALOG: i32 = 4;
    pub const TOOLBAR: i32 = 5;
    pub const UTILITY: i32 = 7;
    pub const SPLASHSCREEN: i32 = 8;
}

fn rect([x, y, w, h]: [i32; 4]) -> Rect {
    Rect {
        x,
        y,
        w: w.max(0) as u32,
        h: h.max(0) as u32,
    }
}

impl GnomeWindow {
    /// Whether it is a window an app shows as its own (not the desktop, a panel or a menu).
    pub fn top_level(&self) -> bool {
        !self.popup
            && matches!(
                self.kind,
                kind::NORMAL
                    | kind::DIALOG
                    | kind::MODAL_DIALOG
                    | kind::TOOLBAR
                    | kind::UTILITY
                    | kind::SPLASHSCREEN
            )
    }

    /// Where its content is: a native app's window geometry, an X11 app's client area. A
    /// window's coordinates start here.
    pub fn content(&self) -> Rect {
        if self.x11 {
            rect(self.client)
        } else {
            rect(self.frame)
        }
    }

    /// Where it is, decorations included.
    pub fn outer(&self) -> Rect {
        rect(self.frame)
    }

    /// Where its own pixels start.
    pub fn buffer(&self) -> Rect {
        rect(self.buffer)
    }

    /// Its process, when known.
    pub fn process(&self) -> Option<u32> {
        u32::try_from(self.pid).ok().filter(|&p| p > 0)
    }
}

/// A claimed connection to the extension.
pub struct Shell {
    connection: Connection,
    /// A directory of this daemon's own where the Shell writes screenshots, made at the first
    /// (a connection that only grabs the hotkey never needs one).
    shots: Mutex<Option<PathBuf>>,
    taken: AtomicU64,
}

/// Answers of a D-Bus error name the extension or the bus gives.
fn error_name(e: &zbus::Error) -> Option<String> {
    match e {
        zbus::Error::MethodError(name, _, _) => Some(name.to_string()),
        _ => None,
    }
}

fn error_text(e: &zbus::Error) -> String {
    match e {
        zbus::Error::MethodError(_, Some(text), _) => text.clone(),
        other => other.to_string(),
    }
}

impl Shell {
    /// Connects to the session bus at `address` (the environment's when `None`) and claims
    /// the extension.
    pub fn connect(address: Option<&str>) -> Result<Self, GnomeError> {
        let connection = session_bus(address, None)?;
        let shell = Self {
            connection,
            shots: Mutex::new(None),
            taken: AtomicU64::new(0),
        };
        let reply = shell
            .connection
            .call_method(Some(BUS_NAME), OBJECT, Some(INTERFACE), "Claim", &())
            .map_err(|e| match error_name(&e).as_deref() {
                Some("org.freedesktop.DBus.Error.ServiceUnknown")
                | Some("org.freedesktop.DBus.Error.NameHasNoOwner") => GnomeError::NoExtension,
                Some("dev.shuttle.Gnome1.Error.Claimed") => GnomeError::Claimed(error_text(&e)),
                _ => GnomeError::Broken(error_text(&e)),
            })?;
        let (found,): (u32,) = reply
            .body()
            .deserialize()
            .map_err(|e| GnomeError::Broken(e.to_string()))?;
        if found != VERSION {
            return Err(GnomeError::Version { found });
        }
        Ok(shell)
    }

    /// The claimed connection, which the RemoteDesktop session shares (Mutter ends a session
    /// when the connection that made it leaves).
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    fn call<B, R>(&self, method: &str, body: &B) -> Result<R, GnomeError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
        R: for<'d> zbus::zvariant::DynamicDeserialize<'d>,
    {
        let reply = self
            .connection
            .call_method(Some(BUS_NAME), OBJECT, Some(INTERFACE), method, body)
            .map_err(|e| match error_name(&e).as_deref() {
                Some("dev.shuttle.Gnome1.Error.Failed") => GnomeError::Failed {
                    what: format!("GNOME Shell's {method}"),
                    reason: error_text(&e),
                },
                Some("dev.shuttle.Gnome1.Error.Claimed") => GnomeError::Claimed(error_text(&e)),
                Some("org.freedesktop.DBus.Error.ServiceUnknown") => GnomeError::NoExtension,
                _ => GnomeError::Broken(error_text(&e)),
            })?;
        reply
            .body()
            .deserialize()
            .map_err(|e| GnomeError::Broken(format!("{method} answered {e}")))
    }

    /// Every window Mutter knows, topmost first.
    pub fn windows(&self) -> Result<Vec<GnomeWindow>, GnomeError> {
        let (json,): (String,) = self.call("Windows", &())?;
        serde_json::from_str(&json).map_err(|e| GnomeError::Broken(format!("Windows: {e}")))
    }

    /// Asks for `action` on window `id`: `activate`, `close`, `minimize`, `maximize`,
    /// `restore`, or `frame` (move and resize its frame to `frame`).
    pub fn act(&self, id: u64, action: &str, frame: [i32; 4]) -> Result<(), GnomeError> {
        self.call::<_, ()>("Act", &(id, action, frame.to_vec()))
    }

    /// The pixels of `area` of the screen, or with `window` of that window's own pixels
    /// (`area` in its buffer's coordinates).
    pub fn shot(&self, window: Option<u64>, area: Rect) -> Result<RgbImage, GnomeError> {
        let dir = {
            let mut shots = self.shots.lock().unwrap_or_else(PoisonError::into_inner);
            match &*shots {
                Some(dir) => dir.clone(),
                None => shots.insert(shots_dir()?).clone(),
            }
        };
        let n = self.taken.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{n}.png"));
        let area = vec![area.x, area.y, area.w as i32, area.h as i32];
        let asked = self
            .call::<_, ()>(
                "Shot",
                &(window.unwrap_or(0), area, path.display().to_string()),
            )
            .map_err(|e| match e {
                // An extension an older shuttle installed hands Mutter 45 and later cairo's
                // rectangle for a window's pixels.
                GnomeError::Failed { what, reason } if reason.contains("MtkRectangle") => {
                    GnomeError::Failed {
                        what,
                        reason: format!(
                            "{reason}: the installed extension predates GNOME 45; reinstall it \
                             with `shuttle setup gnome`, then log out and in"
                        ),
                    }
                }
                other => other,
            });
        let read = asked.and_then(|()| {
            let bytes = std::fs::read(&path).map_err(|e| GnomeError::Failed {
                what: "reading the Shell's screenshot".into(),
                reason: e.to_string(),
            })?;
            decode(&bytes)
        });
        let _ = std::fs::remove_file(&path);
        read
    }

    /// Grabs the kill hotkey `accelerator` (GTK's spelling: `<Super><Shift>Escape`) for this
    /// process, in place of one grabbed before; `false` when the Shell will not (another
    /// binding holds it). Each press is a `HotkeyPressed` signal.
    pub fn grab(&self, accelerator: &str) -> Result<bool, GnomeError> {
        let (grabbed,): (bool,) = self.call("Grab", &(accelerator,))?;
        Ok(grabbed)
    }

    /// Shows or hides the acting marker; answers where it is drawn when shown.
    pub fn marker(&self, shown: bool) -> Result<Option<Rect>, GnomeError> {
        let (rect,): (Vec<i32>,) = self.call("Marker", &(shown,))?;
        Ok(match rect.as_slice() {
            &[x, y, w, h] => Some(self::rect([x, y, w, h])),
            _ => None,
        })
    }

    /// Puts `text` on the clipboard (the Shell serves it until another client takes it).
    pub fn set_clipboard_text(&self, text: &str) -> Result<(), GnomeError> {
        self.call::<_, ()>("ClipboardWrite", &(text,))
    }

    /// The MIME types the clipboard's owner offers.
    pub fn clipboard_types(&self) -> Result<Vec<String>, GnomeError> {
        let (types,): (Vec<String>,) = self.call("ClipboardTypes", &())?;
        Ok(types)
    }

    /// The clipboard's content as MIME type `kind`; `None` when its owner gave none. The Shell
    /// reads at most a byte over the largest of `desk::clip`'s limits.
    pub fn clipboard_content(&self, kind: &str) -> Result<Option<Vec<u8>>, GnomeError> {
        let (present, bytes): (bool, Vec<u8>) = self.call("ClipboardContent", &(kind,))?;
        Ok(present.then_some(bytes))
    }

    /// Puts `bytes` on the clipboard as MIME type `kind` (the Shell serves them until another
    /// client takes it).
    pub fn set_clipboard_content(&self, kind: &str, bytes: &[u8]) -> Result<(), GnomeError> {
        self.call::<_, ()>("ClipboardSetContent", &(kind, bytes))
    }

    /// Where the pointer is.
    pub fn pointer(&self) -> Result<(i32, i32), GnomeError> {
        self.call("Pointer", &())
    }

    /// Commits `text` to the focused text field through the input method; `false` when no
    /// field takes text that way (an X11 app, or none focused).
    pub fn commit(&self, text: &str) -> Result<bool, GnomeError> {
        let (committed,): (bool,) = self.call("Commit", &(text,))?;
        Ok(committed)
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        if let Some(dir) = self.shots.get_mut().unwrap_or_else(PoisonError::into_inner) {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A connection to the session bus at `address` (the environment's when `None`).
fn session_bus(
    address: Option<&str>,
    timeout: Option<std::time::Duration>,
) -> Result<Connection, GnomeError> {
    let builder = match address {
        Some(address) => zbus::blocking::connection::Builder::address(address),
        None => zbus::blocking::connection::Builder::session(),
    };
    builder
        .map(|b| match timeout {
            Some(timeout) => b.method_timeout(timeout),
            None => b,
        })
        .and_then(|b| b.build())
        .map_err(|e| GnomeError::Bus {
            address: address.unwrap_or("DBUS_SESSION_BUS_ADDRESS").to_string(),
            reason: e.to_string(),
        })
}

/// A new directory only this user may enter, for the Shell's screenshots.
fn shots_dir() -> Result<PathBuf, GnomeError> {
    use std::os::unix::fs::DirBuilderExt;
    static MADE: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "shuttle-gnome-shots-{}-{}",
        std::process::id(),
        MADE.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|e| GnomeError::Failed {
            what: format!("making {}", dir.display()),
            reason: e.to_string(),
        })?;
    Ok(dir)
}

/// RGB pixels of a PNG the Shell wrote (RGB or RGBA, 8 bits).
fn decode(bytes: &[u8]) -> Result<RgbImage, GnomeError> {
    let failed = |e: png::DecodingError| GnomeError::Failed {
        what: "decoding the Shell's screenshot".into(),
        reason: e.to_string(),
    };
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(failed)?;
    let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader.next_frame(&mut buf).map_err(failed)?;
    let channels = info.color_type.samples();
    let pixels = match channels {
        3 => buf[..info.buffer_size()].to_vec(),
        4 => buf[..info.buffer_size()]
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect(),
        other => {
            return Err(GnomeError::Failed {
                what: "decoding the Shell's screenshot".into(),
                reason: format!("{other} channels per pixel"),
            });
        }
    };
    Ok(RgbImage {
        width: info.width,
        height: info.height,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_png_the_shell_writes_is_read_as_rgb() {
        let image = RgbImage {
            width: 2,
            height: 1,
            pixels: vec![1, 2, 3, 4, 5, 6],
        };
        assert_eq!(decode(&image.to_png()).unwrap(), image);
    }

    #[test]
    fn a_window_is_read_from_the_extension_s_json() {
        let json = r#"[{"id":7,"title":"Notes","app":"org.gnome.TextEditor","pid":42,"type":0,
            "popup":false,"x11":false,"frame":[50,82,700,520],"client":[-11,27,822,642],
            "buffer":[39,71,722,542],"focused":true,"minimized":false,"maximized":false,
            "shown":true,"transient":0}]"#;
        let windows: Vec<GnomeWindow> = serde_json::from_str(json).unwrap();
        let w = &windows[0];
        assert!(w.top_level());
        assert_eq!(
            w.content(),
            Rect {
                x: 50,
                y: 82,
                w: 700,
                h: 520
            }
        );
        assert_eq!(w.process(), Some(42));
    }
}

/// What `shuttle doctor` reads of a GNOME session without claiming the extension (a running
/// daemon may hold it): whether the extension and Mutter's RemoteDesktop are on its bus, and
/// the Shell's version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// shuttle's extension owns its name.
    pub extension: bool,
    /// Mutter's RemoteDesktop API answers.
    pub remote_desktop: bool,
    /// What the Shell says its version is (`48.7`), when it answers.
    pub shell_version: Option<String>,
}

/// How long the probe waits for an answer.
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// Reads the session bus at `address` (the environment's when `None`).
pub fn probe(address: Option<&str>) -> Result<Probe, GnomeError> {
    // A Shell that does not answer leaves its version unknown, not the doctor waiting.
    let connection = session_bus(address, Some(PROBE_TIMEOUT))?;
    let dbus = zbus::blocking::fdo::DBusProxy::new(&connection)
        .map_err(|e| GnomeError::Broken(e.to_string()))?;
    let owned = |name: &str| {
        zbus::names::BusName::try_from(name.to_string())
            .ok()
            .and_then(|name| dbus.name_has_owner(name).ok())
            .unwrap_or(false)
    };
    let shell_version = connection
        .call_method(
            Some("org.gnome.Shell"),
            "/org/gnome/Shell",
            Some("org.freedesktop.DBus.Properties"),
            "Get",
            &("org.gnome.Shell", "ShellVersion"),
        )
        .ok()
        .and_then(|reply| reply.body().deserialize::<OwnedValue>().ok())
        .and_then(|value| String::try_from(value).ok());
    Ok(Probe {
        extension: owned(BUS_NAME),
        remote_desktop: owned("org.gnome.Mutter.RemoteDesktop"),
        shell_version,
    })
}
