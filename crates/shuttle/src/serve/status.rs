//! `status`: the daemon's state, for `shuttle status` and the MCP `status` tool, typed as
//! `desk_core::status::Status`.

use std::sync::atomic::Ordering;

use desk_core::status::{Desk, DeskInfo, Models, Plugins, Roles, Safety, Sandboxes, Status};

use super::daemon::Daemon;
use super::seats::Seats;
use crate::config::Config;

impl Daemon {
    /// The daemon's state under `config`.
    pub(super) fn status(&self, config: &Config) -> Status {
        let shared = match &self.seats {
            Seats::Shared(seat) => Some(seat),
            Seats::PerAgent { .. } => None,
        };
        let desk = match shared.and_then(|seat| seat.desk.current()) {
            Some(backend) => Desk::Connected(desk_info(backend.display.info())),
            None if shared.is_some() => Desk::NotConnected { connected: false },
            None => Desk::PerAgent {
                per_agent: self.seats.all().len(),
            },
        };
        let safety = &config.safety;
        let can = crate::platform::can_sandbox();
        let sandbox = |private| {
            match config.apps.sandbox(private, can) {
                Some(_) => "home",
                None => "none",
            }
            .to_string()
        };
        Status {
            daemon: "running".into(),
            pid: std::process::id(),
            version: env!("CARGO_PKG_VERSION").into(),
            uptime_s: self.started.elapsed().as_secs(),
            socket: self.socket.display().to_string(),
            log: crate::logging::log_path().display().to_string(),
            config: self.config.path().display().to_string(),
            stopped: self.stop.is_stopped(),
            safety: Safety {
                apps: safety.apps.clone(),
                confirm: safety.confirm,
                read_only: safety.read_only,
                dry_run: safety.dry_run,
                auth_guard: safety.auth_guard,
                indicator: safety.indicator,
                kill_hotkey: self.hotkey.describe(),
                sandbox: Sandboxes {
                    private: sandbox(true),
                    person: sandbox(false),
                },
            },
            journal: config
                .journal
                .enabled
                .then(|| config.journal.file().display().to_string()),
            display: self.display.get().cloned(),
            // Applies on the person's display; a private one always takes input in front.
            input: config.daemon.input.name().into(),
            desk,
            turn: shared.and_then(|seat| seat.turn.describe_holder()),
            agents: self.seats.status(),
            scripts: config.tools.script_run,
            models: models_status(&config.models, &self.keys),
            plugins: Plugins {
                dir: self.plugins.dir.display().to_string(),
                tools: self.plugins.tools.iter().map(|t| t.name.clone()).collect(),
                services: self.services.status(),
                errors: self.plugins.errors.clone(),
                catalog: self.plugins.catalog(),
            },
            mcp: desk_core::status::Mcp {
                reply_budget: config.mcp.reply_budget,
            },
            calls: self.calls.load(Ordering::Relaxed),
            connections: self.connections.load(Ordering::Relaxed),
        }
    }
}

/// What a display says of itself, as `status` shows it.
fn desk_info(info: desk::DisplayInfo) -> DeskInfo {
    DeskInfo {
        system: info.system.into(),
        display: info.display,
        capture: info.capture.into(),
        window_pixels: info.window_pixels,
        confirms: info.confirms,
        lacking: info.lacking,
    }
}

/// Where model calls go and which roles have a model; whether the key variable is set, never
/// the key.
fn models_status(models: &models::Config, keys: &models::KeySource) -> Models {
    Models {
        base_url: models.base_url.clone(),
        decisions_url: models.decisions_url.clone(),
        api_key_env: models.api_key_env.clone(),
        key_set: models.api_key_env.is_empty() || keys.has(&models.api_key_env),
        roles: Roles {
            decide: models.decide.clone(),
            verify: models.verify.clone(),
            ground: models.ground.clone(),
            ask: models.ask.clone(),
        },
    }
}
