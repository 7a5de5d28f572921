//! Where each caller's calls land. A seat is a display with its desk connection and its desk
//! turn. Under `inherit` and `private` every agent shares the daemon's one seat; under
//! `per-agent` each agent gets a private display of its own on its first call, so agents act
//! side by side (one turn per display) and never on each other's windows or the person's.
//!
//! A per-agent seat ends when it has been idle for `display_idle_s`, when the MCP session that
//! opened it is gone (its agent id names the proxy's pid), or with the daemon; at most
//! `displays_max` run at once. A seat whose X server died is dropped, the call that finds it
//! says so, and the agent's next call starts a fresh one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use desk::Platform;
use desk_core::status::{Agent, Agents};

use desk_core::wire::agent_of;

use super::desk::DeskHandle;
use super::turn::Turn;
use crate::platform::{PrivateSeat, PrivateSeats};

/// One display, its desk connection and its turn.
pub struct Seat {
    /// The display's name, such as `:101` (none: the daemon has no display).
    pub display: Option<String>,
    /// The desk on that display.
    pub desk: Arc<DeskHandle>,
    /// One action at a time on that display.
    pub turn: Turn,
    /// What runs started for this seat's agent get over the daemon's environment.
    pub env: Vec<(String, String)>,
    /// What they must not inherit from it (the person's session, on a private display).
    pub unset: Vec<String>,
    /// Whether its display is a private one (no person works on it).
    pub private_display: bool,
    last_used: Mutex<Instant>,
    private: Option<PrivateSeat>,
}

impl Seat {
    /// The daemon's own display, shared by every agent.
    pub fn shared(
        display: Option<String>,
        platform: Arc<dyn Platform>,
        private_display: bool,
    ) -> Self {
        Self {
            display,
            desk: Arc::new(DeskHandle::new(platform)),
            turn: Turn::default(),
            env: Vec::new(),
            unset: Vec::new(),
            private_display,
            last_used: Mutex::new(Instant::now()),
            private: None,
        }
    }

    fn touch(&self) {
        *self
            .last_used
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    fn idle(&self) -> Duration {
        self.last_used
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .elapsed()
    }

    /// Whether its display still runs (the shared seat's is not ours to judge).
    fn alive(&self) -> bool {
        self.private.as_ref().is_none_or(PrivateSeat::alive)
    }
}

/// The settings of `per-agent` seats.
pub struct PerAgentSettings {
    /// What starts them.
    pub seats: Arc<PrivateSeats>,
    /// At most this many displays at once.
    pub max: usize,
    /// A display idle this long is ended.
    pub idle: Duration,
}

/// Every seat of the daemon.
// One per daemon, so the variants' difference in size costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Seats {
    /// One seat for every agent.
    Shared(Arc<Seat>),
    /// A seat per agent, by agent.
    PerAgent {
        settings: PerAgentSettings,
        seats: Mutex<HashMap<String, Arc<Seat>>>,
        /// One display starts at a time, so the cap holds and an agent's two first calls
        /// share one display.
        starting: tokio::sync::Mutex<()>,
        started: AtomicU64,
        /// The process behind each MCP session, as this daemon sees it (its socket peer): the
        /// pid in the agent id is the proxy's own view, which differs inside a pid namespace.
        sessions: Mutex<HashMap<String, u32>>,
    },
}

impl Seats {
    /// A seat per agent.
    pub fn per_agent(settings: PerAgentSettings) -> Self {
        Self::PerAgent {
            settings,
            seats: Mutex::default(),
            starting: tokio::sync::Mutex::new(()),
            started: AtomicU64::new(0),
            sessions: Mutex::default(),
        }
    }

    /// Records which process speaks for session `agent_id` (an MCP session's own id, not a
    /// run's): the peer of its connection.
    pub fn note_session(&self, agent_id: &str, pid: u32) {
        if let Self::PerAgent { sessions, .. } = self
            && desk_core::wire::session_pid(agent_id).is_some()
        {
            lock(sessions).entry(agent_id.to_string()).or_insert(pid);
        }
    }

