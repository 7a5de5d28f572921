//! The desk verbs and their arguments.
//!
//! - [`args`]: the verb table and each verb's argument struct, with the checks its values need.
//! - [`schema`]: the verbs' arguments read back from their JSON schemas, for help texts.
//! - [`script`]: `script_run`'s arguments, which plugin tools share.
//!
//! Each verb's arguments are a struct that refuses unknown fields, so a misspelt argument is an
//! error rather than silently ignored. The structs' doc comments are the user-facing help: the
//! CLI's `--help` and the MCP tool description are generated from their JSON schemas, so the
//! documentation and the decoder cannot drift apart. Adding a verb is a row in the table and
//! a struct beside it (`args.rs`), then its function in the `desk` crate.

pub mod args;
pub mod model;
pub mod schema;
pub mod script;
pub mod settle;
pub mod vision;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use args::*;
pub use schema::{Field, FieldKind};
pub use settle::{SETTLE_MAX_MS, Settle};
pub use vision::{ActStep, Action, Aim, Region, Step};

/// What a tool does to the desktop, which decides how the daemon schedules and records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Looks only: runs alongside everything else.
    Observe,
    /// Sends input: takes the desk turn, so two agents never type at once.
    Act,
    /// The person's own controls: stop and resume.
    Control,
    /// A script, plan or plugin run: owns the desk turn until it ends, so only its own actions
    /// run.
    Run,
    /// A model call: sends nothing to the desktop and runs alongside everything else.
    Model,
    /// A service plugin's tool: after its first packet the connection is the service's, with
    /// no desk turn.
    Service,
}

/// Why a call's arguments were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{tool}: {reason}")]
pub struct ArgsError {
    /// The wire tool, such as `desk_click`.
    pub tool: String,
    /// What is wrong and how to fix it.
    pub reason: String,
}

impl ArgsError {
    fn new(verb: Verb, reason: impl Into<String>) -> Self {
        Self {
            tool: verb.tool_name(),
            reason: reason.into(),
        }
    }
}

/// What every verb's argument struct says about itself beyond its fields.
pub trait Args {
    /// Checks values that the types alone do not rule out; the error says what to pass.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }

    /// Whether the call lets input reach a password field or an authentication dialog.
    fn allow_auth(&self) -> bool {
        false
    }

    /// How long the action may wait for the windows to settle, when the caller said.
    fn settle(&self) -> Option<Settle> {
        None
    }

    /// Fields the journal keeps only as a length and a digest (text the agent types).
    fn secret_fields() -> &'static [&'static str]
    where
        Self: Sized,
    {
        &[]
    }
}

/// `args` as a verb that builds another verb's arguments sends them: through the same checks a
/// caller's pass, so it cannot send what a caller could not.
pub fn checked<A: Args>(args: A) -> Result<A, String> {
    args.check()?;
    Ok(args)
}

/// Declares the verbs: `Variant(ArgsStruct) -> Result = "name", Kind;` per verb. Generates
/// [`Verb`], [`DeskCall`] and the per-verb lookups.
macro_rules! verbs {
    ($($variant:ident($args:ident) -> $result:ty = $name:literal, $kind:ident;)*) => {
        /// A desk verb; on the wire it is the tool `desk_<name>`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Verb {
            $(#[doc = concat!("`", $name, "`")] $variant,)*
        }

        impl Verb {
            /// Every verb, in the order help lists them.
            pub const ALL: &'static [Verb] = &[$(Verb::$variant,)*];

            /// The verb's name, as `shuttle desk` and the MCP `desk` tool take it.
            pub fn name(self) -> &'static str {
                match self { $(Verb::$variant => $name,)* }
            }

            /// The verb a name stands for.
            pub fn from_name(name: &str) -> Option<Self> {
                match name { $($name => Some(Verb::$variant),)* _ => None }
            }

            /// Whether the verb observes or acts.
            pub fn kind(self) -> $crate::call::Kind {
                match self { $(Verb::$variant => $crate::call::Kind::$kind,)* }
            }

            /// The JSON schema of the verb's arguments.
            pub fn schema(self) -> schemars::Schema {
                match self { $(Verb::$variant => schemars::schema_for!($args),)* }
            }

            /// The JSON schema of the verb's result (a string for a verb that answers text).
            pub fn result_schema(self) -> schemars::Schema {
                match self { $(Verb::$variant => schemars::schema_for!($result),)* }
            }

            /// Fields the journal keeps only as a length and a digest.
            pub fn secret_fields(self) -> &'static [&'static str] {
                match self { $(Verb::$variant => <$args as $crate::call::Args>::secret_fields(),)* }
            }
        }

        /// A desk call: a verb with its decoded arguments.
        #[derive(Debug, Clone, PartialEq)]
        pub enum DeskCall {
            $(#[doc = concat!("`", $name, "`")] $variant($args),)*
        }

        impl DeskCall {
            /// Decodes `args` (an object, or null for none) for `verb`, then checks the values.
            pub fn parse(verb: Verb, args: serde_json::Value) -> Result<Self, $crate::call::ArgsError> {
                use $crate::call::Args as _;
                let args = match args {
                    serde_json::Value::Null => serde_json::Value::Object(Default::default()),
                    other => other,
                };
                match verb {
                    $(Verb::$variant => {
                        let args: $args = $crate::call::decode(verb, args)?;
                        args.check().map_err(|reason| $crate::call::ArgsError::new(verb, reason))?;
                        Ok(DeskCall::$variant(args))
                    })*
                }
            }

            /// The call's verb.
            pub fn verb(&self) -> Verb {
                match self { $(DeskCall::$variant(_) => Verb::$variant,)* }
            }

            /// Whether the call lets input reach a password field or an authentication dialog.
            pub fn allow_auth(&self) -> bool {
                use $crate::call::Args as _;
                match self { $(DeskCall::$variant(args) => args.allow_auth(),)* }
            }

            /// How long the action may wait for the windows to settle, when the caller said.
            pub fn settle(&self) -> Option<$crate::call::Settle> {
                use $crate::call::Args as _;
                match self { $(DeskCall::$variant(args) => args.settle(),)* }
            }
        }
    };
}
pub(crate) use verbs;

impl Verb {
    /// The wire tool that runs this verb: `desk_<name>`.
    pub fn tool_name(self) -> String {
        format!("desk_{}", self.name())
    }

    /// Whether the verb is one of the vision verbs, which work in screenshot pixels and element
    /// indexes (the MCP server lists them as a tool of their own).
    pub fn is_vision(self) -> bool {
        matches!(
            self,
            Verb::ComputerState
                | Verb::ComputerAct
                | Verb::ComputerEnd
                | Verb::ComputerScale
                | Verb::Look
                | Verb::TitleAt
        )
    }

    /// The verb a wire tool name (`desk_<name>`) runs.
    pub fn from_tool(tool: &str) -> Option<Self> {
        tool.strip_prefix("desk_").and_then(Self::from_name)
    }
}

fn decode<T: for<'de> Deserialize<'de>>(verb: Verb, args: Value) -> Result<T, ArgsError> {
    serde_path_to_error::deserialize(args)
        .map_err(|e| ArgsError::new(verb, crate::wire::message::describe_path_error(&e)))
}
