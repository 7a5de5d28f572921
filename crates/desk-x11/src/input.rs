//! Synthetic input over XTest: keys, typing, buttons, wheel and pointer motion, from the core
//! devices or from an agent's own pair ([`Via`]).
//!
//! Every press goes through [`Held`], which releases whatever is still down when it is dropped,
//! so an error or a cancel never leaves a key or button stuck.

use std::time::Duration;

use crate::patient::Conn;
use desk_core::call::{Button, Direction};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT, ConnectionExt as _, KEY_PRESS_EVENT,
    KEY_RELEASE_EVENT, KeyButMask, Keycode, MOTION_NOTIFY_EVENT, Window as Xid,
};
use x11rb::protocol::xtest::ConnectionExt as _;

use crate::errors::{lost, rejected, reply_error};
use desk::Cancel;
use desk::DeskError;
use desk::keys::char_keysym;

use super::agent_devices::AgentDevices;
use super::foreign_keys::{self, Blocked, WAIT_FOR_RELEASE};
use super::keymap::Keymap;
use super::leftover;
use super::lender::Lender;
use super::wm;

/// Keysym of the left Shift key.
const SHIFT_L: u32 = 0xffe1;
/// Keysym of the Caps Lock key.
const CAPS_LOCK: u32 = 0xffe5;
/// Steps of pointer motion between the ends of a drag.
const DRAG_STEPS: i32 = 12;
/// Pause between drag steps, so apps see a motion rather than a jump.
const DRAG_STEP_PAUSE: Duration = Duration::from_millis(8);

/// Where input goes: the root window, and the record of what this daemon holds down.
#[derive(Debug, Clone, Copy)]
pub(super) struct Core {
    pub(super) root: Xid,
    pub(super) held: leftover::Record,
}

/// Which devices fake input comes from.
#[derive(Clone, Copy)]
pub(super) enum Via<'a> {
    /// The core pointer and keyboard: the person's own.
    Core(Core),
    /// An agent's own pair, whose keyboard focus is its own. What it holds down needs no
    /// record: a pair a killed daemon left behind is removed whole by the next one.
    Agent(&'a AgentDevices),
}

/// Keys and buttons currently held down by us; all released on drop.
struct Held<'c> {
    conn: &'c Conn,
    via: Via<'c>,
    keys: Vec<Keycode>,
    buttons: Vec<u8>,
    /// Whether the record lists something.
    recorded: bool,
}

impl<'c> Held<'c> {
    fn new(conn: &'c Conn, via: Via<'c>) -> Self {
        Self {
            conn,
            via,
            keys: Vec::new(),
            buttons: Vec::new(),
            recorded: false,
        }
    }

    fn fake(&self, kind: u8, detail: u8) -> Result<(), DeskError> {
        match self.via {
            Via::Core(core) => {
                self.conn
                    .xtest_fake_input(kind, detail, 0, core.root, 0, 0, 0)
                    .map_err(lost)?;
                Ok(())
            }
            Via::Agent(agent) => agent.send(kind, detail, 0, 0),
        }
    }

    fn key_down(&mut self, code: Keycode) -> Result<(), DeskError> {
        self.keys.push(code);
        self.fake(KEY_PRESS_EVENT, code)
    }

    fn key_up(&mut self, code: Keycode) -> Result<(), DeskError> {
        self.keys.retain(|&k| k != code);
        self.fake(KEY_RELEASE_EVENT, code)
    }

