//! Which display the daemon drives: the person's (`inherit`: their X display, or their sway
//! session natively when the daemon starts inside one), one of its own (`private`), or one per
//! agent (`per-agent`). Settled once at start, before any thread exists, because it
//! changes the daemon's own environment: the credential its private displays share, and under
//! `private` the display and its buses, so every app, script and service the daemon starts runs
//! there and never on the person's display.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use desk::Platform;
use desk_core::status::DisplayStatus;

use super::seats::{PerAgentSettings, Seat, Seats};
use crate::config::{DaemonConfig, DisplayMode, SeatKind};
use crate::platform::{self, PersonsDesk, PersonsSession, PrivateSeat, PrivateSeats};

/// The display the daemon settled on, kept for its whole life: dropping it ends a private one.
pub struct Settled {
    /// The mode in force.
    pub mode: DisplayMode,
    /// The display every agent shares (none under `per-agent`).
    pub desk: Option<String>,
    /// The person's session: where the kill hotkey is grabbed and the person asked.
    persons: PersonsSession,
    /// Under `inherit`, the person's own desktop.
    inherited: Option<PersonsDesk>,
    private: Option<PrivateSeat>,
    seats: Option<Arc<PrivateSeats>>,
}

impl Settled {
    /// What `status` shows of it.
    pub fn status(&self) -> DisplayStatus {
        let system = match (&self.inherited, &self.seats) {
            (Some(desk), _) => desk.system,
            (None, Some(seats)) => seats.kind().system(),
            (None, None) => "x11",
        };
        DisplayStatus {
            mode: self.mode.name().into(),
            system: system.into(),
            seats: self.seats.as_ref().map(|s| s.kind().name().into()),
            name: self.desk.clone(),
            person: self.persons.display.clone(),
            group: self.private.as_ref().map(PrivateSeat::leader),
            xauthority: self
                .seats
                .as_ref()
                .map(|s| s.credentials().display().to_string()),
        }
    }

    /// The platform that grabs the kill hotkey (where the person is) and, unless displays are
    /// per agent, drives the shared one.
    pub fn platform(&self) -> Arc<dyn Platform> {
        match (&self.private, &self.inherited) {
            (Some(private), _) => private.platform(),
            (None, Some(desk)) => desk.platform.clone(),
            (None, None) => self.persons.presence_only(),
        }
    }

    /// The daemon's seats: one shared, or one per agent as `config` bounds them.
    pub fn seats(&self, config: &DaemonConfig) -> Seats {
        match (&self.seats, self.mode) {
            (Some(seats), DisplayMode::PerAgent) => Seats::per_agent(PerAgentSettings {
                seats: seats.clone(),
                max: config.displays_max.max(1),
                idle: Duration::from_secs(config.display_idle_s.max(1)),
            }),
            _ => Seats::Shared(Arc::new(Seat::shared(
                self.desk.clone(),
                self.platform(),
                self.private.is_some(),
            ))),
        }
    }
}

/// Under the private displays' directory, what the sandbox of apps on the person's display
/// keeps (its home, its runtime directory), from one daemon to the next.
const PERSONS: &str = "person";

/// The private displays' files: `display` beside the socket.
pub fn private_dir(socket: &Path) -> PathBuf {
    crate::endpoint::socket_dir(socket).join("display")
}

/// Ends what a killed daemon left in `socket`'s directory, then settles the display: `chosen`
/// (the command line's, else the config's), else `per-agent`; private displays are of `kind`.
///
/// Must run before the daemon starts any thread: it sets the process's environment.
pub fn settle(
    socket: &Path,
    chosen: Option<DisplayMode>,
    kind: SeatKind,
) -> anyhow::Result<Settled> {
    let dir = private_dir(socket);
    for name in platform::reap_seats(&dir) {
        tracing::warn!(display = %name, "reaped the private display of a daemon that was killed");
    }
    // Read before a private display's settings replace the person's in the environment.
    let persons = PersonsSession::from_env();
    let mode = chosen.unwrap_or(DisplayMode::PerAgent);
    let mut settled = Settled {
        mode,
        desk: None,
        persons,
        inherited: None,
        private: None,
        seats: None,
    };
    if mode == DisplayMode::Inherit {
        let desk = settled
            .persons
            .desk(platform::persons_room(&dir.join(PERSONS)));
        settled.desk = desk.name.clone();
        settled.inherited = Some(desk);
        return Ok(settled);
    }
    // SAFETY: called before the daemon starts any thread (see above).
    let seats = unsafe { PrivateSeats::new(&dir, settled.persons.person(), kind) }
        .map_err(anyhow::Error::msg)?;
    if mode == DisplayMode::Private {
        let private = seats.start("shared").map_err(anyhow::Error::msg).context(
            "cannot start the private display (`[daemon] display = \"inherit\"` drives the \
             person's display instead)",
        )?;
        // Everything the daemon starts from now on runs on it, and nothing of the person's
        // session reaches it.
        for var in private.unset() {
            // SAFETY: as above.
            unsafe { std::env::remove_var(var) };
        }
        for (key, value) in private.env() {
            // SAFETY: as above.
            unsafe { std::env::set_var(key, value) };
        }
        settled.desk = Some(private.name().to_string());
        settled.private = Some(private);
    }
    settled.seats = Some(Arc::new(seats));
    Ok(settled)
}
