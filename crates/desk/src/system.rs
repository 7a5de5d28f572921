//! The boundary between the desk and an operating system, cut by role.
//!
//! A backend is a set of role objects, gathered in a [`Backend`]: what is on the screen
//! ([`Display`]), sending input ([`Input`]), the person's side of the screen ([`Presence`]), the
//! processes behind windows ([`Apps`]) and the accessibility tree
//! ([`Accessibility`](crate::Accessibility)). A [`Platform`] connects one, and grabs the
//! person's kill hotkey.
//!
//! None of these traits carries policy: they report and do what they are asked. The safety
//! controls live in [`crate::guard`], which is the only code that holds a `Backend` while a
//! call runs.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use desk_core::call::{Button, ClipFormat, Direction};
use desk_core::geometry::Rect;
use desk_core::window::Window;
use serde::Serialize;

use crate::accessibility::Accessibility;
use crate::cancel::Cancel;
use crate::error::DeskError;
use crate::image::RgbImage;
use crate::progress::Progress;

/// What a display says about itself, for `status` (which shows it as
/// `desk_core::status::DeskInfo`).
#[derive(Debug, Clone)]
pub struct DisplayInfo {
    /// The windowing system: `x11` or `wayland`.
    pub system: &'static str,
    /// The display it is connected to.
    pub display: String,
    /// How it captures the screen: on X11 `mit-shm`, or `getimage` where shared memory is out
    /// of reach; on GNOME `pipewire` (Mutter's screen-cast streams), or `gnome-shell` (the
    /// Shell's screenshots) where they cannot be read.
    pub capture: &'static str,
    /// Whether a window's own pixels can be read even where other windows cover it.
    pub window_pixels: bool,
    /// Whether an app can be asked if it has read the input sent to it, so that input results
    /// can say `app_answer` read or busy (X11 can; Wayland cannot).
    pub confirms: bool,
    /// What this display cannot do, and why: each a verb family refused for a missing part
    /// of the desktop (a Wayland compositor without virtual pointers refuses clicks).
    pub lacking: Vec<String>,
}

/// What happened to a top-level window, as the display saw it happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowEventKind {
    /// A window joined the window manager's list.
    Opened,
    /// A window left it.
    Closed,
    /// A window's title changed.
    Retitled,
    /// Another window became the active one.
    Activated,
    /// A window is being made or mapped and is not in the list yet: something is moving.
    Appearing,
}

/// One change among the top-level windows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowEvent {
    /// When the display saw it.
    pub at: std::time::Instant,
    /// The window, as `windows` names it; `None` when the event does not name one.
    pub window: Option<String>,
    /// What happened.
    pub kind: WindowEventKind,
}

/// The window events after a point of a display's stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowEvents {
    /// Which stream: a new connection starts a new one, whose counts start over.
    pub stream: u64,
    /// The count of the latest event, to ask from next time.
    pub last: u64,
    /// The events after the point asked from, oldest first.
    pub events: Vec<WindowEvent>,
    /// Events after that point the display no longer holds (it keeps only the latest few
    /// thousand).
    pub dropped: u64,
}

/// What is on the screen. Implementations are blocking and shareable across threads.
pub trait Display: Send + Sync {
    /// What this display is.
    fn info(&self) -> DisplayInfo;

    /// The top-level windows, topmost first.
    fn windows(&self) -> Result<Vec<Window>, DeskError>;

    /// The screen's size: the rectangle desk coordinates live in, at (0, 0).
    fn screen(&self) -> Result<Rect, DeskError>;

    /// The window input at desk point (x, y) would reach: the topmost one there, its frame
    /// (title bar, borders) counting as part of it; an unmanaged window there (a menu, a
    /// tooltip) comes back as a record of its own with role `popup`; windows that take no
    /// input are passed over.
    fn window_at(&self, x: i32, y: i32) -> Result<Option<Window>, DeskError>;

    /// Where window `id` is, in desk coordinates (it may reach off the screen), or `None` when
    /// it is not shown at all (minimized, or on another desktop).
    fn window_rect(&self, id: &str) -> Result<Option<Rect>, DeskError>;

    /// The pixels of a rectangle of the screen, which the caller has clipped to the screen.
    fn capture(&self, rect: Rect) -> Result<RgbImage, DeskError>;

