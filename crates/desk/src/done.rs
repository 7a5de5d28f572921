//! What a verb that completed hands back.

use serde::Serialize;
use serde_json::Value;

/// The result body: JSON for most verbs, an outline meant for reading for some.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// A JSON value; for an action the reply puts its outcome first.
    Json(Value),
    /// Plain text.
    Text(String),
}

/// A verb's result, and a PNG when the verb took one.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    /// What to answer.
    pub body: Body,
    /// A PNG to attach.
    pub png: Option<Vec<u8>>,
}

impl Done {
    /// A JSON result.
    pub fn json(value: Value) -> Self {
        Self {
            body: Body::Json(value),
            png: None,
        }
    }

    /// A result of any serialisable value.
    pub fn of(value: impl Serialize) -> Self {
        Self::json(serde_json::to_value(value).expect("desk results always serialise"))
    }

    /// A plain-text result.
    pub fn text(text: String) -> Self {
        Self {
            body: Body::Text(text),
            png: None,
        }
    }
}
