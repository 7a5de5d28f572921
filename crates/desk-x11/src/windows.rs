//! The window list from the window manager's EWMH properties.
//!
//! Every property request for every window is sent before the first reply is awaited, so a list
//! of any length costs about one round trip to the X server.
//!
//! A window's process is the one the X server saw connect (the X-Resource extension), where the
//! server knows it: `_NET_WM_PID` is what the app says, which inside a sandbox's own process
//! namespace is a number that means nothing outside it.

use std::collections::HashSet;

use crate::patient::Conn;
use desk_core::geometry::Rect;
use desk_core::window::{Window, role};
use x11rb::connection::RequestConnection as _;
use x11rb::cookie::Cookie;
use x11rb::errors::ReplyError;
use x11rb::protocol::res::{
    self, ClientIdMask, ClientIdSpec, ConnectionExt as _, QueryClientIdsReply,
};
use x11rb::protocol::xproto::{
    AtomEnum, ConnectionExt as _, GetPropertyReply, MapState, Window as Xid,
};

use super::atoms::Atoms;
use super::{parse_window_id, wm};
use crate::errors::{lost, reply_error};
use desk::DeskError;

/// Longest title read, in 32-bit units (4 KiB).
const TITLE_LONGS: u32 = 1024;

type PropertyCookie<'c> = Cookie<'c, Conn, GetPropertyReply>;

/// The requests in flight for one window.
struct Pending<'c> {
    id: Xid,
    net_name: PropertyCookie<'c>,
    name: PropertyCookie<'c>,
    pid: PropertyCookie<'c>,
    kind: PropertyCookie<'c>,
    transient_for: PropertyCookie<'c>,
    state: PropertyCookie<'c>,
    /// The process of the client that made the window, where the server has X-Resource.
    client_pid: Option<Cookie<'c, Conn, QueryClientIdsReply>>,
}

/// What one window's properties say.
struct Props {
    id: Xid,
    title: String,
    pid: Option<u32>,
    types: Vec<u32>,
    transient_for: Option<Xid>,
    modal: bool,
}

/// The managed top-level windows, topmost first.
pub(super) fn list(conn: &Conn, root: Xid, atoms: &Atoms) -> Result<Vec<Window>, DeskError> {
    let get = |window, property, kind: AtomEnum, longs| {
        conn.get_property(false, window, property, kind, 0, longs)
            .map_err(lost)
    };
    let stacking = get(
        root,
        atoms._NET_CLIENT_LIST_STACKING,
        AtomEnum::WINDOW,
        u32::MAX,
    )?;
    let plain = get(root, atoms._NET_CLIENT_LIST, AtomEnum::WINDOW, u32::MAX)?;
    let active = get(root, atoms._NET_ACTIVE_WINDOW, AtomEnum::WINDOW, 1)?;
    let stacking = stacking
        .reply()
        .map_err(|e| reply_error("the client list", e))?;
    let plain = plain
        .reply()
        .map_err(|e| reply_error("the client list", e))?;
    let active = active
        .reply()
        .map_err(|e| reply_error("the active window", e))?
        .value32()
        .and_then(|mut v| v.next())
        .filter(|&w| w != 0);
    let ids: Vec<Xid> = match (stacking.value32(), plain.value32()) {
        (Some(ids), _) => ids.collect(),
        (None, Some(ids)) => ids.collect(),
        (None, None) => {
            return Err(DeskError::Unsupported(
                "the window manager publishes no _NET_CLIENT_LIST: run an EWMH window manager \
                 (openbox, xfwm4, mutter, kwin, i3, ...) so shuttle can list windows"
                    .into(),
            ));
        }
    };
    // The window with the person's keyboard focus is the active one, whatever the window
    // manager last published: an agent's own keyboard focus (background input) can leave that
    // stale.
    let active = wm::focused_among(conn, root, &ids)?.or(active);
    let topmost_first: Vec<Xid> = ids.into_iter().rev().collect();
    records(conn, atoms, &topmost_first, active)
}

/// The window records of `ids`, in that order, reading every property of every window before
/// the first reply is awaited. `active` is the focused window. A window that went away is left
/// out.
pub(super) fn records(
    conn: &Conn,
    atoms: &Atoms,
    ids: &[Xid],
    active: Option<Xid>,
) -> Result<Vec<Window>, DeskError> {
    let get = |window, property, kind: AtomEnum, longs| {
        conn.get_property(false, window, property, kind, 0, longs)
            .map_err(lost)
    };
    let xres = conn
        .extension_information(res::X11_EXTENSION_NAME)
        .map_err(lost)?
        .is_some();
    let client_pid = |window| {
        let spec = ClientIdSpec {
            client: window,
            mask: ClientIdMask::LOCAL_CLIENT_PID,
        };
        conn.res_query_client_ids(&[spec]).map_err(lost)
    };
    let mut pending = Vec::with_capacity(ids.len());
    for &id in ids {
        pending.push(Pending {
            id,
            net_name: get(id, atoms._NET_WM_NAME, AtomEnum::ANY, TITLE_LONGS)?,
            name: get(id, AtomEnum::WM_NAME.into(), AtomEnum::ANY, TITLE_LONGS)?,
            pid: get(id, atoms._NET_WM_PID, AtomEnum::CARDINAL, 1)?,
            kind: get(id, atoms._NET_WM_WINDOW_TYPE, AtomEnum::ATOM, 64)?,
            transient_for: get(id, AtomEnum::WM_TRANSIENT_FOR.into(), AtomEnum::WINDOW, 1)?,
            state: get(id, atoms._NET_WM_STATE, AtomEnum::ATOM, 64)?,
            client_pid: if xres { Some(client_pid(id)?) } else { None },
        });
    }
    let mut props = Vec::with_capacity(pending.len());
    for p in pending {
        match read_props(p, atoms) {
            Ok(p) => props.push(p),
            // The window went away after the list was read: it is simply not listed.
            Err(ReplyError::X11Error(_)) => continue,
            Err(ReplyError::ConnectionError(e)) => return Err(lost(e)),
        }
    }

    let shell_pids: HashSet<u32> = props
        .iter()
        .filter(|p| {
            p.types.iter().any(|&t| {
                t == atoms._NET_WM_WINDOW_TYPE_DOCK || t == atoms._NET_WM_WINDOW_TYPE_DESKTOP
            })
        })
        .filter_map(|p| p.pid)
        .collect();
    Ok(props
        .into_iter()
        .map(|p| Window {
            id: format_id(p.id),
            role: role(&p, atoms).into(),
            active: active == Some(p.id),
            // The desk names the app, as the allowlist does.
            app: None,
            shell: p.pid.is_some_and(|pid| shell_pids.contains(&pid)),
            owner: p.transient_for.map(format_id),
            modal: None,
            blocks: None,
            title: p.title,
            pid: p.pid,
        })
        .collect())
}

