//! The X11 desk: EWMH for windows, MIT-SHM (or GetImage) for pixels, XTest for input, and the
//! person's side of an X11 screen (the kill hotkey, the acting marker, the confirm dialog).
//!
//! [`X11Backend`] is the [`Display`], [`Input`] and [`Presence`] of one X display; the
//! accessibility tree and processes come from `desk_linux`, which a Wayland backend shares.

pub mod agent_devices;
mod at;
mod atoms;
mod capture;
mod clipboard;
mod confirm;
mod errors;
mod events;
mod foreign_keys;
mod hotkey;
mod indicator;
mod input;
mod keymap;
mod leftover;
mod lender;
mod modal;
mod own;
mod patient;
mod probe;
mod sync;
mod wake;
pub mod watch;
mod windows;
mod wm;
mod xkbkeys;

use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use crate::patient::Conn;
use desk_core::call::{Button, Direction};
use desk_core::geometry::Rect;
use desk_core::window::Window;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{self, ConnectionExt as _};

use desk::image::RgbImage;
use desk::{
    Answer, Background, Cancel, DeskError, Display, DisplayInfo, Input, Pong, Presence, Question,
};

pub use hotkey::Hotkey;
pub use probe::{Probe, probe};

use agent_devices::DevicesByAgent;
use atoms::Atoms;
use capture::Capturer;
use errors::{SYSTEM, connect_error, lost, reply_error};
use indicator::Indicator;
use input::{Typing, Via};
use lender::Lender;
use sync::Pinger;

/// How long typing waits for an app to read lent keys before moving on without it.
const TYPE_SETTLE: Duration = Duration::from_millis(500);
/// The pause typing falls back on for an app that cannot be pinged.
const BLIND_SETTLE: Duration = Duration::from_millis(50);

/// A connection to one X display, shared by every call.
pub struct X11Backend {
    conn: Arc<Conn>,
    display: String,
    root: xproto::Window,
    /// Where input goes, and the record of what is held down.
    core: input::Core,
    atoms: Atoms,
    capturer: Mutex<Capturer>,
    /// How captures read pixels, as of the last one: `status` reads it without waiting for a
    /// capture in progress.
    capture_method: Mutex<&'static str>,
    pinger: Mutex<Option<Pinger>>,
    lender: Arc<Mutex<Lender>>,
    /// Whether the thread that gives lent keycodes back runs.
    returning: std::sync::Once,
    /// Whether every top-level window keeps its pixels in a pixmap of its own (Composite).
    window_pixels: bool,
    /// The marker shown while agents act, made on first use (`None` if it could not be).
    indicator: std::sync::OnceLock<Option<Indicator>>,
    /// The window events, recorded as they happen (`None` if the stream could not start).
    events: Option<events::Stream>,
    /// Each agent's own pointer and keyboard, made on its first background input.
    agents: DevicesByAgent,
}

/// Whether this is the process's first connection to `display`. Loans on record are given
/// back only then: a later connection (a reconnect after a break) could find loans that a call
/// still typing on the old one relies on.
fn first_connection_to(display: &str) -> bool {
    static CONNECTED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut connected = CONNECTED.lock().unwrap_or_else(|e| e.into_inner());
    if connected.iter().any(|d| d == display) {
        return false;
    }
    connected.push(display.to_string());
    true
}

