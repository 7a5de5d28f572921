//! What can go wrong on the desk, in words true for any backend. Every message names what
//! failed and what to do about it.

use desk_core::matching::MatchError;
use desk_core::outcome::Control;

/// A desk call that could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum DeskError {
    /// The desktop cannot be reached: no display named, or the connection refused.
    #[error("cannot reach the {system} desktop: {reason}")]
    Unreachable {
        /// The windowing system: `x11`.
        system: &'static str,
        /// What went wrong and what to do.
        reason: String,
    },
    /// The connection to the desktop broke during a call.
    #[error("the connection to the {system} desktop broke: {reason}; the next call reconnects")]
    Disconnected {
        /// The windowing system.
        system: &'static str,
        /// What the connection said.
        reason: String,
    },
    /// The desktop stopped answering within its deadline; the connection is given up.
    #[error("the {system} desktop did not answer in time: {reason}; the next call reconnects")]
    Stalled {
        /// The windowing system.
        system: &'static str,
        /// What the connection said.
        reason: String,
    },
    /// The desktop refused a request.
    #[error("the {system} desktop refused {what}: {reason}")]
    Rejected {
        /// The windowing system.
        system: &'static str,
        /// The request, in words.
        what: String,
        /// The desktop's error.
        reason: String,
    },
    /// The desktop lacks something the verb needs (a window manager feature, a pixel format).
    #[error("{0}")]
    Unsupported(String),
    /// The named window does not exist (any more).
    #[error("window {id} no longer exists; call `windows` for the current list")]
    WindowGone {
        /// The id that was named.
        id: String,
    },
    /// The window exists but nothing of it is on the screen.
    #[error(
        "window {id} {} is not on the screen (minimized, or on another desktop); focus it first",
        desk_core::app_text::Quoted(.title)
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
    /// The target is not the kind of thing the verb works on (a field that takes no text, a
    /// node with no action, a window no process owns); the message says what would work.
    #[error("{0}")]
    Unfit(String),
    /// The app was asked and did not do it: it refused an action, the text, the focus, or
    /// opened a question instead of quitting.
    #[error("{0}")]
    AppRefused(String),
    /// The point or area is not where it must be: off the screen or the screenshot, outside
    /// the window, under another window, in no window shuttle can tell.
    #[error("{0}")]
    Unplaced(String),
    /// Something the call needs first is not there yet: a focused window, a screenshot, a
    /// session's elements.
    #[error("{0}")]
    Missing(String),
    /// What was checked before the input changed before it could go out (the focus moved,
    /// another window came on top); nothing was sent in its place.
    #[error("{0}")]
    Changed(String),
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
    /// Typing ended part way: `typed` of `total` characters went out.
    #[error("{why}; {typed} of {total} characters were typed")]
    TypingEnded {
        /// Why the rest did not go out.
        why: String,
        /// Characters sent.
        typed: usize,
        /// Characters asked for.
        total: usize,
    },
    /// Modifiers someone else held down would have changed the keys sent.
    #[error(
        "{keys} stayed held down by someone else for {after_s} s, and would have changed \
         {what} sent; release it, then send the rest"
    )]
    KeysHeld {
        /// The modifiers, by name.
        keys: String,
        /// What was being sent: the text, the keys.
        what: String,
        /// How long it waited for their release.
        after_s: u64,
    },
    /// An input primitive failed before any of its input went out.
    #[error(transparent)]
    Unsent(Box<DeskError>),
    /// The focus could not be moved to the window the call named.
    #[error(
        "could not give window {id} {} the focus (the focused window is {active})",
        desk_core::app_text::Quoted(.title)
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
        "window {id} {} ({}) has no accessibility tree: {why}",
        desk_core::app_text::Quoted(.title),
        desk_core::app_text::Quoted(.app)
    )]
    NoTree {
        /// The window's id.
        id: String,
        /// Its title.
        title: String,
        /// Its app.
        app: String,
        /// Why, as far as the desk can tell, and what to do.
        why: String,
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
    /// A safety control said no before anything was sent.
    #[error("refused: {reason}")]
    Refused {
        /// The control.
        by: Control,
        /// Why, and what the agent can do.
        reason: String,
    },
    /// A step of a `computer_act` list failed; the steps before it ran.
    #[error("step {step} of {of} ({what}) failed: {source}{}", what_ran(ran))]
    StepFailed {
        /// Which step, from 1.
        step: usize,
        /// How many steps the list holds.
        of: usize,
        /// The step in words.
        what: String,
        /// What the steps that ran did, one line each.
        ran: Vec<String>,
        /// Why it failed.
        source: Box<DeskError>,
    },
    /// Part of an action went out, then the rest failed.
    #[error("{done}, then failed: {source}")]
    After {
        /// What went out, in words.
        done: String,
        /// Why the rest failed.
        source: Box<DeskError>,
    },
    /// Dry run: the call passed every check and guard, and this is what it would have done.
    #[error("dry run: would {0}")]
    DryRun(String),
    /// The accessibility bus is out of reach or misbehaved.
    #[error("{0}")]
    Accessibility(String),
}

impl DeskError {
    /// This error, noting that none of the call's input went out.
    pub fn unsent(self) -> Self {
        DeskError::Unsent(Box::new(self))
    }

    /// A refusal by a safety control.
    pub fn refused(by: Control, reason: impl Into<String>) -> Self {
        DeskError::Refused {
            by,
            reason: reason.into(),
        }
    }

    /// The error itself, without the note that none of its input went out.
    pub fn unwrapped(self) -> DeskError {
        match self {
            DeskError::Unsent(inner) => inner.unwrapped(),
            other => other,
        }
    }

    /// What the error says of the desktop connection.
    pub fn link(&self) -> Link {
        match self {
            DeskError::Disconnected { .. } => Link::Broken,
            DeskError::Stalled { .. } => Link::Stalled,
            DeskError::Unsent(inner) => inner.link(),
            DeskError::StepFailed { source, .. } | DeskError::After { source, .. } => source.link(),
            _ => Link::Sound,
        }
    }

    /// The safety control behind the error, if one said no.
    pub fn control(&self) -> Option<Control> {
        match self {
            DeskError::Refused { by, .. } => Some(*by),
            DeskError::DryRun(_) => Some(Control::DryRun),
            DeskError::Unsent(inner) => inner.control(),
            DeskError::StepFailed { source, .. } | DeskError::After { source, .. } => {
                source.control()
            }
            _ => None,
        }
    }
}

/// The state a call left the desktop connection in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// Still usable.
    Sound,
    /// Closed under us (the server restarted, say): a fresh connection may work at once.
    Broken,
    /// The server stopped answering: a fresh connection would most likely wait as long again.
    Stalled,
}

/// `; what ran: …`, or nothing when no step ran.
fn what_ran(ran: &[String]) -> String {
    if ran.is_empty() {
        String::new()
    } else {
        format!("; what ran: {}", ran.join("; "))
    }
}