    /// A capture shrunk to `width` pixels wide by averaging boxes of pixels. Displays that can
    /// shrink while they read pixels should, since `still` calls this many times a second.
    fn capture_scaled(&self, rect: Rect, width: u32) -> Result<RgbImage, DeskError>;

    /// The pixels window `id` itself drew in `area` (window coordinates, within the window),
    /// whatever covers it on the screen; `None` when this display cannot tell a window's own
    /// pixels from the screen's.
    fn capture_window(&self, id: &str, area: Rect) -> Result<Option<RgbImage>, DeskError>;

    /// A cheap value that changes when windows open, close or change their stacking.
    fn fingerprint(&self) -> Result<u64, DeskError>;

    /// The window events after count `after` of this display's stream (0: all it holds). The
    /// display records them as they happen, whether or not anyone asks.
    fn window_events(&self, after: u64) -> WindowEvents;

    /// Whether window `id` has the keyboard focus.
    fn has_focus(&self, id: &str) -> Result<bool, DeskError>;

    /// Whether window `id` is minimized or maximized, as the window manager says.
    fn window_state(&self, id: &str) -> Result<WindowState, DeskError>;

    /// The window manager's decorations around window `id`, in pixels: left, right, top,
    /// bottom (`_NET_FRAME_EXTENTS` on X11). Zeros where there are none, or the window
    /// system does not say.
    fn frame_extents(&self, id: &str) -> Result<[u32; 4], DeskError> {
        let _ = id;
        Ok([0; 4])
    }

    /// What the clipboard holds in `format`: UTF-8 text, PNG bytes, or a file list (one
    /// absolute path per entry); `None` when it holds nothing of that kind.
    fn read_clipboard(&self, format: ClipFormat) -> Result<Option<Clip>, DeskError>;
}

/// Sending input and window-manager requests. Each method returns once the display server has
/// the input; whether an app has read it is what [`Input::settle`] finds out.
pub trait Input: Send + Sync {
    /// Asks the window manager to focus and raise window `id`; returns without waiting.
    fn request_focus(&self, id: &str) -> Result<(), DeskError>;

    /// Asks window `id` to close, as its close button would; returns without waiting.
    fn request_close(&self, id: &str) -> Result<(), DeskError>;

    /// Presses `keysyms` in order, then releases them in reverse order. `focused` is the
    /// window that has the focus, as for [`Input::type_text`].
    fn press_keys(
        &self,
        keysyms: &[u32],
        focused: Option<&Window>,
        cancel: &Cancel,
    ) -> Result<(), DeskError>;

    /// Types `text` into whatever has the focus, checking `cancel` as it goes (at least every
    /// few dozen characters) and telling `progress` how much went out, and returns how many
    /// characters were sent. Typing stops, saying
    /// how many went out, when the focus leaves `focused` or someone else holds a modifier. `focused` is the window that has the focus, so
    /// the backend can wait for its app where typing needs that.
    fn type_text(
        &self,
        text: &str,
        focused: Option<&Window>,
        cancel: &Cancel,
        progress: &Progress,
    ) -> Result<usize, DeskError>;

    /// Moves the pointer to a desk point.
    fn move_pointer(&self, x: i32, y: i32) -> Result<(), DeskError>;

    /// Clicks `button` `count` times where the pointer is.
    fn click(&self, button: Button, count: u8) -> Result<(), DeskError>;

    /// Turns the wheel `amount` notches where the pointer is.
    fn scroll(&self, direction: Direction, amount: u32, cancel: &Cancel) -> Result<(), DeskError>;

    /// Presses the left button at `from`, moves to `to` and releases it there. The button is
    /// released even when the drag fails or is cancelled.
    fn drag(&self, from: (i32, i32), to: (i32, i32), cancel: &Cancel) -> Result<(), DeskError>;

    /// Asks the app of `window` to answer once it has read all input sent so far, and waits
    /// up to `limit` for the answer; through the window it belongs to (`owner`) when it cannot
    /// be asked itself.
    fn ping(&self, window: &Window, limit: Duration) -> Pong;

    /// Gives back what input borrowed from the desktop (on X11, lent keycodes). The daemon
    /// calls it when it stops.
    fn release(&self) -> Result<(), DeskError>;

