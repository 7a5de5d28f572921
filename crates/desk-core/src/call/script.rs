//! `script_run`: a module run on the bundled Node (or a plugin's program) with the desk API.
//!
//! The arguments are checked here, before anything starts: one of `code` or an absolute `path`,
//! `params` an object, `timeout_s` within the limit. The report a run answers is built by the
//! daemon, which owns the process.

use serde::Deserialize;
use serde_json::{Map, Value};

/// The wire tool that runs a script.
pub const SCRIPT_RUN: &str = "script_run";

/// The wire tool that runs a plan on the runtime's plan executor.
pub const GUI_PLAN: &str = "gui_plan";

/// The longest a run may last, in seconds; MCP clients commonly give up on a call after 120 s.
pub const MAX_TIMEOUT_S: u64 = 110;

/// What a run waits for when the call names no timeout.
pub const DEFAULT_TIMEOUT_S: u64 = 90;

/// The built-in MCP tools, whose names no plugin or service may take.
pub const BUILT_IN_TOOLS: &[&str] = &[
    GUI_PLAN,
    SCRIPT_RUN,
    "desk",
    "computer",
    "screenshot",
    "status",
];

/// `script_run`'s arguments, as a plugin tool takes them too.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptRunArgs {
    /// The module's source; it must export `async function main(params)`.
    #[serde(default)]
    pub code: Option<String>,
    /// An absolute path to the module instead of `code`.
    #[serde(default)]
    pub path: Option<String>,
    /// The object `main` receives; default `{}`.
    #[serde(default)]
    pub params: Option<Value>,
    /// Seconds before the run is ended, at most 110; default 90.
    #[serde(default)]
    pub timeout_s: Option<f64>,
}

/// Where the module comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The runtime's plan executor, `gui_plan.mts`.
    Plan,
    /// Source text, written to a file of the run's own.
    Code(String),
    /// An absolute path.
    Path(String),
}

/// A run's checked arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptRun {
    /// The module.
    pub source: Source,
    /// The object `main` receives.
    pub params: Map<String, Value>,
    /// How long the run may take.
    pub timeout: std::time::Duration,
}

impl ScriptRun {
    /// Decodes and checks the arguments of a call of `tool` (`script_run` or a plugin's tool).
    /// The error names the tool and says what to pass.
    pub fn parse(tool: &str, args: Value) -> Result<Self, String> {
        let args = match args {
            Value::Null => Value::Object(Map::new()),
            other => other,
        };
        let args: ScriptRunArgs = serde_path_to_error::deserialize(args)
            .map_err(|e| format!("{tool}: {}", crate::wire::message::describe_path_error(&e)))?;
        let source = match (args.code, args.path) {
            (Some(code), None) => Source::Code(code),
            (None, Some(path)) if std::path::Path::new(&path).is_absolute() => Source::Path(path),
            (None, Some(path)) => {
                return Err(format!(
                    "{tool}: path {path:?} is relative; pass an absolute path (the MCP server \
                     resolves a relative one against the agent's working directory)"
                ));
            }
            (Some(_), Some(_)) => {
                return Err(format!("{tool}: pass code or path, not both"));
            }
            (None, None) => {
                return Err(format!(
                    "{tool}: pass code (a module exporting async function main(params)) or the \
                     absolute path of one"
                ));
            }
        };
        let params = match args.params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(params)) => params,
            Some(other) => {
                return Err(format!(
                    "{tool}: params must be an object (main receives it), got {}",
                    kind_of(&other)
                ));
            }
        };
        let timeout_s = args.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S as f64);
        Ok(Self {
            source,
            params,
            timeout: checked_timeout(tool, timeout_s)?,
        })
    }
}

impl ScriptRun {
    /// Checks `gui_plan`'s arguments: an object whose `timeout_s` is the run's (as for
    /// `script_run`) and whose other fields are the plan, which the executor checks before its
    /// first step.
    pub fn plan(args: Value) -> Result<Self, String> {
        let mut params = match args {
            Value::Object(params) => params,
            Value::Null => Map::new(),
            other => {
                return Err(format!(
                    "{GUI_PLAN}: arguments must be an object with steps or flow, got {}",
                    kind_of(&other)
                ));
            }
        };
        if !params.contains_key("steps") && !params.contains_key("flow") {
            return Err(format!(
                "{GUI_PLAN}: pass steps (a list of steps) or flow (the name of a saved plan); \
                 docs/plans.md describes both"
            ));
        }
        let timeout_s = match params.remove("timeout_s") {
            None | Some(Value::Null) => DEFAULT_TIMEOUT_S as f64,
            Some(Value::Number(n)) => n.as_f64().unwrap_or(-1.0),
            Some(other) => {
                return Err(format!(
                    "{GUI_PLAN}: timeout_s must be a number, got {}",
                    kind_of(&other)
                ));
            }
        };
        Ok(Self {
            source: Source::Plan,
            params,
            timeout: checked_timeout(GUI_PLAN, timeout_s)?,
        })
    }
}

