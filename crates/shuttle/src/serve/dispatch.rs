//! Routing one request frame to the tool that answers it, under the safety controls.
//!
//! Every call goes the same way: decode, check the config loads, check the user's stop, take
//! the desk turn (actions), run on a blocking thread against a [`Guarded`] backend, turn the
//! result into a reply that says its outcome, and write a journal line.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use base64::Engine as _;
use desk::guard::{Guarded, Policy};
use desk::{Cancel, DeskError};
use desk_core::call::{DeskCall, Verb, VerbKind};
use desk_core::wire::{Reply, Request, decode_request, peek_tool};
use serde_json::{Map, Value, json};

use super::desk::DeskHandle;
use super::hotkey::HotkeyKeeper;
use super::stop::{STOPPED, StopSwitch};
use super::turn::Turn;
use crate::config::{Config, ConfigSource, JournalConfig};
use crate::endpoint;
use crate::journal::{self, Entry, Journal, Kind, Outcome};

/// The wire tool that reports the daemon's state.
pub const STATUS_TOOL: &str = "status";
/// The wire tool `shuttle stop` sends.
pub const STOP_TOOL: &str = "safety_stop";
/// The wire tool `shuttle resume` sends.
pub const RESUME_TOOL: &str = "safety_resume";

/// Who is on the other end of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    /// The peer process's user.
    pub uid: u32,
}

/// The daemon's shared state.
pub struct Daemon {
    started: Instant,
    socket: PathBuf,
    desk: Arc<DeskHandle>,
    turn: Turn,
    calls: AtomicU64,
    connections: AtomicU64,
    config: ConfigSource,
    stop: StopSwitch,
    journal: Journal,
    hotkey: HotkeyKeeper,
    me: Weak<Daemon>,
}

/// How a call ended: its reply, and what the journal keeps of it.
struct Ended {
    reply: Reply,
    kind: Kind,
    outcome: Outcome,
    reason: Option<String>,
    sent: Option<bool>,
    dry_run: bool,
}

impl Ended {
    fn completed(kind: Kind, reply: Reply) -> Self {
        Self {
            reply,
            kind,
            outcome: Outcome::Completed,
            reason: None,
            sent: None,
            dry_run: false,
        }
    }

    /// A call that did not run: refused by a safety control, or failed before it started.
    fn not_run(kind: Kind, outcome: Outcome, tool: &str, reason: String) -> Self {
        let suffix = if kind == Kind::Act { NOTHING_SENT } else { "" };
        Self {
            reply: Reply::error(format!("{tool}: {reason}{suffix}")),
            kind,
            outcome,
            reason: Some(reason),
            sent: (kind == Kind::Act).then_some(false),
            dry_run: false,
        }
    }
}

/// The end of an action's error reply when nothing reached the desktop.
const NOTHING_SENT: &str = " (outcome: refused: nothing was sent)";
/// The end of an action's error reply when input may have reached the desktop.
const MAYBE_SENT: &str = " (outcome: unknown: input may have landed; look before sending it again)";

