//! Results of the window and app verbs: focus, close, launch, open, quit, and the frame verbs.

use schemars::JsonSchema;
use serde::Serialize;

use super::WindowRef;
use crate::window::Window;

/// `focus`: the window that has the focus now.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Focused {
    /// Always true: a window that did not take the focus is an error.
    pub focused: bool,
    /// Its id.
    pub window: String,
    /// Its title.
    pub title: String,
}

/// `close`: whether the window went.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Closed {
    /// Whether it is gone.
    pub closed: bool,
    /// Its id.
    pub window: String,
    /// Its title.
    pub title: String,
    /// Windows its app opened instead, most likely a question such as whether to save.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub questions: Option<Vec<WindowRef>>,
    /// What to do when it did not close.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `launch`: the process started, its main window and the dialogs in front of it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Started {
    /// The process started.
    pub pid: u32,
    /// Whether it runs in a systemd scope of its own (false: it stays in the daemon's cgroup).
    pub scoped: bool,
    /// Its main window, once its windows and titles stopped changing; null when none showed
    /// (see note).
    pub window: Option<Window>,
    /// The app's dialogs in front of the main window, which take its input first: what an
    /// agent must answer (or close) before the window itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialogs: Option<Vec<BlockingDialog>>,
    /// It runs in a sandbox: it sees a home of its own in place of the person's, with only the
    /// parts of theirs `[apps] share` and `show` name.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sandboxed: bool,
    /// Switches shuttle added (a Chromium-based app's accessibility switch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub added_args: Option<Vec<String>>,
    /// Why there is no window, or why the app's accessibility is off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A dialog of a launched app that stands in front of its main window.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct BlockingDialog {
    /// The dialog.
    #[serde(flatten)]
    pub window: WindowRef,
    /// Why it counts: `transient` (it belongs to the main window) or `newer` (a dialog of the
    /// same app that appeared after the main window).
    pub blocking: String,
}

/// `open`: what opened the file or URL.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Opened {
    /// The app as `launch` would answer it.
    #[serde(flatten)]
    pub started: Started,
    /// The window is another process's: a running instance the file went to, or anything else
    /// that opened meanwhile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_other_process: Option<bool>,
    /// The file or URL.
    pub opened: String,
    /// Its MIME type, or `x-scheme-handler/SCHEME`.
    pub kind: String,
    /// The desktop entry set to open it.
    pub app: String,
    /// The program that entry runs.
    pub program: String,
}

/// How `quit` ended an app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QuitEnding {
    /// It exited when its windows were asked to close.
    Closed,
    /// It ended on SIGTERM.
    Terminated,
    /// It ended on SIGKILL.
    Killed,
}

/// `quit`: how the app ended.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Quit {
    /// Its process.
    pub pid: u32,
    /// Its name.
    pub app: String,
    /// How it ended.
    pub ended: QuitEnding,
    /// Windows asked to close.
    pub close_requests: usize,
    /// What happened, in words.
    pub note: String,
    /// Windows it opened when asked to close, left unanswered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub questions: Option<Vec<WindowRef>>,
}

/// What a frame verb asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum FrameAsked {
    /// `set_frame`: the edges given (null: kept as they were).
    Frame {
        /// Left edge.
        x: Option<i32>,
        /// Top edge.
        y: Option<i32>,
        /// Width.
        width: Option<u32>,
        /// Height.
        height: Option<u32>,
    },
    /// `minimize`, `maximize`, `restore`: the state wanted.
    State(String),
}

/// `set_frame`, `minimize`, `maximize` and `restore`: where the window manager put it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Framed {
    /// The window's id.
    pub window: String,
    /// Its title.
    pub title: String,
    /// Its frame now, the window manager's decorations included, as the screen shows it: x,
    /// y, width, height; null while minimized.
    pub frame: Option<[i32; 4]>,
    /// The app's area inside the decorations (what `windows`, shots and clicks by window
    /// measure from); null while minimized.
    pub client: Option<[i32; 4]>,
    /// normal, maximized or minimized.
    pub state: String,
    /// What was asked.
    pub asked: FrameAsked,
    /// Why the frame or state is not what was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
