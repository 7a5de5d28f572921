//! Which key, with which modifiers, gives a keysym in KWin's keyboard layout. Fake input sends
//! key codes, which KWin reads through its own keymap; shuttle cannot lend keys a keymap of
//! its own as it does on sway, so it finds each character where the layout has it, and what
//! the layout lacks is refused before anything is sent.

use std::collections::HashMap;

use xkbcommon::xkb;

/// The keysyms of the modifiers a level may need, in the order they are tried.
const SHIFT: u32 = 0xffe1; // Shift_L
const LEVEL3: u32 = 0xfe03; // ISO_Level3_Shift

/// A keymap read as the keys to press for each keysym.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keys {
    /// keysym → (evdev key code, evdev key codes of the modifiers held around it).
    found: HashMap<u32, (u32, Vec<u32>)>,
}

impl Keys {
    /// Reads the XKB keymap in `text` (what `wl_keyboard.keymap` sends).
    pub fn from_text(text: &str) -> Option<Self> {
        let context = xkb::Context::new(xkb::CONTEXT_NO_FLAGS);
        let keymap = xkb::Keymap::new_from_string(
            &context,
            text.trim_end_matches('\0').to_string(),
            xkb::KEYMAP_FORMAT_TEXT_V1,
            xkb::KEYMAP_COMPILE_NO_FLAGS,
        )?;
        Some(Self::from_keymap(&keymap))
    }

    fn from_keymap(keymap: &xkb::Keymap) -> Self {
        let codes: Vec<xkb::Keycode> = (keymap.min_keycode().raw()..=keymap.max_keycode().raw())
            .map(xkb::Keycode::new)
            .collect();
        // Each key's symbol with nothing held, then with each set of modifiers, as KWin's own
        // state would compute it: the first way found is kept.
        let plain = |keysym: u32| {
            let state = xkb::State::new(keymap);
            codes
                .iter()
                .copied()
                .find(|&c| state.key_get_one_sym(c).raw() == keysym)
        };
        let mut held_sets: Vec<Vec<xkb::Keycode>> = vec![Vec::new()];
        let shift = plain(SHIFT);
        let level3 = plain(LEVEL3);
        if let Some(s) = shift {
            held_sets.push(vec![s]);
        }
        if let Some(l) = level3 {
            held_sets.push(vec![l]);
            if let Some(s) = shift {
                held_sets.push(vec![l, s]);
            }
        }
        let mut found = HashMap::new();
        for held in &held_sets {
            let mut state = xkb::State::new(keymap);
            for &h in held {
                state.update_key(h, xkb::KeyDirection::Down);
            }
            for &code in &codes {
                let sym = state.key_get_one_sym(code).raw();
                if sym == 0 || held.contains(&code) {
                    continue;
                }
                found
                    .entry(sym)
                    .or_insert_with(|| (evdev(code), held.iter().map(|&h| evdev(h)).collect()));
            }
        }
        Self { found }
    }

    /// The key for `keysym` and the modifiers to hold around it; `None` when the layout has
    /// no key for it.
    pub fn key(&self, keysym: u32) -> Option<(u32, &[u32])> {
        self.found
            .get(&keysym)
            .map(|(code, held)| (*code, held.as_slice()))
    }
}

/// An XKB key code as evdev numbers it, which fake input takes.
fn evdev(code: xkb::Keycode) -> u32 {
    code.raw().saturating_sub(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(name: &str) -> Keys {
        let context = xkb::Context::new(xkb::CONTEXT_NO_FLAGS);
        let keymap = xkb::Keymap::new_from_names(
            &context,
            "evdev",
            "pc105",
            name,
            "",
            None,
            xkb::KEYMAP_COMPILE_NO_FLAGS,
        )
        .expect("xkeyboard-config has the layout");
        Keys::from_keymap(&keymap)
    }

    #[test]
    fn characters_are_found_where_the_layout_has_them() {
        let us = layout("us");
        // KEY_A is 30, KEY_LEFTSHIFT 42, KEY_2 3.
        assert_eq!(us.key('a' as u32), Some((30, &[][..])));
        assert_eq!(us.key('A' as u32), Some((30, &[42][..])));
        assert_eq!(us.key('@' as u32), Some((3, &[42][..])));
        assert_eq!(us.key(0xff0d), Some((28, &[][..])), "Return");
        assert_eq!(us.key(0xe9), None, "é is not on a US keyboard");
        let de = layout("de");
        let (_, held) = de.key('@' as u32).expect("AltGr+q on a German keyboard");
        assert_eq!(held.len(), 1);
        assert_ne!(held[0], 42);
        assert_eq!(de.key(0xe4).map(|(c, _)| c), Some(40), "ä");
    }
}