impl Daemon {
    /// A daemon serving `socket`, reading its settings from `config`.
    pub fn new(socket: PathBuf, config: ConfigSource) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            started: Instant::now(),
            socket,
            desk: Arc::new(DeskHandle::default()),
            turn: Turn::default(),
            calls: AtomicU64::new(0),
            connections: AtomicU64::new(0),
            config,
            stop: StopSwitch::default(),
            journal: Journal::default(),
            hotkey: HotkeyKeeper::default(),
            me: me.clone(),
        })
    }

    /// Counts a new client connection.
    pub fn connected(&self) {
        self.connections.fetch_add(1, Ordering::Relaxed);
    }

    /// The config as it stands (read again when the file changed).
    pub fn config(&self) -> Result<Arc<Config>, String> {
        self.config.current()
    }

    /// Stops every desk call, as `shuttle stop` does; for the kill hotkey.
    pub fn stop_by(&self, who: &str) {
        let cancelled = self.stop.stop();
        tracing::warn!(by = who, cancelled, "stopped by the user");
        let request = Request {
            agent_id: String::new(),
            tool: who.into(),
            args: Value::Null,
        };
        let ended = Ended::completed(Kind::Control, Reply::ok(String::new()));
        self.write_journal(&request, &ended, 0);
    }

    /// Grabs the kill hotkey the config names, if it is not held yet. Blocking.
    pub fn keep_hotkey(&self) {
        let Ok(config) = self.config() else {
            return;
        };
        let me = self.me.clone();
        self.hotkey.ensure(&config.safety.kill_hotkey, move || {
            if let Some(daemon) = me.upgrade() {
                daemon.stop_by("kill hotkey");
            }
        });
    }

    /// Answers one request frame from `peer`. Never fails: every problem becomes an error reply.
    pub async fn handle(&self, frame: &[u8], peer: Peer) -> Reply {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let started = Instant::now();
        // Route on the peeked tool first, so an unknown tool costs no full decode.
        let decoded = match peek_tool(frame) {
            Some(tool) if !is_known_tool(tool) => Err((tool.to_string(), unknown_tool(tool))),
            peeked => decode_request(frame)
                .map_err(|e| (peeked.unwrap_or_default().to_string(), e.to_string())),
        };
        let (request, ended) = match decoded {
            Ok(request) => {
                let ended = self.route(&request, peer).await;
                (request, ended)
            }
            Err((tool, reason)) => {
                let ended = Ended {
                    reply: Reply::error(reason.clone()),
                    ..Ended::not_run(Kind::Observe, Outcome::Error, &tool, reason)
                };
                let request = Request {
                    agent_id: String::new(),
                    tool,
                    args: Value::Null,
                };
                (request, ended)
            }
        };
        let ms = started.elapsed().as_millis() as u64;
        tracing::info!(
            tool = %request.tool,
            agent = %request.agent_id,
            outcome = ?ended.outcome,
            ms,
            "call"
        );
        self.write_journal(&request, &ended, ms);
        ended.reply
    }

    fn write_journal(&self, request: &Request, ended: &Ended, ms: u64) {
        let config = self.config().ok();
        let fallback = JournalConfig::default();
        let journal_config = config.as_ref().map_or(&fallback, |c| &c.journal);
        let args = journal::redact(&request.tool, &request.args, journal_config.record_text);
        self.journal.record(
            journal_config,
            Entry {
                seq: 0,
                ts: String::new(),
                agent_id: request.agent_id.clone(),
                tool: request.tool.clone(),
                kind: ended.kind,
                args,
                outcome: ended.outcome,
                reason: ended.reason.clone(),
                sent: ended.sent,
                dry_run: ended.dry_run,
                ms,
            },
        );
    }

    async fn route(&self, request: &Request, peer: Peer) -> Ended {
        let tool = request.tool.as_str();
        if tool == STOP_TOOL || tool == RESUME_TOOL {
            return self.control(tool, peer);
        }
        let kind = match Verb::from_tool(tool).map(Verb::kind) {
            Some(VerbKind::Action) => Kind::Act,
            _ => Kind::Observe,
        };
        let config = match self.config() {
            Ok(config) => config,
            Err(e) => {
                return Ended::not_run(
                    kind,
                    Outcome::Refused,
                    tool,
                    format!(
                        "{e}; until the config loads every call but safety_stop and \
                         safety_resume is refused: fix the file (`shuttle config check` \
                         names the problem)"
                    ),
                );
            }
        };
        if tool == STATUS_TOOL {
            return Ended::completed(Kind::Observe, self.status(&config));
        }
        match Verb::from_tool(tool) {
            Some(verb) => self.desk_call(verb, request, config).await,
            None => Ended::not_run(kind, Outcome::Error, tool, unknown_tool(tool)),
        }
    }

    /// `safety_stop` and `safety_resume`, for the daemon's own user only.
    fn control(&self, tool: &str, peer: Peer) -> Ended {
        let own = endpoint::current_uid();
        if peer.uid != own {
            return Ended::not_run(
                Kind::Control,
                Outcome::Refused,
                tool,
                format!(
                    "refused: {tool} is answered only to the daemon's own user (uid {own}), and \
                     this call comes from uid {}",
                    peer.uid
                ),
            );
        }
        if tool == STOP_TOOL {
            let already = self.stop.is_stopped();
            let cancelled = self.stop.stop();
            tracing::warn!(by = "shuttle stop", cancelled, "stopped by the user");
            let reply = json!({"stopped": true, "cancelled": cancelled, "already": already});
            return Ended::completed(Kind::Control, Reply::ok(reply.to_string()));
        }
        match self.stop.resume() {
            Ok(()) => {
                tracing::info!("resumed by the user");
                Ended::completed(
                    Kind::Control,
                    Reply::ok(json!({"resumed": true}).to_string()),
                )
            }
            Err(reason) => Ended::not_run(Kind::Control, Outcome::Error, tool, reason.into()),
        }
    }

    async fn desk_call(&self, verb: Verb, request: &Request, config: Arc<Config>) -> Ended {
        let tool = request.tool.as_str();
        let action = verb.kind() == VerbKind::Action;
        let kind = if action { Kind::Act } else { Kind::Observe };
        let call = match DeskCall::parse(verb, request.args.clone()) {
            Ok(call) => call,
            Err(e) => return Ended::not_run(kind, Outcome::Error, tool, e.reason),
        };
        let safety = &config.safety;
        if action && safety.read_only {
            return Ended::not_run(
                kind,
                Outcome::Refused,
                tool,
                format!(
                    "refused: shuttle is read-only ([safety] read_only in {}): only observation \
                     verbs are served, and {} acts on the desktop",
                    self.config.path().display(),
                    verb.name()
                ),
            );
        }
        let cancel = Cancel::default();
        let _running = match self.stop.register(&cancel) {
            Ok(running) => running,
            Err(stopped) => return Ended::not_run(kind, Outcome::Refused, tool, stopped.into()),
        };
        let turn = if action {
            let wait = Duration::from_millis(config.daemon.turn_wait_ms);
            tokio::select! {
                taken = self.turn.take(&request.agent_id, tool, wait) => match taken {
                    Ok(guard) => Some(guard),
                    Err(busy) => return Ended::not_run(kind, Outcome::Error, tool, busy),
                },
                () = self.stop.stopped() => {
                    return Ended::not_run(kind, Outcome::Refused, tool, STOPPED.into());
                }
            }
        } else {
            None
        };
        let policy = Arc::new(Policy {
            apps: safety.apps.clone(),
            auth_guard: safety.auth_guard,
            confirm: safety
                .confirm
                .then(|| Duration::from_secs(safety.confirm_timeout_s)),
            dry_run: safety.dry_run,
            read_only: safety.read_only,
        });
        let indicate = action && safety.indicator && !safety.dry_run;
        // Dropping this future (the client went away) cancels the call on its thread.
        let _cancel_on_drop = CancelOnDrop(cancel.clone());
        let desk = self.desk.clone();
        let agent = request.agent_id.clone();
        let allow_auth = call.allow_auth();
        let run_cancel = cancel.clone();
        let ran = tokio::task::spawn_blocking(move || {
            // The turn is held until the action has really ended, even if its caller is gone.
            let _turn = turn;
            let run = || -> (Result<desk::Outcome, DeskError>, bool) {
                let backend = match desk.get() {
                    Ok(backend) => backend,
                    Err(e) => return (Err(e), false),
                };
                if indicate {
                    backend.indicate(true);
                }
                let guarded = Guarded::new(
                    backend.clone(),
                    policy.clone(),
                    &agent,
                    allow_auth,
                    run_cancel.clone(),
                );
                let result = desk::run(&guarded, &call, &run_cancel);
                if indicate {
                    backend.indicate(false);
                }
                if result.as_ref().is_err_and(DeskError::needs_reconnect) {
                    desk.reset();
                }
                (result, guarded.sent())
            };
            match run() {
                // A read sent nothing, so after a broken connection (the X server restarted)
                // it is safe to try once more on a fresh one. An action is not retried: its
                // input may have landed before the break.
                (Err(e), _) if e.needs_reconnect() && !action => {
                    tracing::info!(error = %e, "display connection broke; reconnecting for a read");
                    run()
                }
                ran => ran,
            }
        })
        .await;
        let (result, sent) = match ran {
            Ok(ran) => ran,
            Err(join) => {
                let reason = format!("the desk call failed internally: {join}");
                return Ended {
                    reply: Reply::error(format!(
                        "{tool}: {reason}{}",
                        if action { MAYBE_SENT } else { "" }
                    )),
                    sent: action.then_some(true),
                    ..Ended::not_run(kind, Outcome::Error, tool, reason)
                };
            }
        };
        let stopped = cancel.is_cancelled() && self.stop.is_stopped();
        self.ended(tool, kind, result, sent, stopped, safety.dry_run)
    }

    /// The reply and journal record for a desk call that ran.
    fn ended(
        &self,
        tool: &str,
        kind: Kind,
        result: Result<desk::Outcome, DeskError>,
        sent: bool,
        stopped: bool,
        dry_run: bool,
    ) -> Ended {
        let action = kind == Kind::Act;
        match result {
            Ok(outcome) => {
                let text = if action {
                    with_outcome(&outcome.text)
                } else {
                    outcome.text
                };
                let reply = Reply {
                    image_b64: outcome
                        .png
                        .map(|png| base64::engine::general_purpose::STANDARD.encode(png)),
                    ..Reply::ok(text)
                };
                Ended {
                    dry_run,
                    ..Ended::completed(kind, reply)
                }
            }
            Err(DeskError::DryRun(would)) => {
                let reply = json!({
                    "outcome": "refused",
                    "dry_run": true,
                    "would": would,
                    "note": "dry run is on ([safety] dry_run): every check passed and nothing was sent; report the plan rather than retrying"
                });
                Ended {
                    reply: Reply::ok(reply.to_string()),
                    kind,
                    outcome: Outcome::Refused,
                    reason: Some(format!("dry run: would {would}")),
                    sent: Some(false),
                    dry_run: true,
                }
            }
            Err(e) => {
                let reason = match (&e, stopped) {
                    (DeskError::Cancelled { done }, true) => format!("stopped by the user; {done}"),
                    (_, true) => format!("stopped by the user: {e}"),
                    _ => e.to_string(),
                };
                let outcome = if stopped || matches!(e, DeskError::Refused(_)) {
                    Outcome::Refused
                } else {
                    Outcome::Error
                };
                let suffix = match (action, sent) {
                    (false, _) => "",
                    (true, false) => NOTHING_SENT,
                    (true, true) => MAYBE_SENT,
                };
                Ended {
                    reply: Reply::error(format!("{tool}: {reason}{suffix}")),
                    kind,
                    outcome,
                    reason: Some(reason),
                    sent: action.then_some(sent),
                    dry_run,
                }
            }
        }
    }

    /// Gives back what the desk borrowed (lent keycodes), before the daemon exits.
    pub async fn release(&self) {
        let desk = self.desk.clone();
        let released =
            tokio::task::spawn_blocking(move || desk.current().map(|b| b.release())).await;
        if let Ok(Some(Err(e))) = released {
            tracing::warn!(error = %e, "could not give back what the desk borrowed");
        }
    }

    fn status(&self, config: &Config) -> Reply {
        let desk = match self.desk.current() {
            Some(backend) => serde_json::to_value(backend.info()).unwrap_or(Value::Null),
            None => json!({"connected": false}),
        };
        let safety = &config.safety;
        let status = json!({
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
            },
            "journal": config.journal.enabled.then(|| config.journal.file().display().to_string()),
            "desk": desk,
            "turn": self.turn.describe_holder(),
            "calls": self.calls.load(Ordering::Relaxed),
            "connections": self.connections.load(Ordering::Relaxed),
        });
        Reply::ok(status.to_string())
    }
}

/// An action's result with `"outcome": "completed"` first.
fn with_outcome(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(fields)) => {
            let mut out = Map::new();
            out.insert("outcome".into(), json!("completed"));
            out.extend(fields);
            Value::Object(out).to_string()
        }
        _ => text.to_string(),
    }
}

/// Cancels a desk call when the future waiting for it is dropped.
struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

fn is_known_tool(tool: &str) -> bool {
    matches!(tool, STATUS_TOOL | STOP_TOOL | RESUME_TOOL) || Verb::from_tool(tool).is_some()
}

fn unknown_tool(tool: &str) -> String {
    let verbs: Vec<String> = Verb::ALL.iter().map(|v| v.tool_name()).collect();
    format!(
        "unknown tool {tool:?}; this daemon answers {STATUS_TOOL}, {STOP_TOOL}, {RESUME_TOOL} \
         and the desk verbs {}",
        verbs.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completed_actions_say_so_first() {
        assert_eq!(
            with_outcome(r#"{"typed":3,"confirmed":true}"#),
            r#"{"outcome":"completed","typed":3,"confirmed":true}"#
        );
        assert_eq!(with_outcome("plain"), "plain");
    }
}
