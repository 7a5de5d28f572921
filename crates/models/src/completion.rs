//! Reading a chat completion: its text, the log probabilities of its tokens, its usage, and
//! who served it.

use serde::Serialize;
use serde_json::{Value, json};

use crate::endpoint::excerpt;
use crate::error::ModelError;

/// Tokens a call used, as the endpoint counted them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Usage {
    /// The model asked.
    pub model: String,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Prompt tokens the endpoint served from its cache (0 when it says nothing).
    pub cached_tokens: u64,
}

/// Who answered: the model name asked, and the build and generation id the endpoint named.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Served {
    /// The model asked.
    pub model: String,
    /// The model build that answered (the reply's `model`), when the endpoint names it.
    pub build: Option<String>,
    /// The generation id (the reply's `id`), when the endpoint gives one.
    pub id: Option<String>,
}

/// One token of the reply with its alternatives.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub text: String,
    /// The most likely tokens at this place, the chosen one among them, with log probabilities.
    pub top: Vec<(String, f64)>,
}

/// A chat completion, read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Completion {
    pub text: String,
    /// Empty when the endpoint sent no log probabilities.
    pub tokens: Vec<Token>,
    pub usage: Usage,
    pub served: Served,
}

/// A chat-completions request body for `model`: one user message of `content` parts, and
/// log probabilities when `logprobs` asks for them.
pub(crate) fn request(model: &str, system: &str, content: Vec<Value>, logprobs: bool) -> Value {
    let mut body = json!({
        "model": model,
        "stream": false,
        "temperature": 0,
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": content},
        ],
    });
    if logprobs {
        body["logprobs"] = json!(true);
        body["top_logprobs"] = json!(10);
    }
    body
}

/// Reads `reply` from `url` as a chat completion asked of `model`.
pub(crate) fn read(url: &str, model: &str, reply: &Value) -> Result<Completion, ModelError> {
    let bad = |reason: &str| ModelError::BadReply {
        url: url.to_string(),
        reason: format!(
            "not a chat completion: {reason}: {}",
            excerpt(&reply.to_string())
        ),
    };
    let choice = reply
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| bad("no choices[0]"))?;
    let text = choice
        .pointer("/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("no choices[0].message.content text"))?
        .to_string();
    let tokens = choice
        .pointer("/logprobs/content")
        .and_then(Value::as_array)
        .map(|tokens| tokens.iter().filter_map(token).collect())
        .unwrap_or_default();
    let count = |pointer: &str| reply.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    let usage = Usage {
        model: model.to_string(),
        input_tokens: count("/usage/prompt_tokens"),
        output_tokens: count("/usage/completion_tokens"),
        cached_tokens: count("/usage/prompt_tokens_details/cached_tokens"),
    };
    let served = served(model, reply);
    Ok(Completion {
        text,
        tokens,
        usage,
        served,
    })
}

/// Who served `reply`, asked of `model`.
pub(crate) fn served(model: &str, reply: &Value) -> Served {
    let named = |key: &str| reply.get(key).and_then(Value::as_str).map(str::to_string);
    Served {
        model: model.to_string(),
        build: named("model"),
        id: named("id"),
    }
}

fn token(value: &Value) -> Option<Token> {
    let text = value.get("token")?.as_str()?.to_string();
    let logprob = value.get("logprob")?.as_f64()?;
    let mut top: Vec<(String, f64)> = value
        .get("top_logprobs")
        .and_then(Value::as_array)
        .map(|alternatives| {
            alternatives
                .iter()
                .filter_map(|a| {
                    Some((
                        a.get("token")?.as_str()?.to_string(),
                        a.get("logprob")?.as_f64()?,
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    if !top.iter().any(|(t, _)| *t == text) {
        top.push((text.clone(), logprob));
    }
    Some(Token { text, top })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completion_reads_its_text_tokens_usage_and_server() {
        let reply = json!({
            "id": "gen-1", "model": "vendor/m-2025",
            "choices": [{"message": {"content": "ok: yes"}, "logprobs": {"content": [
                {"token": "ok", "logprob": 0.0, "top_logprobs": []},
                {"token": ": yes", "logprob": -0.1, "top_logprobs": [{"token": ": no", "logprob": -2.4}]},
            ]}}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 8}},
        });
        let completion = read("http://x/v1/chat/completions", "m", &reply).unwrap();
        assert_eq!(completion.text, "ok: yes");
        assert_eq!(completion.tokens.len(), 2);
        assert_eq!(completion.tokens[1].top.len(), 2);
        assert_eq!(
            completion.usage,
            Usage {
                model: "m".into(),
                input_tokens: 12,
                output_tokens: 3,
                cached_tokens: 8
            }
        );
        assert_eq!(completion.served.build.as_deref(), Some("vendor/m-2025"));
        assert_eq!(completion.served.id.as_deref(), Some("gen-1"));
    }

    #[test]
    fn a_body_that_is_no_completion_is_named_so() {
        let error = read(
            "http://x/v1/chat/completions",
            "m",
            &json!({"error": "nope"}),
        )
        .unwrap_err();
        let text = error.to_string();
        assert!(
            text.starts_with("http://x/v1/chat/completions: not a chat completion: no choices[0]"),
            "{text}"
        );
    }
}
