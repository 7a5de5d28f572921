//! One call's way through the daemon, always in this order:
//!
//! 1. decode the packet (the tool is read once, from the connection's peek: an unknown one is
//!    answered without a full decode);
//! 2. `safety_stop` and `safety_resume`, answered to the daemon's own user only, and never to
//!    a process the daemon started for an agent; a resume only once the person allows it;
//! 3. the config must load, else every other call is refused with the reason;
//! 4. `status` is answered; `script_run`, `gui_plan` and plugin tools go to [`super::runs`],
//!    the model calls to [`super::model_calls`];
//! 5. the verb's arguments are decoded and checked;
//! 6. read-only refuses acting verbs;
//! 7. a stop refuses everything;
//! 8. the caller's seat is found, its private display started on first use (per-agent);
//! 9. acting verbs take the seat's desk turn;
//! 10. the verb runs on a blocking thread, under the policy ([`desk::run`]);
//! 11. the reply, and one journal line, both from the same [`Ended`].

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use desk::guard::{Caller, Policy, read_only_refusal};
use desk::{Cancel, Done, Link, Progress};
use desk_core::call::{DeskCall, Kind, Verb};
use desk_core::outcome::{Control, Outcome};
use desk_core::wire::{Reply, Request, Tool, decode_request, tools};
use serde_json::{Value, json};

use super::daemon::{Daemon, Peer};
use super::ended::Ended;
use super::stop::{NOT_STOPPED, STOPPED};
use crate::config::{ClipboardAccess, Config};
use crate::{endpoint, platform};

impl Daemon {
    /// Answers one request packet from `peer`, whose tool the connection peeked, telling
    /// `progress` how the call goes when the request asks for that. Never fails: every problem
    /// becomes an error reply.
    pub async fn handle(
        &self,
        packet: &[u8],
        peeked: Option<&str>,
        peer: Peer,
        progress: Progress,
    ) -> Reply {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let started = Instant::now();
        // The tool is parsed once, from the peek, so an unknown one costs no full decode.
        let tool = peeked.and_then(Tool::parse);
        let decoded = match peeked {
            Some(name) if tool.is_none() && self.plugins.tool(name).is_none() => {
                Err((name.to_string(), tools::unknown(name)))
            }
            _ => decode_request(packet)
                .map_err(|e| (peeked.unwrap_or_default().to_string(), e.to_string())),
        };
        // A tool the peek could not read (escaped in the JSON) is read from the decoded request.
        let tool = match (&decoded, peeked) {
            (Ok(request), None) => Tool::parse(&request.tool),
            _ => tool,
        };
        let (request, ended, prefix) = match decoded {
            Ok(request) => {
                let progress = if request.progress {
                    progress
                } else {
                    Progress::default()
                };
                let ended = self.route(&request, tool, peer, progress).await;
                let prefix = request.tool.clone();
                (request, ended, prefix)
            }
            // A packet that does not decode is answered with the reason alone.
            Err((tool, reason)) => (
                Request::new(tool, Value::Null),
                Ended::failed(Kind::Observe, reason),
                String::new(),
            ),
        };
        let ms = started.elapsed().as_millis() as u64;
        tracing::info!(
            tool = %request.tool,
            agent = %request.agent_id,
            outcome = ended.outcome.name(),
            ms,
            "call"
        );
        let verb = match tool {
            Some(Tool::Desk(verb)) => Some(verb),
            _ => None,
        };
        self.write_journal(&request, verb, &ended, ms);
        ended.reply(&prefix)
    }

