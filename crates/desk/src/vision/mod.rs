//! What the vision verbs keep between calls, and the screenshots they show.
//!
//! A vision agent reads a scaled screenshot and answers in its pixels and in element indexes;
//! a [`Session`] remembers the scale of the latest screenshot it was shown and the elements of
//! its latest `computer_state`, so the next `computer_act` can map both back to the screen.

mod screenshot;
mod sessions;

pub use screenshot::{Screenshot, token_estimate};
pub use sessions::{Element, Session, Sessions, Shot};