    /// Asks the window manager to change window `id`'s frame or state; returns without
    /// waiting.
    fn request_frame(&self, id: &str, change: FrameChange) -> Result<(), DeskError>;

    /// Takes the clipboard and serves `clip` from it until another client takes it.
    fn write_clipboard(&self, clip: Clip) -> Result<(), DeskError>;
}

/// What an app did when asked whether it has read its input ([`Input::ping`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pong {
    /// It answered within the limit.
    Answered,
    /// It did not answer within the limit: it is busy, or hung.
    Silent,
    /// It cannot be asked: its window takes no pings, or the desktop has no way to ask.
    Unasked,
}

/// Input sent from an agent's own devices (`[daemon] input = "background"`): it reaches one window
/// while the person's pointer, keyboard focus and stacking stay as they were. Each agent gets a
/// pointer and keyboard of its own, named by `agent`, made on its first background input.
pub trait Background: Send + Sync {
    /// Gives the agent's keyboard focus to window `into`, where the keys that follow go.
    fn aim(&self, agent: &str, into: &Window) -> Result<(), DeskError>;

    /// Presses `keysyms` in order into window `into`, which [`Background::aim`] gave the
    /// agent's focus, and releases them in reverse order; refused, with nothing sent, when that
    /// focus has left it.
    fn press_keys(
        &self,
        agent: &str,
        keysyms: &[u32],
        into: &Window,
        cancel: &Cancel,
    ) -> Result<(), DeskError>;

    /// Types `text` into window `into`, which [`Background::aim`] gave the agent's focus,
    /// checking `cancel` as it goes, telling `progress` how much went out, and stopping when
    /// that focus leaves it; returns how many characters were sent.
    fn type_text(
        &self,
        agent: &str,
        text: &str,
        into: &Window,
        cancel: &Cancel,
        progress: &Progress,
    ) -> Result<usize, DeskError>;

    /// The agents that have devices now.
    fn agents(&self) -> Vec<String>;

    /// Removes `agent`'s own devices, if it has them (the agent ended).
    fn end(&self, agent: &str);

    /// Moves the agent's pointer to a desk point and turns its wheel `amount` notches there.
    fn scroll(
        &self,
        agent: &str,
        at: (i32, i32),
        direction: Direction,
        amount: u32,
        cancel: &Cancel,
    ) -> Result<(), DeskError>;
}

/// Clipboard contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Clip {
    /// Text.
    Text(String),
    /// An image, PNG-encoded.
    Png(Vec<u8>),
    /// Files, by absolute path.
    Files(Vec<String>),
}

/// A window's state beyond its place.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct WindowState {
    /// Minimized (iconified, hidden).
    pub minimized: bool,
    /// Maximized both ways.
    pub maximized: bool,
}

/// A change to a window's frame, asked of the window manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameChange {
    /// Move and/or resize the client area; `None` keeps that part.
    Set {
        x: Option<i32>,
        y: Option<i32>,
        width: Option<u32>,
        height: Option<u32>,
    },
    /// Minimize it.
    Minimize,
    /// Maximize it both ways.
    Maximize,
    /// Back to normal: neither minimized nor maximized, shown and raised.
    Restore,
}

impl FrameChange {
    /// For `Set`, the outer frame (decorations included) to ask for, where a window now has
    /// frame `outer` around client area `content`: the parts not asked for stay; `None` for
    /// the other changes.
    pub fn outer(&self, outer: Rect, content: Rect) -> Option<Rect> {
        let FrameChange::Set {
            x,
            y,
            width,
            height,
        } = *self
        else {
            return None;
        };
        let (left, top) = (content.x - outer.x, content.y - outer.y);
        let (wide, high) = (
            outer.w.saturating_sub(content.w),
            outer.h.saturating_sub(content.h),
        );
        Some(Rect::new(
            x.map_or(outer.x, |x| x - left),
            y.map_or(outer.y, |y| y - top),
            width.unwrap_or(content.w) + wide,
            height.unwrap_or(content.h) + high,
        ))
    }
}

/// A signal `quit` sends a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// SIGTERM: asks it to end.
    Terminate,
    /// SIGKILL: ends it.
    Kill,
}

/// The program that opens a file or URL, and how it is called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opener {
    /// The type of what is opened (a MIME type, or `x-scheme-handler/SCHEME`).
    pub kind: String,
    /// The desktop entry that handles it.
    pub entry: String,
    /// The program to start.
    pub program: String,
    /// Its arguments, the file or URL among them.
    pub args: Vec<String>,
}

