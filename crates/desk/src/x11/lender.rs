//! Lending spare keycodes to characters the keyboard layout lacks.
//!
//! An X client looks a key up in its copy of the keymap when it gets round to handling the key,
//! which can be well after the key was sent and even after it answered a ping (GTK, for one,
//! reads events before it translates them). So a lent keycode must keep its meaning until the
//! app has surely handled every key sent on it: a keycode is lent again, or given back, only
//! once it has gone unused for a while. Typing the same characters again reuses their keycodes
//! without touching the keymap at all, and the keycodes go back to empty once typing has been
//! idle for [`RETURN_AFTER`], and when the daemon stops.
//!
//! The keycodes on loan are also listed in a property of the root window, so a daemon that was
//! killed before it could give them back leaves a record the next one finds and reclaims.

use std::time::{Duration, Instant};

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, Keycode, PropMode, Window as Xid};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

use super::keymap::Keymap;
use super::lost;
use crate::cancel::Cancel;
use crate::error::DeskError;

/// How long a lent keycode keeps its meaning after it was last pressed.
const KEEP_FOR: Duration = Duration::from_millis(500);
/// How long typing must be idle before lent keycodes go back to empty.
pub(super) const RETURN_AFTER: Duration = Duration::from_secs(1);

/// One spare keycode and what it is lent to.
struct Slot {
    code: Keycode,
    /// The keysym it carries, or 0 while it is free.
    keysym: u32,
    last_used: Instant,
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
    /// did not give back.
    fn slots(
        &mut self,
        conn: &RustConnection,
        keymap: &Keymap,
    ) -> Result<&mut Vec<Slot>, DeskError> {
        if self.slots.is_none() {
            let long_ago = Instant::now()
                .checked_sub(KEEP_FOR)
                .unwrap_or_else(Instant::now);
            let mut codes = keymap.empty_keycodes();
            for code in self.recorded(conn)? {
                if !codes.contains(&code) && keymap.lent_looking(code) {
                    codes.push(code);
                }
            }
            let slots = codes
                .into_iter()
                .map(|code| Slot {
                    code,
                    keysym: keymap.keysym(code),
                    last_used: long_ago,
                })
                .collect();
            self.slots = Some(slots);
        }
        Ok(self.slots.as_mut().expect("filled above"))
    }

    /// The keycodes the root window's record lists.
    fn recorded(&self, conn: &RustConnection) -> Result<Vec<Keycode>, DeskError> {
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
    fn record(&self, conn: &RustConnection) -> Result<(), DeskError> {
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

    /// A keycode carrying `keysym`, lending one if the layout has none. May wait for a lent
    /// keycode to age when all of them were used just now; `settle` waits for the app to catch
    /// up after the keymap changed.
    pub(super) fn keycode_for(
        &mut self,
        conn: &RustConnection,
        keymap: &mut Keymap,
        keysym: u32,
        cancel: &Cancel,
        settle: &mut dyn FnMut(),
    ) -> Result<(Keycode, bool), DeskError> {
        if let Some(found) = keymap.find(keysym) {
            return Ok(found);
        }
        let slots = self.slots(conn, keymap)?;
        // A free slot if there is one, else the one unused for longest.
        let slot = slots
            .iter_mut()
            .min_by_key(|s| (s.keysym != 0, s.last_used))
            .ok_or_else(|| {
                DeskError::Invalid(format!(
                    "keysym 0x{keysym:x} is not on the keyboard layout, and the layout leaves no \
                     keycode free to lend it; nothing more was sent"
                ))
            })?;
        if slot.keysym != 0 {
            let ready_at = slot.last_used + KEEP_FOR;
            conn.flush().map_err(lost)?;
            while Instant::now() < ready_at {
                if cancel.is_cancelled() {
                    return Err(DeskError::Cancelled {
                        done: "typing stopped while waiting for a spare keycode".into(),
                    });
                }
                std::thread::sleep((ready_at - Instant::now()).min(Duration::from_millis(20)));
            }
        }
        keymap.set(conn, slot.code, keysym)?;
        slot.keysym = keysym;
        slot.last_used = Instant::now();
        let code = slot.code;
        self.record(conn)?;
        conn.flush().map_err(lost)?;
        settle();
        Ok((code, false))
    }

    /// Records that `code` was just pressed.
    pub(super) fn pressed(&mut self, code: Keycode) {
        if let Some(slot) = self.slots.iter_mut().flatten().find(|s| s.code == code) {
            slot.last_used = Instant::now();
        }
    }

    /// Gives back every lent keycode unused for `idle` (all of them for zero), including those
    /// an earlier daemon recorded and did not give back.
    pub(super) fn give_back(
        &mut self,
        conn: &RustConnection,
        idle: Duration,
    ) -> Result<(), DeskError> {
        let mut keymap = Keymap::read(conn)?;
        let due: Vec<Keycode> = self
            .slots(conn, &keymap)?
            .iter_mut()
            .filter(|s| s.keysym != 0 && s.last_used.elapsed() >= idle)
            .map(|s| {
                s.keysym = 0;
                s.code
            })
            .collect();
        if due.is_empty() {
            return Ok(());
        }
        for code in due {
            keymap.set(conn, code, 0)?;
        }
        self.record(conn)?;
        conn.flush().map_err(lost)
    }

    /// Whether any keycode is lent right now.
    pub(super) fn lending(&self) -> bool {
        self.slots.iter().flatten().any(|s| s.keysym != 0)
    }
}
