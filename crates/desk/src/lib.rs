//! The desk: what shuttle can see and do on a desktop.
//!
//! [`Backend`] is the boundary between the verbs and an operating system. The verbs themselves
//! ([`verbs`]) are written once against it; [`x11::X11Backend`] implements it for Linux X11.
//! A macOS or Windows desk would be another `Backend`, leaving the verbs and the daemon as they are.
//!
//! Everything here is blocking: the daemon runs desk calls on its blocking thread pool.

pub mod accessibility;
pub mod atspi;
pub mod backend;
pub mod cancel;
pub mod error;
pub mod guard;
pub mod image;
pub mod intent;
pub mod keys;
pub mod launch;
pub mod verbs;
pub mod x11;

pub use accessibility::Accessibility;
pub use backend::{Answer, Backend, BackendInfo, Question};
pub use cancel::Cancel;
pub use error::DeskError;
pub use intent::{Intent, Target};
pub use verbs::{Outcome, run};