/// A question for the person at the desktop: an action in confirm mode, or a resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// What is asked for.
    pub asks: Asks,
    /// Who asks: the agent before an action; the calling process, in words, for a resume.
    pub agent: String,
    /// What it would do, where.
    pub action: String,
    /// The text it would type, if any.
    pub text: Option<String>,
    /// How long to wait for an answer; no answer means Deny.
    pub timeout: Duration,
}

/// What a question asks the person to allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asks {
    /// An action on the desktop (confirm mode).
    Act,
    /// Lifting the person's stop, so agents may act again.
    Resume,
}

/// What the person answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// They allowed it.
    Allow,
    /// They denied it.
    Deny,
    /// They closed the question without answering.
    Closed,
    /// The time ran out.
    NoAnswer,
}

/// The person's side of the screen: what shuttle shows them, and asks them.
pub trait Presence: Send + Sync {
    /// Asks the person whether an action may go ahead, waiting up to the question's timeout;
    /// `cancel` ends the wait as [`Answer::Closed`]. An error when no question can be shown.
    fn ask(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError>;

    /// Shows (`true`) or, after a short linger, hides the marker that tells the person an
    /// agent is acting.
    fn indicate(&self, acting: bool);

    /// Parts of the screen that shuttle itself draws on (the marker), which `still` ignores.
    fn overlays(&self) -> Vec<Rect>;
}

/// A sandbox for the apps an agent launches: they see the system, and in place of the person's
/// home a home of their own, with only the parts of the person's home the person chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// The person's home, which the app does not see.
    pub persons_home: PathBuf,
    /// The app's own home, kept across displays; `None`: one per display, made with it and
    /// removed with it.
    pub home: Option<PathBuf>,
    /// Parts of the person's home the app sees and may change (`[apps] share`).
    pub share: Vec<PathBuf>,
    /// Parts it sees and may not change (`[apps] show`).
    pub show: Vec<PathBuf>,
}

impl Sandbox {
    /// Whether an app in the sandbox sees the file `path` where the person does: outside the
    /// person's home (but the private `/tmp`, `/run` and `/var/tmp`), or in a part shared or
    /// shown.
    pub fn shows(&self, path: &Path) -> bool {
        let private = ["/tmp", "/var/tmp", "/run"]
            .iter()
            .any(|dir| path.starts_with(dir));
        let lent = self
            .share
            .iter()
            .chain(&self.show)
            .any(|p| path.starts_with(p));
        lent || !(private || path.starts_with(&self.persons_home))
    }
}

/// A started app.
#[derive(Debug, Clone)]
pub struct Launched {
    /// Its process id (in a sandbox, the sandbox's; the app is its child).
    pub pid: u32,
    /// Whether it runs in a sandbox.
    pub sandboxed: bool,
    /// Whether it runs in a scope of its own (on Linux a systemd scope), apart from the daemon.
    pub scoped: bool,
    /// Arguments the desk added so that the app exposes its accessibility tree (Chromium's
    /// `--force-renderer-accessibility`).
    pub added: Vec<String>,
    /// How the process ended, set once it has.
    pub exit: Arc<OnceLock<Exit>>,
}

/// How a started process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exit {
    /// In words: `exit status 1`, `killed by signal 9`.
    pub status: String,
    /// Whether it exited with status 0.
    pub success: bool,
    /// The end of what it wrote to its output and error streams; `None` when its output could
    /// not be kept.
    pub output: Option<String>,
}

/// The switch that makes a Chromium-based app (a browser or an Electron app) expose its pages
/// to accessibility; `launch` adds it, and the desk names it when such an app shows no page.
pub const FORCE_ACCESSIBILITY: &str = "--force-renderer-accessibility";

/// Why a running app keeps its accessibility off although it could have it on: what the desk
/// tells an agent that finds no tree, or no page, in its window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessibilityOff {
    /// A Chromium-based app (a browser or an Electron app) started without
    /// [`FORCE_ACCESSIBILITY`]: it exposes its pages only when asked at its start (or while a
    /// screen reader runs).
    Chromium,
    /// A GTK 2 app (GIMP 2.10) started without the gail and atk-bridge modules, which
    /// `launch` loads; `installed`: whether they are installed to load.
    Gtk2 { installed: bool },
}

