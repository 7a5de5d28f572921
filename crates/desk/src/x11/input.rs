//! Synthetic input over XTest: keys, typing, buttons, wheel and pointer motion.
//!
//! Every press goes through [`Held`], which releases whatever is still down when it is dropped,
//! so an error or a cancel never leaves a key or button stuck.

use std::time::Duration;

use desk_core::call::{Button, Direction};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT, ConnectionExt as _, KEY_PRESS_EVENT,
    KEY_RELEASE_EVENT, Keycode, MOTION_NOTIFY_EVENT, Window as Xid,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

use super::{lost, reply_error};
use crate::cancel::Cancel;
use crate::error::DeskError;
use crate::keys::char_keysym;

/// Keysym of the left Shift key.
const SHIFT_L: u32 = 0xffe1;
/// Steps of pointer motion between the ends of a drag.
const DRAG_STEPS: i32 = 12;
/// Pause between drag steps, so apps see a motion rather than a jump.
const DRAG_STEP_PAUSE: Duration = Duration::from_millis(8);

/// The core keyboard mapping: which keysyms each keycode carries.
pub(super) struct Keymap {
    min_keycode: Keycode,
    per_keycode: u8,
    keysyms: Vec<u32>,
}

impl Keymap {
    pub(super) fn read(conn: &RustConnection) -> Result<Self, DeskError> {
        let setup = conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let reply = conn
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(lost)?
            .reply()
            .map_err(|e| reply_error("the keyboard mapping", e))?;
        Ok(Self {
            min_keycode: min,
            per_keycode: reply.keysyms_per_keycode,
            keysyms: reply.keysyms,
        })
    }

    fn columns(&self) -> impl Iterator<Item = (Keycode, &[u32])> {
        self.keysyms
            .chunks(usize::from(self.per_keycode.max(1)))
            .enumerate()
            .map(|(i, syms)| (self.min_keycode + i as u8, syms))
    }

    /// The keycode that types `keysym`, and whether Shift is needed: the unshifted column
    /// anywhere wins over a shifted one.
    pub(super) fn find(&self, keysym: u32) -> Option<(Keycode, bool)> {
        let in_column = |col: usize| {
            self.columns()
                .find(|(_, syms)| syms.get(col) == Some(&keysym))
        };
        in_column(0)
            .map(|(code, _)| (code, false))
            .or_else(|| in_column(1).map(|(code, _)| (code, true)))
    }

    /// Keycodes that carry no keysym at all, free to lend to characters the layout lacks.
    /// The lowest keycode is left alone: some servers treat it specially.
    fn spare(&self) -> Vec<Keycode> {
        self.columns()
            .filter(|(code, syms)| *code > self.min_keycode && syms.iter().all(|&s| s == 0))
            .map(|(code, _)| code)
            .collect()
    }
}

/// Keys and buttons currently held down by us; all released on drop.
struct Held<'c> {
    conn: &'c RustConnection,
    root: Xid,
    keys: Vec<Keycode>,
    buttons: Vec<u8>,
}

impl<'c> Held<'c> {
    fn new(conn: &'c RustConnection, root: Xid) -> Self {
        Self {
            conn,
            root,
            keys: Vec::new(),
            buttons: Vec::new(),
        }
    }

    fn fake(&self, kind: u8, detail: u8) -> Result<(), DeskError> {
        self.conn
            .xtest_fake_input(kind, detail, 0, self.root, 0, 0, 0)
            .map_err(lost)?;
        Ok(())
    }

    fn key_down(&mut self, code: Keycode) -> Result<(), DeskError> {
        self.keys.push(code);
        self.fake(KEY_PRESS_EVENT, code)
    }

    fn key_up(&mut self, code: Keycode) -> Result<(), DeskError> {
        self.keys.retain(|&k| k != code);
        self.fake(KEY_RELEASE_EVENT, code)
    }

    fn tap(&mut self, code: Keycode) -> Result<(), DeskError> {
        self.key_down(code)?;
        self.key_up(code)
    }

    fn button_down(&mut self, button: u8) -> Result<(), DeskError> {
        self.buttons.push(button);
        self.fake(BUTTON_PRESS_EVENT, button)
    }

    fn button_up(&mut self, button: u8) -> Result<(), DeskError> {
        self.buttons.retain(|&b| b != button);
        self.fake(BUTTON_RELEASE_EVENT, button)
    }