    /// The seat `agent_id`'s calls land on, starting its private display if it has none.
    pub async fn seat_for(&self, agent_id: &str) -> Result<Arc<Seat>, String> {
        let (settings, seats, starting, started) = match self {
            Self::Shared(seat) => return Ok(seat.clone()),
            Self::PerAgent {
                settings,
                seats,
                starting,
                started,
                ..
            } => (settings, seats, starting, started),
        };
        let agent = agent_of(agent_id).to_string();
        // An agent with a live display never waits on another's starting.
        if let Some(seat) = lock(seats).get(&agent).filter(|s| s.alive()).cloned() {
            seat.touch();
            return Ok(seat);
        }
        let _one_at_a_time = starting.lock().await;
        let existing = lock(seats).get(&agent).cloned();
        if let Some(seat) = existing {
            if seat.alive() {
                seat.touch();
                return Ok(seat);
            }
            let display = seat.display.clone().unwrap_or_default();
            lock(seats).remove(&agent);
            end_later(seat);
            return Err(format!(
                "the private display {display} of agent {agent:?} died (its X server exited, \
                 taking its apps); the other agents' displays are unaffected, and this agent's \
                 next call starts a fresh display"
            ));
        }
        let running: Vec<String> = lock(seats).keys().cloned().collect();
        if running.len() >= settings.max {
            return Err(format!(
                "no private display for agent {agent:?}: {} run already (the cap, [daemon] \
                 displays_max = {}), for agents {}; end an agent's session, wait for a display \
                 to go idle ([daemon] display_idle_s = {}), or raise displays_max",
                running.len(),
                settings.max,
                running.join(", "),
                settings.idle.as_secs()
            ));
        }
        let number = started.fetch_add(1, Ordering::Relaxed);
        let maker = settings.seats.clone();
        let seat = tokio::task::spawn_blocking(move || start_seat(&maker, number))
            .await
            .map_err(|e| format!("starting a private display failed internally: {e}"))??;
        let seat = Arc::new(seat);
        tracing::info!(agent = %agent, display = ?seat.display, "private display for the agent");
        lock(seats).insert(agent, seat.clone());
        Ok(seat)
    }

    /// The display `agent_id`'s calls land on, if it has one, without starting any: the
    /// journal names it.
    pub fn display_of(&self, agent_id: &str) -> Option<String> {
        match self {
            Self::Shared(seat) => seat.display.clone(),
            Self::PerAgent { seats, .. } => lock(seats)
                .get(agent_of(agent_id))
                .and_then(|s| s.display.clone()),
        }
    }

    /// Every seat now.
    pub fn all(&self) -> Vec<Arc<Seat>> {
        match self {
            Self::Shared(seat) => vec![seat.clone()],
            Self::PerAgent { seats, .. } => lock(seats).values().cloned().collect(),
        }
    }

    /// Ends the per-agent seats that are idle past their time, whose X server died, or whose
    /// MCP session's process is gone; answers the agents whose seats ended.
    pub fn sweep(&self) -> Vec<String> {
        let Self::PerAgent {
            settings,
            seats,
            sessions,
            ..
        } = self
        else {
            return Vec::new();
        };
        let mut ended = Vec::new();
        let mut sessions = lock(sessions);
        let mut seats = lock(seats);
        seats.retain(|agent, seat| {
            let keep = seat.alive()
                && (seat.turn.describe_holder().is_some() || seat.idle() < settings.idle)
                && session_alive(agent, sessions.get(agent).copied());
            if !keep {
                ended.push(agent.clone());
                end_later(seat.clone());
            }
            keep
        });
        sessions.retain(|agent, _| seats.contains_key(agent));
        ended
    }

    /// What `status` shows of the seats.
    pub fn status(&self) -> Option<Agents> {
        match self {
            Self::Shared(_) => None,
            Self::PerAgent {
                settings, seats, ..
            } => {
                let seats = lock(seats);
                Some(Agents {
                    max: settings.max,
                    idle_s: settings.idle.as_secs(),
                    agents: seats
                        .iter()
                        .map(|(agent, seat)| Agent {
                            agent: agent.clone(),
                            display: seat.display.clone(),
                            server_pid: seat.private.as_ref().map(PrivateSeat::leader),
                            idle_s: seat.idle().as_secs(),
                            turn: seat.turn.describe_holder(),
                        })
                        .collect(),
                })
            }
        }
    }

    /// Ends every per-agent display now (the daemon is exiting).
    pub fn end_all(&self) {
        if let Self::PerAgent { seats, .. } = self {
            let all: Vec<Arc<Seat>> = lock(seats).drain().map(|(_, s)| s).collect();
            drop(all);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether the MCP session an agent id names (`mcp-PID`) still runs: the process behind its
/// connection when known, else the pid it names. Other agents (the CLI's, a script's own name)
/// have no session to outlive.
pub(super) fn session_alive(agent: &str, peer: Option<u32>) -> bool {
    match peer.or_else(|| desk_core::wire::session_pid(agent)) {
        Some(pid) => std::path::Path::new(&format!("/proc/{pid}")).exists(),
        None => true,
    }
}

/// Ends a seat off the caller's thread: its display takes up to its grace to end.
fn end_later(seat: Arc<Seat>) {
    std::thread::spawn(move || drop(seat));
}

fn start_seat(seats: &PrivateSeats, number: u64) -> Result<Seat, String> {
    let private = seats.start(&format!("agent-{number}"))?;
    Ok(Seat {
        display: Some(private.name().to_string()),
        desk: Arc::new(DeskHandle::new(private.platform())),
        turn: Turn::default(),
        env: private.env().to_vec(),
        unset: private.unset().to_vec(),
        private_display: true,
        last_used: Mutex::new(Instant::now()),
        private: Some(private),
    })
}