/// `timeout_s` as a duration, when it is within the limit.
fn checked_timeout(tool: &str, timeout_s: f64) -> Result<std::time::Duration, String> {
    if !(timeout_s > 0.0 && timeout_s <= MAX_TIMEOUT_S as f64) {
        return Err(format!(
            "{tool}: timeout_s is {timeout_s}; it must be more than 0 and at most \
             {MAX_TIMEOUT_S} (default {DEFAULT_TIMEOUT_S})"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(timeout_s))
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The JSON schema of `script_run`'s arguments, which plugin tools share.
pub fn input_schema() -> Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "code": {"type": "string", "description": "module source"},
            "path": {"type": "string", "description": "a module file"},
            "params": {"type": "object"},
            "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TIMEOUT_S, "description": "default 90"}
        },
        "additionalProperties": false
    })
}

/// The JSON schema of `gui_plan`'s arguments (docs/plans.md); the steps' shapes are in the
/// MCP tool's description.
pub fn plan_schema() -> Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "steps": {"type": "array", "items": {"type": "object"}},
            "flow": {"type": "string", "description": "a saved plan to run"},
            "params": {"type": "object"},
            "window": {"type": "string", "description": "default: focused"},
            "replay": {"type": "boolean", "description": "default true"},
            "record": {"type": "array", "description": "a run's record, to replay"},
            "save_as": {"type": "string", "description": "keep as a flow"},
            "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TIMEOUT_S}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn code_or_an_absolute_path_with_defaults() {
        let run =
            ScriptRun::parse(SCRIPT_RUN, json!({"code": "export function main() {}"})).unwrap();
        assert_eq!(run.source, Source::Code("export function main() {}".into()));
        assert!(run.params.is_empty());
        assert_eq!(run.timeout.as_secs(), 90);
        let run = ScriptRun::parse(
            SCRIPT_RUN,
            json!({"path": "/tmp/a.mjs", "params": {"n": 1}, "timeout_s": 110}),
        )
        .unwrap();
        assert_eq!(run.source, Source::Path("/tmp/a.mjs".into()));
        assert_eq!(run.params["n"], 1);
        assert_eq!(run.timeout.as_secs(), 110);
    }

    #[test]
    fn bad_arguments_say_what_to_pass() {
        let err = |args| ScriptRun::parse("demo_run", args).unwrap_err();
        assert!(err(json!({})).starts_with("demo_run: pass code"));
        assert!(err(json!({"code": "x", "path": "/a"})).contains("not both"));
        assert!(err(json!({"path": "a.mjs"})).contains("is relative"));
        assert!(err(json!({"code": "x", "params": [1]})).contains("params must be an object"));
        assert!(err(json!({"code": "x", "timeout_s": 111})).contains("at most 110"));
        assert!(err(json!({"code": "x", "timeout_s": 0})).contains("more than 0"));
        assert!(err(json!({"code": "x", "timeout": 3})).contains("timeout"));
        assert!(err(json!({"code": 3})).contains("code"));
    }

    #[test]
    fn a_plan_keeps_its_fields_as_params_and_takes_its_timeout() {
        let plan =
            ScriptRun::plan(json!({"flow": "save", "params": {"t": 1}, "timeout_s": 30})).unwrap();
        assert_eq!(plan.source, Source::Plan);
        assert_eq!(
            Value::Object(plan.params),
            json!({"flow": "save", "params": {"t": 1}})
        );
        assert_eq!(plan.timeout.as_secs(), 30);
        let err = |args| ScriptRun::plan(args).unwrap_err();
        assert!(err(json!({})).contains("pass steps"));
        assert!(err(json!([1])).contains("must be an object"));
        assert!(err(json!({"steps": [], "timeout_s": 200})).contains("at most 110"));
    }
}