    fn flush(&self) -> Result<(), DeskError> {
        self.conn.flush().map_err(lost)
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        for code in std::mem::take(&mut self.keys).into_iter().rev() {
            let _ = self.fake(KEY_RELEASE_EVENT, code);
        }
        for button in std::mem::take(&mut self.buttons).into_iter().rev() {
            let _ = self.fake(BUTTON_RELEASE_EVENT, button);
        }
        let _ = self.conn.flush();
    }
}

/// Waits until the X server has handled every request sent so far.
fn sync(conn: &RustConnection) -> Result<(), DeskError> {
    conn.get_input_focus()
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("a sync round trip", e))?;
    Ok(())
}

pub(super) fn press_keys(
    conn: &RustConnection,
    root: Xid,
    keysyms: &[u32],
) -> Result<(), DeskError> {
    let keymap = Keymap::read(conn)?;
    let mut lent = Vec::new();
    let mut codes = Vec::with_capacity(keysyms.len() + 1);
    for &keysym in keysyms {
        match keymap.find(keysym) {
            Some((code, shifted)) => {
                if shifted && !keysyms.contains(&SHIFT_L) {
                    codes.push(keymap.find(SHIFT_L).ok_or_else(no_shift)?.0);
                }
                codes.push(code);
            }
            None => {
                let code = *keymap
                    .spare()
                    .get(lent.len())
                    .ok_or_else(|| no_spare(keysym))?;
                lend(conn, &keymap, code, keysym)?;
                lent.push(code);
                codes.push(code);
            }
        }
    }
    let result = (|| {
        let mut held = Held::new(conn, root);
        for &code in &codes {
            held.key_down(code)?;
        }
        for &code in codes.iter().rev() {
            held.key_up(code)?;
        }
        held.flush()
    })();
    sync(conn)?;
    restore(conn, &keymap, &lent)?;
    result
}

