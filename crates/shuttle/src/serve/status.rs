//! `status`: the daemon's state, for `shuttle status` and the MCP `status` tool.

use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use super::daemon::Daemon;
use super::seats::Seats;
use crate::config::Config;

impl Daemon {
    /// The daemon's state under `config`.
    pub(super) fn status(&self, config: &Config) -> Value {
        let seats = self.seats.all();
        let shared = match &self.seats {
            Seats::Shared(seat) => Some(seat),
            Seats::PerAgent { .. } => None,
        };
        let desk = match shared.and_then(|seat| seat.desk.current()) {
            Some(backend) => serde_json::to_value(backend.display.info()).unwrap_or(Value::Null),
            None if shared.is_some() => json!({"connected": false}),
            None => json!({"per_agent": seats.len()}),
        };
        let safety = &config.safety;
        let can = crate::platform::can_sandbox();
        json!({
            "daemon": "running",
            "pid": std::process::id(),
            "version": env!("CARGO_PKG_VERSION"),
            "uptime_s": self.started.elapsed().as_secs(),
            "socket": self.socket.display().to_string(),
            "log": crate::logging::log_path().display().to_string(),
            "config": self.config.path().display().to_string(),
            "stopped": self.stop.is_stopped(),
            "safety": {
                "apps": safety.apps,
                "confirm": safety.confirm,
                "read_only": safety.read_only,
                "dry_run": safety.dry_run,
                "auth_guard": safety.auth_guard,
                "indicator": safety.indicator,
                "kill_hotkey": self.hotkey.describe(),
                // What the apps agents launch run in, on their displays and on the person's.
                "sandbox": {
                    "private": sandbox_name(config.apps.sandbox(true, can)),
                    "person": sandbox_name(config.apps.sandbox(false, can)),
                },
            },
            "journal": config.journal.enabled.then(|| config.journal.file().display().to_string()),
            "display": self.display.get(),
            // Applies on the person's display; a private one always takes input in front.
            "input": config.daemon.input.name(),
            "desk": desk,
            "turn": shared.and_then(|seat| seat.turn.describe_holder()),
            "agents": self.seats.status(),
            "scripts": config.tools.script_run,
            "models": models_status(&config.models, &self.keys),
            "plugins": {
                "dir": self.plugins.dir.display().to_string(),
                "tools": self.plugins.tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
                "services": self.services.status(),
                "errors": self.plugins.errors,
            },
            "calls": self.calls.load(Ordering::Relaxed),
            "connections": self.connections.load(Ordering::Relaxed),
        })
    }
}

fn sandbox_name(sandbox: Option<desk::Sandbox>) -> &'static str {
    match sandbox {
        Some(_) => "home",
        None => "none",
    }
}

/// Where model calls go and which roles have a model; whether the key variable is set, never
/// the key.
fn models_status(models: &models::Config, keys: &models::KeySource) -> Value {
    let key_set = models.api_key_env.is_empty() || keys.has(&models.api_key_env);
    json!({
        "base_url": models.base_url,
        "decisions_url": models.decisions_url,
        "api_key_env": models.api_key_env,
        "key_set": key_set,
        "roles": {
            "decide": models.decide,
            "verify": models.verify,
            "ground": models.ground,
            "ask": models.ask,
        },
    })
}