impl X11Backend {
    /// Connects to X display `display` (such as `:0`).
    pub fn connect(display: &str) -> Result<Self, DeskError> {
        let (conn, screen_num) =
            crate::patient::connect(display).map_err(|e| connect_error(display, e))?;
        let screen = &conn.setup().roots[screen_num];
        let root = screen.root;
        let atoms = Atoms::new(&conn)
            .map_err(lost)?
            .reply()
            .map_err(|e| reply_error("interning atoms", e))?;
        let capturer = Capturer::new(&conn, screen_num, is_local(display));
        let window_pixels = own::redirect(&conn, root);
        // Typing reads the keyboard's state through XKB before it sends.
        xkbkeys::enable(&conn)?;
        let core = input::Core {
            root,
            held: leftover::Record::new(&conn, root)?,
        };
        // Undo what a daemon killed mid-call left behind: input held down, keycodes on loan.
        leftover::release(&conn, root)?;
        let mut lender = Lender::new(root, atoms._SHUTTLE_LENT_KEYCODES);
        if first_connection_to(display) {
            lender.reclaim(&conn)?;
            match agent_devices::reap(&conn) {
                Ok(0) => {}
                Ok(n) => tracing::info!(pairs = n, "removed agent devices a stopped daemon left"),
                Err(e) => {
                    tracing::warn!(error = %e, "could not look for agent devices left behind")
                }
            }
        }
        let events = events::Stream::start(display)
            .map_err(|e| tracing::warn!(error = %e, "no window event stream; replies will read the window list instead"))
            .ok();
        Ok(Self {
            conn: Arc::new(conn),
            display: display.to_string(),
            root,
            core,
            atoms,
            capture_method: Mutex::new(capturer.method()),
            capturer: Mutex::new(capturer),
            pinger: Mutex::new(None),
            lender: Arc::new(Mutex::new(lender)),
            returning: std::sync::Once::new(),
            window_pixels,
            indicator: std::sync::OnceLock::new(),
            events,
            agents: DevicesByAgent::default(),
        })
    }

    /// Runs `input` on `agent`'s own devices, whose keyboard `aim` focused on window `into`: typing
    /// checks before each batch that the focus is still there.
    fn behind<T>(
        &self,
        agent: &str,
        into: &Window,
        cancel: &Cancel,
        input: impl FnOnce(Via<'_>, Typing<'_>) -> Result<T, DeskError>,
    ) -> Result<T, DeskError> {
        let devices = self
            .agents
            .get(agent, &self.display)
            .map_err(DeskError::unsent)?;
        // The agent's focus stays on the window afterwards: when it leaves, a window manager
        // that is not MPX-aware (openbox) thinks the focus went nowhere and falls back on a
        // window of its choosing, with the person's keyboard.
        let sent = self.with_typing(Some(into), cancel, |typing| {
            input(Via::Agent(&devices), typing)
        });
        self.agents.mend(agent, sent)
    }

    fn capturer(&self) -> std::sync::MutexGuard<'_, Capturer> {
        // A panic while capturing leaves no half-updated state worth refusing over.
        self.capturer.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `capture` with the capturer, then notes how it read the pixels.
    fn capturing<T>(&self, capture: impl FnOnce(&mut Capturer) -> T) -> T {
        let mut capturer = self.capturer();
        let result = capture(&mut capturer);
        *self
            .capture_method
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = capturer.method();
        result
    }

