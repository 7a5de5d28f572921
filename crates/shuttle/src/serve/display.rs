//! Which display the daemon drives: the person's (`inherit`) or one of its own (`private`),
//! settled once at start, before any thread exists, because a private display becomes the
//! daemon's own environment (DISPLAY, XAUTHORITY, the buses) and so every app, script and
//! service it starts runs there and never on the person's display.

use std::path::{Path, PathBuf};

use anyhow::Context;
use private_display::{PrivateDisplay, Screen};
use serde_json::{Value, json};

use crate::config::DisplayMode;

/// The display the daemon settled on, kept for its whole life: dropping it ends a private one.
pub struct Settled {
    /// The mode in force.
    pub mode: DisplayMode,
    /// The display the desk drives.
    pub desk: Option<String>,
    /// The person's display, where the kill hotkey is grabbed (the same as `desk` under
    /// `inherit`; none when the daemon started without a DISPLAY).
    pub person: Option<String>,
    private: Option<PrivateDisplay>,
}

impl Settled {
    /// What `status` shows of it.
    pub fn status(&self) -> Value {
        json!({
            "mode": self.mode.name(),
            "name": self.desk,
            "person": self.person,
            "group": self.private.as_ref().map(|p| p.record().group),
        })
    }
}

/// The private display's files: `display` beside the socket.
pub fn private_dir(socket: &Path) -> PathBuf {
    crate::endpoint::socket_dir(socket).join("display")
}

/// Ends what a killed daemon left in `socket`'s directory, then settles the display: `chosen`
/// (the command line's, else the config's), else `inherit` when the daemon has a DISPLAY and
/// `private` when it has none.
///
/// Must run before the daemon starts any thread: a private display is set into the process's
/// environment.
pub fn settle(socket: &Path, chosen: Option<DisplayMode>) -> anyhow::Result<Settled> {
    let dir = private_dir(socket);
    if let Some(record) = private_display::reap(&dir) {
        tracing::warn!(display = %record.display, "reaped the private display of a daemon that was killed");
    }
    let person = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty());
    let mode = chosen.unwrap_or(if person.is_some() {
        DisplayMode::Inherit
    } else {
        DisplayMode::Private
    });
    if mode == DisplayMode::Inherit {
        return Ok(Settled {
            mode,
            desk: person.clone(),
            person,
            private: None,
        });
    }
    let inherited_xauthority = std::env::var_os("XAUTHORITY")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".Xauthority")))
        .filter(|p| p.is_file());
    let private = PrivateDisplay::start(&dir, Screen::default(), inherited_xauthority.as_deref())
        .context("cannot start the private display (`[daemon] display = \"inherit\"` drives the person's display instead)")?;
    for var in PrivateDisplay::unset() {
        // SAFETY: called before the daemon starts any thread (see above).
        unsafe { std::env::remove_var(var) };
    }
    for (key, value) in private.env() {
        // SAFETY: as above.
        unsafe { std::env::set_var(key, value) };
    }
    Ok(Settled {
        mode,
        desk: Some(private.name().to_string()),
        person,
        private: Some(private),
    })
}
