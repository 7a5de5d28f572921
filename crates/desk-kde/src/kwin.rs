//! KWin over the session bus: its windows and window requests through scripts shuttle loads
//! into it (KWin gives D-Bus clients no window list), answered by a D-Bus call back to an
//! object of the daemon's own that takes calls from KWin alone.
//!
//! A request is a script run once: written to a private directory, loaded and run over
//! `/Scripting`, it calls the daemon's `Answer` with its result, and is unloaded. The window
//! news is a script that stays loaded while the desk is connected and calls `Event`.
//!
//! Any client of the session bus may load a script into KWin, whose calls then come from
//! KWin's name too: each of shuttle's scripts carries a secret of the connection's, which only
//! its own JavaScript engine holds, and a call without it is refused.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use desk::{WindowEventKind, WindowEvents, WindowLog};
use serde::Deserialize;
use serde_json::{Value, json};
use zbus::blocking::Connection;
use zbus::message::Header;

/// KWin's name on the session bus.
pub const KWIN: &str = "org.kde.KWin";
/// The daemon's object that KWin's scripts answer, and its interface.
pub const OBJECT: &str = "/dev/shuttle/KWin";
pub const INTERFACE: &str = "dev.shuttle.KWin1";

/// The KWins whose scripting API the scripts speak: Plasma 5.27's and Plasma 6's.
pub const MAJORS: [u32; 2] = [5, 6];

/// How long a request's script has to answer.
const ANSWER_LIMIT: Duration = Duration::from_secs(3);

/// The script that runs one request.
const REQUEST: &str = include_str!("../script/request.js");
/// The script that sends the window news.
const EVENTS: &str = include_str!("../script/events.js");
/// The plugin name the window news runs under: one per KWin, so a daemon that was killed
/// leaves none running once the next one connects.
const EVENTS_PLUGIN: &str = "shuttle-window-news";
/// The script that grabs the kill hotkey, and its plugin name, likewise one per KWin.
const HOTKEY: &str = include_str!("../script/hotkey.js");
const HOTKEY_PLUGIN: &str = "shuttle-kill-hotkey";

/// What went wrong on KWin's side.
#[derive(Debug, thiserror::Error)]
pub enum KdeError {
    /// The session bus could not be reached.
    #[error("cannot reach the session bus at {address}: {reason}")]
    Bus { address: String, reason: String },
    /// KWin is not on the session bus.
    #[error("KWin does not answer on the session bus ({KWIN}): is this a KDE Plasma session?")]
    NoKWin,
    /// A KWin whose scripting API the desk does not speak.
    #[error(
        "KWin {version} is not supported: shuttle's KWin scripts speak to the KWin of Plasma \
         5.27 and of Plasma 6 (docs/kde.md)"
    )]
    Version { version: String },
    /// KWin did not authorise shuttle for an interface.
    #[error(
        "KWin refused shuttle {what}: KWin grants it to a program that a desktop file among \
         its applications names by path, and none names {exe}; in your Plasma session, run \
         `shuttle setup kde`, then log out and in (docs/kde.md)"
    )]
    Unauthorised { what: String, exe: String },
    /// KWin serves no screenshots: ScreenShot2 is not on the bus.
    #[error(
        "KWin offers no screenshots in this session: org.kde.KWin.ScreenShot2 is not on its \
         bus. KWin serves it through its screenshot effect: KWin 6 runs that only while it \
         composites with OpenGL, which needs a GPU's render node (/dev/dri), and the effect may \
         have been turned off in KWin's settings (docs/kde.md)"
    )]
    NoScreenshots,
    /// A request was refused or failed inside KWin.
    #[error("{what} failed: {reason}")]
    Failed { what: String, reason: String },
    /// The bus, the compositor or an answer broke.
    #[error("{0}")]
    Broken(String),
}

/// One of KWin's windows, as a script reads it.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct KdeWindow {
    /// KWin's id of it (a UUID).
    pub id: String,
    pub pid: i64,
    pub title: String,
    /// Its desktop file's name, else its resource class.
    pub app: String,
    /// `normal`, `dialog`, `splash`, `popup`, `utility` or `other`.
    pub kind: String,
    /// Where it is on the screen, with the decoration KWin draws around it: x, y, w, h.
    pub frame: [i32; 4],
    /// Its buffer, with the shadows its app draws.
    pub buffer: [i32; 4],
    pub active: bool,
    pub minimized: bool,
    pub maximized: bool,
    /// The window it belongs to, for a dialog.
    pub transient_for: Option<String>,
    pub modal: bool,
    /// Its place in the stack, bottom first.
    pub stacking: i64,
    pub managed: bool,
    /// A desktop, dock or panel: KWin's own furniture.
    pub special: bool,
}