    fn lender(&self) -> MutexGuard<'_, Lender> {
        self.lender.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `input` with the keycode lender, waiting on the app of `focused` where it must.
    fn with_typing<T>(
        &self,
        focused: Option<&Window>,
        cancel: &Cancel,
        input: impl FnOnce(Typing<'_>) -> Result<T, DeskError>,
    ) -> Result<T, DeskError> {
        let mut settle = || {
            let answered = focused.is_some_and(|w| self.ping_app(w, TYPE_SETTLE) == Pong::Answered);
            if !answered {
                std::thread::sleep(BLIND_SETTLE);
            }
        };
        let focused = focused.and_then(|w| parse_window_id(&w.id));
        let mut lender = self.lender();
        let result = input(Typing {
            lender: &mut lender,
            settle: &mut settle,
            cancel,
            focused,
        });
        if lender.lending() {
            self.returning
                .call_once(|| give_back_when_idle(Arc::downgrade(&self.lender), self.conn.clone()));
        }
        result
    }

    /// Pings the app of `window`, through the window it belongs to when it cannot be asked
    /// itself: it takes no pings (LibreOffice's dialogs) or is gone (a dialog the input
    /// closed). Connects the pinger on first use.
    fn ping_app(&self, window: &Window, limit: Duration) -> Pong {
        let mut pinger = self.pinger.lock().unwrap_or_else(|e| e.into_inner());
        if pinger.is_none() {
            *pinger = Pinger::connect(&self.display);
        }
        let Some(pinger) = pinger.as_mut() else {
            return Pong::Unasked;
        };
        let asked = std::iter::once(&window.id).chain(window.owner.as_ref());
        for id in asked.filter_map(|id| parse_window_id(id)) {
            match pinger.ping(id, limit) {
                Pong::Unasked => continue,
                pong => return pong,
            }
        }
        Pong::Unasked
    }
}

impl Display for X11Backend {
    fn info(&self) -> DisplayInfo {
        DisplayInfo {
            system: SYSTEM,
            display: self.display.clone(),
            capture: *self
                .capture_method
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
            window_pixels: self.window_pixels,
            confirms: true,
            lacking: Vec::new(),
        }
    }

    fn windows(&self) -> Result<Vec<Window>, DeskError> {
        let mut list = windows::list(&self.conn, self.root, &self.atoms)?;
        modal::mark(
            &self.conn,
            self.root,
            &self.atoms,
            || self.screen(),
            &mut list,
        )?;
        Ok(list)
    }

    fn screen(&self) -> Result<Rect, DeskError> {
        let geometry = self
            .conn
            .get_geometry(self.root)
            .map_err(lost)?
            .reply()
            .map_err(|e| reply_error("the root window's geometry", e))?;
        Ok(Rect::new(
            0,
            0,
            geometry.width.into(),
            geometry.height.into(),
        ))
    }

    fn window_at(&self, x: i32, y: i32) -> Result<Option<Window>, DeskError> {
        at::window_at(&self.conn, self.root, &self.atoms, x, y)
    }

    fn window_rect(&self, id: &str) -> Result<Option<Rect>, DeskError> {
        windows::rect(&self.conn, self.root, id)
    }

    fn window_state(&self, id: &str) -> Result<desk::WindowState, DeskError> {
        wm::state(&self.conn, &self.atoms, id)
    }

    fn frame_extents(&self, id: &str) -> Result<[u32; 4], DeskError> {
        wm::frame_extents(&self.conn, &self.atoms, id)
    }

    fn read_clipboard(
        &self,
        format: desk_core::call::ClipFormat,
    ) -> Result<Option<desk::Clip>, DeskError> {
        clipboard::read(&self.display, format)
    }

    fn capture(&self, rect: Rect) -> Result<RgbImage, DeskError> {
        self.capturing(|c| c.capture(&self.conn, self.root, rect, None))
    }

    fn capture_scaled(&self, rect: Rect, width: u32) -> Result<RgbImage, DeskError> {
        self.capturing(|c| c.capture(&self.conn, self.root, rect, Some(width)))
    }

    fn capture_window(&self, id: &str, area: Rect) -> Result<Option<RgbImage>, DeskError> {
        if !self.window_pixels {
            return Ok(None);
        }
        let window = parse_window_id(id).ok_or_else(|| DeskError::WindowGone { id: id.into() })?;
        self.capturing(|c| own::capture(&self.conn, self.root, c, window, area).map(Some))
    }

    fn fingerprint(&self) -> Result<u64, DeskError> {
        wm::fingerprint(&self.conn, self.root, &self.atoms)
    }

    fn window_events(&self, after: u64) -> desk::WindowEvents {
        self.events
            .as_ref()
            .map_or_else(desk::WindowEvents::default, |stream| stream.after(after))
    }

    fn has_focus(&self, id: &str) -> Result<bool, DeskError> {
        wm::has_focus(&self.conn, self.root, id)
    }
}

impl Input for X11Backend {
    fn request_focus(&self, id: &str) -> Result<(), DeskError> {
        wm::request_focus(&self.conn, self.root, &self.atoms, id)
    }