    /// Puts `codes` on record before a batch that presses and releases them goes out: should
    /// the batch reach the server only in part (the daemon killed while writing it), the next
    /// daemon releases whichever of them is left down. The record goes when the batch is done.
    fn announce(&mut self, codes: &[Keycode]) {
        if let Via::Core(core) = self.via {
            core.held.hold(self.conn, codes, &self.buttons);
            self.recorded = true;
        }
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

    /// Sends what is queued. Whatever stays down past this point goes on record first, for
    /// the next daemon to release should this one be killed meanwhile.
    fn flush(&mut self) -> Result<(), DeskError> {
        self.note();
        match self.via {
            Via::Core(_) => self.conn.flush().map_err(lost),
            Via::Agent(agent) => agent.flush(),
        }
    }

    fn note(&mut self) {
        let Via::Core(core) = self.via else {
            return;
        };
        if !self.keys.is_empty() || !self.buttons.is_empty() {
            core.held.hold(self.conn, &self.keys, &self.buttons);
            self.recorded = true;
        } else if self.recorded {
            core.held.clear(self.conn);
            self.recorded = false;
        }
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
        let _ = self.flush();
    }
}

/// Waits until the X server has handled every request sent so far, the agent's included.
fn sync_via(conn: &Conn, via: Via<'_>) -> Result<(), DeskError> {
    match via {
        Via::Core(_) => sync(conn),
        Via::Agent(agent) => agent.sync(),
    }
}

/// Waits until the X server has handled every request sent so far.
fn sync(conn: &Conn) -> Result<(), DeskError> {
    conn.get_input_focus()
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("a sync round trip", e))?;
    Ok(())
}

/// What typing needs besides the connection: the keycodes it may borrow, a way to wait for
/// the focused app, the cancel flag, and the window the keys must go to.
pub(super) struct Typing<'a> {
    pub(super) lender: &'a mut Lender,
    pub(super) settle: &'a mut dyn FnMut(),
    pub(super) cancel: &'a Cancel,
    pub(super) focused: Option<Xid>,
}

/// Refuses to send when the keyboard focus has left `focused`, the window keys must go to.
fn check_focus(conn: &Conn, via: Via<'_>, focused: Option<Xid>) -> Result<(), DeskError> {
    let Some(window) = focused else {
        return Ok(());
    };
    let within = match via {
        Via::Core(core) => wm::focus_within(conn, core.root, window)?,
        Via::Agent(agent) => agent.focused()? == window,
    };
    if within {
        Ok(())
    } else {
        Err(DeskError::Changed(format!(
            "the keyboard focus left window 0x{window:x}, where the keys were going"
        )))
    }
}

/// Sends a batch of keys once `check` passes. On the core keyboard that waits until no one
/// else holds a modifier (see [`foreign_keys`]); an agent's keyboard has modifiers of its own.
fn when_free<T>(
    conn: &Conn,
    via: Via<'_>,
    cancel: &Cancel,
    check: impl Fn() -> Result<(), DeskError>,
    send: impl FnOnce() -> Result<T, DeskError>,
) -> Result<T, Blocked> {
    match via {
        Via::Core(_) => foreign_keys::when_free(conn, cancel, check, send),
        Via::Agent(_) if cancel.is_cancelled() => Err(Blocked::Cancelled),
        Via::Agent(_) => {
            check().map_err(Blocked::Failed)?;
            send().map_err(Blocked::SendFailed)
        }
    }
}

pub(super) fn press_keys(
    conn: &Conn,
    via: Via<'_>,
    keysyms: &[u32],
    typing: Typing<'_>,
) -> Result<(), DeskError> {
    let unsent = DeskError::unsent;
    let mut keymap = Keymap::read(conn).map_err(unsent)?;
    let wanted = missing(&keymap, keysyms);
    typing
        .lender
        .lend(conn, &mut keymap, &wanted, typing.cancel, typing.settle)
        .map_err(unsent)?;
    let mut codes = Vec::with_capacity(keysyms.len() + 1);
    for &keysym in keysyms {
        let (code, shifted) = on_keyboard(&keymap, keysym).map_err(unsent)?;
        if shifted && !keysyms.contains(&SHIFT_L) {
            codes.push(keymap.find(SHIFT_L).ok_or_else(no_shift).map_err(unsent)?.0);
        }
        codes.push(code);
    }
    let lender = &mut *typing.lender;
    when_free(
        conn,
        via,
        typing.cancel,
        || check_focus(conn, via, typing.focused),
        || {
            let mut held = Held::new(conn, via);
            held.announce(&codes);
            for &code in &codes {
                held.key_down(code)?;
                lender.pressed(code);
            }
            for &code in codes.iter().rev() {
                held.key_up(code)?;
            }
            Ok(())
        },
    )
    .map_err(|blocked| match blocked {
        Blocked::Cancelled => unsent(DeskError::Cancelled {
            done: "no key had been pressed".into(),
        }),
        Blocked::Held(keys) => unsent(held_down(&keys, "the keys")),
        Blocked::Failed(e) => unsent(e),
        Blocked::SendFailed(e) => e,
    })?;
    sync_via(conn, via)
}

