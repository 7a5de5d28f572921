//! Modal dialogs the screen does not show: a dialog that blocks its window while it is
//! minimised, off the screen or covered leaves an agent clicking a window that ignores it.

use std::collections::HashMap;

use desk::DeskError;
use desk_core::geometry::Rect;
use desk_core::window::{Window, role};
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, Window as Xid};

use super::atoms::Atoms;
use super::patient::Conn;
use super::{parse_window_id, windows};
use crate::errors::lost;

/// Sets `modal` and `blocks` on each modal dialog of `list` (topmost first) that the screen
/// does not show.
pub(super) fn mark(
    conn: &Conn,
    root: Xid,
    atoms: &Atoms,
    screen: impl FnOnce() -> Result<Rect, DeskError>,
    list: &mut [Window],
) -> Result<(), DeskError> {
    let dialogs: Vec<(usize, Xid)> = list
        .iter()
        .enumerate()
        .filter(|(_, w)| w.role == role::DIALOG)
        .filter_map(|(i, w)| Some((i, parse_window_id(&w.id)?)))
        .collect();
    let mut pending = Vec::with_capacity(dialogs.len());
    for &(i, xid) in &dialogs {
        let cookie = conn
            .get_property(false, xid, atoms._NET_WM_STATE, AtomEnum::ATOM, 0, 64)
            .map_err(lost)?;
        pending.push((i, cookie));
    }
    let mut modal = Vec::new();
    for (i, cookie) in pending {
        // A dialog that went away meanwhile is simply not marked.
        let Ok(reply) = cookie.reply() else { continue };
        let states: Vec<u32> = reply.value32().map(Iterator::collect).unwrap_or_default();
        if states.contains(&atoms._NET_WM_STATE_MODAL) {
            modal.push((i, states.contains(&atoms._NET_WM_STATE_HIDDEN)));
        }
    }
    if modal.is_empty() {
        return Ok(());
    }
    let screen = screen()?;
    let mut rects: HashMap<usize, Option<Rect>> = HashMap::new();
    let mut rect_of = |i: usize, list: &[Window]| -> Result<Option<Rect>, DeskError> {
        if let Some(known) = rects.get(&i) {
            return Ok(*known);
        }
        let rect = match windows::rect(conn, root, &list[i].id) {
            Ok(rect) => rect,
            Err(DeskError::WindowGone { .. }) => None,
            Err(e) => return Err(e),
        };
        rects.insert(i, rect);
        Ok(rect)
    };
    for (i, hidden_state) in modal {
        let why = match rect_of(i, list)? {
            None => Some("hidden".to_string()),
            Some(_) if hidden_state => Some("hidden".to_string()),
            Some(rect) if screen.intersect(&rect).is_none() => Some("off the screen".to_string()),
            Some(rect) => {
                let mut cover = None;
                for above in 0..i {
                    if rect_of(above, list)?.is_some_and(|r| r.contains_rect(&rect)) {
                        cover = Some(format!(
                            "behind {}",
                            desk_core::app_text::Quoted(&list[above].title)
                        ));
                        break;
                    }
                }
                cover
            }
        };
        if let Some(why) = why {
            list[i].blocks = blocked_title(list, i);
            list[i].modal = Some(why);
        }
    }
    Ok(())
}

/// The title of the window dialog `i` blocks: the window it is transient for, else another
/// window of its process (a dialog modal to its whole app).
fn blocked_title(list: &[Window], i: usize) -> Option<String> {
    let dialog = &list[i];
    if let Some(owner) = &dialog.owner
        && let Some(parent) = list.iter().find(|w| &w.id == owner)
    {
        return Some(parent.title.clone());
    }
    list.iter()
        .find(|w| {
            w.id != dialog.id && w.pid.is_some() && w.pid == dialog.pid && w.role != role::DIALOG
        })
        .map(|w| w.title.clone())
}