    fn request_close(&self, id: &str) -> Result<(), DeskError> {
        wm::request_close(&self.conn, self.root, &self.atoms, id)
    }

    fn write_clipboard(&self, clip: desk::Clip) -> Result<(), DeskError> {
        clipboard::write(&self.display, clip)
    }

    fn request_frame(&self, id: &str, change: desk::FrameChange) -> Result<(), DeskError> {
        wm::request_frame(&self.conn, self.root, &self.atoms, id, change)
    }

    fn press_keys(
        &self,
        keysyms: &[u32],
        focused: Option<&Window>,
        cancel: &Cancel,
    ) -> Result<(), DeskError> {
        self.with_typing(focused, cancel, |typing| {
            input::press_keys(&self.conn, Via::Core(self.core), keysyms, typing)
        })
    }

    fn type_text(
        &self,
        text: &str,
        focused: Option<&Window>,
        cancel: &Cancel,
        progress: &desk::Progress,
    ) -> Result<usize, DeskError> {
        self.with_typing(focused, cancel, |typing| {
            input::type_text(&self.conn, Via::Core(self.core), text, typing, progress)
        })
    }

    fn move_pointer(&self, x: i32, y: i32) -> Result<(), DeskError> {
        input::move_pointer(&self.conn, self.root, x, y)
    }

    fn click(&self, button: Button, count: u8) -> Result<(), DeskError> {
        input::click(&self.conn, self.core, button, count)
    }

    fn scroll(&self, direction: Direction, amount: u32, cancel: &Cancel) -> Result<(), DeskError> {
        input::scroll(&self.conn, Via::Core(self.core), direction, amount, cancel)
    }

    fn drag(&self, from: (i32, i32), to: (i32, i32), cancel: &Cancel) -> Result<(), DeskError> {
        input::drag(&self.conn, self.core, from, to, cancel)
    }

    fn ping(&self, window: &Window, limit: Duration) -> Pong {
        self.ping_app(window, limit)
    }

    fn release(&self) -> Result<(), DeskError> {
        // Dropping an agent's devices removes their pair: the X server would keep it past the
        // daemon.
        self.agents.clear();
        self.lender().give_back(&self.conn, Duration::ZERO)
    }
}

impl Background for X11Backend {
    fn agents(&self) -> Vec<String> {
        self.agents.names()
    }

    fn end(&self, agent: &str) {
        self.agents.forget(agent);
    }

    fn aim(&self, agent: &str, into: &Window) -> Result<(), DeskError> {
        let window = parse_window_id(&into.id)
            .ok_or_else(|| DeskError::Invalid(format!("{:?} is not an X window id", into.id)))?;
        let devices = self.agents.get(agent, &self.display)?;
        let focused = devices.focus(window).and_then(|()| devices.sync());
        self.agents.mend(agent, focused)
    }

    fn press_keys(
        &self,
        agent: &str,
        keysyms: &[u32],
        into: &Window,
        cancel: &Cancel,
    ) -> Result<(), DeskError> {
        self.behind(agent, into, cancel, |via, typing| {
            input::press_keys(&self.conn, via, keysyms, typing)
        })
    }

    fn type_text(
        &self,
        agent: &str,
        text: &str,
        into: &Window,
        cancel: &Cancel,
        progress: &desk::Progress,
    ) -> Result<usize, DeskError> {
        self.behind(agent, into, cancel, |via, typing| {
            input::type_text(&self.conn, via, text, typing, progress)
        })
    }

