//! Which window input at a point reaches: the topmost top-level window there as the X server
//! stacks them, a window manager's frame counting as its window (so a title bar is not a hole),
//! unmanaged windows (menus, tooltips, popups) counting as themselves, and windows that take no
//! input (shuttle's marker) passed over.

use crate::patient::Conn;
use desk_core::window::Window;
use x11rb::protocol::shape::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{ConnectionExt as _, MapState, Window as Xid, WindowClass};

use super::atoms::Atoms;
use super::parse_window_id;
use super::windows::{self, format_id};
use crate::errors::{lost, reply_error};
use desk::DeskError;

/// The role an unmanaged window gets in its record.
pub(super) const POPUP: &str = desk_core::window::role::POPUP;

/// A child of the root that holds the desk point.
struct Hit {
    window: Xid,
    unmanaged: bool,
}

/// The root's children that hold (x, y), topmost first.
fn hits(conn: &Conn, root: Xid, x: i32, y: i32) -> Result<Vec<Hit>, DeskError> {
    let tree = conn
        .query_tree(root)
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("the window stack", e))?;
    let mut pending = Vec::with_capacity(tree.children.len());
    for &child in &tree.children {
        let attributes = conn.get_window_attributes(child).map_err(lost)?;
        let geometry = conn.get_geometry(child).map_err(lost)?;
        pending.push((child, attributes, geometry));
    }
    let mut hits = Vec::new();
    // The children come bottom to top.
    for (child, attributes, geometry) in pending.into_iter().rev() {
        let (Ok(attributes), Ok(geometry)) = (attributes.reply(), geometry.reply()) else {
            continue; // gone meanwhile
        };
        if attributes.map_state != MapState::VIEWABLE || attributes.class == WindowClass::INPUT_ONLY
        {
            continue;
        }
        let outer = 2 * i32::from(geometry.border_width);
        let (left, top) = (i32::from(geometry.x), i32::from(geometry.y));
        let inside = x >= left
            && y >= top
            && x < left + i32::from(geometry.width) + outer
            && y < top + i32::from(geometry.height) + outer;
        if inside {
            hits.push(Hit {
                window: child,
                unmanaged: attributes.override_redirect,
            });
        }
    }
    Ok(hits)
}

/// Whether `window` takes no input at all (an empty input shape, as shuttle's marker has).
fn takes_no_input(conn: &Conn, window: Xid) -> Result<bool, DeskError> {
    let reply = conn
        .shape_get_rectangles(window, shape::SK::INPUT)
        .map_err(lost)?
        .reply();
    Ok(reply.is_ok_and(|r| r.rectangles.is_empty()))
}

/// The top-level ancestor (a child of the root) of each of `windows`, in order.
fn top_levels(conn: &Conn, root: Xid, windows: &[Xid]) -> Result<Vec<Xid>, DeskError> {
    let mut current = windows.to_vec();
    // Frames nest clients a level or two deep; each round asks about every window at once.
    for _ in 0..8 {
        let mut cookies = Vec::with_capacity(current.len());
        for &w in &current {
            cookies.push(conn.query_tree(w).map_err(lost)?);
        }
        let mut moved = false;
        for (w, cookie) in current.iter_mut().zip(cookies) {
            if let Ok(tree) = cookie.reply()
                && tree.parent != root
                && tree.parent != 0
            {
                *w = tree.parent;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    Ok(current)
}

/// The window input at desk point (x, y) reaches, if any.
pub(super) fn window_at(
    conn: &Conn,
    root: Xid,
    atoms: &Atoms,
    x: i32,
    y: i32,
) -> Result<Option<Window>, DeskError> {
    let Some(hit) = hits(conn, root, x, y)?
        .into_iter()
        .find(|hit| !hit.unmanaged || !takes_no_input(conn, hit.window).unwrap_or(false))
    else {
        return Ok(None);
    };
    let managed = windows::list(conn, root, atoms)?;
    if !hit.unmanaged {
        let clients: Vec<Xid> = managed
            .iter()
            .filter_map(|w| parse_window_id(&w.id))
            .collect();
        let tops = top_levels(conn, root, &clients)?;
        if let Some(i) = tops.iter().position(|&top| top == hit.window) {
            return Ok(Some(managed[i].clone()));
        }
    }
    // An unmanaged window (or one the window manager keeps to itself): a record of its own,
    // belonging to the process of the window it is transient for when it names none.
    let mut record = windows::records(conn, atoms, &[hit.window], None)?
        .pop()
        .unwrap_or_else(|| Window {
            id: format_id(hit.window),
            title: String::new(),
            role: POPUP.into(),
            pid: None,
            active: false,
            app: None,
            shell: false,
            owner: None,
            modal: None,
            blocks: None,
        });
    record.role = POPUP.into();
    if record.pid.is_none()
        && let Some(owner) = managed
            .iter()
            .find(|w| record.owner.as_deref() == Some(w.id.as_str()))
    {
        record.pid = owner.pid;
        record.app = owner.app.clone();
    }
    Ok(Some(record))
}
