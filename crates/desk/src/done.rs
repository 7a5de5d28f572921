//! What a verb that completed hands back.

use desk_core::results::WindowChanges;
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

/// An encoded image a result carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// Its media type: `image/png` or `image/jpeg`.
    pub mime: &'static str,
    /// The encoded bytes.
    pub bytes: Vec<u8>,
}

impl Picture {
    /// A PNG.
    pub fn png(bytes: Vec<u8>) -> Self {
        Self {
            mime: "image/png",
            bytes,
        }
    }

    /// A JPEG.
    pub fn jpeg(bytes: Vec<u8>) -> Self {
        Self {
            mime: "image/jpeg",
            bytes,
        }
    }
}

/// A verb's result, an image when the verb took one, and what changed among the windows
/// since the caller's previous reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    /// What to answer.
    pub body: Body,
    /// An image to attach.
    pub image: Option<Picture>,
    /// Windows that opened, closed, came forward or took a new title since the caller's
    /// previous reply.
    pub windows_changed: Option<WindowChanges>,
}

impl Done {
    /// A JSON result.
    pub fn json(value: Value) -> Self {
        Self {
            body: Body::Json(value),
            image: None,
            windows_changed: None,
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
            image: None,
            windows_changed: None,
        }
    }

    /// The same result, carrying `image`.
    pub fn with_image(self, image: Picture) -> Self {
        Self {
            image: Some(image),
            ..self
        }
    }
}