/// Types text. Characters the layout lacks are typed on spare keycodes lent for the purpose,
/// as many at a time as there are spare keycodes. `settle` waits for the focused app to have
/// read everything sent so far; it runs before a keycode is lent again (the app looks keys up
/// when it reads them, so it must have read the old meaning first), after lending (toolkits
/// refetch the keymap when they read the change notices, and must see the whole batch), and
/// before the keycodes are given back.
pub(super) fn type_text(
    conn: &RustConnection,
    root: Xid,
    text: &str,
    cancel: &Cancel,
    settle: &mut dyn FnMut(),
) -> Result<usize, DeskError> {
    let keymap = Keymap::read(conn)?;
    let spare = keymap.spare();
    let shift = keymap.find(SHIFT_L).map(|(code, _)| code);
    let chars: Vec<u32> = text
        .chars()
        .map(|ch| {
            char_keysym(ch).ok_or_else(|| {
                DeskError::Invalid(format!(
                    "cannot type U+{:04X}: it has no keysym; nothing was typed",
                    ch as u32
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    let total = chars.len();
    let mut sent = 0;
    // Batches lend spare keycodes from the first one on, so the first `lent` have been lent.
    let mut lent = 0;
    let result = (|| {
        let mut held = Held::new(conn, root);
        let mut start = 0;
        while start < total {
            // This batch runs until it would need more spare keycodes than there are.
            let mut batch: Vec<(u32, Keycode)> = Vec::new();
            let mut end = start;
            while end < total {
                let keysym = chars[end];
                if keymap.find(keysym).is_none() && !batch.iter().any(|&(k, _)| k == keysym) {
                    let Some(&code) = spare.get(batch.len()) else {
                        break;
                    };
                    batch.push((keysym, code));
                }
                end += 1;
            }
            if end == start {
                return Err(no_spare(chars[start]));
            }
            if !batch.is_empty() {
                if lent > 0 {
                    held.flush()?;
                    settle();
                }
                for &(keysym, code) in &batch {
                    lend(conn, &keymap, code, keysym)?;
                }
                conn.flush().map_err(lost)?;
                settle();
                lent = lent.max(batch.len());
            }
            for &keysym in &chars[start..end] {
                if cancel.is_cancelled() {
                    return Err(DeskError::Cancelled {
                        done: format!("{sent} of {total} characters were typed"),
                    });
                }
                let (code, shifted) = keymap
                    .find(keysym)
                    .or_else(|| {
                        batch
                            .iter()
                            .find(|&&(k, _)| k == keysym)
                            .map(|&(_, code)| (code, false))
                    })
                    .expect("every keysym of the batch has a keycode");
                let shift = if shifted {
                    Some(shift.ok_or_else(no_shift)?)
                } else {
                    None
                };
                if let Some(shift) = shift {
                    held.key_down(shift)?;
                }
                held.tap(code)?;
                if let Some(shift) = shift {
                    held.key_up(shift)?;
                }
                sent += 1;
            }
            held.flush()?;
            start = end;
        }
        Ok(())
    })();
    if lent > 0 {
        settle();
        restore(conn, &keymap, &spare[..lent])?;
    }
    sync(conn)?;
    result.map(|()| sent)
}

/// Maps `keysym` onto the spare keycode `code`, in every column so no modifier changes it.
fn lend(
    conn: &RustConnection,
    keymap: &Keymap,
    code: Keycode,
    keysym: u32,
) -> Result<(), DeskError> {
    let columns = vec![keysym; usize::from(keymap.per_keycode)];
    conn.change_keyboard_mapping(1, code, keymap.per_keycode, &columns)
        .map_err(lost)?;
    Ok(())
}

/// Gives lent keycodes back their emptiness.
fn restore(conn: &RustConnection, keymap: &Keymap, codes: &[Keycode]) -> Result<(), DeskError> {
    for &code in codes {
        lend(conn, keymap, code, 0)?;
    }
    conn.flush().map_err(lost)
}

fn no_shift() -> DeskError {
    DeskError::Invalid("the keyboard layout has no Shift key; nothing was sent".into())
}

fn no_spare(keysym: u32) -> DeskError {
    DeskError::Invalid(format!(
        "keysym 0x{keysym:x} is not on the keyboard layout and no spare keycode is free to lend it; nothing more was sent"
    ))
}

pub(super) fn move_pointer(
    conn: &RustConnection,
    root: Xid,
    x: i32,
    y: i32,
) -> Result<(), DeskError> {
    let (x, y) = (clamp16(x), clamp16(y));
    conn.xtest_fake_input(MOTION_NOTIFY_EVENT, 0, 0, root, x, y, 0)
        .map_err(lost)?;
    conn.flush().map_err(lost)
}

fn clamp16(v: i32) -> i16 {
    v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}

fn button_number(button: Button) -> u8 {
    match button {
        Button::Left => 1,
        Button::Middle => 2,
        Button::Right => 3,
    }
}

pub(super) fn click(
    conn: &RustConnection,
    root: Xid,
    button: Button,
    count: u8,
) -> Result<(), DeskError> {
    let mut held = Held::new(conn, root);
    let number = button_number(button);
    for _ in 0..count {
        held.button_down(number)?;
        held.button_up(number)?;
    }
    held.flush()?;
    drop(held);
    sync(conn)
}

pub(super) fn scroll(
    conn: &RustConnection,
    root: Xid,
    direction: Direction,
    amount: u32,
    cancel: &Cancel,
) -> Result<(), DeskError> {
    // The core protocol's wheel buttons.
    let button = match direction {
        Direction::Up => 4,
        Direction::Down => 5,
        Direction::Left => 6,
        Direction::Right => 7,
    };
    let mut held = Held::new(conn, root);
    for done in 0..amount {
        if cancel.is_cancelled() {
            return Err(DeskError::Cancelled {
                done: format!("{done} of {amount} notches were scrolled"),
            });
        }
        held.button_down(button)?;
        held.button_up(button)?;
    }
    held.flush()?;
    drop(held);
    sync(conn)
}

pub(super) fn drag(
    conn: &RustConnection,
    root: Xid,
    from: (i32, i32),
    to: (i32, i32),
    cancel: &Cancel,
) -> Result<(), DeskError> {
    move_pointer(conn, root, from.0, from.1)?;
    let mut held = Held::new(conn, root);
    held.button_down(1)?;
    held.flush()?;
    for step in 1..=DRAG_STEPS {
        std::thread::sleep(DRAG_STEP_PAUSE);
        if cancel.is_cancelled() {
            // Dropping `held` releases the button where the pointer is.
            return Err(DeskError::Cancelled {
                done: "the drag stopped part way and the button was released".into(),
            });
        }
        let x = from.0 + (to.0 - from.0) * step / DRAG_STEPS;
        let y = from.1 + (to.1 - from.1) * step / DRAG_STEPS;
        move_pointer(conn, root, x, y)?;
    }
    held.button_up(1)?;
    held.flush()?;
    drop(held);
    sync(conn)
}
