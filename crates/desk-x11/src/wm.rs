//! Asking the window manager for things (EWMH client messages) and reading focus.

use std::hash::{DefaultHasher, Hash, Hasher};

use crate::patient::Conn;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConnectionExt as _, EventMask, Window as Xid,
};

use super::atoms::Atoms;
use super::parse_window_id;
use crate::errors::{lost, reply_error};
use desk::DeskError;

/// EWMH source indication for requests from a pager or other direct user tool, which window
/// managers honour without focus-stealing prevention.
const SOURCE_PAGER: u32 = 2;

/// Whether the person's keyboard focus (the core one) is inside window `id`. The window
/// manager's `_NET_ACTIVE_WINDOW` is not asked: it goes stale when an agent's own keyboard
/// moves its own focus (background input), while the core focus stays the person's.
pub(super) fn has_focus(conn: &Conn, root: Xid, id: &str) -> Result<bool, DeskError> {
    match parse_window_id(id) {
        Some(xid) => focus_within(conn, root, xid),
        None => Ok(false),
    }
}

/// Whether the X input focus is window `xid` or inside it.
pub(super) fn focus_within(conn: &Conn, root: Xid, xid: Xid) -> Result<bool, DeskError> {
    Ok(focused_among(conn, root, &[xid])?.is_some())
}

/// Which of `windows` the X input focus (the core keyboard's, the person's) is in, if any.
pub(super) fn focused_among(
    conn: &Conn,
    root: Xid,
    windows: &[Xid],
) -> Result<Option<Xid>, DeskError> {
    let mut focus = conn
        .get_input_focus()
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("the input focus", e))?
        .focus;
    // The focus may sit on a child of the client window; walk up to the root.
    while focus != root && focus > 1 {
        if windows.contains(&focus) {
            return Ok(Some(focus));
        }
        match conn.query_tree(focus).map_err(lost)?.reply() {
            Ok(tree) => focus = tree.parent,
            Err(_) => return Ok(None),
        }
    }
    Ok(None)
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

/// `_NET_MOVERESIZE_WINDOW` gravity: x and y place the client window itself, not its frame.
const STATIC_GRAVITY: u32 = 10;
/// `_NET_WM_STATE` actions.
const STATE_REMOVE: u32 = 0;
const STATE_ADD: u32 = 1;
/// ICCCM `WM_CHANGE_STATE` to iconic, and the `WM_STATE` value of an iconic window.
const ICONIC_STATE: u32 = 3;

/// Asks the window manager to move, resize, minimize, maximize or restore window `id`.
pub(super) fn request_frame(
    conn: &Conn,
    root: Xid,
    atoms: &Atoms,
    id: &str,
    change: desk::FrameChange,
) -> Result<(), DeskError> {
    use desk::FrameChange;
    let maximized = |action| {
        request(
            conn,
            root,
            id,
            atoms._NET_WM_STATE,
            [
                action,
                atoms._NET_WM_STATE_MAXIMIZED_VERT,
                atoms._NET_WM_STATE_MAXIMIZED_HORZ,
                SOURCE_PAGER,
                0,
            ],
        )
    };
    match change {
        FrameChange::Set {
            x,
            y,
            width,
            height,
        } => {
            // Bits 8 to 11 say which of x, y, width, height are given; bits 12 and 13 the source.
            let mut flags = STATIC_GRAVITY | (SOURCE_PAGER << 12);
            for (i, given) in [x.is_some(), y.is_some(), width.is_some(), height.is_some()]
                .into_iter()
                .enumerate()
            {
                if given {
                    flags |= 1 << (8 + i);
                }
            }
            request(
                conn,
                root,
                id,
                atoms._NET_MOVERESIZE_WINDOW,
                [
                    flags,
                    x.unwrap_or(0) as u32,
                    y.unwrap_or(0) as u32,
                    width.unwrap_or(0),
                    height.unwrap_or(0),
                ],
            )
        }
        FrameChange::Minimize => request(
            conn,
            root,
            id,
            atoms.WM_CHANGE_STATE,
            [ICONIC_STATE, 0, 0, 0, 0],
        ),
        FrameChange::Maximize => maximized(STATE_ADD),
        FrameChange::Restore => {
            maximized(STATE_REMOVE)?;
            // Activating a minimized window shows it again, raised.
            request_focus(conn, root, atoms, id)
        }
    }
}

/// Whether window `id` is minimized (iconic, or hidden) or maximized both ways.
/// The decorations the window manager put around window `id`: left, right, top, bottom.
pub(super) fn frame_extents(conn: &Conn, atoms: &Atoms, id: &str) -> Result<[u32; 4], DeskError> {
    let xid = parse_window_id(id).ok_or_else(|| DeskError::WindowGone { id: id.into() })?;
    let extents: Vec<u32> = conn
        .get_property(
            false,
            xid,
            atoms._NET_FRAME_EXTENTS,
            AtomEnum::CARDINAL,
            0,
            4,
        )
        .map_err(lost)?
        .reply()
        .map_err(|e| match e {
            x11rb::errors::ReplyError::X11Error(_) => DeskError::WindowGone { id: id.into() },
            other => reply_error("a window's frame extents", other),
        })?
        .value32()
        .map(Iterator::collect)
        .unwrap_or_default();
    Ok(match extents[..] {
        [left, right, top, bottom] => [left, right, top, bottom],
        _ => [0; 4],
    })
}

pub(super) fn state(conn: &Conn, atoms: &Atoms, id: &str) -> Result<desk::WindowState, DeskError> {
    let xid = parse_window_id(id).ok_or_else(|| DeskError::WindowGone { id: id.into() })?;
    let gone = |e: x11rb::errors::ReplyError| match e {
        x11rb::errors::ReplyError::X11Error(_) => DeskError::WindowGone { id: id.into() },
        other => reply_error("a window's state", other),
    };
    let states: Vec<u32> = conn
        .get_property(false, xid, atoms._NET_WM_STATE, AtomEnum::ATOM, 0, 64)
        .map_err(lost)?
        .reply()
        .map_err(gone)?
        .value32()
        .map(Iterator::collect)
        .unwrap_or_default();
    let iconic = conn
        .get_property(false, xid, atoms.WM_STATE, atoms.WM_STATE, 0, 1)
        .map_err(lost)?
        .reply()
        .map_err(gone)?
        .value32()
        .and_then(|mut v| v.next())
        == Some(ICONIC_STATE);
    Ok(desk::WindowState {
        minimized: iconic || states.contains(&atoms._NET_WM_STATE_HIDDEN),
        maximized: states.contains(&atoms._NET_WM_STATE_MAXIMIZED_VERT)
            && states.contains(&atoms._NET_WM_STATE_MAXIMIZED_HORZ),
    })
}
