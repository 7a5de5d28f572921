//! shuttle's model calls: `decide`, `ask` and `ground`, each sent once, non-streaming, to one
//! OpenAI-compatible chat-completions endpoint (or, for `decide`, a decisions URL), with a model
//! name per role.
//!
//! What this crate never does: retry, fail over, stream, cache or route between models. A
//! gateway in front of `base_url` can do those; shuttle stays predictable: one call, one request.
//!
//! The key is read from the variable the [`Config`] names, at the moment of each call: from the
//! environment, or from [`Keys`] that took it out of the environment so that no process started
//! later inherits it. It travels only in the `Authorization` header: no error text, log line
//! or reply carries it (see [`ModelError`]).
//!
//! ```no_run
//! use models::{AskArgs, Config, Models};
//! let models = Models::new(Config {
//!     base_url: "http://127.0.0.1:8080/v1".into(),
//!     ask: Some("some-model".into()),
//!     ..Config::default()
//! });
//! let reply = models.ask(&AskArgs { prompt: "Say hi".into(), images: vec![] }, None)?;
//! println!("{} ({} tokens in)", reply.text, reply.usage.input_tokens);
//! # Ok::<(), models::ModelError>(())
//! ```

mod ask;
mod completion;
mod config;
mod decide;
mod endpoint;
mod error;
mod ground;
mod keys;

pub use ask::{AskArgs, AskReply};
pub use completion::{Served, Usage};
pub use config::{Config, Role};
pub use decide::{Answer, DecideArgs, DecideReply, Question, QuestionType};
pub use endpoint::Models;
pub use error::ModelError;
pub use ground::{Area, GroundArgs, GroundReply};
pub use keys::{KeySource, Keys};
