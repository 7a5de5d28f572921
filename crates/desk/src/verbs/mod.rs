//! The desk verbs, written once against [`Backend`].

mod input;
mod manage;
mod shot;
mod still;
mod target;
mod wait;

use desk_core::call::{DeskCall, Verb};
use serde::Serialize;
use serde_json::{Value, json};

use crate::backend::Backend;
use crate::cancel::Cancel;
use crate::error::DeskError;

/// The verbs this desk answers, in the order help lists them.
pub const AVAILABLE: &[Verb] = &[
    Verb::Windows,
    Verb::Screen,
    Verb::Shot,
    Verb::Wait,
    Verb::Still,
    Verb::Key,
    Verb::Type,
    Verb::Click,
    Verb::Scroll,
    Verb::Drag,
    Verb::Focus,
    Verb::Close,
    Verb::Launch,
];

/// A verb's result: JSON for the reply text, and a PNG when the verb took one.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The result, serialised as the reply's text.
    pub json: Value,
    /// A PNG to attach to the reply.
    pub png: Option<Vec<u8>>,
}

impl Outcome {
    pub(crate) fn of(value: impl Serialize) -> Self {
        Self {
            json: serde_json::to_value(value).expect("desk results always serialise"),
            png: None,
        }
    }
}

/// Runs one desk call; long calls check `cancel` as they go.
pub fn run(backend: &dyn Backend, call: &DeskCall, cancel: &Cancel) -> Result<Outcome, DeskError> {
    match call {
        DeskCall::Windows(_) => Ok(Outcome::of(backend.windows()?)),
        DeskCall::Screen(_) => {
            let screen = backend.screen()?;
            Ok(Outcome::of(json!({"width": screen.w, "height": screen.h})))
        }
        DeskCall::Shot(args) => shot::shot(backend, args),
        DeskCall::Wait(args) => wait::wait(backend, args, cancel),
        DeskCall::Still(args) => still::still(backend, args, cancel),
        DeskCall::Key(args) => input::key(backend, args, cancel),
        DeskCall::Type(args) => input::type_text(backend, args, cancel),
        DeskCall::Click(args) => input::click(backend, args),
        DeskCall::Scroll(args) => input::scroll(backend, args, cancel),
        DeskCall::Drag(args) => input::drag(backend, args, cancel),
        DeskCall::Focus(args) => manage::focus(backend, args),
        DeskCall::Close(args) => manage::close(backend, args, cancel),
        DeskCall::Launch(args) => manage::launch(backend, args, cancel),
        other => Err(DeskError::Unsupported {
            verb: other.verb().name(),
        }),
    }
}
