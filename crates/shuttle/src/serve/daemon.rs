//! The daemon's shared state: what every connection's calls reach, and its life cycle.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Instant;

use desk::Platform;
use desk_core::call::{Kind, Verb};
use desk_core::outcome::Outcome;
use desk_core::wire::Request;
use models::KeySource;
use serde_json::Value;

use super::ended::Ended;
use super::hotkey::HotkeyKeeper;
use super::runs::RunSlots;
use super::seats::{Seat, Seats};
use super::services::Services;
use super::stop::StopSwitch;
use crate::config::{Config, ConfigSource};
use crate::journal::{self, Entry, Journal};
use crate::plugins::Plugins;

/// Who is on the other end of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    /// The peer process's user.
    pub uid: u32,
    /// The peer process, as this daemon's pid namespace numbers it (when the kernel says).
    pub pid: Option<u32>,
}

/// The daemon's shared state.
pub struct Daemon {
    /// When the daemon started, for `status`'s uptime.
    pub(super) started: Instant,
    /// The socket it listens on, for `status`.
    pub(super) socket: PathBuf,
    /// Where each agent's calls land: a display, its desk connection (made on first use and
    /// again after a break) and its turn (one action at a time per display).
    pub(super) seats: Seats,
    /// The vision verbs' sessions: each caller's elements and screenshot scale.
    pub(super) sessions: Arc<desk::vision::Sessions>,
    /// What each caller was last told about the windows.
    pub(super) news: Arc<desk::news::WindowNews>,
    /// The trees each caller was last shown, for snapshots that answer only what changed.
    pub(super) trees: Arc<desk::trees::TreeMemory>,
    /// Calls answered, for `status`.
    pub(super) calls: AtomicU64,
    /// Connections accepted, for `status`.
    pub(super) connections: AtomicU64,
    /// config.toml, read again when it changes; safety settings apply from the next call.
    pub(super) config: ConfigSource,
    /// The person's stop: refuses calls and cancels those in flight until resumed.
    pub(super) stop: Arc<StopSwitch>,
    /// Runs started, which names each run.
    pub(super) runs: AtomicU64,
    /// The numbers of the run directories in use.
    pub(super) run_slots: RunSlots,
    /// The plugin directory as it was when the daemon started.
    pub(super) plugins: Arc<Plugins>,
    /// The service plugins, kept running.
    pub(super) services: Services,
    /// The record of calls.
    journal: Journal,
    /// The kill hotkey, grabbed as the config names it.
    pub(super) hotkey: HotkeyKeeper,
    /// Where the person is: the desktop that asks them before a resume.
    pub(super) person: Arc<dyn Platform>,
    /// Itself, for the hotkey's callback, which must not keep the daemon alive.
    me: Weak<Daemon>,
    /// The display it drives, as `status` shows it (set once by `serve::run`).
    pub(super) display: OnceLock<desk_core::status::DisplayStatus>,
    /// Where model calls find their key: taken out of the daemon's environment at start, so
    /// that nothing it starts inherits one.
    pub(super) keys: KeySource,
}

impl Daemon {
    /// A daemon serving `socket`, reading its settings from `config`, driving the desktop
    /// `platform` connects for every agent, with the plugins of the config's plugin directory.
    /// Starts the services, so it needs a tokio runtime.
    pub fn new(socket: PathBuf, config: ConfigSource, platform: Arc<dyn Platform>) -> Arc<Self> {
        let seat = Seat::shared(None, platform.clone(), false);
        Self::with_seats(
            socket,
            config,
            platform,
            Seats::Shared(Arc::new(seat)),
            KeySource::Environment,
        )
    }

