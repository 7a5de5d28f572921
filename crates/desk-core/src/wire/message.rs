//! The JSON inside a packet: requests and replies.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One call, as a client sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// Who is calling: an agent session, a script run, or `""` for the CLI.
    #[serde(default)]
    pub agent_id: String,
    /// The tool to run, such as `desk_windows` or `status`.
    pub tool: String,
    /// The tool's arguments: an object, or null for none.
    #[serde(default)]
    pub args: Value,
    /// Whether the client takes [`Progress`] packets before the reply. Left out (false) by
    /// clients that read one reply per request.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub progress: bool,
}

impl Request {
    /// A request with no agent id.
    pub fn new(tool: impl Into<String>, args: Value) -> Self {
        Self {
            agent_id: String::new(),
            tool: tool.into(),
            args,
            progress: false,
        }
    }

    /// The request as a packet payload.
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a Request always serialises")
    }
}

/// The media type of an image a reply carries without `image_mime`.
pub const PNG: &str = "image/png";

impl Reply {
    /// The media type of the reply's image.
    pub fn mime(&self) -> &str {
        self.image_mime.as_deref().unwrap_or(PNG)
    }
}

/// What a successful reply's `text` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// A JSON value, to parse.
    Json,
    /// Text to read as it is: an outline, a vision verb's account of the screen.
    Text,
}

/// The answer to one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The result (JSON for the desk verbs), or the reason for an error.
    pub text: String,
    /// Whether the call failed; `text` then says why.
    pub is_error: bool,
    /// On success, whether `text` is JSON or text; left out on errors (a reason to read) and
    /// by daemons older than the field, and by services, which answer as they like.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    /// An image, base64-encoded, when the call took one: a PNG unless `image_mime` says else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_b64: Option<String>,
    /// The image's media type when it is not a PNG (`image/jpeg` from the vision verbs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_mime: Option<String>,
    /// `(field, value)` pairs a host relaying this reply must scrub. shuttle never sends them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<(String, String)>,
}

impl Reply {
    /// A successful reply whose text is in `format`.
    pub fn ok(text: impl Into<String>, format: Format) -> Self {
        Self {
            text: text.into(),
            is_error: false,
            format: Some(format),
            image_b64: None,
            image_mime: None,
            secrets: Vec::new(),
        }
    }

    /// A successful reply holding `value` as JSON.
    pub fn json(value: &Value) -> Self {
        Self::ok(value.to_string(), Format::Json)
    }

    /// A failed call; `reason` says what went wrong and what to do.
    pub fn error(reason: impl Into<String>) -> Self {
        Self {
            text: reason.into(),
            is_error: true,
            format: None,
            image_b64: None,
            image_mime: None,
            secrets: Vec::new(),
        }
    }

    /// The result as JSON when the reply says it is JSON (or, from a daemon that does not
    /// say, when it parses as JSON).
    pub fn json_value(&self) -> Option<Value> {
        match self.format {
            Some(Format::Text) => None,
            Some(Format::Json) | None => serde_json::from_str(&self.text).ok(),
        }
    }

    /// The reply as a packet payload.
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a Reply always serialises")
    }
}

/// What a running call is doing, sent before its reply to a request that asked for it
/// (`progress: true`): `{"progress": "typed 64 of 400 characters"}`. In shuttle's words, or a
/// script's line quoted as `⟪"…"⟫`. The daemon may skip news that a newer line replaces before
/// it goes out; the last news before the reply always goes. A client ignores fields it does
/// not know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// The news, one line.
    pub progress: String,
}

impl Progress {
    /// The packet as a payload.
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a Progress always serialises")
    }
}

/// A packet the daemon sends on a call: news of it, or its reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The call runs on; a reply follows.
    Progress(Progress),
    /// The call ended.
    Reply(Reply),
}

/// Decodes a packet the daemon sent on a call: the reply, or a progress packet before it.
pub fn decode_answer(payload: &[u8]) -> Result<Answer, serde_json::Error> {
    match decode_reply(payload) {
        Ok(reply) => Ok(Answer::Reply(reply)),
        // Progress packets are short, so trying a reply first costs them little.
        Err(e) => serde_json::from_slice(payload)
            .map(Answer::Progress)
            .map_err(|_| e),
    }
}

/// Why a request packet could not be decoded. The connection survives all of these.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// The payload is not valid UTF-8.
    #[error("request is not UTF-8: invalid byte at offset {offset}; send UTF-8 JSON")]
    NotUtf8 {
        /// Where the first invalid byte is.
        offset: usize,
    },
    /// The payload is not JSON at all.
    #[error("request is not valid JSON: {0}")]
    Malformed(String),
    /// The payload is JSON, but not an object.
    #[error("request must be a JSON object {{\"agent_id\", \"tool\", \"args\"}}, got {0}")]
    NotObject(&'static str),
    /// A field is missing, mistyped or unknown.
    #[error("bad request: {0}")]
    Field(String),
}