/// What a `windows` request answers.
#[derive(Debug, Deserialize)]
pub struct Listing {
    pub windows: Vec<KdeWindow>,
    /// Where the pointer is.
    pub cursor: [i32; 2],
    /// The screen: every output's area, x, y, w, h.
    pub screen: [i32; 4],
}

/// The daemon's object that scripts answer.
struct Answers {
    /// KWin's unique name on the bus: calls from anyone else are refused. The desk asks the
    /// bus again when a script does not answer; the handlers never call out, since they run
    /// on the thread that reads the bus.
    kwin: Mutex<String>,
    /// What every script of this connection carries: a call without it is refused.
    secret: String,
    pending: Mutex<HashMap<u64, Sender<String>>>,
    log: Arc<Mutex<WindowLog>>,
    /// What a press of the kill hotkey calls, once grabbed.
    pressed: Mutex<Option<Box<dyn Fn() + Send + Sync>>>,
}

impl Answers {
    /// Whether a call came from one of this connection's scripts: sent by KWin, carrying
    /// `token`, which starts with the secret.
    fn sent_by_our_script<'t>(&self, header: &Header<'_>, token: &'t str) -> Option<&'t str> {
        let sender = header.sender()?;
        if *self.kwin.lock().unwrap_or_else(PoisonError::into_inner) != sender.as_str() {
            return None;
        }
        after_secret(&self.secret, token)
    }
}

impl Answers {
    /// A request's script answers `json` for request `token`.
    fn answer(&self, header: &Header<'_>, token: &str, json: String) {
        let Some(n) = self
            .sent_by_our_script(header, token)
            .and_then(|n| n.parse::<u64>().ok())
        else {
            tracing::warn!(sender = ?header.sender(), "refused an answer that did not come from shuttle's script in KWin");
            return;
        };
        if let Some(waiting) = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&n)
        {
            let _ = waiting.send(json);
        }
    }

    /// The window news: `kind` happened to window `id` (empty for none).
    fn event(&self, header: &Header<'_>, token: &str, kind: &str, id: String) {
        if self.sent_by_our_script(header, token).is_none() {
            tracing::warn!(sender = ?header.sender(), "refused window news that did not come from shuttle's script in KWin");
            return;
        }
        let kind = match kind {
            "opened" => WindowEventKind::Opened,
            "closed" => WindowEventKind::Closed,
            "retitled" => WindowEventKind::Retitled,
            "activated" => WindowEventKind::Activated,
            _ => return,
        };
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(kind, (!id.is_empty()).then_some(id));
    }
}

/// KWin, driven through scripts.
pub struct KWin {
    connection: Connection,
    answers: Arc<Answers>,
    /// Where request scripts are written for KWin to read: the daemon's alone.
    dir: PathBuf,
    next: AtomicU64,
    /// KWin's version, as it reports it.
    version: String,
    /// KWin's process: KWin 6 lists its own windows (on-screen displays) among the apps'.
    pid: Option<u32>,
    /// The scripts kept loaded (the window news, the hotkey), unloaded when this goes.
    kept: Mutex<Vec<&'static str>>,
}

impl KWin {
    /// Connects to KWin on the session bus at `address` (the environment's when `None`),
    /// writing its scripts under `dir`, a directory of the daemon's alone.
    pub fn connect(address: Option<&str>, dir: &Path) -> Result<Self, KdeError> {
        Self::over(session_bus(address)?, dir)
    }

    /// Connects to KWin over the session bus connection `stream`, writing its scripts under
    /// `dir`.
    pub fn over_stream(
        stream: std::os::unix::net::UnixStream,
        dir: &Path,
    ) -> Result<Self, KdeError> {
        let connection = zbus::blocking::connection::Builder::async_io_unix_stream(stream)
            .build()
            .map_err(|e| KdeError::Bus {
                address: "shuttle's KWin helper's socket".into(),
                reason: e.to_string(),
            })?;
        Self::over(connection, dir)
    }