fn read_props(p: Pending<'_>, atoms: &Atoms) -> Result<Props, ReplyError> {
    let net_name = p.net_name.reply()?;
    let name = p.name.reply()?;
    let title = if net_name.type_ == atoms.UTF8_STRING {
        String::from_utf8_lossy(&net_name.value).into_owned()
    } else if name.type_ == u32::from(AtomEnum::STRING) {
        // ICCCM STRING is Latin-1, whose code points are the first 256 of Unicode.
        name.value.iter().map(|&b| char::from(b)).collect()
    } else {
        String::from_utf8_lossy(&name.value).into_owned()
    };
    let first = |reply: GetPropertyReply| reply.value32().and_then(|mut v| v.next());
    let said = first(p.pid.reply()?).filter(|&pid| pid != 0);
    let seen = match p.client_pid {
        Some(cookie) => cookie
            .reply()?
            .ids
            .into_iter()
            .find(|id| id.spec.mask == ClientIdMask::LOCAL_CLIENT_PID)
            .and_then(|id| id.value.first().copied()),
        None => None,
    };
    let pid = seen.filter(|&pid| pid != 0).or(said);
    let types = p
        .kind
        .reply()?
        .value32()
        .map(Iterator::collect)
        .unwrap_or_default();
    let transient_for = first(p.transient_for.reply()?).filter(|&w| w != 0);
    let modal = p
        .state
        .reply()?
        .value32()
        .is_some_and(|mut s| s.any(|a| a == atoms._NET_WM_STATE_MODAL));
    Ok(Props {
        id: p.id,
        title: title.trim_end_matches('\0').to_string(),
        pid,
        types,
        transient_for,
        modal,
    })
}

/// The window's kind in a word: the first type the window declares that we know.
fn role(p: &Props, atoms: &Atoms) -> &'static str {
    let known = [
        (atoms._NET_WM_WINDOW_TYPE_NORMAL, role::WINDOW),
        (atoms._NET_WM_WINDOW_TYPE_DIALOG, role::DIALOG),
        (atoms._NET_WM_WINDOW_TYPE_DOCK, role::DOCK),
        (atoms._NET_WM_WINDOW_TYPE_DESKTOP, role::DESKTOP),
        (atoms._NET_WM_WINDOW_TYPE_UTILITY, "utility"),
        (atoms._NET_WM_WINDOW_TYPE_TOOLBAR, "toolbar"),
        (atoms._NET_WM_WINDOW_TYPE_MENU, "menu"),
        (atoms._NET_WM_WINDOW_TYPE_SPLASH, role::SPLASH),
        (atoms._NET_WM_WINDOW_TYPE_NOTIFICATION, "notification"),
    ];
    let declared = p.types.iter().find_map(|t| {
        known
            .iter()
            .find(|(atom, _)| atom == t)
            .map(|(_, name)| *name)
    });
    match declared {
        Some(role::WINDOW) if p.modal => role::DIALOG,
        Some(name) => name,
        // EWMH: a transient window that declares no type is a dialog.
        None if p.transient_for.is_some() || p.modal => role::DIALOG,
        None => role::WINDOW,
    }
}

pub(super) fn format_id(id: Xid) -> String {
    format!("0x{id:x}")
}

/// Where a window's client area is on the screen, or `None` when it is not shown.
pub(super) fn rect(conn: &Conn, root: Xid, id: &str) -> Result<Option<Rect>, DeskError> {
    let gone = || DeskError::WindowGone { id: id.into() };
    let xid = parse_window_id(id).ok_or_else(gone)?;
    let attributes = conn.get_window_attributes(xid).map_err(lost)?;
    let geometry = conn.get_geometry(xid).map_err(lost)?;
    let origin = conn.translate_coordinates(xid, root, 0, 0).map_err(lost)?;
    let settle = |e: ReplyError| match e {
        ReplyError::X11Error(_) => gone(),
        ReplyError::ConnectionError(e) => lost(e),
    };
    let attributes = attributes.reply().map_err(settle)?;
    let geometry = geometry.reply().map_err(settle)?;
    let origin = origin.reply().map_err(settle)?;
    if attributes.map_state != MapState::VIEWABLE {
        return Ok(None);
    }
    Ok(Some(Rect::new(
        origin.dst_x.into(),
        origin.dst_y.into(),
        geometry.width.into(),
        geometry.height.into(),
    )))
}
