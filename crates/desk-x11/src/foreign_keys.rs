//! Keys someone else holds down.
//!
//! An app reads every key with the modifiers down at that moment, the person's as well as ours:
//! with their Shift down, "abc" arrives as "ABC", and with their Control down it is a shortcut.
//! So keys go out only while nobody else holds a modifier. Before each batch the state is read
//! (XKB's base and latched modifiers, so Num Lock and a locked Caps Lock do not count; typing
//! turns Caps Lock off itself) inside a server grab that also sends the batch, so no other
//! client's input can come between the reading and the keys. A keyboard's own key events are
//! not held back by a server grab, so a key pressed on a real keyboard within that instant can
//! still slip in; the time between reading and sending is one round trip.

use std::time::{Duration, Instant};

use crate::patient::Conn;
use x11rb::connection::Connection;
use x11rb::protocol::xkb::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{ConnectionExt as _, ModMask};

use crate::errors::{lost, reply_error};
use desk::{Cancel, DeskError};

/// How long a batch waits for someone else's modifier to be released before typing stops.
pub(super) const WAIT_FOR_RELEASE: Duration = Duration::from_secs(3);
/// How often it looks meanwhile.
const LOOK_EVERY: Duration = Duration::from_millis(10);

/// The modifiers held down (or latched) right now, by name.
fn held(conn: &Conn) -> Result<Vec<&'static str>, DeskError> {
    let state = conn
        .xkb_get_state(xkb::ID::USE_CORE_KBD.into())
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("the keyboard state", e))?;
    let down = u16::from(state.base_mods) | u16::from(state.latched_mods);
    let names = [
        (ModMask::SHIFT, "Shift"),
        (ModMask::LOCK, "Caps Lock"),
        (ModMask::CONTROL, "Control"),
        (ModMask::M1, "Alt (Mod1)"),
        (ModMask::M2, "Mod2"),
        (ModMask::M3, "Mod3"),
        (ModMask::M4, "Super (Mod4)"),
        (ModMask::M5, "AltGr (Mod5)"),
    ];
    Ok(names
        .into_iter()
        .filter(|(mask, _)| down & u16::from(*mask) != 0)
        .map(|(_, name)| name)
        .collect())
}

/// Why a batch did not go out, or not all of it.
pub(super) enum Blocked {
    /// The call was cancelled while it waited; nothing of the batch went out.
    Cancelled,
    /// These modifiers stayed held by someone else; nothing of the batch went out.
    Held(String),
    /// Reading the state, or the check before sending, failed; nothing of the batch went out.
    Failed(DeskError),
    /// Sending failed part way: some of the batch may have gone out.
    SendFailed(DeskError),
}

/// Runs `send` (which queues key events) while no one else holds a modifier, inside a server
/// grab, then flushes. `check` runs inside the grab first (is the focus still where the keys
/// should go?). Waits up to [`WAIT_FOR_RELEASE`] for held modifiers to be released.
pub(super) fn when_free<T>(
    conn: &Conn,
    cancel: &Cancel,
    check: impl Fn() -> Result<(), DeskError>,
    send: impl FnOnce() -> Result<T, DeskError>,
) -> Result<T, Blocked> {
    let deadline = Instant::now() + WAIT_FOR_RELEASE;
    loop {
        if cancel.is_cancelled() {
            return Err(Blocked::Cancelled);
        }
        conn.grab_server().map_err(|e| Blocked::Failed(lost(e)))?;
        let down = held(conn);
        match down {
            Ok(down) if down.is_empty() => {
                let sent = check()
                    .map_err(Blocked::Failed)
                    .and_then(|()| send().map_err(Blocked::SendFailed));
                let released = conn
                    .ungrab_server()
                    .map_err(lost)
                    .and_then(|_| conn.flush().map_err(lost));
                return match (sent, released) {
                    (Ok(value), Ok(())) => Ok(value),
                    (Err(blocked), _) => Err(blocked),
                    (Ok(_), Err(e)) => Err(Blocked::SendFailed(e)),
                };
            }
            other => {
                conn.ungrab_server().map_err(|e| Blocked::Failed(lost(e)))?;
                conn.flush().map_err(|e| Blocked::Failed(lost(e)))?;
                let down = other.map_err(Blocked::Failed)?;
                if Instant::now() >= deadline {
                    return Err(Blocked::Held(down.join(" and ")));
                }
            }
        }
        std::thread::sleep(LOOK_EVERY);
    }
}
