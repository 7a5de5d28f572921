//! How a call ended, turned into the reply the caller reads; the journal reads the same value.

use base64::Engine as _;
use desk::{Body, Done};
use desk_core::call::Kind;
use desk_core::outcome::Outcome;
use desk_core::wire::message::PNG;
use desk_core::wire::{Format, Reply};
use serde_json::{Map, Value, json};

/// How a call ended: its kind, its outcome and, when it produced one, its result.
#[derive(Debug)]
pub struct Ended {
    /// Observe, act or control.
    pub kind: Kind,
    /// How it ended.
    pub outcome: Outcome,
    /// The result to answer with.
    pub done: Option<Done>,
    /// Whether dry run was on.
    pub dry_run: bool,
    /// The display the call ran on, named in the reply while the daemon holds more than one.
    pub display: Option<String>,
}

impl Ended {
    /// A call that completed with `done`.
    pub fn completed(kind: Kind, done: Done) -> Self {
        Self {
            kind,
            outcome: Outcome::Completed,
            done: Some(done),
            dry_run: false,
            display: None,
        }
    }

    /// A call that did not run: refused by a safety control, or failed before it started.
    pub fn not_run(kind: Kind, outcome: Outcome) -> Self {
        Self {
            kind,
            outcome,
            done: None,
            dry_run: false,
            display: None,
        }
    }

    /// A call that did not run: an act sent nothing; anything else failed.
    pub fn failed(kind: Kind, reason: String) -> Self {
        let outcome = match kind {
            Kind::Act => Outcome::Refused { by: None, reason },
            Kind::Observe | Kind::Control | Kind::Run | Kind::Model | Kind::Service => {
                Outcome::Failed { reason }
            }
        };
        Self::not_run(kind, outcome)
    }

    /// For an act that did not complete: whether input may have reached the desktop.
    pub fn sent(&self) -> Option<bool> {
        match self.kind {
            Kind::Act => self.outcome.sent(),
            Kind::Observe | Kind::Control | Kind::Run | Kind::Model | Kind::Service => None,
        }
    }

    /// The reply to a call of `tool`. A result is answered as it is, an action's with its
    /// outcome first; a call without one is an error that says why, and for an action whether
    /// anything was sent.
    pub fn reply(self, tool: &str) -> Reply {
        // A run's report is its answer either way; a failed run answers it as an error.
        if let (Kind::Run, Some(done)) = (self.kind, &self.done) {
            let (text, format) = match &done.body {
                Body::Json(value) => (value.to_string(), Format::Json),
                Body::Text(text) => (text.clone(), Format::Text),
            };
            return match self.outcome {
                Outcome::Completed => Reply::ok(text, format),
                _ => Reply::error(text),
            };
        }
        let act = self.kind == Kind::Act;
        let Some(done) = self.done else {
            let reason = self.outcome.reason().unwrap_or_default();
            let mut text = if tool.is_empty() {
                reason.to_string()
            } else {
                format!("{tool}: {reason}")
            };
            if let (true, Some(delivery)) = (act, self.outcome.delivery()) {
                text.push(' ');
                text.push_str(delivery);
            }
            return Reply::error(text);
        };
        let changed = done.windows_changed;
        let (text, format) = match done.body {
            Body::Json(Value::Object(fields)) => {
                let mut out = Map::new();
                if act {
                    out.insert("outcome".into(), json!(self.outcome.name()));
                }
                out.extend(fields);
                if let Some(changed) = &changed {
                    out.insert("windows_changed".into(), json!(changed));
                }
                if let Some(display) = &self.display {
                    out.insert("display".into(), json!(display));
                }
                (Value::Object(out).to_string(), Format::Json)
            }
            Body::Json(value) => (value.to_string(), Format::Json),
            Body::Text(text) => {
                let mut text = if act {
                    format!("outcome: {}\n{text}", self.outcome.name())
                } else {
                    text
                };
                if let Some(changed) = &changed {
                    text = format!("{}\nwindows changed: {}", text.trim_end(), changed.words());
                }
                if let Some(display) = &self.display {
                    text = format!("{}\ndisplay: {display}", text.trim_end());
                }
                (text, Format::Text)
            }
        };
        let mut reply = Reply::ok(text, format);
        if let Some(image) = done.image {
            reply.image_b64 = Some(base64::engine::general_purpose::STANDARD.encode(image.bytes));
            // PNG is what a reply without the field means, so older readers keep working.
            reply.image_mime = (image.mime != PNG).then(|| image.mime.to_string());
        }
        reply
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use desk_core::outcome::Control;

    #[test]
    fn completed_actions_say_so_first() {
        let ended = Ended::completed(
            Kind::Act,
            Done::json(json!({"typed": 3, "app_answer": "read"})),
        );
        assert_eq!(
            ended.reply("desk_type").text,
            r#"{"outcome":"completed","typed":3,"app_answer":"read"}"#
        );
        let read = Ended::completed(Kind::Observe, Done::text("plain".into()));
        assert_eq!(read.reply("desk_snapshot").text, "plain");
    }

    #[test]
    fn errors_say_whether_anything_was_sent() {
        let refused = Ended::not_run(
            Kind::Act,
            Outcome::refused_by(Control::ReadOnly, "refused: read-only"),
        );
        let reply = refused.reply("desk_type");
        assert!(reply.is_error);
        assert_eq!(
            reply.text,
            "desk_type: refused: read-only (outcome: refused: nothing was sent)"
        );
        let unknown = Ended::not_run(
            Kind::Act,
            Outcome::Unknown {
                reason: "stopped".into(),
            },
        );
        assert!(
            unknown.reply("desk_type").text.ends_with(
                "(outcome: unknown: input may have landed; look before sending it again)"
            )
        );
        let read = Ended::failed(Kind::Observe, "gone".into());
        assert_eq!(read.sent(), None);
        assert_eq!(read.reply("desk_shot").text, "desk_shot: gone");
        let bad = Ended::failed(Kind::Act, "bad".into());
        assert_eq!(bad.sent(), Some(false));
        assert_eq!(
            bad.reply("").text,
            "bad (outcome: refused: nothing was sent)"
        );
    }

    #[test]
    fn a_dry_run_answers_its_plan_as_a_refusal() {
        let ended = Ended {
            kind: Kind::Act,
            outcome: Outcome::refused_by(Control::DryRun, "dry run: would click"),
            done: Some(Done::json(json!({"dry_run": true, "would": "click"}))),
            dry_run: true,
            display: None,
        };
        let reply = ended.reply("desk_click");
        assert!(!reply.is_error);
        assert_eq!(
            reply.text,
            r#"{"outcome":"refused","dry_run":true,"would":"click"}"#
        );
    }
}
