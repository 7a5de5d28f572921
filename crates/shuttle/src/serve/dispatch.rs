//! Routing one request frame to the tool that answers it.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use base64::Engine as _;
use desk::Cancel;
use desk_core::call::{DeskCall, Verb, VerbKind};
use desk_core::wire::{Reply, Request, decode_request, peek_tool};
use serde_json::{Value, json};

use super::desk::DeskHandle;
use super::turn::{TURN_WAIT, Turn};

/// The wire tool that reports the daemon's state.
pub const STATUS_TOOL: &str = "status";

/// The daemon's shared state.
pub struct Daemon {
    started: Instant,
    socket: PathBuf,
    desk: Arc<DeskHandle>,
    turn: Turn,
    calls: AtomicU64,
    connections: AtomicU64,
}

impl Daemon {
    /// A daemon serving `socket`.
    pub fn new(socket: PathBuf) -> Self {
        Self {
            started: Instant::now(),
            socket,
            desk: Arc::new(DeskHandle::default()),
            turn: Turn::default(),
            calls: AtomicU64::new(0),
            connections: AtomicU64::new(0),
        }
    }

    /// Counts a new client connection.
    pub fn connected(&self) {
        self.connections.fetch_add(1, Ordering::Relaxed);
    }

    /// Answers one request frame. Never fails: every problem becomes an error reply.
    pub async fn handle(&self, frame: &[u8]) -> Reply {
        self.calls.fetch_add(1, Ordering::Relaxed);
        // Route on the peeked tool first, so an unknown tool costs no full decode.
        if let Some(tool) = peek_tool(frame)
            && !is_known_tool(tool)
        {
            return unknown_tool(tool);
        }
        let request = match decode_request(frame) {
            Ok(request) => request,
            Err(e) => return Reply::error(e.to_string()),
        };
        let started = Instant::now();
        let reply = self.route(&request).await;
        tracing::info!(
            tool = %request.tool,
            agent = %request.agent_id,
            ok = !reply.is_error,
            ms = started.elapsed().as_millis() as u64,
            "call"
        );
        reply
    }

    async fn route(&self, request: &Request) -> Reply {
        if request.tool == STATUS_TOOL {
            return self.status();
        }
        match Verb::from_tool(&request.tool) {
            Some(verb) => self.desk_call(verb, request).await,
            None => unknown_tool(&request.tool),
        }
    }

    async fn desk_call(&self, verb: Verb, request: &Request) -> Reply {
        let call = match DeskCall::parse(verb, request.args.clone()) {
            Ok(call) => call,
            Err(e) => return Reply::error(e.to_string()),
        };
        let turn = match verb.kind() {
            VerbKind::Action => match self
                .turn
                .take(&request.agent_id, &request.tool, TURN_WAIT)
                .await
            {
                Ok(guard) => Some(guard),
                Err(busy) => return Reply::error(busy),
            },
            VerbKind::Read => None,
        };
        let cancel = Cancel::default();
        // Dropping this future (the client went away) cancels the call on its thread.
        let _cancel_on_drop = CancelOnDrop(cancel.clone());
        let desk = self.desk.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            // The turn is held until the action has really ended, even if its caller is gone.
            let _turn = turn;
            let run = || {
                let result = desk::run(desk.get()?.as_ref(), &call, &cancel);
                if result.as_ref().is_err_and(|e| e.needs_reconnect()) {
                    desk.reset();
                }
                result
            };
            match run() {
                // A read sent nothing, so after a broken connection (the X server restarted)
                // it is safe to try once more on a fresh one. An action is not retried: its
                // input may have landed before the break.
                Err(e) if e.needs_reconnect() && verb.kind() == VerbKind::Read => {
                    tracing::info!(error = %e, "display connection broke; reconnecting for a read");
                    run()
                }
                result => result,
            }
        })
        .await;
        match outcome {
            Ok(Ok(outcome)) => Reply {
                image_b64: outcome
                    .png
                    .map(|png| base64::engine::general_purpose::STANDARD.encode(png)),
                ..Reply::ok(outcome.text)
            },
            Ok(Err(e)) => Reply::error(format!("{}: {e}", request.tool)),
            Err(join) => Reply::error(format!(
                "{}: the desk call failed internally: {join}",
                request.tool
            )),
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

    fn status(&self) -> Reply {
        let desk = match self.desk.current() {
            Some(backend) => serde_json::to_value(backend.info()).unwrap_or(Value::Null),
            None => json!({"connected": false}),
        };
        let status = json!({
            "daemon": "running",
            "pid": std::process::id(),
            "version": env!("CARGO_PKG_VERSION"),
            "uptime_s": self.started.elapsed().as_secs(),
            "socket": self.socket.display().to_string(),
            "log": crate::logging::log_path().display().to_string(),
            "desk": desk,
            "turn": self.turn.describe_holder(),
            "calls": self.calls.load(Ordering::Relaxed),
            "connections": self.connections.load(Ordering::Relaxed),
        });
        Reply::ok(status.to_string())
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
    tool == STATUS_TOOL || Verb::from_tool(tool).is_some()
}

fn unknown_tool(tool: &str) -> Reply {
    let verbs: Vec<String> = Verb::ALL.iter().map(|v| v.tool_name()).collect();
    Reply::error(format!(
        "unknown tool {tool:?}; this daemon answers {STATUS_TOOL} and the desk verbs {}",
        verbs.join(", ")
    ))
}
