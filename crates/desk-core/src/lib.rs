//! The pure core of shuttle's desk: no OS code lives here.
//!
//! - [`wire`]: the desk wire, length-prefixed JSON packets every shuttle process speaks.
//! - [`a11y`]: accessibility nodes, their outline and finding them by name.
//! - [`app_text`]: keeping the text apps control apart from shuttle's own words.
//! - [`call`]: the desk verbs and the typed arguments of each.
//! - [`geometry`]: desk coordinates.
//! - [`window`]: the window record the `windows` verb returns.
//! - [`matching`]: how a `window` argument (an id or a title) picks one window.
//! - [`outcome`]: how a call ended, for the reply and the journal alike.
//! - [`results`]: what each verb answers, typed.
//! - [`status`]: the daemon's state, as `status` answers it.
//!
//! The desk (`crates/desk`), its backends and the binary (`crates/shuttle`) build on these; anything that needs
//! a display, a socket or a file belongs there, not here.

pub mod a11y;
pub mod app_text;
pub mod bounds;
pub mod call;
pub mod geometry;
pub mod matching;
pub mod outcome;
pub mod results;
pub mod status;
pub mod window;
pub mod wire;
