//! Which display the daemon drives: the person's (`inherit`), one of its own (`private`), or
//! one per agent (`per-agent`). Settled once at start, before any thread exists, because it
//! changes the daemon's own environment: XAUTHORITY for its private displays' cookie, and under
//! `private` the display and its buses, so every app, script and service the daemon starts runs
//! there and never on the person's display.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use private_display::{Auth, PrivateDisplay, Screen};
use serde_json::{Value, json};

use super::seats::{PerAgentSettings, Seat, Seats};
use crate::config::{DaemonConfig, DisplayMode};
use crate::platform::LinuxX11;

/// The display the daemon settled on, kept for its whole life: dropping it ends a private one.
pub struct Settled {
    /// The mode in force.
    pub mode: DisplayMode,
    /// The display every agent shares (none under `per-agent`).
    pub desk: Option<String>,
    /// The person's display, where the kill hotkey is grabbed (the same as `desk` under
    /// `inherit`; none when the daemon started without a DISPLAY).
    pub person: Option<String>,
    private: Option<PrivateDisplay>,
    auth: Option<Arc<Auth>>,
    dir: PathBuf,
}

impl Settled {
    /// What `status` shows of it.
    pub fn status(&self) -> Value {
        json!({
            "mode": self.mode.name(),
            "name": self.desk,
            "person": self.person,
            "group": self.private.as_ref().map(|p| p.record().group),
            "xauthority": self.auth.as_ref().map(|a| a.file().display().to_string()),
        })
    }

    /// The platform that grabs the kill hotkey (on the person's display) and, unless displays
    /// are per agent, drives the shared one.
    pub fn platform(&self) -> LinuxX11 {
        LinuxX11::new(self.desk.clone(), self.person.clone())
    }

    /// The daemon's seats: one shared, or one per agent as `config` bounds them.
    pub fn seats(&self, config: &DaemonConfig) -> Seats {
        match (&self.auth, self.mode) {
            (Some(auth), DisplayMode::PerAgent) => Seats::per_agent(PerAgentSettings {
                auth: auth.clone(),
                dir: self.dir.clone(),
                person: self.person.clone(),
                max: config.displays_max.max(1),
                idle: Duration::from_secs(config.display_idle_s.max(1)),
            }),
            _ => Seats::Shared(Arc::new(Seat::shared(
                self.desk.clone(),
                Arc::new(self.platform()),
                self.private.is_some(),
            ))),
        }
    }
}

/// The private displays' files: `display` beside the socket.
pub fn private_dir(socket: &Path) -> PathBuf {
    crate::endpoint::socket_dir(socket).join("display")
}

/// Ends what a killed daemon left in `socket`'s directory, then settles the display: `chosen`
/// (the command line's, else the config's), else `per-agent`.
///
/// Must run before the daemon starts any thread: it sets the process's environment.
pub fn settle(socket: &Path, chosen: Option<DisplayMode>) -> anyhow::Result<Settled> {
    let dir = private_dir(socket);
    for record in private_display::reap(&dir) {
        tracing::warn!(display = %record.display, "reaped the private display of a daemon that was killed");
    }
    let person = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty());
    let mode = chosen.unwrap_or(DisplayMode::PerAgent);
    let mut settled = Settled {
        mode,
        desk: person.clone(),
        person,
        private: None,
        auth: None,
        dir,
    };
    if mode == DisplayMode::Inherit {
        return Ok(settled);
    }
    let inherited = std::env::var_os("XAUTHORITY")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".Xauthority")))
        .filter(|p| p.is_file());
    let auth = Auth::new(&settled.dir, inherited.as_deref())
        .context("cannot write the private displays' cookie")?;
    // SAFETY: called before the daemon starts any thread (see above). One file holds the
    // person's cookies and the private displays', so the daemon reaches all of them.
    unsafe { std::env::set_var("XAUTHORITY", auth.file()) };
    if mode == DisplayMode::Private {
        let private = PrivateDisplay::start(&settled.dir.join("shared"), Screen::default(), &auth)
            .context(
                "cannot start the private display (`[daemon] display = \"inherit\"` drives the \
                 person's display instead)",
            )?;
        for var in PrivateDisplay::persons_session() {
            // SAFETY: as above.
            unsafe { std::env::remove_var(var) };
        }
        for (key, value) in private.env() {
            // SAFETY: as above.
            unsafe { std::env::set_var(key, value) };
        }
        settled.desk = Some(private.name().to_string());
        settled.private = Some(private);
    } else {
        settled.desk = None;
    }
    settled.auth = Some(Arc::new(auth));
    Ok(settled)
}
