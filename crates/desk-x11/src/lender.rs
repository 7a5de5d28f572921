//! Lending spare keycodes to characters the keyboard layout lacks.
//!
//! An X client looks a key up in its copy of the keymap when it gets round to handling the key,
//! which can be well after the key was sent and even after it answered a ping (GTK, for one,
//! reads events before it translates them). So a lent keycode must keep its meaning until the
//! app has surely handled every key sent on it: a keycode is lent again, or given back, only
//! once it has gone unused for [`KEEP_FOR`]. Each spare keycode carries two characters, one
//! plain and one under Shift, which doubles what one keymap change can lend before a keycode
//! must be reused (and so waited for). Typing the same characters again reuses their keycodes
//! without touching the keymap, and every keymap change lends or gives back as many
//! characters as it can at once, since each change costs every client on the display a keymap
//! reload. Lent keycodes go back to what they were once typing has been idle for
//! [`RETURN_AFTER`], and when the daemon stops.
//!
//! The keycodes on loan are also listed in a property of the root window, so a daemon that was
//! killed before it could give them back leaves a record the next one finds and gives back as
//! it connects.

use std::time::{Duration, Instant};

use crate::patient::Conn;
use x11rb::connection::Connection;
use x11rb::protocol::xkb::KeySymMap;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, Keycode, PropMode, Window as Xid};
use x11rb::wrapper::ConnectionExt as _;

use super::keymap::Keymap;
use super::xkbkeys;
use crate::errors::{lost, reply_error};
use desk::Cancel;
use desk::DeskError;

/// How long a lent keycode keeps its meaning after it was last pressed.
const KEEP_FOR: Duration = Duration::from_millis(500);
/// How long typing must be idle before lent keycodes go back.
pub(super) const RETURN_AFTER: Duration = Duration::from_secs(1);

/// One spare keycode and what it is lent to: a keysym at each of its two levels.
struct Slot {
    code: Keycode,
    /// The keysyms it carries for us, plain and under Shift; 0 where nothing is lent.
    levels: [u32; 2],
    /// When the keycode was last pressed (either level).
    last_used: Instant,
    /// What the keycode carried before we lent it, to give back exactly that.
    original: KeySymMap,
}

impl Slot {
    fn lent(&self) -> bool {
        self.levels != [0, 0]
    }
}

/// The spare keycodes, found when first needed.
pub(super) struct Lender {
    root: Xid,
    /// The root window property that lists the keycodes on loan.
    record: u32,
    slots: Option<Vec<Slot>>,
}

impl Lender {
    /// A lender that records its loans in property `record` of `root`.
    pub(super) fn new(root: Xid, record: u32) -> Self {
        Self {
            root,
            record,
            slots: None,
        }
    }

    /// The slots: the keycodes the layout leaves empty, and those an earlier daemon lent and
    /// did not give back (which go back to empty).
    fn slots(&mut self, conn: &Conn, keymap: &Keymap) -> Result<&mut Vec<Slot>, DeskError> {
        if self.slots.is_none() {
            xkbkeys::enable(conn)?;
            let long_ago = Instant::now()
                .checked_sub(KEEP_FOR)
                .unwrap_or_else(Instant::now);
            let mut slots: Vec<Slot> = keymap
                .empty_keycodes()
                .into_iter()
                .map(|code| Slot {
                    code,
                    levels: [0, 0],
                    last_used: long_ago,
                    original: xkbkeys::empty(),
                })
                .collect();
            for code in self.recorded(conn)? {
                let levels = keymap.levels(code);
                if levels != [0, 0]
                    && keymap.lent_looking(code)
                    && slots.iter().all(|s| s.code != code)
                {
                    slots.push(Slot {
                        code,
                        levels,
                        last_used: long_ago,
                        original: xkbkeys::empty(),
                    });
                }
            }
            self.slots = Some(slots);
        }
        Ok(self.slots.as_mut().expect("filled above"))
    }

    /// The keycodes the root window's record lists.
    fn recorded(&self, conn: &Conn) -> Result<Vec<Keycode>, DeskError> {
        let reply = conn
            .get_property(false, self.root, self.record, AtomEnum::CARDINAL, 0, 256)
            .map_err(lost)?
            .reply()
            .map_err(|e| reply_error("the record of lent keycodes", e))?;
        Ok(reply
            .value32()
            .map(|codes| codes.filter_map(|c| Keycode::try_from(c).ok()).collect())
            .unwrap_or_default())
    }

    /// Writes the keycodes on loan to the root window's record.
    fn record(&self, conn: &Conn) -> Result<(), DeskError> {
        let lent: Vec<u32> = self
            .slots
            .iter()
            .flatten()
            .filter(|s| s.lent())
            .map(|s| u32::from(s.code))
            .collect();
        conn.change_property32(
            PropMode::REPLACE,
            self.root,
            self.record,
            AtomEnum::CARDINAL,
            &lent,
        )
        .map_err(lost)?;
        Ok(())
    }

