//! The desk verbs, written once against [`Backend`].

mod shot;

use desk_core::call::{DeskCall, Verb};
use serde::Serialize;
use serde_json::{Value, json};

use crate::backend::Backend;
use crate::error::DeskError;

/// The verbs this desk answers, in the order help lists them.
pub const AVAILABLE: &[Verb] = &[Verb::Windows, Verb::Screen, Verb::Shot];

/// A verb's result: JSON for the reply text, and a PNG when the verb took one.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The result, serialised as the reply's text.
    pub json: Value,
    /// A PNG to attach to the reply.
    pub png: Option<Vec<u8>>,
}

impl Outcome {
    fn of(value: impl Serialize) -> Self {
        Self {
            json: serde_json::to_value(value).expect("desk results always serialise"),
            png: None,
        }
    }
}

/// Runs one desk call.
pub fn run(backend: &dyn Backend, call: &DeskCall) -> Result<Outcome, DeskError> {
    match call {
        DeskCall::Windows(_) => Ok(Outcome::of(backend.windows()?)),
        DeskCall::Screen(_) => {
            let screen = backend.screen()?;
            Ok(Outcome::of(json!({"width": screen.w, "height": screen.h})))
        }
        DeskCall::Shot(args) => shot::shot(backend, args),
        other => Err(DeskError::Unsupported {
            verb: other.verb().name(),
        }),
    }
}