    fn over(connection: Connection, dir: &Path) -> Result<Self, KdeError> {
        let kwin = owner(&connection).map_err(|_| KdeError::NoKWin)?;
        let version = version(&connection)?;
        if !major(&version).is_some_and(|m| MAJORS.contains(&m)) {
            return Err(KdeError::Version { version });
        }
        let pid = zbus::blocking::fdo::DBusProxy::new(&connection)
            .ok()
            .and_then(|dbus| {
                let name = zbus::names::BusName::try_from(kwin.as_str()).ok()?;
                dbus.get_connection_unix_process_id(name).ok()
            });
        if pid.is_none() {
            tracing::warn!("the bus did not say KWin's pid: KWin 6's own windows stay in the list");
        }
        private_dir(dir)?;
        let answers = Arc::new(Answers {
            kwin: Mutex::new(kwin),
            secret: secret()?,
            pending: Mutex::new(HashMap::new()),
            log: Arc::new(Mutex::new(WindowLog::new())),
            pressed: Mutex::new(None),
        });
        connection
            .object_server()
            .at(OBJECT, ArcAnswers(answers.clone()))
            .map_err(|e| KdeError::Broken(format!("cannot serve {OBJECT}: {e}")))?;
        let kwin = Self {
            connection,
            answers,
            dir: dir.to_path_buf(),
            next: AtomicU64::new(1),
            version,
            pid,
            kept: Mutex::new(Vec::new()),
        };
        Ok(kwin)
    }

    /// KWin's version, as it reports it (`5.27.5`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The bus connection, for KWin's other interfaces.
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// The window events after count `after`.
    pub fn events_after(&self, after: u64) -> WindowEvents {
        self.answers
            .log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .after(after)
    }

    /// Every window KWin manages but its own, and where the pointer is.
    pub fn windows(&self) -> Result<Listing, KdeError> {
        let value = self.request(json!({"verb": "windows"}))?;
        let mut listing: Listing = serde_json::from_value(value)
            .map_err(|e| KdeError::Broken(format!("KWin's window list did not parse: {e}")))?;
        if let Some(pid) = self.pid {
            listing.windows.retain(|w| w.pid != i64::from(pid));
        }
        Ok(listing)
    }

    /// Asks KWin to `verb` (`activate`, `close`, `minimize`, `maximize`, `restore`) window `id`.
    pub fn act(&self, verb: &str, id: &str) -> Result<(), KdeError> {
        self.request(json!({"verb": verb, "id": id})).map(drop)
    }

    /// Asks KWin to put window `id`'s frame at `frame` (x, y, w, h).
    pub fn set_frame(&self, id: &str, frame: [i32; 4]) -> Result<(), KdeError> {
        self.request(json!({"verb": "frame", "id": id, "frame": frame}))
            .map(drop)
    }

    fn source(&self, template: &str, token: u64, request: Value) -> String {
        let filled = json!({
            "service": self.connection.unique_name().map(|n| n.to_string()).unwrap_or_default(),
            "path": OBJECT,
            "iface": INTERFACE,
            "token": format!("{}:{token}", self.answers.secret),
            "request": request,
        });
        template.replace("SHUTTLE_REQUEST", &script_literal(&filled))
    }