    async fn route(
        &self,
        request: &Request,
        tool: Option<Tool>,
        peer: Peer,
        progress: Progress,
    ) -> Ended {
        let plugin = self.plugins.clone();
        let plugin = match tool {
            Some(Tool::Stop | Tool::Resume) => {
                return self
                    .control(tool.unwrap_or(Tool::Stop), &request.tool, peer)
                    .await;
            }
            Some(_) => None,
            None => match plugin.tool(&request.tool) {
                Some(plugin) => Some(plugin),
                None => return Ended::failed(Kind::Observe, tools::unknown(&request.tool)),
            },
        };
        let kind = tool.map_or(Kind::Run, Tool::kind);
        if let Some(pid) = peer.pid {
            self.seats.note_session(&request.agent_id, pid);
        }
        let config = match self.config() {
            Ok(config) => config,
            Err(e) => return Ended::not_run(kind, config_refusal(&e)),
        };
        match tool {
            Some(Tool::Desk(verb)) => self.desk_call(verb, request, config, progress).await,
            Some(Tool::ScriptRun | Tool::GuiPlan) | None => {
                self.run_call(request, plugin, config, progress).await
            }
            Some(Tool::Model(call)) => self.model_call(call, request, config).await,
            Some(_) => Ended::completed(
                Kind::Observe,
                Done::json(serde_json::to_value(self.status(&config)).unwrap_or_default()),
            ),
        }
    }

    /// `safety_stop`, from anyone who reaches the socket (stopping only ever makes things
    /// safer), and `safety_resume`, from the person only: the daemon's own user, in no process
    /// started for an agent, who also confirms it ([`super::person`]).
    async fn control(&self, tool: Tool, name: &str, peer: Peer) -> Ended {
        if tool == Tool::Stop {
            let already = self.stop.is_stopped();
            let cancelled = self.stop.stop();
            tracing::warn!(by = "shuttle stop", pid = ?peer.pid, cancelled, "stopped by the user");
            let reply = json!({"stopped": true, "cancelled": cancelled, "already": already});
            return Ended::completed(Kind::Control, Done::json(reply));
        }
        let own = endpoint::current_uid();
        if peer.uid != own {
            return Ended::not_run(
                Kind::Control,
                Outcome::refused_by(
                    Control::Owner,
                    format!(
                        "refused: {name} is answered only to the daemon's own user (uid {own}), \
                         and this call comes from uid {}",
                        peer.uid
                    ),
                ),
            );
        }
        if let Some(pid) = peer.pid.filter(|&pid| platform::started_for_agent(pid)) {
            return Ended::not_run(
                Kind::Control,
                Outcome::refused_by(
                    Control::Owner,
                    format!(
                        "refused: only the person resumes shuttle, and {name} came from process \
                         {pid}, which shuttle started for an agent (a script run, a plugin, a \
                         service or an app it launched, or a child of one); the person runs \
                         `shuttle resume` in a terminal of their own"
                    ),
                ),
            );
        }
        if !self.stop.is_stopped() {
            return Ended::failed(Kind::Control, NOT_STOPPED.into());
        }
        let limit = Duration::from_secs(self.config.last_good().safety.confirm_timeout_s);
        if let Err(refused) = self.person_allows_resume(peer, limit).await {
            tracing::warn!(pid = ?peer.pid, "a resume was refused: the person did not allow it");
            return Ended::not_run(Kind::Control, refused);
        }
        match self.stop.resume() {
            Ok(()) => {
                tracing::info!("resumed by the user");
                Ended::completed(Kind::Control, Done::json(json!({"resumed": true})))
            }
            Err(reason) => Ended::failed(Kind::Control, reason.into()),
        }
    }