/// Decodes a request packet's payload, naming the field at fault when it does not fit.
pub fn decode_request(payload: &[u8]) -> Result<Request, RequestError> {
    let text = std::str::from_utf8(payload).map_err(|e| RequestError::NotUtf8 {
        offset: e.valid_up_to(),
    })?;
    match serde_json::from_str::<Request>(text) {
        Ok(request) => check_args(request),
        Err(_) => Err(diagnose(text)),
    }
}

fn check_args(request: Request) -> Result<Request, RequestError> {
    match request.args {
        Value::Object(_) | Value::Null => Ok(request),
        ref other => Err(RequestError::Field(format!(
            "`args` must be an object or null, got {}",
            json_kind(other)
        ))),
    }
}

/// The slow path: explains a payload the fast decode refused.
fn diagnose(text: &str) -> RequestError {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => return RequestError::Malformed(e.to_string()),
    };
    if !value.is_object() {
        return RequestError::NotObject(json_kind(&value));
    }
    match serde_path_to_error::deserialize::<_, Request>(value) {
        Ok(_) => RequestError::Malformed("request did not decode".into()),
        Err(e) => RequestError::Field(describe_path_error(&e)),
    }
}

/// Decodes a reply packet's payload.
pub fn decode_reply(payload: &[u8]) -> Result<Reply, serde_json::Error> {
    serde_json::from_slice(payload)
}

/// `field: message`, or just the message when the error is about the whole object.
pub(crate) fn describe_path_error(e: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let path = e.path().to_string();
    if path == "." || path.is_empty() {
        e.inner().to_string()
    } else {
        format!("`{path}`: {}", e.inner())
    }
}

/// "an array", "a string", ... for error messages.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_fill_agent_id_and_args() {
        let r = decode_request(br#"{"tool":"desk_windows"}"#).unwrap();
        assert_eq!(r, Request::new("desk_windows", Value::Null));
    }

    #[test]
    fn full_request_round_trips() {
        let r = Request {
            agent_id: "a1".into(),
            tool: "desk_shot".into(),
            args: json!({"x": 1}),
            progress: true,
        };
        assert_eq!(decode_request(&r.to_json()).unwrap(), r);
    }

    #[test]
    fn errors_name_what_is_wrong() {
        let cases: &[(&[u8], &str)] = &[
            (b"\xff\xfe", "not UTF-8: invalid byte at offset 0"),
            (b"{\"tool\":", "not valid JSON"),
            (b"[1,2]", "must be a JSON object"),
            (b"\"desk_windows\"", "got a string"),
            (b"{\"args\":{}}", "missing field `tool`"),
            (
                b"{\"tool\":5}",
                "`tool`: invalid type: integer `5`, expected a string",
            ),
            (
                b"{\"tool\":\"t\",\"agent_id\":[]}",
                "`agent_id`: invalid type: sequence",
            ),
            (b"{\"tool\":\"t\",\"arg\":{}}", "unknown field `arg`"),
            (
                b"{\"tool\":\"t\",\"args\":[1]}",
                "`args` must be an object or null, got an array",
            ),
            (b"{\"tool\":\"t\",\"args\":\"x\"}", "got a string"),
        ];
        for (payload, want) in cases {
            let err = decode_request(payload).unwrap_err().to_string();
            assert!(
                err.contains(want),
                "{:?}: {err}",
                String::from_utf8_lossy(payload)
            );
        }
    }

    #[test]
    fn progress_is_asked_for_only_when_wanted_and_told_from_the_reply() {
        let plain = Request::new("desk_type", Value::Null).to_json();
        assert!(!String::from_utf8(plain).unwrap().contains("progress"));
        let note = Progress {
            progress: "typed 3 of 9 characters".into(),
        };
        assert_eq!(
            decode_answer(&note.to_json()).unwrap(),
            Answer::Progress(note)
        );
        let reply = Reply::error("no");
        assert_eq!(
            decode_answer(&reply.to_json()).unwrap(),
            Answer::Reply(reply)
        );
        let err = decode_answer(br#"{"text":1}"#).unwrap_err().to_string();
        assert!(
            err.contains("invalid type"),
            "the reply's error is kept: {err}"
        );
    }

    #[test]
    fn reply_omits_empty_optionals_and_says_what_its_text_is() {
        assert_eq!(
            String::from_utf8(Reply::json(&serde_json::json!([])).to_json()).unwrap(),
            r#"{"text":"[]","is_error":false,"format":"json"}"#
        );
        assert_eq!(
            String::from_utf8(Reply::error("no").to_json()).unwrap(),
            r#"{"text":"no","is_error":true}"#
        );
        let outline = Reply::ok("[1]", Format::Text);
        assert_eq!(outline.json_value(), None, "text is never parsed");
        // A reply from a daemon that predates the field is parsed when it parses.
        let old: Reply = serde_json::from_str(r#"{"text":"[1]","is_error":false}"#).unwrap();
        assert_eq!(old.json_value(), Some(serde_json::json!([1])));
    }
}
