//! The model configuration: one endpoint, one model name per role.

use serde::{Deserialize, Serialize};

/// Where model calls go and which model answers each role. In shuttle it is config.toml's
/// `[models]`; a library user builds it directly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// The OpenAI-compatible API root; calls go to `{base_url}/chat/completions`.
    pub base_url: String,
    /// A URL that answers `decide` calls itself (see `docs/models.md`); unset, `decide` asks
    /// the chat endpoint.
    pub decisions_url: Option<String>,
    /// The environment variable that holds the API key, sent as a bearer token. Empty: no
    /// key and no `Authorization` header, for a local endpoint.
    pub api_key_env: String,
    /// How long one call may take, request to full reply, in milliseconds.
    pub timeout_ms: u64,
    /// The model for `decide` on a state without a screenshot.
    pub decide: Option<String>,
    /// The model for `decide` on a state with a screenshot.
    pub verify: Option<String>,
    /// The model for `ground`.
    pub ground: Option<String>,
    /// The model for `ask`.
    pub ask: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            base_url: "https://openrouter.ai/api/v1".into(),
            decisions_url: None,
            api_key_env: "OPENROUTER_API_KEY".into(),
            timeout_ms: 60_000,
            decide: None,
            verify: None,
            ground: None,
            ask: None,
        }
    }
}

/// The job a model does, which picks its name from the [`Config`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Answers questions about a state in text.
    Decide,
    /// Answers questions about a state with a screenshot.
    Verify,
    /// Points at a target in a screenshot.
    Ground,
    /// Answers a prompt in free text.
    Ask,
}

impl Role {
    /// Its name in the config.
    pub fn name(self) -> &'static str {
        match self {
            Role::Decide => "decide",
            Role::Verify => "verify",
            Role::Ground => "ground",
            Role::Ask => "ask",
        }
    }
}

impl Config {
    /// The model configured for `role`.
    pub fn model(&self, role: Role) -> Option<&str> {
        match role {
            Role::Decide => self.decide.as_deref(),
            Role::Verify => self.verify.as_deref(),
            Role::Ground => self.ground.as_deref(),
            Role::Ask => self.ask.as_deref(),
        }
        .filter(|m| !m.is_empty())
    }

    /// Every variable name a child process must not inherit: the configured key variable and
    /// the default one.
    pub fn key_variables(&self) -> Vec<String> {
        let mut names = vec![Config::default().api_key_env];
        if !self.api_key_env.is_empty() && !names.contains(&self.api_key_env) {
            names.push(self.api_key_env.clone());
        }
        names
    }
}
