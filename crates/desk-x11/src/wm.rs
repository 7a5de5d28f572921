//! Asking the window manager for things (EWMH client messages) and reading focus.

use std::hash::{DefaultHasher, Hash, Hasher};

use crate::patient::Conn;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConnectionExt as _, EventMask, Window as Xid,
};

use super::atoms::Atoms;
use super::{lost, parse_window_id, reply_error};
use desk::DeskError;

/// EWMH source indication for requests from a pager or other direct user tool, which window
/// managers honour without focus-stealing prevention.
const SOURCE_PAGER: u32 = 2;

/// The window `_NET_ACTIVE_WINDOW` names.
pub(super) fn active(conn: &Conn, root: Xid, atoms: &Atoms) -> Result<Option<Xid>, DeskError> {
    let reply = conn
        .get_property(
            false,
            root,
            atoms._NET_ACTIVE_WINDOW,
            AtomEnum::WINDOW,
            0,
            1,
        )
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("the active window", e))?;
    Ok(reply
        .value32()
        .and_then(|mut v| v.next())
        .filter(|&w| w != 0))
}

/// Whether `id` is the active window and the X input focus is inside it.
pub(super) fn has_focus(
    conn: &Conn,
    root: Xid,
    atoms: &Atoms,
    id: &str,
) -> Result<bool, DeskError> {
    let Some(xid) = parse_window_id(id) else {
        return Ok(false);
    };
    if active(conn, root, atoms)? != Some(xid) {
        return Ok(false);
    }
    focus_within(conn, root, xid)
}

/// Whether the X input focus is window `xid` or inside it.
pub(super) fn focus_within(conn: &Conn, root: Xid, xid: Xid) -> Result<bool, DeskError> {
    let mut focus = conn
        .get_input_focus()
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("the input focus", e))?
        .focus;
    // The focus may sit on a child of the client window; walk up to the root.
    while focus != root && focus > 1 {
        if focus == xid {
            return Ok(true);
        }
        match conn.query_tree(focus).map_err(lost)?.reply() {
            Ok(tree) => focus = tree.parent,
            Err(_) => return Ok(false),
        }
    }
    Ok(false)
}

/// Sends an EWMH request about `window` to the window manager.
fn request(
    conn: &Conn,
    root: Xid,
    window: &str,
    kind: u32,
    data: [u32; 5],
) -> Result<(), DeskError> {
    let xid = parse_window_id(window)
        .ok_or_else(|| DeskError::WindowGone { id: window.into() }.unsent())?;
    let event = ClientMessageEvent::new(32, xid, kind, data);
    conn.send_event(
        false,
        root,
        EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
        event,
    )
    .map_err(lost)?;
    conn.flush().map_err(lost)
}

pub(super) fn request_focus(
    conn: &Conn,
    root: Xid,
    atoms: &Atoms,
    id: &str,
) -> Result<(), DeskError> {
    request(
        conn,
        root,
        id,
        atoms._NET_ACTIVE_WINDOW,
        [SOURCE_PAGER, 0, 0, 0, 0],
    )
}

pub(super) fn request_close(
    conn: &Conn,
    root: Xid,
    atoms: &Atoms,
    id: &str,
) -> Result<(), DeskError> {
    request(
        conn,
        root,
        id,
        atoms._NET_CLOSE_WINDOW,
        [0, SOURCE_PAGER, 0, 0, 0],
    )
}

/// A hash of the stacking-ordered client list: it changes when a window opens, closes or
/// restacks, and costs one small round trip.
pub(super) fn fingerprint(conn: &Conn, root: Xid, atoms: &Atoms) -> Result<u64, DeskError> {
    let reply = conn
        .get_property(
            false,
            root,
            atoms._NET_CLIENT_LIST_STACKING,
            AtomEnum::WINDOW,
            0,
            u32::MAX,
        )
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("the client list", e))?;
    let mut hasher = DefaultHasher::new();
    reply.value.hash(&mut hasher);
    Ok(hasher.finish())
}
