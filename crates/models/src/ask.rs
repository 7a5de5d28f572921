//! `ask`: a prompt, with screenshots, answered in free text.

use serde::Serialize;
use serde_json::{Value, json};

use crate::completion::{self, Served, Usage};
use crate::config::Role;
use crate::endpoint::Models;
use crate::error::ModelError;

const SYSTEM: &str = "You help an agent that operates a computer desktop. Answer briefly.";

/// `ask`'s arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct AskArgs {
    /// The question.
    pub prompt: String,
    /// Screenshots, as base64 PNGs.
    pub images: Vec<String>,
}

/// `ask`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AskReply {
    /// The model's text.
    pub text: String,
    /// Who answered.
    pub served: Served,
    /// What it cost.
    pub usage: Usage,
}

impl AskArgs {
    /// Reads `model_ask`'s arguments: `prompt`, `images?`.
    pub fn parse(args: &Value) -> Result<Self, ModelError> {
        let bad = |reason: &str| ModelError::Args(format!("model_ask: {reason}"));
        let fields = args
            .as_object()
            .ok_or_else(|| bad("arguments must be an object with prompt"))?;
        for key in fields.keys() {
            if !["prompt", "images"].contains(&key.as_str()) {
                return Err(bad(&format!(
                    "unknown argument {key:?}; it takes prompt and images"
                )));
            }
        }
        let prompt = fields
            .get("prompt")
            .and_then(Value::as_str)
            .filter(|p| !p.trim().is_empty())
            .ok_or_else(|| bad("prompt is missing"))?;
        let images = match fields.get("images") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| i.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| bad("images must be a list of base64 PNG strings"))?,
            Some(_) => return Err(bad("images must be a list of base64 PNG strings")),
        };
        Ok(Self {
            prompt: prompt.to_string(),
            images,
        })
    }
}

impl Models {
    /// Answers `args.prompt`, with one request. `timeout_ms` caps the configured timeout.
    pub fn ask(&self, args: &AskArgs, timeout_ms: Option<u64>) -> Result<AskReply, ModelError> {
        let model = self
            .config
            .model(Role::Ask)
            .ok_or(ModelError::NoModel {
                role: Role::Ask.name(),
            })?
            .to_string();
        let url = self.chat_url();
        let mut content = vec![json!({"type": "text", "text": args.prompt})];
        content.extend(args.images.iter().map(|png| {
            json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{png}")}})
        }));
        let body = completion::request(&model, SYSTEM, content, false);
        let reply = self.post(&url, &body, self.deadline(timeout_ms))?;
        let completion = completion::read(&url, &model, &reply)?;
        Ok(AskReply {
            text: completion.text,
            served: completion.served,
            usage: completion.usage,
        })
    }
}
