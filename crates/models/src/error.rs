//! What can go wrong with a model call. No variant holds the key: the texts name the endpoint,
//! the role or the argument, so they can be shown, logged and journaled.

/// A model call that did not answer.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The arguments are malformed; nothing was sent.
    #[error("{0}; nothing was sent")]
    Args(String),
    /// No model is configured for the role; nothing was sent.
    #[error(
        "no model is set for the {role} role: set `{role} = \"MODEL\"` under [models] in config.toml; nothing was sent"
    )]
    NoModel {
        /// The role's config key.
        role: &'static str,
    },
    /// The key variable is not set in the daemon's environment; nothing was sent.
    #[error(
        "the API key variable {var} is not set in the daemon's environment: start `shuttle serve` with it set (or set api_key_env = \"\" under [models] for an endpoint that needs no key); nothing was sent"
    )]
    MissingKey {
        /// The variable's name.
        var: String,
    },
    /// The config names a key variable the daemon did not take out of its environment when it
    /// started (it takes them at start, so nothing it launches inherits one); nothing was sent.
    #[error(
        "the API key variable {var} was named in config.toml after the daemon started, and the daemon reads keys only at start (so that nothing it launches inherits one): restart `shuttle serve` with {var} set, or name a variable ending in _API_KEY; nothing was sent"
    )]
    KeyNamedLate {
        /// The variable's name.
        var: String,
    },
    /// The endpoint could not be reached or did not answer in time.
    #[error("{url}: {reason} (sent once, not retried)")]
    Unreachable {
        /// The URL asked.
        url: String,
        /// What happened.
        reason: String,
    },
    /// The endpoint answered with an HTTP error.
    #[error("{url}: HTTP {status}: {body} (sent once, not retried)")]
    Status {
        /// The URL asked.
        url: String,
        /// The status code.
        status: u16,
        /// The start of the body, with the key removed if the endpoint echoed it.
        body: String,
    },
    /// The endpoint answered something this call cannot use.
    #[error("{url}: {reason}")]
    BadReply {
        /// The URL asked.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
}