    /// Makes keycodes carry `wanted` (keysyms the layout lacks, in the order they are needed):
    /// as many as there are levels free to lend (plain ones first, they need no Shift), and
    /// always at least the first, waiting for a lent keycode to age when every one was used
    /// just now. One keymap change for all of them; `settle` then waits for the app to take the
    /// new keymap in. `keymap` is read afresh.
    pub(super) fn lend(
        &mut self,
        conn: &Conn,
        keymap: &mut Keymap,
        wanted: &[u32],
        cancel: &Cancel,
        settle: &mut dyn FnMut(),
    ) -> Result<(), DeskError> {
        let Some(&first) = wanted.first() else {
            return Ok(());
        };
        let slots = self.slots(conn, keymap)?;
        if slots.is_empty() {
            return Err(DeskError::Invalid(format!(
                "keysym 0x{first:x} is not on the keyboard layout, and the layout leaves no \
                 keycode free to lend it"
            )));
        }
        let mut changes = Vec::new();
        loop {
            // Free levels first, then those of keycodes unused for longest, never one that
            // carries a keysym still wanted: a keycode pressed within KEEP_FOR keeps both its
            // keysyms, and a level that changes leaves the other as it was.
            let mut free: Vec<(usize, usize)> = Vec::new();
            for (index, slot) in slots.iter().enumerate() {
                let aged = slot.last_used.elapsed() >= KEEP_FOR;
                for level in 0..2 {
                    let keysym = slot.levels[level];
                    if keysym == 0 || (aged && !wanted.contains(&keysym)) {
                        free.push((index, level));
                    }
                }
            }
            free.sort_by_key(|&(index, level)| {
                let slot = &slots[index];
                (slot.levels[level] != 0, level, slot.last_used)
            });
            let mut touched: Vec<usize> = Vec::new();
            for ((index, level), &keysym) in free.into_iter().zip(wanted) {
                let slot = &mut slots[index];
                if !slot.lent() {
                    slot.original = xkbkeys::read(conn, slot.code, slot.code)?.remove(0);
                }
                slot.levels[level] = keysym;
                slot.last_used = Instant::now();
                if !touched.contains(&index) {
                    touched.push(index);
                }
            }
            changes.extend(
                touched
                    .iter()
                    .map(|&index| (slots[index].code, xkbkeys::lent(slots[index].levels))),
            );
            if !changes.is_empty() {
                break;
            }
            let oldest = slots
                .iter()
                .map(|s| s.last_used)
                .min()
                .expect("slots is not empty");
            if cancel.is_cancelled() {
                return Err(DeskError::Cancelled {
                    done: "typing stopped while waiting for a spare keycode".into(),
                });
            }
            std::thread::sleep(
                (oldest + KEEP_FOR)
                    .saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(20)),
            );
        }
        conn.flush().map_err(lost)?;
        // On record before the keymap changes: a daemon killed between the two leaves a
        // record of a loan not made yet, which the next one finds harmless, never a loan off
        // the record.
        self.record(conn)?;
        xkbkeys::write(conn, &changes)?;
        *keymap = Keymap::read(conn)?;
        settle();
        Ok(())
    }

    /// Records that `code` was just pressed.
    pub(super) fn pressed(&mut self, code: Keycode) {
        if let Some(slot) = self.slots.iter_mut().flatten().find(|s| s.code == code) {
            slot.last_used = Instant::now();
        }
    }

    /// Gives back every lent keycode unused for `idle` (all of them for zero), including those
    /// an earlier daemon recorded and did not give back.
    pub(super) fn give_back(&mut self, conn: &Conn, idle: Duration) -> Result<(), DeskError> {
        let keymap = Keymap::read(conn)?;
        let due: Vec<(Keycode, KeySymMap)> = self
            .slots(conn, &keymap)?
            .iter_mut()
            .filter(|s| s.lent() && s.last_used.elapsed() >= idle)
            .map(|s| {
                s.levels = [0, 0];
                (s.code, std::mem::replace(&mut s.original, xkbkeys::empty()))
            })
            .collect();
        if due.is_empty() {
            return Ok(());
        }
        xkbkeys::write(conn, &due)?;
        self.record(conn)?;
        conn.flush().map_err(lost)
    }

    /// Gives back at once whatever an earlier daemon lent and left on record. Only for the
    /// first connection of a process to a display (see [`crate::X11Backend::connect`]).
    pub(super) fn reclaim(&mut self, conn: &Conn) -> Result<(), DeskError> {
        if self.recorded(conn)?.is_empty() {
            return Ok(());
        }
        tracing::warn!("giving back keycodes that a daemon which ended abruptly left on loan");
        self.give_back(conn, Duration::ZERO)
    }

    /// Whether any keycode is lent right now.
    pub(super) fn lending(&self) -> bool {
        self.slots.iter().flatten().any(Slot::lent)
    }
}
