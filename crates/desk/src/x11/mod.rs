//! The Linux X11 desk: EWMH for windows, MIT-SHM (or GetImage) for pixels.

mod atoms;
mod capture;
mod windows;

use std::sync::Mutex;

use desk_core::geometry::Rect;
use desk_core::window::Window;
use x11rb::connection::Connection;
use x11rb::errors::{ConnectError, ConnectionError, ReplyError};
use x11rb::protocol::xproto::{self, ConnectionExt as _};
use x11rb::rust_connection::RustConnection;

use crate::backend::{Backend, BackendInfo};
use crate::error::DeskError;
use crate::image::RgbImage;

use atoms::Atoms;
use capture::Capturer;

/// A connection to one X display, shared by every call.
pub struct X11Backend {
    conn: RustConnection,
    display: String,
    root: xproto::Window,
    atoms: Atoms,
    capturer: Mutex<Capturer>,
}

impl X11Backend {
    /// Connects to the display `DISPLAY` names.
    pub fn connect() -> Result<Self, DeskError> {
        let display = std::env::var("DISPLAY").map_err(|_| DeskError::NoDisplay)?;
        let (conn, screen_num) =
            RustConnection::connect(Some(&display)).map_err(|e| connect_error(&display, e))?;
        let screen = &conn.setup().roots[screen_num];
        let root = screen.root;
        let atoms = Atoms::new(&conn)
            .map_err(lost)?
            .reply()
            .map_err(|e| reply_error("interning atoms", e))?;
        let capturer = Capturer::new(&conn, screen_num, is_local(&display));
        Ok(Self {
            conn,
            display,
            root,
            atoms,
            capturer: Mutex::new(capturer),
        })
    }

    fn capturer(&self) -> std::sync::MutexGuard<'_, Capturer> {
        // A panic while capturing leaves no half-updated state worth refusing over.
        self.capturer.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Backend for X11Backend {
    fn info(&self) -> BackendInfo {
        BackendInfo {
            system: "x11",
            display: self.display.clone(),
            capture: self.capturer().method(),
        }
    }

    fn windows(&self) -> Result<Vec<Window>, DeskError> {
        windows::list(&self.conn, self.root, &self.atoms)
    }

    fn screen(&self) -> Result<Rect, DeskError> {
        let geometry = self
            .conn
            .get_geometry(self.root)
            .map_err(lost)?
            .reply()
            .map_err(|e| reply_error("the root window's geometry", e))?;
        Ok(Rect::new(
            0,
            0,
            geometry.width.into(),
            geometry.height.into(),
        ))
    }

    fn window_rect(&self, id: &str) -> Result<Option<Rect>, DeskError> {
        windows::rect(&self.conn, self.root, id)
    }

    fn capture(&self, rect: Rect) -> Result<RgbImage, DeskError> {
        self.capturer().capture(&self.conn, self.root, rect)
    }
}

/// Whether the display is reached over a local socket, where shared memory can work.
fn is_local(display: &str) -> bool {
    match display.rsplit_once(':') {
        Some((host, _)) => host.is_empty() || host == "unix" || host.starts_with('/'),
        None => false,
    }
}

fn connect_error(display: &str, e: ConnectError) -> DeskError {
    DeskError::Connect {
        display: display.into(),
        reason: e.to_string(),
    }
}

fn lost(e: ConnectionError) -> DeskError {
    DeskError::ConnectionLost(e.to_string())
}

fn reply_error(what: &str, e: ReplyError) -> DeskError {
    match e {
        ReplyError::ConnectionError(e) => lost(e),
        ReplyError::X11Error(x) => DeskError::Protocol {
            what: what.into(),
            reason: format!("{:?}", x.error_kind),
        },
    }
}

/// Parses a window id as `windows` prints it (`0x…`), or decimal.
fn parse_window_id(id: &str) -> Option<xproto::Window> {
    match id.strip_prefix("0x").or_else(|| id.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => id.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_displays() {
        assert!(is_local(":0"));
        assert!(is_local(":99.0"));
        assert!(is_local("unix:1"));
        assert!(!is_local("remote.host:0"));
        assert!(!is_local("localhost:10.0"));
    }

    #[test]
    fn window_ids() {
        assert_eq!(parse_window_id("0x1a00007"), Some(0x1a00007));
        assert_eq!(parse_window_id("4194311"), Some(4194311));
        assert_eq!(parse_window_id("Firefox"), None);
    }
}
