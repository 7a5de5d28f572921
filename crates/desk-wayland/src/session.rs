//! The connection to the compositor and the globals it advertises.

use std::os::unix::net::UnixStream;
use std::path::Path;

use std::sync::{Mutex, PoisonError};
use wayland_client::globals::{GlobalList, registry_queue_init};
use wayland_client::{Connection, EventQueue};

/// Why the Wayland desk cannot do what was asked. Every message names what failed and what
/// to do.
#[derive(Debug, thiserror::Error)]
pub enum WaylandError {
    /// No compositor to talk to.
    #[error(
        "cannot reach the Wayland compositor ({0}): WAYLAND_DISPLAY, with XDG_RUNTIME_DIR, must name your session's socket; start shuttle from that session"
    )]
    Connect(String),
    /// The connection broke or the compositor sent a protocol error.
    #[error("the Wayland connection failed: {0}; the next call reconnects")]
    Broken(String),
    /// The compositor lacks a protocol a verb needs.
    #[error(
        "the compositor does not offer {protocol}, which {needed_for} needs: a wlroots compositor (sway, Hyprland, river, labwc, Wayfire) does"
    )]
    Missing {
        /// The protocol's interface name.
        protocol: &'static str,
        /// What it is needed for, in words.
        needed_for: &'static str,
    },
    /// The compositor refused a request.
    #[error("the compositor refused {0}")]
    Refused(String),
}

/// A connection to the compositor named by `WAYLAND_DISPLAY`, with its globals listed.
pub struct Session {
    pub(crate) conn: Connection,
    pub(crate) globals: GlobalList,
    /// The registry's queue: dispatching it keeps `globals` up to date (an output plugged in).
    registry: Mutex<EventQueue<Registry>>,
}

/// What the registry's events change: nothing is kept beyond the list `registry_queue_init`
/// holds.
pub(crate) struct Registry;

crate::ignore_registry!(Registry);

impl Session {
    /// Connects to the compositor of `WAYLAND_DISPLAY` and lists its globals.
    pub fn connect() -> Result<Self, WaylandError> {
        let conn =
            Connection::connect_to_env().map_err(|e| WaylandError::Connect(e.to_string()))?;
        Self::listed(conn)
    }

    /// Connects to the compositor listening on the socket at `path` and lists its globals.
    pub fn connect_to(path: &Path) -> Result<Self, WaylandError> {
        let stream = UnixStream::connect(path)
            .map_err(|e| WaylandError::Connect(format!("{}: {e}", path.display())))?;
        let conn =
            Connection::from_socket(stream).map_err(|e| WaylandError::Connect(e.to_string()))?;
        Self::listed(conn)
    }

    fn listed(conn: Connection) -> Result<Self, WaylandError> {
        let (globals, registry) = registry_queue_init::<Registry>(&conn)
            .map_err(|e| WaylandError::Connect(e.to_string()))?;
        Ok(Self {
            conn,
            globals,
            registry: Mutex::new(registry),
        })
    }

    /// The outputs advertised now (their global names and versions): the registry is asked
    /// again first, so an output plugged in since the connection counts.
    pub(crate) fn outputs(&self) -> Result<Vec<(u32, u32)>, WaylandError> {
        self.registry
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .roundtrip(&mut Registry)
            .map_err(|e| WaylandError::Broken(e.to_string()))?;
        Ok(self.globals.contents().with_list(|list| {
            list.iter()
                .filter(|g| g.interface == "wl_output")
                .map(|g| (g.name, g.version))
                .collect()
        }))
    }

    /// Every global the compositor advertises: its interface and version.
    pub fn advertised(&self) -> Vec<(String, u32)> {
        self.globals
            .contents()
            .clone_list()
            .into_iter()
            .map(|g| (g.interface, g.version))
            .collect()
    }

    /// The highest version of `interface` advertised, if it is.
    pub(crate) fn version_of(&self, interface: &str) -> Option<u32> {
        self.globals.contents().with_list(|list| {
            list.iter()
                .filter(|g| g.interface == interface)
                .map(|g| g.version)
                .max()
        })
    }
}

/// An input event's timestamp: milliseconds of the monotonic clock, as input devices give.
pub(crate) fn timestamp() -> u32 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a valid pointer to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    (now.tv_sec as u64 * 1000 + now.tv_nsec as u64 / 1_000_000) as u32
}

/// The protocols the Wayland desk builds on, and what each is for.
const DESK_PROTOCOLS: [(&str, &str); 5] = [
    (
        "zwlr_foreign_toplevel_manager_v1",
        "listing, focusing and closing windows",
    ),
    ("zwlr_screencopy_manager_v1", "screen captures"),
    ("zwp_virtual_keyboard_manager_v1", "keys and typing"),
    (
        "zwlr_virtual_pointer_manager_v1",
        "clicks, scrolls and drags",
    ),
    ("zwlr_data_control_manager_v1", "clipboard reads and writes"),
];

/// A protocol the Wayland desk builds on, and whether the compositor offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeskProtocol {
    /// Its interface name.
    pub interface: &'static str,
    /// What it is for, in words.
    pub needed_for: &'static str,
    /// The version offered, if it is.
    pub version: Option<u32>,
}

/// Each protocol the Wayland desk builds on, as `advertised` (interface, version) offers it.
pub fn desk_protocols(advertised: &[(String, u32)]) -> Vec<DeskProtocol> {
    DESK_PROTOCOLS
        .iter()
        .map(|&(interface, needed_for)| DeskProtocol {
            interface,
            needed_for,
            version: advertised
                .iter()
                .filter(|(name, _)| name == interface)
                .map(|&(_, version)| version)
                .max(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_desk_protocol_is_found_with_its_highest_version_or_missing() {
        let advertised = vec![
            ("wl_seat".to_string(), 7),
            ("zwlr_screencopy_manager_v1".to_string(), 2),
            ("zwlr_screencopy_manager_v1".to_string(), 3),
            ("zwp_virtual_keyboard_manager_v1".to_string(), 1),
        ];
        let found: Vec<(&str, Option<u32>)> = desk_protocols(&advertised)
            .iter()
            .map(|p| (p.interface, p.version))
            .collect();
        assert_eq!(
            found,
            [
                ("zwlr_foreign_toplevel_manager_v1", None),
                ("zwlr_screencopy_manager_v1", Some(3)),
                ("zwp_virtual_keyboard_manager_v1", Some(1)),
                ("zwlr_virtual_pointer_manager_v1", None),
                ("zwlr_data_control_manager_v1", None),
            ]
        );
    }
}
