//! Typing exact text, and shortcuts, through `zwp_virtual_keyboard_v1`. A virtual keyboard
//! carries a keymap of shuttle's own, so every character gets a key: a base layout (printable
//! ASCII, editing and function keys, modifiers) keeps its keys in every keymap, and each batch
//! of other characters gets the keys after it, lent for that batch's keymap. Nobody else's
//! layout is touched, and a character no layout has is typed like any other.

use std::os::fd::AsFd;
use std::sync::LazyLock;

use wayland_client::protocol::wl_seat;
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
    zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1,
    zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
};

use crate::device::{Device, SeatCaps};
use crate::session::{Session, WaylandError, timestamp};
use crate::shm::SharedMemory;

/// The first keycode given out (8 is the lowest XKB allows; evdev's code is 8 less).
const FIRST_KEYCODE: u32 = 9;
/// `zwp_virtual_keyboard_v1.keymap`'s format: an XKB keymap, as text.
const XKB_V1: u32 = 1;

ignore_events!(SeatCaps: ZwpVirtualKeyboardManagerV1, ZwpVirtualKeyboardV1);

/// A virtual keyboard on the compositor's `wl_seat`, made once and kept (the `device` module says
/// why).
pub struct Keyboard {
    device: Device,
    keyboard: ZwpVirtualKeyboardV1,
    first: bool,
}

impl Session {
    /// A virtual keyboard of shuttle's own on the compositor's first `wl_seat`, once the
    /// `wl_seat` says it has a keyboard.
    pub fn keyboard(&self) -> Result<Keyboard, WaylandError> {
        let needed_for = "keys and typing";
        let (device, keyboard, first) =
            self.device(wl_seat::Capability::Keyboard, needed_for, |qh, wl_seat| {
                let manager: ZwpVirtualKeyboardManagerV1 = self
                    .globals
                    .bind(qh, 1..=1, ())
                    .map_err(|_| WaylandError::Missing {
                        protocol: "zwp_virtual_keyboard_manager_v1",
                        needed_for,
                    })?;
                Ok(manager.create_virtual_keyboard(wl_seat, qh, ()))
            })?;
        Ok(Keyboard {
            device,
            keyboard,
            first,
        })
    }
}

impl Keyboard {
    /// Whether it gave the `wl_seat` its first device of its kind: apps running then bind theirs
    /// only after, each on its own time, and input sent before that is lost to them.
    pub fn first_of_its_kind(&self) -> bool {
        self.first
    }

    /// Types `text` exactly. The characters of the base layout keep their keys; the others get
    /// lent keys, batch by batch, each batch with its keymap.
    pub fn type_text(&mut self, text: &str) -> Result<(), WaylandError> {
        let keysyms: Vec<u32> = text.chars().map(char_keysym).collect();
        let mut start = 0;
        while start < keysyms.len() {
            let (lent, end) = batch(&keysyms[start..]);
            self.upload(&keymap(&lent))?;
            for &keysym in &keysyms[start..start + end] {
                let code = keycode(keysym, &lent);
                self.keyboard.key(timestamp(), code - 8, 1);
                self.keyboard.key(timestamp(), code - 8, 0);
            }
            self.device.sync()?;
            start += end;
        }
        Ok(())
    }

    /// Presses `keysyms` in order (modifiers first), then releases them in reverse order; the
    /// modifiers they hold are sent as the keyboard's state as they go.
    pub fn press_keys(&mut self, keysyms: &[u32]) -> Result<(), WaylandError> {
        let (lent, end) = batch(keysyms);
        if end < keysyms.len() {
            return Err(WaylandError::Refused(format!(
                "a combination of {} keys: at most {} of them outside the base layout",
                keysyms.len(),
                lent_keys()
            )));
        }
        self.upload(&keymap(&lent))?;
        let mut held = 0;
        for &keysym in keysyms {
            self.keyboard
                .key(timestamp(), keycode(keysym, &lent) - 8, 1);
            if let Some(mask) = modifier_mask(keysym) {
                held |= mask;
                self.keyboard.modifiers(held, 0, 0, 0);
            }
        }
        for &keysym in keysyms.iter().rev() {
            self.keyboard
                .key(timestamp(), keycode(keysym, &lent) - 8, 0);
            if let Some(mask) = modifier_mask(keysym) {
                held &= !mask;
                self.keyboard.modifiers(held, 0, 0, 0);
            }
        }
        self.device.sync()
    }

    /// Hands the compositor `keymap`, and waits until it has it.
    fn upload(&mut self, keymap: &str) -> Result<(), WaylandError> {
        let mut bytes = keymap.as_bytes().to_vec();
        bytes.push(0);
        let memory = SharedMemory::holding(&bytes, "a keymap")?;
        self.keyboard
            .keymap(XKB_V1, memory.fd.as_fd(), bytes.len() as u32);
        self.device.sync()
    }
}

