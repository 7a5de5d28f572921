//! What can go wrong on the desk. Every message names what failed and what to do about it.

use desk_core::matching::MatchError;

/// A desk call that could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum DeskError {
    /// No display to talk to.
    #[error(
        "no X display: DISPLAY is not set in the environment shuttle serve started with; \
         set it (for example DISPLAY=:0) and restart the daemon, or run scripts/desktop.sh \
         for a virtual desktop"
    )]
    NoDisplay,
    /// The display refused or dropped the connection.
    #[error(
        "cannot reach X display {display}: {reason}; check that the X server is running and DISPLAY is right"
    )]
    Connect {
        /// The display name.
        display: String,
        /// What the connection attempt said.
        reason: String,
    },
    /// The connection to the display broke during a call.
    #[error("the X display connection broke: {0}; the next call reconnects")]
    ConnectionLost(String),
    /// The X server refused a request.
    #[error("the X server refused {what}: {reason}")]
    Protocol {
        /// The request, in words.
        what: String,
        /// The server's error.
        reason: String,
    },
    /// The window manager lacks something the verb needs.
    #[error("{0}")]
    WindowManager(String),
    /// The named window does not exist (any more).
    #[error("window {id} no longer exists; call `windows` for the current list")]
    WindowGone {
        /// The id that was named.
        id: String,
    },
    /// The window exists but nothing of it is on the screen.
    #[error(
        "window {id} {title:?} is not on the screen (minimized, or on another desktop); focus it first"
    )]
    WindowHidden {
        /// The window's id.
        id: String,
        /// The window's title.
        title: String,
    },
    /// The `window`/`pid` arguments picked no single window.
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The arguments are well-formed but cannot be satisfied.
    #[error("{0}")]
    Invalid(String),
    /// A file could not be written.
    #[error("cannot write {path}: {reason}")]
    Write {
        /// The file.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// The call was cancelled part way; `done` says what had already been sent.
    #[error("cancelled before it finished; {done}")]
    Cancelled {
        /// What reached the desk before the cancel.
        done: String,
    },
    /// The focus could not be moved to the window the call named, so no input was sent.
    #[error(
        "could not give window {id} {title:?} the focus (the focused window is {active}); \
         nothing was sent"
    )]
    FocusRefused {
        /// The window.
        id: String,
        /// Its title.
        title: String,
        /// What has the focus instead.
        active: String,
    },
    /// A window whose app exposes no accessibility tree.
    #[error(
        "window {id} {title:?} ({app}) has no accessibility tree: its app is not on the \
         accessibility bus (terminals such as xterm and apps that draw their own widgets are \
         not); use shot and pixel input instead"
    )]
    NoTree {
        /// The window's id.
        id: String,
        /// Its title.
        title: String,
        /// Its app.
        app: String,
    },
    /// An app did not answer an accessibility call in time.
    #[error(
        "{app} did not answer accessibility within {after_ms} ms (asked to {what}); it may be busy \
         or frozen: try again, or use shot and pixel input"
    )]
    NotAnswering {
        /// The app, named with its pid.
        app: String,
        /// What was asked.
        what: String,
        /// The deadline that passed.
        after_ms: u64,
    },
    /// A node id no longer names an object.
    #[error("node {id} is gone: {reason}; take a new snapshot")]
    NodeGone {
        /// The id.
        id: String,
        /// Why it is gone, if known.
        reason: String,
    },
    /// A safety control said no before anything was sent: the app allowlist, the auth guard,
    /// the person at the desktop (confirm mode), read-only mode.
    #[error("refused: {0}")]
    Refused(String),
    /// Dry run: the call passed every check and guard, and this is what it would have done.
    #[error("dry run, nothing was sent: would {0}")]
    DryRun(String),
    /// The accessibility bus is out of reach or misbehaved.
    #[error("{0}")]
    Accessibility(String),
}

impl DeskError {
    /// Whether the display connection should be dropped and made again for the next call.
    pub fn needs_reconnect(&self) -> bool {
        matches!(self, DeskError::ConnectionLost(_))
    }
}