    /// Runs `request` in a script of its own and answers what it answered.
    fn request(&self, request: Value) -> Result<Value, KdeError> {
        let verb = request["verb"].as_str().unwrap_or("request").to_string();
        let what = format!("KWin's {verb}");
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let plugin = format!("shuttle-{}-{n}", std::process::id());
        let path = self.dir.join(format!("{n}.js"));
        std::fs::write(&path, self.source(REQUEST, n, request))
            .map_err(|e| KdeError::Broken(format!("cannot write {}: {e}", path.display())))?;
        let (tell, told) = channel();
        self.answers
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(n, tell);
        let ran = self.run_script(&path, &plugin);
        let answer = ran.and_then(|()| {
            told.recv_timeout(ANSWER_LIMIT)
                .map_err(|_| KdeError::Failed {
                    what: what.clone(),
                    reason: format!(
                        "its script did not answer within {} s (KWin logs script errors to its \
                     journal)",
                        ANSWER_LIMIT.as_secs()
                    ),
                })
        });
        self.answers
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&n);
        let _ = self.unload(&plugin);
        let _ = std::fs::remove_file(&path);
        let answer: Value = serde_json::from_str(&answer?)
            .map_err(|e| KdeError::Broken(format!("{what} answered something unreadable: {e}")))?;
        match answer.get("error").and_then(Value::as_str) {
            Some(reason) => Err(KdeError::Failed {
                what,
                reason: reason.to_string(),
            }),
            None => Ok(answer.get("ok").cloned().unwrap_or(Value::Null)),
        }
    }

    fn scripting(
        &self,
        method: &str,
        body: &(impl serde::Serialize + zbus::zvariant::DynamicType),
    ) -> Result<zbus::message::Message, KdeError> {
        self.connection
            .call_method(
                Some(KWIN),
                "/Scripting",
                Some("org.kde.kwin.Scripting"),
                method,
                body,
            )
            .map_err(|e| KdeError::Failed {
                what: format!("KWin's Scripting.{method}"),
                reason: e.to_string(),
            })
    }

    /// Loads the script at `path` as `plugin` and runs it.
    fn run_script(&self, path: &Path, plugin: &str) -> Result<(), KdeError> {
        let path = path.to_string_lossy();
        let id: i32 = self
            .scripting("loadScript", &(path.as_ref(), plugin))?
            .body()
            .deserialize()
            .map_err(|e| KdeError::Broken(format!("loadScript answered {e}")))?;
        if id < 0 {
            return Err(KdeError::Failed {
                what: "KWin's Scripting.loadScript".into(),
                reason: format!("it would not load {path} as {plugin}"),
            });
        }
        // Scripting.start runs every script loaded and not yet running. Running the script by
        // its id would not do: KWin numbers a script by how many it holds, so after one a
        // killed daemon left was unloaded, a new script can take the number of one still
        // loaded, and the object at that number is the old script.
        self.scripting("start", &())?;
        Ok(())
    }

    fn unload(&self, plugin: &str) -> Result<bool, KdeError> {
        self.scripting("unloadScript", &(plugin,))?
            .body()
            .deserialize()
            .map_err(|e| KdeError::Broken(format!("unloadScript answered {e}")))
    }

    /// Loads the window news, in place of one a killed daemon may have left.
    pub fn start_news(&self) -> Result<(), KdeError> {
        self.keep(EVENTS_PLUGIN, EVENTS, Value::Null)
    }

    /// Has KWin grab `shortcut` (as Qt spells a key sequence) for as long as this connection
    /// lives, calling `pressed` on each press; in place of a grab a killed daemon may have left.
    pub fn grab(
        &self,
        shortcut: &str,
        pressed: Box<dyn Fn() + Send + Sync>,
    ) -> Result<(), KdeError> {
        *self
            .answers
            .pressed
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(pressed);
        self.keep(HOTKEY_PLUGIN, HOTKEY, json!({"shortcut": shortcut}))
    }

    /// Whether KWin still runs the scripts kept loaded.
    pub fn alive(&self) -> bool {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.iter().all(|plugin| {
            self.scripting("isScriptLoaded", &(*plugin,))
                .ok()
                .and_then(|m| m.body().deserialize::<bool>().ok())
                .unwrap_or(false)
        })
    }

    /// Loads `template` with `request` as `plugin`, kept loaded until this connection goes.
    fn keep(&self, plugin: &'static str, template: &str, request: Value) -> Result<(), KdeError> {
        let _ = self.unload(plugin);
        let path = self.dir.join(format!("{plugin}.js"));
        std::fs::write(&path, self.source(template, 0, request))
            .map_err(|e| KdeError::Broken(format!("cannot write {}: {e}", path.display())))?;
        self.run_script(&path, plugin)?;
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(plugin);
        Ok(())
    }
}

impl Drop for KWin {
    fn drop(&mut self) {
        let kept = std::mem::take(&mut *self.kept.lock().unwrap_or_else(PoisonError::into_inner));
        for plugin in kept {
            let _ = self.unload(plugin);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = self
            .connection
            .object_server()
            .remove::<ArcAnswers, _>(OBJECT);
    }
}

/// The object server needs a value it owns; the desk keeps another handle to the same one.
struct ArcAnswers(Arc<Answers>);

#[zbus::interface(name = "dev.shuttle.KWin1")]
impl ArcAnswers {
    fn answer(&self, #[zbus(header)] header: Header<'_>, token: String, json: String) {
        self.0.answer(&header, &token, json);
    }

    fn event(&self, #[zbus(header)] header: Header<'_>, token: String, kind: String, id: String) {
        self.0.event(&header, &token, &kind, id);
    }