/// The keys every keymap holds, on the same keycodes from [`FIRST_KEYCODE`] up: printable
/// ASCII, the editing and function keys, and the modifiers. Apps keep a table of which key
/// gives which keysym and may not renew it when a keymap changes (GTK 3's shortcuts do not),
/// so a shortcut's keys must never move.
static BASE: LazyLock<Vec<u32>> = LazyLock::new(|| {
    let mut base: Vec<u32> = (0x20..=0x7e).collect();
    base.extend([
        0xff0d, 0xff09, 0xff08, 0xff1b, 0xffff, // Return, Tab, BackSpace, Escape, Delete
        0xff50, 0xff57, 0xff51, 0xff52, 0xff53, 0xff54, // Home, End, Left, Up, Right, Down
        0xff55, 0xff56, 0xff63, 0xff67, // Page_Up, Page_Down, Insert, Menu
        0xffe1, 0xffe3, 0xffe9, 0xffeb, // Shift_L, Control_L, Alt_L, Super_L
    ]);
    base.extend(0xffbe..=0xffc9); // F1 to F12
    base
});

/// How many keys are lent per keymap, on the keycodes after the base layout's (up to 255).
fn lent_keys() -> usize {
    255 - FIRST_KEYCODE as usize + 1 - BASE.len()
}

/// The keysyms outside the base layout in the longest start of `keysyms` whose such keysyms
/// fit the lent keys, and how many keysyms that start holds.
fn batch(keysyms: &[u32]) -> (Vec<u32>, usize) {
    let mut lent: Vec<u32> = Vec::new();
    for (i, &keysym) in keysyms.iter().enumerate() {
        if BASE.contains(&keysym) || lent.contains(&keysym) {
            continue;
        }
        if lent.len() == lent_keys() {
            return (lent, i);
        }
        lent.push(keysym);
    }
    (lent, keysyms.len())
}

/// The keycode of `keysym`: its base key, else its lent one.
fn keycode(keysym: u32, lent: &[u32]) -> u32 {
    let index = BASE
        .iter()
        .position(|&k| k == keysym)
        .or_else(|| {
            lent.iter()
                .position(|&k| k == keysym)
                .map(|i| BASE.len() + i)
        })
        .unwrap_or_default();
    FIRST_KEYCODE + index as u32
}

/// An XKB keymap with the base layout and then `lent`, one level each, the modifiers mapped.
fn keymap(lent: &[u32]) -> String {
    let mut codes = String::new();
    let mut symbols = String::new();
    for (i, &keysym) in BASE.iter().chain(lent).enumerate() {
        let code = FIRST_KEYCODE as usize + i;
        codes += &format!("    <K{code}> = {code};\n");
        symbols += &format!("    key <K{code}> {{ [ 0x{keysym:x} ] }};\n");
        if let Some(modifier) = modifier_name(keysym) {
            symbols += &format!("    modifier_map {modifier} {{ <K{code}> }};\n");
        }
    }
    format!(
        "xkb_keymap {{\n  xkb_keycodes \"shuttle\" {{\n    minimum = 8;\n    maximum = 255;\n{codes}  }};\n  \
         xkb_types \"shuttle\" {{ include \"complete\" }};\n  \
         xkb_compat \"shuttle\" {{ include \"complete\" }};\n  \
         xkb_symbols \"shuttle\" {{\n{symbols}  }};\n}};\n"
    )
}

/// The keysym a character types: Return for a line break, Tab, BackSpace, else its own.
fn char_keysym(c: char) -> u32 {
    match c {
        '\u{8}' => 0xff08,
        c => desk::keys::char_keysym(c).unwrap_or(0x0100_0000 + c as u32),
    }
}

/// The real modifier a modifier keysym is mapped to, and its bit in a modifier mask.
fn modifier(keysym: u32) -> Option<(&'static str, u32)> {
    match keysym {
        0xffe1 | 0xffe2 => Some(("Shift", 1)),
        0xffe3 | 0xffe4 => Some(("Control", 1 << 2)),
        0xffe7..=0xffea => Some(("Mod1", 1 << 3)),
        0xffeb | 0xffec => Some(("Mod4", 1 << 6)),
        _ => None,
    }
}

fn modifier_name(keysym: u32) -> Option<&'static str> {
    modifier(keysym).map(|(name, _)| name)
}

fn modifier_mask(keysym: u32) -> Option<u32> {
    modifier(keysym).map(|(_, mask)| mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_base_layout_leaves_most_keycodes_to_lend() {
        assert_eq!(BASE.len() + lent_keys(), 255 - FIRST_KEYCODE as usize + 1);
        assert!(lent_keys() >= 100, "{}", lent_keys());
    }

    #[test]
    fn a_batch_lends_keys_only_outside_the_base_and_stops_where_they_run_out() {
        let text: Vec<u32> = "aé\né日".chars().map(char_keysym).collect();
        let (lent, taken) = batch(&text);
        assert_eq!(lent, [char_keysym('é'), char_keysym('日')]);
        assert_eq!(taken, 5);
        assert_eq!(keycode(0x61, &lent), FIRST_KEYCODE + 0x41);
        assert_eq!(
            keycode(char_keysym('日'), &lent),
            FIRST_KEYCODE + BASE.len() as u32 + 1
        );
        let many: Vec<u32> = (0..300).map(|i| 0x0100_4e00 + i).collect();
        let (lent, taken) = batch(&many);
        assert_eq!((lent.len(), taken), (lent_keys(), lent_keys()));
    }

    #[test]
    fn the_keymap_keeps_a_shortcuts_key_and_maps_the_modifiers() {
        let text = keymap(&[char_keysym('é')]);
        assert!(text.contains("key <K74> { [ 0x61 ] };"), "{text}");
        assert!(text.contains("modifier_map Control {"), "{text}");
        assert!(
            text.contains(&format!("[ 0x{:x} ]", char_keysym('é'))),
            "{text}"
        );
    }
}
