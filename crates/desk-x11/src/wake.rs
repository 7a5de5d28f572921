//! The wake-up that ends a watcher thread: the thread blocks waiting for X events, so it is
//! given a window of its own, and a client message sent there makes it return.

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    ClientMessageEvent, ConnectionExt as _, CreateWindowAux, EventMask, Window as Xid, WindowClass,
};

use crate::errors::{disconnected, lost};
use crate::patient::Conn;
use desk::DeskError;

/// Makes the window a watcher on `conn` is woken through: a 1x1 input-only child of `root`,
/// never mapped.
pub(crate) fn window(conn: &Conn, root: Xid) -> Result<Xid, DeskError> {
    let wake = conn.generate_id().map_err(disconnected)?;
    conn.create_window(
        0,
        wake,
        root,
        0,
        0,
        1,
        1,
        0,
        WindowClass::INPUT_ONLY,
        0,
        &CreateWindowAux::new(),
    )
    .map_err(lost)?;
    Ok(wake)
}

/// Wakes the watcher of window `wake`; false when the message could not go out.
pub(crate) fn send(conn: &Conn, wake: Xid) -> bool {
    let event = ClientMessageEvent::new(32, wake, 0u32, [0u32; 5]);
    conn.send_event(false, wake, EventMask::NO_EVENT, event)
        .is_ok()
        && conn.flush().is_ok()
}
