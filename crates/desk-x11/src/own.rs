//! A window's own pixels, whatever covers it on the screen.
//!
//! Composite keeps each top-level window's contents in a pixmap of its own once the windows
//! are redirected; with automatic redirection the server still draws the screen itself, as
//! without it, so nothing changes for the person. The daemon asks for that when it connects,
//! and `NameWindowPixmap` then lends it a window's pixmap to read. A window's pixmap starts as
//! a copy of what the screen showed where the window is, so a window must have painted itself
//! once since it was mapped, resized or first redirected (its app does so at once, on the
//! expose that comes with each of those) before its pixels are its own.

use crate::patient::Conn;
use desk_core::geometry::Rect;
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::composite::{self, ConnectionExt as _, Redirect};
use x11rb::protocol::xproto::{ConnectionExt as _, Window as Xid};

use super::capture::{Capturer, pixel_format};
use crate::errors::{disconnected, lost, rejected, reply_error};
use desk::DeskError;
use desk::image::RgbImage;

/// Redirects every top-level window into a pixmap of its own; false when the server has no
/// Composite 0.2 (which `NameWindowPixmap` needs) or refuses.
pub(super) fn redirect(conn: &Conn, root: Xid) -> bool {
    let present = matches!(
        conn.extension_information(composite::X11_EXTENSION_NAME),
        Ok(Some(_))
    );
    let recent = present
        && conn
            .composite_query_version(0, 4)
            .ok()
            .and_then(|c| c.reply().ok())
            .is_some_and(|v| (v.major_version, v.minor_version) >= (0, 2));
    recent
        && conn
            .composite_redirect_subwindows(root, Redirect::AUTOMATIC)
            .ok()
            .is_some_and(|c| c.check().is_ok())
}

/// The child of the root that holds `window` (the window manager's frame, or the window).
fn top_level(conn: &Conn, root: Xid, window: Xid) -> Result<Xid, DeskError> {
    let mut current = window;
    loop {
        let tree = conn
            .query_tree(current)
            .map_err(lost)?
            .reply()
            .map_err(|e| reply_error("the window tree", e))?;
        if tree.parent == root || tree.parent == 0 {
            return Ok(current);
        }
        current = tree.parent;
    }
}

/// The pixels `window` drew in `area` (its own coordinates).
pub(super) fn capture(
    conn: &Conn,
    root: Xid,
    capturer: &mut Capturer,
    window: Xid,
    area: Rect,
) -> Result<RgbImage, DeskError> {
    let top = top_level(conn, root, window)?;
    let geometry = conn.get_geometry(top).map_err(lost)?;
    let attributes = conn.get_window_attributes(top).map_err(lost)?;
    let inside = conn
        .translate_coordinates(window, top, 0, 0)
        .map_err(lost)?;
    let geometry = geometry
        .reply()
        .map_err(|e| reply_error("a window's geometry", e))?;
    let attributes = attributes
        .reply()
        .map_err(|e| reply_error("a window's attributes", e))?;
    let inside = inside
        .reply()
        .map_err(|e| reply_error("a window's place in its frame", e))?;
    let format =
        pixel_format(conn, geometry.depth, attributes.visual).map_err(DeskError::Unsupported)?;
    // The pixmap holds the frame's border too.
    let border = i32::from(geometry.border_width);
    let rect = Rect::new(
        i32::from(inside.dst_x) + border + area.x,
        i32::from(inside.dst_y) + border + area.y,
        area.w,
        area.h,
    );
    let pixmap = conn.generate_id().map_err(disconnected)?;
    conn.composite_name_window_pixmap(top, pixmap)
        .map_err(lost)?
        .check()
        .map_err(|e| {
            rejected(
                "lending a window's pixels (NameWindowPixmap)",
                format!("{e}; the window may have just closed or been minimized"),
            )
        })?;
    let image = capturer.capture_drawable(conn, pixmap, rect, format, None);
    // The pixmap is only a name for the window's storage; freeing it frees nothing of the window.
    let _ = conn.free_pixmap(pixmap);
    image
}
