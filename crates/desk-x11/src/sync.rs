//! Knowing when an app has handled our input: the EWMH `_NET_WM_PING` round trip.
//!
//! An app answers a ping only after handling every event queued before it, so a pong after our
//! keys means the app has read them. Typing relies on it: a key the app has not read yet is
//! looked up in the keymap *when the app reads it*, so a spare keycode may only be remapped (or
//! restored) once the app has caught up. The pong goes to the root window, so this uses a
//! connection of its own that listens there.

use std::time::{Duration, Instant};

use crate::patient::Conn;
use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    AtomEnum, ChangeWindowAttributesAux, ClientMessageEvent, ConnectionExt as _, EventMask,
    Window as Xid,
};

use super::atoms::Atoms;
use desk::Pong;

/// A connection that sends pings and hears the pongs.
pub(super) struct Pinger {
    conn: Conn,
    root: Xid,
    atoms: Atoms,
    serial: u32,
}

impl Pinger {
    /// Connects to `display` and listens on its root window.
    pub(super) fn connect(display: &str) -> Option<Self> {
        let (conn, screen) = crate::patient::connect(display).ok()?;
        let root = conn.setup().roots[screen].root;
        let atoms = Atoms::new(&conn).ok()?.reply().ok()?;
        conn.change_window_attributes(
            root,
            // GTK sends its answer to those selecting SubstructureNotify on the root, Qt to those
            // selecting StructureNotify: both are selected, or Qt apps would never answer.
            &ChangeWindowAttributesAux::new()
                .event_mask(EventMask::SUBSTRUCTURE_NOTIFY | EventMask::STRUCTURE_NOTIFY),
        )
        .ok()?
        .check()
        .ok()?;
        Some(Self {
            conn,
            root,
            atoms,
            serial: 0,
        })
    }

    /// Pings `window`'s app and waits up to `limit` for its answer.
    pub(super) fn ping(&mut self, window: Xid, limit: Duration) -> Pong {
        if !self.supports_ping(window) {
            return Pong::Unasked;
        }
        while let Ok(Some(_)) = self.conn.poll_for_event() {}
        self.serial = self.serial.wrapping_add(1);
        let data = [self.atoms._NET_WM_PING, self.serial, window, 0, 0];
        let event = ClientMessageEvent::new(32, window, self.atoms.WM_PROTOCOLS, data);
        if self
            .conn
            .send_event(false, window, EventMask::NO_EVENT, event)
            .is_err()
            || self.conn.flush().is_err()
        {
            return Pong::Unasked;
        }
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            match self.conn.poll_for_event() {
                Ok(Some(Event::ClientMessage(pong))) if self.is_pong(&pong, window) => {
                    return Pong::Answered;
                }
                Ok(Some(_)) => continue,
                Ok(None) => std::thread::sleep(Duration::from_micros(200)),
                Err(_) => return Pong::Unasked,
            }
        }
        Pong::Silent
    }

    fn is_pong(&self, event: &ClientMessageEvent, window: Xid) -> bool {
        let data = event.data.as_data32();
        event.window == self.root
            && data[0] == self.atoms._NET_WM_PING
            && data[1] == self.serial
            && data[2] == window
    }

    fn supports_ping(&self, window: Xid) -> bool {
        self.conn
            .get_property(
                false,
                window,
                self.atoms.WM_PROTOCOLS,
                AtomEnum::ATOM,
                0,
                32,
            )
            .ok()
            .and_then(|cookie| cookie.reply().ok())
            .and_then(|reply| {
                reply
                    .value32()
                    .map(|mut atoms| atoms.any(|a| a == self.atoms._NET_WM_PING))
            })
            .unwrap_or(false)
    }
}