    fn pressed(&self, #[zbus(header)] header: Header<'_>, token: String) {
        if self.0.sent_by_our_script(&header, &token).is_none() {
            tracing::warn!(sender = ?header.sender(), "refused a hotkey press that did not come from shuttle's script in KWin");
            return;
        }
        if let Some(pressed) = &*self
            .0
            .pressed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
        {
            pressed();
        }
    }
}

/// `value` as a JavaScript literal: JSON, with the two line separators JSON allows in strings
/// and older JavaScript does not escaped.
fn script_literal(value: &Value) -> String {
    value
        .to_string()
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// What follows the secret in a script's token (`SECRET:N`); `None` without the secret.
fn after_secret<'t>(secret: &str, token: &'t str) -> Option<&'t str> {
    token.strip_prefix(secret)?.strip_prefix(':')
}

/// 128 random bits, as hex.
fn secret() -> Result<String, KdeError> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .map_err(|e| KdeError::Broken(format!("cannot read /dev/urandom: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The major version in KWin's version text.
fn major(version: &str) -> Option<u32> {
    version.split('.').next()?.trim().parse().ok()
}

/// Makes `dir` the daemon's alone.
fn private_dir(dir: &Path) -> Result<(), KdeError> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let failed =
        |e: std::io::Error| KdeError::Broken(format!("cannot make {}: {e}", dir.display()));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(failed)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(failed)
}

fn session_bus(address: Option<&str>) -> Result<Connection, KdeError> {
    let built = match address {
        Some(address) => {
            zbus::blocking::connection::Builder::address(address).and_then(|b| b.build())
        }
        None => Connection::session(),
    };
    built.map_err(|e| KdeError::Bus {
        address: address
            .map(str::to_string)
            .or_else(|| std::env::var("DBUS_SESSION_BUS_ADDRESS").ok())
            .unwrap_or_else(|| "(none set)".into()),
        reason: e.to_string(),
    })
}

/// Who owns KWin's name now.
fn owner(connection: &Connection) -> Result<String, KdeError> {
    let dbus = zbus::blocking::fdo::DBusProxy::new(connection)
        .map_err(|e| KdeError::Broken(e.to_string()))?;
    let name = zbus::names::BusName::try_from(KWIN).map_err(|e| KdeError::Broken(e.to_string()))?;
    dbus.get_name_owner(name)
        .map(|o| o.to_string())
        .map_err(|_| KdeError::NoKWin)
}

/// KWin's version, from its support information (`KWin version: 5.27.5`).
fn version(connection: &Connection) -> Result<String, KdeError> {
    let info: String = connection
        .call_method(
            Some(KWIN),
            "/KWin",
            Some("org.kde.KWin"),
            "supportInformation",
            &(),
        )
        .map_err(|_| KdeError::NoKWin)?
        .body()
        .deserialize()
        .map_err(|e| KdeError::Broken(format!("supportInformation answered {e}")))?;
    Ok(version_in(&info).unwrap_or_else(|| "of an unknown version".into()))
}

fn version_in(info: &str) -> Option<String> {
    info.lines()
        .find_map(|l| l.strip_prefix("KWin version:"))
        .map(|v| v.trim().to_string())
}

/// How a KDE session stands, for doctor: KWin's version, without loading anything into it.
pub fn probe(address: Option<&str>) -> Result<String, KdeError> {
    let connection = session_bus(address)?;
    owner(&connection)?;
    version(&connection)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kwins_version_is_read_from_its_support_information() {
        let info = "Version\n=======\nKWin version: 5.27.5\nQt Version: 5.15.8\n";
        assert_eq!(version_in(info).as_deref(), Some("5.27.5"));
        assert_eq!(major("5.27.5"), Some(5));
        assert_eq!(major("6.2.1"), Some(6));
        assert_eq!(version_in("nothing"), None);
    }

    #[test]
    fn a_call_counts_only_with_the_connections_secret() {
        let secret = secret().unwrap();
        assert_eq!(secret.len(), 32);
        assert_ne!(secret, super::secret().unwrap());
        assert_eq!(after_secret(&secret, &format!("{secret}:7")), Some("7"));
        for forged in [
            "7",
            ":7",
            "0:7",
            &secret[..31],
            &format!("{}:7", &secret[..31]),
        ] {
            assert_eq!(after_secret(&secret, forged), None, "{forged}");
        }
    }

    #[test]
    fn a_request_is_a_javascript_literal_whatever_its_text() {
        let value = json!({"title": "a\u{2028}b\"</script>"});
        let literal = script_literal(&value);
        assert!(!literal.contains('\u{2028}'));
        assert!(literal.contains("\\u2028"));
        let back: Value = serde_json::from_str(&literal).unwrap();
        assert_eq!(back, value);
    }
}
