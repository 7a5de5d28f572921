//! Lending spare keycodes to characters the keyboard layout lacks.
//!
//! An X client looks a key up in its copy of the keymap when it gets round to handling the key,
//! which can be well after the key was sent and even after it answered a ping (GTK, for one,
//! reads events before it translates them). So a lent keycode must keep its meaning until the
//! app has surely handled every key sent on it: a keycode is lent again, or given back, only
//! once it has gone unused for [`KEEP_FOR`]. Typing the same characters again reuses their
//! keycodes without touching the keymap, and every keymap change lends or gives back as many
//! keycodes as it can at once, since each change costs every client on the display a keymap
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
use super::{lost, xkbkeys};
use desk::Cancel;
use desk::DeskError;

/// How long a lent keycode keeps its meaning after it was last pressed.
const KEEP_FOR: Duration = Duration::from_millis(500);
/// How long typing must be idle before lent keycodes go back.
pub(super) const RETURN_AFTER: Duration = Duration::from_secs(1);

/// One spare keycode and what it is lent to.
struct Slot {
    code: Keycode,
    /// The keysym it carries for us, or 0 while it is not lent.
    keysym: u32,
    last_used: Instant,
    /// What the keycode carried before we lent it, to give back exactly that.
    original: KeySymMap,
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
                    keysym: 0,
                    last_used: long_ago,
                    original: xkbkeys::empty(),
                })
                .collect();
            for code in self.recorded(conn)? {
                let keysym = keymap.keysym(code);
                if keysym != 0 && keymap.lent_looking(code) && slots.iter().all(|s| s.code != code)
                {
                    slots.push(Slot {
                        code,
                        keysym,
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
            .map_err(|e| super::reply_error("the record of lent keycodes", e))?;
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
            .filter(|s| s.keysym != 0)
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
    /// as many as there are keycodes free to lend, and always at least the first, waiting for a
    /// lent keycode to age when every one was used just now. One keymap change for all of them;
    /// `settle` then waits for the app to take the new keymap in. `keymap` is read afresh.
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
            // Free keycodes first, then those unused for longest, never one that carries a
            // keysym still wanted.
            let mut free: Vec<&mut Slot> = slots
                .iter_mut()
                .filter(|s| {
                    s.keysym == 0
                        || (s.last_used.elapsed() >= KEEP_FOR && !wanted.contains(&s.keysym))
                })
                .collect();
            free.sort_by_key(|s| (s.keysym != 0, s.last_used));
            for (slot, &keysym) in free.into_iter().zip(wanted) {
                if slot.keysym == 0 {
                    slot.original = xkbkeys::read(conn, slot.code, slot.code)?.remove(0);
                }
                slot.keysym = keysym;
                slot.last_used = Instant::now();
                changes.push((slot.code, xkbkeys::lent(keysym)));
            }
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
        xkbkeys::write(conn, &changes)?;
        self.record(conn)?;
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
            .filter(|s| s.keysym != 0 && s.last_used.elapsed() >= idle)
            .map(|s| {
                s.keysym = 0;
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

    /// Gives back at once whatever an earlier daemon lent and left on record. Only the first
    /// connection of a process does: a later one (a reconnect after a break) could find loans
    /// that a call still typing on the old connection relies on.
    pub(super) fn reclaim(&mut self, conn: &Conn) -> Result<(), DeskError> {
        static FIRST: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);
        if !FIRST.swap(false, std::sync::atomic::Ordering::Relaxed)
            || self.recorded(conn)?.is_empty()
        {
            return Ok(());
        }
        tracing::warn!("giving back keycodes that a daemon which ended abruptly left on loan");
        self.give_back(conn, Duration::ZERO)
    }

    /// Whether any keycode is lent right now.
    pub(super) fn lending(&self) -> bool {
        self.slots.iter().flatten().any(|s| s.keysym != 0)
    }
}
