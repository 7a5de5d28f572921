//! What a run (`script_run`, a tool plugin) answers: `{result, logs, stderr, exit_code?,
//! duration_ms, error?: {kind, message}}`.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// Why a run failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The module or the desk API failed to load.
    Import,
    /// The module exports no `main` function.
    NoMain,
    /// `main` threw; the message is the stack.
    Exception,
    /// The run passed its timeout.
    Timeout,
    /// The person stopped shuttle, or the caller went away.
    Stopped,
    /// The program exited without saying why.
    Exit,
}

impl ErrorKind {
    /// The kind a runtime's `error.json` names.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "import" => Some(Self::Import),
            "no_main" => Some(Self::NoMain),
            "exception" => Some(Self::Exception),
            _ => None,
        }
    }
}

/// A run's failure.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RunError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What happened.
    pub message: String,
}

/// A run's report.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Report {
    /// What `main` returned, as JSON (null when it returned nothing or did not return).
    pub result: Value,
    /// The program's standard output, its first 32 KiB.
    pub logs: String,
    /// Its standard error, its first 32 KiB.
    pub stderr: String,
    /// Its exit status when it exited by itself (128 + the signal when a signal ended it); none
    /// after a timeout or a stop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// From start to report.
    pub duration_ms: u64,
    /// Why it failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
}

impl Report {
    /// The report as the JSON text of a reply.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|e| Value::String(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_fields_are_left_out() {
        let report = Report {
            result: Value::Null,
            logs: "a\n".into(),
            stderr: String::new(),
            exit_code: None,
            duration_ms: 5,
            error: Some(RunError {
                kind: ErrorKind::NoMain,
                message: "m".into(),
            }),
        };
        assert_eq!(
            report.to_json().to_string(),
            r#"{"result":null,"logs":"a\n","stderr":"","duration_ms":5,"error":{"kind":"no_main","message":"m"}}"#
        );
    }
}
