//! The desk verbs, written once against [`Backend`].

mod a11y;
mod input;
mod manage;
mod shot;
mod still;
mod target;
mod wait;

use desk_core::call::DeskCall;
use serde::Serialize;
use serde_json::json;

use crate::backend::Backend;
use crate::cancel::Cancel;
use crate::error::DeskError;

/// A verb's result: JSON for the reply text, and a PNG when the verb took one.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The reply's text: JSON, or an outline meant for reading.
    pub text: String,
    /// A PNG to attach to the reply.
    pub png: Option<Vec<u8>>,
}

impl Outcome {
    pub(crate) fn of(value: impl Serialize) -> Self {
        Self {
            text: serde_json::to_string(&value).expect("desk results always serialise"),
            png: None,
        }
    }

    /// A result that is plain text.
    pub(crate) fn text(text: String) -> Self {
        Self { text, png: None }
    }
}

/// Runs one desk call; long calls check `cancel` as they go.
pub fn run(backend: &dyn Backend, call: &DeskCall, cancel: &Cancel) -> Result<Outcome, DeskError> {
    match call {
        DeskCall::Windows(_) => Ok(Outcome::of(target::allowed(backend, backend.windows()?))),
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
        DeskCall::Snapshot(args) => a11y::snapshot(backend, args),
        DeskCall::Find(args) => a11y::find(backend, args),
        DeskCall::Read(args) => a11y::read(backend, args),
        DeskCall::Press(args) => a11y::press(backend, args),
        DeskCall::Act(args) => a11y::act(backend, args),
        DeskCall::At(args) => a11y::at(backend, args),
        DeskCall::Unanswered(_) => a11y::unanswered(backend),
    }
}