/// The error for modifiers someone else kept down.
fn held_down(keys: &str, what: &str) -> DeskError {
    DeskError::KeysHeld {
        keys: keys.into(),
        what: what.into(),
        after_s: WAIT_FOR_RELEASE.as_secs(),
    }
}

/// How many characters typing sends before it waits for the app to read them.
const PACE_EVERY: usize = 32;

/// Types text; characters the layout lacks go out on lent keycodes (see [`Lender`]). Text goes
/// out in batches, each only while no one else holds a modifier (see [`foreign_keys`]); after
/// each the app is given time to read it, so a stop lands between batches rather than after
/// everything already queued in the X server, and `progress` is told how much went out.
pub(super) fn type_text(
    conn: &Conn,
    via: Via<'_>,
    text: &str,
    typing: Typing<'_>,
    progress: &desk::Progress,
) -> Result<usize, DeskError> {
    let unsent = DeskError::unsent;
    let mut keymap = Keymap::read(conn).map_err(unsent)?;
    let shift = keymap.find(SHIFT_L).map(|(code, _)| code);
    let chars: Vec<u32> = text
        .chars()
        .map(|ch| {
            char_keysym(ch).ok_or_else(|| {
                unsent(DeskError::Invalid(format!(
                    "cannot type U+{:04X}: it has no keysym",
                    ch as u32
                )))
            })
        })
        .collect::<Result<_, _>>()?;
    let total = chars.len();
    // Caps Lock would invert the case of every letter: switch it off while typing. (An
    // agent's keyboard has a lock of its own, which shuttle never turns on.)
    let caps = match via {
        Via::Core(core) => caps_lock_on(conn, core.root)
            .map_err(unsent)?
            .then(|| keymap.find(CAPS_LOCK).map(|(code, _)| code))
            .flatten(),
        Via::Agent(_) => None,
    };
    if let Some(code) = caps {
        Held::new(conn, via).tap(code).map_err(unsent)?;
    }
    let mut sent = 0;
    let result = (|| {
        while sent < total {
            if sent > 0 {
                sync_via(conn, via).map_err(Blocked::Failed)?;
                (typing.settle)();
            }
            if typing.cancel.is_cancelled() {
                return Err(Blocked::Cancelled);
            }
            let mut end = on_keyboard_from(&keymap, &chars, sent);
            if end == sent {
                let wanted = missing(&keymap, &chars[sent..]);
                typing
                    .lender
                    .lend(conn, &mut keymap, &wanted, typing.cancel, typing.settle)
                    .map_err(Blocked::Failed)?;
                end = on_keyboard_from(&keymap, &chars, sent);
            }
            // Every key of the batch is found before any goes out, so a batch goes whole or
            // not at all, short of a broken connection.
            let mut keys = Vec::with_capacity(end - sent);
            for &keysym in &chars[sent..end.max(sent + 1)] {
                let (code, shifted) = on_keyboard(&keymap, keysym).map_err(Blocked::Failed)?;
                let shift = match shifted {
                    true => Some(shift.ok_or_else(no_shift).map_err(Blocked::Failed)?),
                    false => None,
                };
                keys.push((code, shift));
            }
            let lender = &mut *typing.lender;
            when_free(
                conn,
                via,
                typing.cancel,
                || check_focus(conn, via, typing.focused),
                || {
                    let mut held = Held::new(conn, via);
                    let codes: Vec<Keycode> = keys
                        .iter()
                        .flat_map(|&(code, shift)| [Some(code), shift])
                        .flatten()
                        .collect();
                    held.announce(&codes);
                    for &(code, shift) in &keys {
                        if let Some(shift) = shift {
                            held.key_down(shift)?;
                        }
                        held.tap(code)?;
                        lender.pressed(code);
                        if let Some(shift) = shift {
                            held.key_up(shift)?;
                        }
                    }
                    Ok(())
                },
            )?;
            sent += keys.len();
            progress.typed(sent, total);
        }
        Ok(())
    })();
    if let Some(code) = caps {
        Held::new(conn, via).tap(code)?;
    }
    sync_via(conn, via)?;
    let (why, maybe_more) = match result {
        Ok(()) => return Ok(sent),
        Err(Blocked::Cancelled) => ("cancelled before it finished".to_string(), false),
        Err(Blocked::Held(keys)) => (held_down(&keys, "the text").to_string(), false),
        Err(Blocked::Failed(e)) => (e.to_string(), false),
        Err(Blocked::SendFailed(e)) => (
            format!("{e}; some of the characters after those may have gone out too"),
            true,
        ),
    };
    let ended = DeskError::TypingEnded {
        why,
        typed: sent,
        total,
    };
    Err(if sent == 0 && !maybe_more {
        unsent(ended)
    } else {
        ended
    })
}

