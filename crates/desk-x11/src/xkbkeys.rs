//! Changing what keycodes carry, several at once, through XKB.
//!
//! The core ChangeKeyboardMapping request changes one contiguous run of keycodes, and every
//! request makes every client re-read its keymap (and Xlib clients re-read their compose tables,
//! which costs a window manager tens of milliseconds each). XKB's SetMap changes any range in
//! one request; the keycodes in between are written back exactly as they were read.

use crate::patient::Conn;
use x11rb::connection::Connection;
use x11rb::protocol::xkb::{self, ConnectionExt as _, KeySymMap};
use x11rb::protocol::xproto::Keycode;

use crate::errors::{lost, rejected, reply_error};
use desk::DeskError;

/// What a keycode lent to `levels` carries: one group, with the first keysym plain and the
/// second (when there is one) under Shift.
pub(super) fn lent(levels: [u32; 2]) -> KeySymMap {
    match levels {
        [plain, 0] => KeySymMap {
            // Type 0 is ONE_LEVEL in every XKB keymap.
            kt_index: [0; 4],
            group_info: 1,
            width: 1,
            syms: vec![plain],
        },
        [plain, shifted] => KeySymMap {
            // Type 1 is TWO_LEVEL in every XKB keymap: Shift picks the second level.
            kt_index: [1, 0, 0, 0],
            group_info: 1,
            width: 2,
            syms: vec![plain, shifted],
        },
    }
}

/// What an empty keycode carries.
pub(super) fn empty() -> KeySymMap {
    KeySymMap {
        kt_index: [0; 4],
        group_info: 0,
        width: 0,
        syms: Vec::new(),
    }
}

/// Turns XKB on for this connection; needed once before the other calls.
pub(super) fn enable(conn: &Conn) -> Result<(), DeskError> {
    let reply = conn
        .xkb_use_extension(1, 0)
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("the XKB extension", e))?;
    if reply.supported {
        Ok(())
    } else {
        Err(DeskError::Invalid(
            "the X server's XKB extension is too old to lend keycodes; characters outside the \
             keyboard layout cannot be typed"
                .into(),
        ))
    }
}

/// The key maps of keycodes `first..=last`.
pub(super) fn read(
    conn: &Conn,
    first: Keycode,
    last: Keycode,
) -> Result<Vec<KeySymMap>, DeskError> {
    let reply = conn
        .xkb_get_map(
            xkb::ID::USE_CORE_KBD.into(),
            0u16.into(),
            xkb::MapPart::KEY_SYMS,
            0,
            0,
            first,
            last - first + 1,
            0,
            0,
            0,
            0,
            0u16.into(),
            0,
            0,
            0,
            0,
            0,
            0,
        )
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("the XKB key map", e))?;
    reply
        .map
        .syms_rtrn
        .ok_or_else(|| rejected("the XKB key map", "the reply carried no key symbols".into()))
}

/// Gives each keycode in `changes` its new map, in one request.
pub(super) fn write(conn: &Conn, changes: &[(Keycode, KeySymMap)]) -> Result<(), DeskError> {
    let (Some(first), Some(last)) = (
        changes.iter().map(|(code, _)| *code).min(),
        changes.iter().map(|(code, _)| *code).max(),
    ) else {
        return Ok(());
    };
    let mut maps = read(conn, first, last)?;
    for (code, map) in changes {
        maps[usize::from(code - first)] = map.clone();
    }
    let total_syms = maps.iter().map(|m| m.syms.len() as u16).sum();
    let setup = conn.setup();
    let values = xkb::SetMapAux {
        syms: Some(maps),
        ..Default::default()
    };
    conn.xkb_set_map(
        xkb::ID::USE_CORE_KBD.into(),
        0u16.into(),
        setup.min_keycode,
        setup.max_keycode,
        0,
        0,
        first,
        last - first + 1,
        total_syms,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0u16.into(),
        &values,
    )
    .map_err(lost)?
    .check()
    .map_err(|e| reply_error("an XKB key map change", e))
}
