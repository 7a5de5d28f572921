//! The core keyboard mapping: which keysyms each keycode carries.

use crate::patient::Conn;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, Keycode};

use crate::errors::{lost, reply_error};
use desk::DeskError;

/// A copy of the server's keyboard mapping, kept in step with the changes we make.
pub(super) struct Keymap {
    min_keycode: Keycode,
    per_keycode: u8,
    keysyms: Vec<u32>,
}

impl Keymap {
    pub(super) fn read(conn: &Conn) -> Result<Self, DeskError> {
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

    /// Keycodes that carry no keysym at all. The lowest keycode is left out: some servers
    /// treat it specially.
    pub(super) fn empty_keycodes(&self) -> Vec<Keycode> {
        self.columns()
            .filter(|(code, syms)| *code > self.min_keycode && syms.iter().all(|&s| s == 0))
            .map(|(code, _)| code)
            .collect()
    }

    fn columns_of(&self, code: Keycode) -> &[u32] {
        let per = usize::from(self.per_keycode.max(1));
        let start = usize::from(code.saturating_sub(self.min_keycode)) * per;
        self.keysyms.get(start..start + per).unwrap_or_default()
    }

    /// The keysyms in the first two columns of `code`: plain, and under Shift.
    pub(super) fn levels(&self, code: Keycode) -> [u32; 2] {
        let columns = self.columns_of(code);
        [0, 1].map(|i| columns.get(i).copied().unwrap_or(0))
    }

    /// Whether `code` looks as a lent keycode does: at most two keysyms (plain and under
    /// Shift), repeated in whichever other columns the server fills, or nothing at all.
    pub(super) fn lent_looking(&self, code: Keycode) -> bool {
        let mut distinct: Vec<u32> = Vec::new();
        for &keysym in self.columns_of(code) {
            if keysym != 0 && !distinct.contains(&keysym) {
                distinct.push(keysym);
            }
        }
        distinct.len() <= 2
    }
}