/// Where the run of characters from `start` that the keymap has ends, at most
/// [`PACE_EVERY`] long.
fn on_keyboard_from(keymap: &Keymap, chars: &[u32], start: usize) -> usize {
    let mut end = start;
    while end < chars.len() && end - start < PACE_EVERY && keymap.find(chars[end]).is_some() {
        end += 1;
    }
    end
}

/// The keysyms of `keysyms` the keymap lacks, each once, in order.
fn missing(keymap: &Keymap, keysyms: &[u32]) -> Vec<u32> {
    let mut wanted = Vec::new();
    for &keysym in keysyms {
        if keymap.find(keysym).is_none() && !wanted.contains(&keysym) {
            wanted.push(keysym);
        }
    }
    wanted
}

/// The keycode for `keysym`, which the keymap has (lending made sure of it).
fn on_keyboard(keymap: &Keymap, keysym: u32) -> Result<(u8, bool), DeskError> {
    keymap.find(keysym).ok_or_else(|| {
        rejected(
            "a keycode change",
            format!("keysym 0x{keysym:x} is still not on the keyboard after lending it a keycode"),
        )
    })
}

fn caps_lock_on(conn: &Conn, root: Xid) -> Result<bool, DeskError> {
    let pointer = conn
        .query_pointer(root)
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("the modifier state", e))?;
    Ok(pointer.mask.contains(KeyButMask::LOCK))
}

fn no_shift() -> DeskError {
    DeskError::Invalid("the keyboard layout has no Shift key".into())
}

pub(super) fn move_pointer(conn: &Conn, root: Xid, x: i32, y: i32) -> Result<(), DeskError> {
    let (x, y) = (clamp16(x), clamp16(y));
    conn.xtest_fake_input(MOTION_NOTIFY_EVENT, 0, 0, root, x, y, 0)
        .map_err(lost)?;
    conn.flush().map_err(lost)
}

pub(super) fn clamp16(v: i32) -> i16 {
    v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}

fn button_number(button: Button) -> u8 {
    match button {
        Button::Left => 1,
        Button::Middle => 2,
        Button::Right => 3,
    }
}

pub(super) fn click(conn: &Conn, core: Core, button: Button, count: u8) -> Result<(), DeskError> {
    let mut held = Held::new(conn, Via::Core(core));
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
    conn: &Conn,
    via: Via<'_>,
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
    let mut held = Held::new(conn, via);
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
    sync_via(conn, via)
}

pub(super) fn drag(
    conn: &Conn,
    core: Core,
    from: (i32, i32),
    to: (i32, i32),
    cancel: &Cancel,
) -> Result<(), DeskError> {
    let root = core.root;
    move_pointer(conn, root, from.0, from.1)?;
    let mut held = Held::new(conn, Via::Core(core));
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
