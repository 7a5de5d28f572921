//! Keys and buttons a daemon holds down across a wait, on record, so that input left down by
//! a daemon that was killed is released by the next one.
//!
//! The X server keeps an XTest key or button down when the client that pressed it dies: a
//! daemon killed in the middle of a drag would leave the person's mouse button held. Whatever
//! is still down when a call flushes its input (a drag's button, between its steps) is listed
//! in a property of the root window named after the daemon's pid, and the property goes once
//! it is released. A daemon that connects releases what the records of daemons no longer
//! running list, then deletes those records. A batch of taps or a chord, whose presses and
//! releases leave in one write, is listed just before it in that same write and unlisted after
//! it: only a write cut short by a kill leaves anything down, and then it is on record.

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, BUTTON_RELEASE_EVENT, ConnectionExt as _, KEY_RELEASE_EVENT, KeyButMask,
    Keycode, PropMode, Window as Xid,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::wrapper::ConnectionExt as _;

use crate::errors::{lost, reply_error};
use crate::patient::Conn;
use desk::DeskError;

/// The record's name, before the pid of the daemon it belongs to.
const PREFIX: &str = "_SHUTTLE_HELD_INPUT_";
/// Marks a button in the record; keycodes are below it.
const BUTTON: u32 = 1 << 16;

/// This daemon's record of what it holds down.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record {
    root: Xid,
    name: Atom,
}

impl Record {
    /// The record of this process, on `root`.
    pub(crate) fn new(conn: &Conn, root: Xid) -> Result<Self, DeskError> {
        let name = format!("{PREFIX}{}", std::process::id());
        let name = conn
            .intern_atom(false, name.as_bytes())
            .map_err(lost)?
            .reply()
            .map_err(|e| reply_error("naming the record of held input", e))?
            .atom;
        Ok(Self { root, name })
    }

    /// Lists `keys` and `buttons` as held, replacing what the record said.
    pub(crate) fn hold(&self, conn: &Conn, keys: &[Keycode], buttons: &[u8]) {
        let entries: Vec<u32> = keys
            .iter()
            .map(|&k| u32::from(k))
            .chain(buttons.iter().map(|&b| BUTTON | u32::from(b)))
            .collect();
        // Best effort: without a record, only a kill during this hold would leave input down.
        let _ = conn.change_property32(
            PropMode::REPLACE,
            self.root,
            self.name,
            AtomEnum::CARDINAL,
            &entries,
        );
    }

    /// Empties the record: nothing is held any more.
    pub(crate) fn clear(&self, conn: &Conn) {
        let _ = conn.delete_property(self.root, self.name);
    }
}

/// Releases the keys and buttons that daemons no longer running left down on record, and
/// deletes their records. Returns how many keys and buttons it released.
pub(crate) fn release(conn: &Conn, root: Xid) -> Result<usize, DeskError> {
    let names = conn
        .list_properties(root)
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("listing the root window's properties", e))?
        .atoms;
    // Every name asked at once: one round trip at connect, however many properties there are.
    let asked = names
        .iter()
        .map(|&name| conn.get_atom_name(name).map_err(lost))
        .collect::<Result<Vec<_>, _>>()?;
    let mut released = 0;
    for (name, cookie) in names.into_iter().zip(asked) {
        let text = cookie
            .reply()
            .map_err(|e| reply_error("reading a property's name", e))?
            .name;
        let Some(pid) = std::str::from_utf8(&text)
            .ok()
            .and_then(|t| t.strip_prefix(PREFIX))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || std::path::Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let count = release_recorded(conn, root, name)?;
        if count > 0 {
            tracing::warn!(
                pid,
                count,
                "released keys or buttons that a daemon which ended abruptly left held down"
            );
        }
        released += count;
    }
    if released > 0 {
        conn.flush().map_err(lost)?;
    }
    Ok(released)
}

/// Releases what record `name` lists and is still down, then deletes the record.
fn release_recorded(conn: &Conn, root: Xid, name: Atom) -> Result<usize, DeskError> {
    let entries: Vec<u32> = conn
        .get_property(true, root, name, AtomEnum::CARDINAL, 0, 1024)
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("reading a record of held input", e))?
        .value32()
        .map(Iterator::collect)
        .unwrap_or_default();
    let keys_down = conn
        .query_keymap()
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("reading which keys are down", e))?
        .keys;
    let buttons_down = conn
        .query_pointer(root)
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("reading which buttons are down", e))?
        .mask;
    let mut released = 0;
    for entry in entries {
        let (kind, detail) = if entry & BUTTON != 0 {
            let button = (entry & 0xff) as u8;
            let mask = match button {
                1 => KeyButMask::BUTTON1,
                2 => KeyButMask::BUTTON2,
                3 => KeyButMask::BUTTON3,
                4 => KeyButMask::BUTTON4,
                5 => KeyButMask::BUTTON5,
                _ => continue,
            };
            if !buttons_down.contains(mask) {
                continue;
            }
            (BUTTON_RELEASE_EVENT, button)
        } else {
            let Ok(code) = Keycode::try_from(entry) else {
                continue;
            };
            if keys_down[usize::from(code / 8)] & (1 << (code % 8)) == 0 {
                continue;
            }
            (KEY_RELEASE_EVENT, code)
        };
        conn.xtest_fake_input(kind, detail, 0, root, 0, 0, 0)
            .map_err(lost)?;
        released += 1;
    }
    Ok(released)
}