    /// Like [`Daemon::new`], with its `seats` given and its model keys read from `keys`;
    /// `platform` grabs the kill hotkey.
    pub fn with_seats(
        socket: PathBuf,
        config: ConfigSource,
        platform: Arc<dyn Platform>,
        seats: Seats,
        keys: KeySource,
    ) -> Arc<Self> {
        let settings = config.last_good();
        let plugins = Arc::new(Plugins::load(&settings.tools.plugin_dir(config.path())));
        for error in &plugins.errors {
            tracing::error!("plugin {error}");
        }
        let services = Services::start(&plugins.services, &socket, settings.models.key_variables());
        Arc::new_cyclic(|me| Self {
            started: Instant::now(),
            socket,
            seats,
            sessions: Arc::default(),
            news: Arc::default(),
            trees: Arc::default(),
            calls: AtomicU64::new(0),
            connections: AtomicU64::new(0),
            config,
            stop: Arc::default(),
            runs: AtomicU64::new(0),
            run_slots: RunSlots::default(),
            plugins,
            services,
            journal: Journal::default(),
            hotkey: HotkeyKeeper::new(platform.clone()),
            person: platform,
            me: me.clone(),
            display: OnceLock::new(),
            keys,
        })
    }

    /// Says which display the daemon drives, for `status`.
    pub fn set_display_status(&self, status: desk_core::status::DisplayStatus) {
        let _ = self.display.set(status);
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
    fn stop_by_hotkey(&self) {
        let cancelled = self.stop.stop();
        tracing::warn!(by = "kill hotkey", cancelled, "stopped by the user");
        let request = Request::new("kill hotkey", Value::Null);
        let ended = Ended {
            kind: Kind::Control,
            outcome: Outcome::Completed,
            done: None,
            dry_run: false,
            display: None,
        };
        self.write_journal(&request, None, &ended, 0);
    }

    /// Grabs the kill hotkey the config names, if it is not held yet. Blocking.
    pub fn keep_hotkey(&self) {
        let Ok(config) = self.config() else {
            return;
        };
        let me = self.me.clone();
        self.hotkey.ensure(&config.safety.kill_hotkey, move || {
            if let Some(daemon) = me.upgrade() {
                daemon.stop_by_hotkey();
            }
        });
    }

    /// Connects the desktop now, so that it is ready (and its windows' pixels are kept) by the
    /// first call. Blocking; a failure is left for the first call to report.
    pub fn connect_desk(&self) {
        for seat in self.seats.all() {
            if let Err(e) = seat.desk.get() {
                tracing::info!(error = %e, "the desktop is not reachable yet");
            }
        }
    }

    /// Appends one line for `request` to the journal.
    pub(super) fn write_journal(
        &self,
        request: &Request,
        verb: Option<Verb>,
        ended: &Ended,
        ms: u64,
    ) {
        // While the file does not load, the journal stays where the last good config put it.
        let config = self.config.last_good();
        let journal_config = &config.journal;
        let args = journal::redact(verb, ended.kind, &request.args, journal_config.record_text);
        self.journal.record(
            journal_config,
            Entry {
                seq: 0,
                ts: String::new(),
                display: self.seats.display_of(&request.agent_id),
                agent_id: request.agent_id.clone(),
                tool: request.tool.clone(),
                kind: ended.kind,
                args,
                outcome: ended.outcome.clone(),
                sent: ended.sent(),
                dry_run: ended.dry_run,
                ms,
            },
        );
    }

    /// The service that serves `tool`, and where it listens.
    pub fn service_for(&self, tool: &str) -> Option<(String, PathBuf)> {
        let service = self.plugins.service_of(tool)?;
        Some((service.name.clone(), self.services.socket_of(&service.name)))
    }

    /// Ends the services, before the daemon exits.
    pub async fn end_services(&self) {
        self.services.shutdown().await;
    }

    /// Removes the input devices (XInput 2) of agents whose MCP session ended.
    pub fn end_agent_devices(&self) {
        for seat in self.seats.all() {
            let Some(background) = seat.desk.current().and_then(|b| b.background) else {
                continue;
            };
            for agent in background.agents() {
                if !super::seats::session_alive(&agent, None) {
                    background.end(&agent);
                    tracing::info!(agent = %agent, "removed the agent's input devices: its session ended");
                }
            }
        }
    }

    /// Gives back what the desk borrowed (lent keycodes), before the daemon exits.
    pub async fn release(&self) {
        for seat in self.seats.all() {
            let desk = seat.desk.clone();
            let released = tokio::task::spawn_blocking(move || {
                desk.current().map(|backend| backend.input.release())
            })
            .await;
            if let Ok(Some(Err(e))) = released {
                tracing::warn!(error = %e, "could not give back what the desk borrowed");
            }
        }
    }
}