    async fn desk_call(
        &self,
        verb: Verb,
        request: &Request,
        config: Arc<Config>,
        progress: Progress,
    ) -> Ended {
        let kind = verb.kind();
        let act = kind == Kind::Act;
        let call = match DeskCall::parse(verb, request.args.clone()) {
            Ok(call) => call,
            Err(e) => return Ended::failed(kind, e.reason),
        };
        let safety = &config.safety;
        if act && safety.read_only {
            return Ended::not_run(
                kind,
                Outcome::refused_by(Control::ReadOnly, read_only_refusal(verb.name())),
            );
        }
        let cancel = Cancel::default();
        let _running = match self.stop.register(&cancel) {
            Ok(running) => running,
            Err(stopped) => {
                return Ended::not_run(kind, Outcome::refused_by(Control::Stop, stopped));
            }
        };
        let seat = tokio::select! {
            found = self.seats.seat_for(&request.agent_id) => match found {
                Ok(seat) => seat,
                Err(reason) => return Ended::failed(kind, reason),
            },
            () = self.stop.stopped() => {
                return Ended::not_run(kind, Outcome::refused_by(Control::Stop, STOPPED));
            }
        };
        let turn = if act {
            let wait = Duration::from_millis(config.daemon.turn_wait_ms);
            tokio::select! {
                taken = seat.turn.take(&request.agent_id, &request.tool, wait) => match taken {
                    Ok(guard) => Some(guard),
                    Err(busy) => return Ended::failed(kind, busy),
                },
                () = self.stop.stopped() => {
                    return Ended::not_run(kind, Outcome::refused_by(Control::Stop, STOPPED));
                }
            }
        } else {
            None
        };
        let mut policy = Policy::from(safety);
        if seat.private_display && safety.clipboard == ClipboardAccess::Private {
            policy.no_clipboard = None;
        }
        if !seat.private_display {
            policy.input = config.daemon.input.into();
        }
        policy.sandbox = config
            .apps
            .sandbox(seat.private_display, platform::can_sandbox());
        let policy = Arc::new(policy);
        let caller = Caller {
            agent: request.agent_id.clone(),
            allow_auth: call.allow_auth(),
            cancel: cancel.clone(),
            progress,
            sessions: self.sessions.clone(),
            news: self.news.clone(),
            trees: self.trees.clone(),
        };
        // Dropping this future (the client went away) cancels the call on its thread.
        let _cancel_on_drop = CancelOnDrop(cancel);
        let desk = seat.desk.clone();
        let ran = tokio::task::spawn_blocking(move || {
            // The turn is held until the action has really ended, even if its caller is gone.
            let _turn = turn;
            let run = || {
                desk.get().map(|backend| {
                    let ran = desk::run(&backend, policy.clone(), caller.clone(), &call);
                    if ran.link != Link::Sound {
                        desk.reset();
                    }
                    ran
                })
            };
            match run() {
                // A read sent nothing, so after a broken connection (the X server restarted)
                // it is safe to try once more on a fresh one. An action is not retried: its
                // input may have landed before the break. Nor is a stall: a server that stopped
                // answering would most likely make the caller wait a second deadline.
                Ok(ran) if ran.link == Link::Broken && !act => {
                    tracing::info!("desktop connection broke; reconnecting for a read");
                    run()
                }
                ran => ran,
            }
        })
        .await;
        // With more than one display, a reply says which one the call ran on.
        let display = (self.seats.all().len() > 1)
            .then(|| seat.display.clone())
            .flatten();
        match ran {
            Ok(Ok(ran)) => Ended {
                kind,
                outcome: ran.outcome,
                done: ran.done,
                dry_run: safety.dry_run,
                display,
            },
            Ok(Err(unreachable)) => Ended::failed(kind, unreachable.to_string()),
            Err(join) => {
                let reason = format!("the desk call failed internally: {join}");
                let outcome = if act {
                    Outcome::Unknown { reason }
                } else {
                    Outcome::Failed { reason }
                };
                Ended::not_run(kind, outcome)
            }
        }
    }
}

/// The refusal of every call but stop and resume while config.toml does not load.
pub(super) fn config_refusal(error: &str) -> Outcome {
    Outcome::refused_by(
        Control::Config,
        format!(
            "{error}; until the config loads every call but safety_stop and safety_resume is \
             refused: fix the file (`shuttle config check` names the problem)"
        ),
    )
}

/// Cancels a desk call when the future waiting for it is dropped.
struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}