/// The processes behind windows: their names, their descent, and starting new ones.
pub trait Apps: Send + Sync {
    /// The names process `pid` goes by (executable, process name, an interpreted script's
    /// file name); empty when the process is gone.
    fn names(&self, pid: u32) -> Vec<String>;

    /// The process shuttle's own windows belong to (the confirm dialog), which agents never
    /// see or touch.
    fn own_pid(&self) -> u32;

    /// Starts `app` with `args`, detached from the daemon; inside `sandbox` when given, and
    /// refused (nothing started) when that sandbox cannot be made.
    fn launch(
        &self,
        app: &str,
        args: &[String],
        sandbox: Option<&Sandbox>,
    ) -> Result<Launched, DeskError>;

    /// Whether process `pid` is `ancestor` or one of its descendants.
    fn descends_from(&self, pid: u32, ancestor: u32) -> bool;

    /// Why process `pid` keeps its accessibility off although `launch` would have turned it
    /// on; `None` when it does not, or its toolkit is not one that can.
    fn accessibility_off(&self, pid: u32) -> Option<AccessibilityOff>;

    /// Whether process `pid` is a Chromium-based app started without its accessibility: the
    /// one case of [`Apps::accessibility_off`] whose windows are on the bus (with a frame and
    /// no page), asked after every such snapshot, so a backend may answer it more cheaply.
    fn chromium_without_accessibility(&self, pid: u32) -> bool {
        self.accessibility_off(pid) == Some(AccessibilityOff::Chromium)
    }

    /// Whether process `pid` still runs (a zombie does not).
    fn running(&self, pid: u32) -> bool;

    /// The CPU time process `pid` has used so far (user and system); `None` when it cannot be
    /// read. `launch` reads it to tell an app still starting up from one waiting for input.
    fn cpu_time(&self, pid: u32) -> Option<std::time::Duration>;

    /// Sends process `pid` the signal `ending`.
    fn end(&self, pid: u32, ending: Ending) -> Result<(), DeskError>;

    /// The desktop's default app for `target` (an absolute path or a URL), and how to call it.
    fn opener(&self, target: &str) -> Result<Opener, DeskError>;
}

/// One desktop's role objects, connected together.
#[derive(Clone)]
pub struct Backend {
    /// What is on the screen.
    pub display: Arc<dyn Display>,
    /// Sending input.
    pub input: Arc<dyn Input>,
    /// The person's side of the screen.
    pub presence: Arc<dyn Presence>,
    /// The processes behind windows.
    pub apps: Arc<dyn Apps>,
    /// The accessibility tree; connects on first use.
    pub accessibility: Arc<dyn Accessibility>,
    /// Input from agents' own devices, where the desktop has them.
    pub background: Option<Arc<dyn Background>>,
}

/// A grabbed kill hotkey; dropping it lets the key go.
pub trait Hotkey: Send {
    /// Whether the grab still holds (its display connection is alive).
    fn alive(&self) -> bool;
}

/// Where a desktop comes from.
pub trait Platform: Send + Sync {
    /// Connects to the desktop.
    fn connect(&self) -> Result<Backend, DeskError>;

    /// Grabs the key combination `combo` (as the `key` verb names keys) on the whole desktop,
    /// calling `pressed` on each press, whichever window has the focus.
    fn grab_hotkey(
        &self,
        combo: &str,
        pressed: Box<dyn Fn() + Send + Sync>,
    ) -> Result<Box<dyn Hotkey>, DeskError>;

    /// Asks the person on their own display, wherever agents act (a resume is theirs alone to
    /// allow); an error when the daemon knows no display of theirs or cannot show the question.
    fn ask_person(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_asked_for_the_content_keeps_the_decorations_and_what_was_not_asked() {
        let outer = Rect::new(100, 50, 420, 330);
        let content = Rect::new(110, 80, 400, 290);
        let moved = FrameChange::Set {
            x: Some(10),
            y: None,
            width: Some(200),
            height: None,
        };
        assert_eq!(
            moved.outer(outer, content),
            Some(Rect::new(0, 50, 220, 330))
        );
        assert_eq!(FrameChange::Minimize.outer(outer, content), None);
    }
}