    fn scroll(
        &self,
        agent: &str,
        at: (i32, i32),
        direction: Direction,
        amount: u32,
        cancel: &Cancel,
    ) -> Result<(), DeskError> {
        let devices = self
            .agents
            .get(agent, &self.display)
            .map_err(DeskError::unsent)?;
        let moved = devices.move_to(input::clamp16(at.0), input::clamp16(at.1));
        self.agents.mend(agent, moved).map_err(DeskError::unsent)?;
        let scrolled = input::scroll(&self.conn, Via::Agent(&devices), direction, amount, cancel);
        self.agents.mend(agent, scrolled)
    }
}

impl Presence for X11Backend {
    fn ask(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        confirm::ask(&self.display, question, cancel)
    }

    fn indicate(&self, acting: bool) {
        let indicator = self.indicator.get_or_init(|| {
            let screen = self.screen().ok()?;
            let made = Indicator::start(&self.display, screen);
            if made.is_none() {
                tracing::warn!(display = %self.display, "could not create the acting marker");
            }
            made
        });
        if let Some(indicator) = indicator {
            indicator.set(acting);
        }
    }

    fn overlays(&self) -> Vec<Rect> {
        self.indicator
            .get()
            .and_then(Option::as_ref)
            .map(|i| vec![i.rect()])
            .unwrap_or_default()
    }
}

/// The person's side of a display nobody watches (an agent's private one): confirm questions go
/// to the person's own display, where they are, and nothing is drawn on the agent's.
#[derive(Debug, Clone)]
pub struct AskThePerson {
    /// The person's display; none when the daemon started without one.
    pub person: Option<String>,
}

impl Presence for AskThePerson {
    fn ask(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        match &self.person {
            Some(display) => confirm::ask(display, question, cancel),
            None => Err(DeskError::Unreachable {
                system: "x11",
                reason: "confirm mode asks the person on their own display, and the daemon \
                         started without a DISPLAY: start it from the desktop session, or turn \
                         [safety] confirm off"
                    .into(),
            }),
        }
    }

    fn indicate(&self, _acting: bool) {}

    fn overlays(&self) -> Vec<Rect> {
        Vec::new()
    }
}

/// Gives lent keycodes back once typing has been idle for a while, until the backend is gone
/// or its connection is: the keymap then went with the server, or the record on the root window
/// lets the next connection give them back ([`Lender::reclaim`]).
fn give_back_when_idle(lender: Weak<Mutex<Lender>>, conn: Arc<Conn>) {
    std::thread::spawn(move || {
        while let Some(lender) = lender.upgrade() {
            let mut lender = lender.lock().unwrap_or_else(|e| e.into_inner());
            // Nothing on loan costs no keymap read.
            if lender.lending() {
                match lender.give_back(&conn, lender::RETURN_AFTER) {
                    Err(e @ DeskError::Disconnected { .. }) => {
                        tracing::warn!(error = %e, "could not give lent keycodes back; the next connection to the display does");
                        return;
                    }
                    Err(e) => tracing::warn!(error = %e, "could not give lent keycodes back"),
                    Ok(()) => {}
                }
            }
            drop(lender);
            std::thread::sleep(Duration::from_millis(250));
        }
    });
}

/// Whether the display is reached over a local socket, where shared memory can work.
fn is_local(display: &str) -> bool {
    match display.rsplit_once(':') {
        Some((host, _)) => host.is_empty() || host == "unix" || host.starts_with('/'),
        None => false,
    }
}

/// Parses a window id as `windows` prints it (`0x…`), or decimal.
fn parse_window_id(id: &str) -> Option<xproto::Window> {
    match id.strip_prefix("0x").or_else(|| id.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => id.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_displays() {
        assert!(is_local(":0"));
        assert!(is_local(":99.0"));
        assert!(is_local("unix:1"));
        assert!(!is_local("remote.host:0"));
        assert!(!is_local("localhost:10.0"));
    }

    #[test]
    fn window_ids() {
        assert_eq!(parse_window_id("0x1a00007"), Some(0x1a00007));
        assert_eq!(parse_window_id("4194311"), Some(4194311));
        assert_eq!(parse_window_id("Firefox"), None);
    }
}
