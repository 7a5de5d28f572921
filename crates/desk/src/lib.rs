//! The desk: what shuttle can see and do on a desktop, and the safety controls around it.
//!
//! This crate knows no operating system: it has no X11, D-Bus or libc in its dependencies.
//!
//! - [`system`]: the role traits a backend implements ([`Display`], [`Input`], [`Presence`],
//!   [`Apps`]) and [`Accessibility`]; a [`Platform`] connects them into a [`Backend`].
//! - [`guard`]: the policy. [`guard::Desk`] is the only view of a backend a verb gets: reads
//!   come filtered, and input needs the [`guard::Admitted`] that admission hands back.
//! - [`verbs`]: the verbs, written once against [`guard::Desk`]; [`run`] runs one call.
//! - [`intent`]: what an action is about to do, as the safety controls and the person read it.
//! - [`keys`], [`image`], [`cancel`], [`progress`], [`error`], [`done`], [`clip`]: key names,
//!   pixels, cancellation, a call's news, errors, results and what the clipboard backends share.
//! - [`fake`] (feature `fake`): an in-memory desktop for tests without a display.
//!
//! Everything here is blocking: the daemon runs desk calls on its blocking thread pool.

pub mod accessibility;
pub mod cancel;
pub mod clip;
pub mod done;
pub mod drag;
pub mod error;
#[cfg(feature = "fake")]
pub mod fake;
pub mod guard;
pub mod image;
pub mod intent;
pub mod keys;
pub mod marker;
pub mod news;
pub mod progress;
mod run;
pub mod system;
pub mod trees;
pub mod typing;
mod verbs;
pub mod vision;
pub mod wheel;
pub mod window_log;

pub use accessibility::Accessibility;
pub use cancel::Cancel;
pub use done::{Body, Done, Picture};
pub use error::{DeskError, Link};
pub use intent::{Intent, Target};
pub use progress::Progress;
pub use run::run;
pub use system::{
    AccessibilityOff, Answer, Apps, Asks, Backend, Background, Clip, Display, DisplayInfo, Ending,
    Exit, FORCE_ACCESSIBILITY, FrameChange, Hotkey, Input, Launched, Opener, Platform, Pong,
    Presence, Question, Sandbox, WindowEvent, WindowEventKind, WindowEvents, WindowState,
};
pub use window_log::WindowLog;
