//! Sending one request: the only place that touches the network or the key.

use std::time::Duration;

use serde_json::Value;

use crate::config::Config;
use crate::error::ModelError;
use crate::keys::{KeySource, Lookup};

/// How much of an error body an error text quotes.
const BODY_EXCERPT: usize = 300;
/// The largest reply read; a chat completion with logprobs is far smaller.
const MAX_REPLY: u64 = 16 << 20;

/// The model calls of one [`Config`]. Cheap to build; each call reads the key when it is made,
/// from the environment unless [`Models::with_keys`] says where else.
#[derive(Debug, Clone)]
pub struct Models {
    pub(crate) config: Config,
    keys: KeySource,
}

impl Models {
    /// Model calls as `config` says, with the key from the environment.
    pub fn new(config: Config) -> Self {
        Self {
            config,
            keys: KeySource::Environment,
        }
    }

    /// The same calls, with the key read from `keys`.
    pub fn with_keys(mut self, keys: KeySource) -> Self {
        self.keys = keys;
        self
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Whether the endpoint answers at all: a GET of `{base_url}/models` without the key, for
    /// `shuttle doctor`. Any HTTP status counts as an answer; the error says why none came.
    pub fn reachable(&self, within: Duration) -> Result<u16, String> {
        let url = format!("{}/models", self.config.base_url.trim_end_matches('/'));
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(within))
            .http_status_as_error(false)
            .max_redirects(0)
            .build()
            .into();
        match agent.get(&url).call() {
            Ok(response) => Ok(response.status().as_u16()),
            Err(ureq::Error::Timeout(_)) => {
                Err(format!("{url}: no answer within {} ms", within.as_millis()))
            }
            Err(e) => Err(format!("{url}: {e}")),
        }
    }

    /// `{base_url}/chat/completions`.
    pub(crate) fn chat_url(&self) -> String {
        format!(
            "{}/chat/completions",
            self.config.base_url.trim_end_matches('/')
        )
    }

    /// The call's deadline: the configured timeout, capped by the caller's.
    pub(crate) fn deadline(&self, cap_ms: Option<u64>) -> Duration {
        let ms = match cap_ms {
            Some(cap) => cap.min(self.config.timeout_ms),
            None => self.config.timeout_ms,
        };
        Duration::from_millis(ms.max(1))
    }

    /// The key, or `None` when the config asks for none.
    fn key(&self) -> Result<Option<String>, ModelError> {
        let var = &self.config.api_key_env;
        if var.is_empty() {
            return Ok(None);
        }
        match self.keys.lookup(var) {
            Lookup::Found(key) => Ok(Some(key)),
            Lookup::Unset => Err(ModelError::MissingKey { var: var.clone() }),
            Lookup::NotTaken => Err(ModelError::KeyNamedLate { var: var.clone() }),
        }
    }

    /// POSTs `body` to `url` once and answers the reply's JSON. No retry: a request that may
    /// have reached the endpoint is never sent twice.
    pub(crate) fn post(
        &self,
        url: &str,
        body: &Value,
        deadline: Duration,
    ) -> Result<Value, ModelError> {
        let key = self.key()?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(deadline))
            .http_status_as_error(false)
            .max_redirects(0)
            .build()
            .into();
        let mut request = agent.post(url).header("Content-Type", "application/json");
        if let Some(key) = &key {
            request = request.header("Authorization", &format!("Bearer {key}"));
        }
        let scrub = |text: String| match &key {
            Some(key) => text.replace(key.as_str(), "[key]"),
            None => text,
        };
        let unreachable = |e: ureq::Error| ModelError::Unreachable {
            url: url.to_string(),
            reason: match e {
                ureq::Error::Timeout(_) => {
                    format!("no full reply within {} ms", deadline.as_millis())
                }
                other => scrub(other.to_string()),
            },
        };
        let mut response = request
            .send(body.to_string().as_bytes())
            .map_err(unreachable)?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_REPLY)
            .read_to_string()
            .map_err(unreachable)?;
        if !(200..300).contains(&status) {
            return Err(ModelError::Status {
                url: url.to_string(),
                status,
                body: excerpt(&scrub(text)),
            });
        }
        serde_json::from_str(&text).map_err(|e| ModelError::BadReply {
            url: url.to_string(),
            reason: format!("the reply is not JSON ({e}): {}", excerpt(&scrub(text))),
        })
    }
}

/// The first [`BODY_EXCERPT`] characters of `text`, on one line.
pub(crate) fn excerpt(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(BODY_EXCERPT) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}
