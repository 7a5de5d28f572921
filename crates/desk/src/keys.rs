//! Key names: `ctrl+s`, `alt+F4`, `Return`, `pgup`, any X keysym name, or one character.
//!
//! A combination is parsed into keysyms in press order (modifiers first); they are released in
//! the reverse order. Keysyms are the vocabulary of X11 and of xkb on Wayland alike.

use std::collections::HashMap;
use std::sync::LazyLock;

use xkeysym::Keysym;

use crate::error::DeskError;

/// A key combination: keysyms in the order they are pressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyCombo {
    /// Keysyms to press, modifiers first.
    pub keysyms: Vec<u32>,
}

impl KeyCombo {
    /// Whether pressing the combination types a character (a printable key with at most
    /// Shift), as opposed to a shortcut or a control key such as Tab or Return.
    pub fn types_text(&self) -> bool {
        let Some((&last, modifiers)) = self.keysyms.split_last() else {
            return false;
        };
        let shift_only = modifiers.iter().all(|&m| m == SHIFT_L || m == SHIFT_R);
        // Keysyms from 0xfe00 to 0xffff are function, modifier and dead keys; Unicode keysyms
        // start at 0x1000000.
        let printable = (0x20..0xfe00).contains(&last) || last >= 0x0100_0000;
        shift_only && printable
    }
}

const SHIFT_L: u32 = 0xffe1;
const SHIFT_R: u32 = 0xffe2;

/// Short names people type for keys, mapped to X keysym names.
const ALIASES: &[(&str, &str)] = &[
    ("ctrl", "Control_L"),
    ("control", "Control_L"),
    ("shift", "Shift_L"),
    ("alt", "Alt_L"),
    ("super", "Super_L"),
    ("win", "Super_L"),
    ("windows", "Super_L"),
    ("meta", "Super_L"),
    ("cmd", "Super_L"),
    ("altgr", "ISO_Level3_Shift"),
    ("enter", "Return"),
    ("return", "Return"),
    ("esc", "Escape"),
    ("escape", "Escape"),
    ("tab", "Tab"),
    ("space", "space"),
    ("backspace", "BackSpace"),
    ("bs", "BackSpace"),
    ("del", "Delete"),
    ("delete", "Delete"),
    ("ins", "Insert"),
    ("insert", "Insert"),
    ("home", "Home"),
    ("end", "End"),
    ("pgup", "Prior"),
    ("pageup", "Prior"),
    ("page_up", "Prior"),
    ("pgdn", "Next"),
    ("pgdown", "Next"),
    ("pagedown", "Next"),
    ("page_down", "Next"),
    ("up", "Up"),
    ("down", "Down"),
    ("left", "Left"),
    ("right", "Right"),
    ("menu", "Menu"),
    ("print", "Print"),
    ("printscreen", "Print"),
    ("capslock", "Caps_Lock"),
    ("plus", "plus"),
    ("minus", "minus"),
];

/// Every named keysym, by its X name without the `XK_` prefix.
static NAMES: LazyLock<HashMap<String, u32>> = LazyLock::new(|| {
    // Named keysyms live in the legacy range and the vendor range; the Unicode range is
    // reached through single characters instead.
    (0..=0xffffu32)
        .chain(0x1000_ff00..=0x1000_ffff)
        .chain(0x1005_ff00..=0x1008_ffff)
        .filter_map(|raw| Some((x_name(Keysym::new(raw).name()?)?, raw)))
        .collect()
});

/// A keysym's name for messages: `Escape`, or `U+00E9` for one without a name.
pub fn keysym_name(keysym: u32) -> String {
    Keysym::new(keysym)
        .name()
        .and_then(x_name)
        .unwrap_or_else(|| format!("keysym 0x{keysym:x}"))
}

/// The name X tools use for a keysym: `XK_Return` is `Return`, `XF86XK_AudioMute` is
/// `XF86AudioMute`. Vendor keysyms other than XF86's are left out.
fn x_name(constant: &str) -> Option<String> {
    if let Some(name) = constant.strip_prefix("XK_") {
        return Some(name.to_string());
    }
    constant
        .strip_prefix("XF86XK_")
        .map(|name| format!("XF86{name}"))
}

/// Parses `ctrl+shift+t` and the like.
pub fn parse_combo(text: &str) -> Result<KeyCombo, DeskError> {
    let text = text.trim();
    let mut tokens: Vec<&str> = text.split('+').collect();
    // A trailing "++" (as in ctrl++) means the plus key itself.
    if text.ends_with("++") || text == "+" {
        tokens.retain(|t| !t.is_empty());
        tokens.push("plus");
    }
    let keysyms = tokens
        .iter()
        .map(|token| {
            let token = token.trim();
            if token.is_empty() {
                return Err(DeskError::Invalid(format!(
                    "key combination {text:?} has an empty part; join keys with +, as in ctrl+s"
                )));
            }
            keysym(token)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(KeyCombo { keysyms })
}

/// One key's keysym: an alias, an exact keysym name, a keysym name in any case, or a character.
pub fn keysym(name: &str) -> Result<u32, DeskError> {
    let lower = name.to_lowercase();
    if let Some((_, target)) = ALIASES.iter().find(|(alias, _)| *alias == lower) {
        return Ok(NAMES[*target]);
    }
    if let Some(&raw) = NAMES.get(name) {
        return Ok(raw);
    }
    let mut chars = name.chars();
    if let (Some(ch), None) = (chars.next(), chars.next()) {
        let raw = Keysym::from_char(ch).raw();
        if raw != 0 {
            return Ok(raw);
        }
    }
    let folded: Vec<u32> = NAMES
        .iter()
        .filter(|(known, _)| known.to_lowercase() == lower)
        .map(|(_, raw)| *raw)
        .collect();
    if let [raw] = folded.as_slice() {
        return Ok(*raw);
    }
    Err(DeskError::Invalid(format!(
        "unknown key {name:?}{}",
        suggestions(name).unwrap_or_else(|| {
            "; use a name such as Return, Escape, Tab, F5, Left, pgup, a single character, \
             or any X keysym name"
                .into()
        })
    )))
}

/// `; did you mean "Return" or "Right"?`, when something is close.
fn suggestions(name: &str) -> Option<String> {
    let lower = name.to_lowercase();
    let mut close: Vec<(usize, &str)> = ALIASES
        .iter()
        .map(|(alias, _)| *alias)
        .chain(NAMES.keys().map(String::as_str))
        .map(|candidate| {
            (
                strsim::levenshtein(&lower, &candidate.to_lowercase()),
                candidate,
            )
        })
        .filter(|(distance, _)| *distance <= 2.max(lower.len() / 4))
        .collect();
    close.sort();
    close.dedup_by_key(|(_, c)| c.to_lowercase());
    let names: Vec<String> = close
        .iter()
        .take(3)
        .map(|(_, c)| format!("{c:?}"))
        .collect();
    match names.as_slice() {
        [] => None,
        [one] => Some(format!("; did you mean {one}?")),
        [init @ .., last] => Some(format!("; did you mean {} or {last}?", init.join(", "))),
    }
}

/// Presses `keys` together, in order, then releases them in reverse, with `send` (a key and
/// whether it goes down). A key that fails to go down stops the pressing; every key that went
/// down is released whatever happened, and the first error is the answer.
pub fn chord<K: Copy>(
    keys: &[K],
    mut send: impl FnMut(K, bool) -> Result<(), DeskError>,
) -> Result<(), DeskError> {
    let mut pressed = Vec::new();
    let mut result = Ok(());
    for &key in keys {
        result = send(key, true);
        if result.is_err() {
            break;
        }
        pressed.push(key);
    }
    for &key in pressed.iter().rev() {
        let released = send(key, false);
        if result.is_ok() {
            result = released;
        }
    }
    result
}

/// The character a keysym types; named keys (Return, F1, shift) type none.
pub fn keysym_char(keysym: u32) -> Option<char> {
    Keysym::new(keysym).key_char().filter(|ch| !ch.is_control())
}

/// The keysym a character of text is typed as.
pub fn char_keysym(ch: char) -> Option<u32> {
    match ch {
        '\n' | '\r' => Some(NAMES["Return"]),
        '\t' => Some(NAMES["Tab"]),
        _ => Some(Keysym::from_char(ch).raw()).filter(|&raw| raw != 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chord_releases_in_reverse_what_went_down_whatever_failed() {
        let mut sent = Vec::new();
        chord(&[1, 2, 3], |k, down| {
            sent.push((k, down));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            sent,
            [
                (1, true),
                (2, true),
                (3, true),
                (3, false),
                (2, false),
                (1, false)
            ]
        );
        let mut sent = Vec::new();
        let failed = chord(&[1, 2, 3], |k, down| {
            sent.push((k, down));
            if k == 2 && down {
                return Err(DeskError::Invalid("no".into()));
            }
            Ok(())
        });
        assert!(failed.is_err());
        assert_eq!(sent, [(1, true), (2, true), (1, false)]);
    }

    #[test]
    fn a_keysym_is_a_character_where_it_types_one() {
        assert_eq!(keysym_char(0x61), Some('a'));
        assert_eq!(keysym_char(0xe9), Some('é'));
        assert_eq!(keysym_char(0x0100_20ac), Some('€'));
        assert_eq!(keysym_char(0xff0d), None, "Return is a key");
        for ch in ['a', 'é', '€', '😀'] {
            assert_eq!(keysym_char(char_keysym(ch).unwrap()), Some(ch));
        }
    }

    #[test]
    fn typing_combinations_are_told_from_shortcuts() {
        for typing in ["a", "shift+a", "7", "é", "ж", "😀", "space"] {
            assert!(parse_combo(typing).unwrap().types_text(), "{typing}");
        }
        for shortcut in [
            "ctrl+a",
            "alt+F4",
            "Return",
            "Tab",
            "shift+Tab",
            "super",
            "BackSpace",
        ] {
            assert!(!parse_combo(shortcut).unwrap().types_text(), "{shortcut}");
        }
    }

    fn combo(text: &str) -> Vec<u32> {
        parse_combo(text).unwrap().keysyms
    }

    #[test]
    fn combinations_and_aliases() {
        assert_eq!(combo("ctrl+s"), [0xffe3, 's' as u32]);
        assert_eq!(combo("ctrl+shift+t"), [0xffe3, 0xffe1, 't' as u32]);
        assert_eq!(combo("alt+F4"), [0xffe9, 0xffc1]);
        assert_eq!(combo("super"), [0xffeb]);
        assert_eq!(combo("Return"), [0xff0d]);
        assert_eq!(combo("enter"), [0xff0d]);
        assert_eq!(combo("esc"), [0xff1b]);
        assert_eq!(combo("pgup"), [0xff55]);
        assert_eq!(combo("F12"), [0xffc9]);
        assert_eq!(combo("f1"), [0xffbe]);
        assert_eq!(combo("ctrl++"), [0xffe3, '+' as u32]);
        assert_eq!(combo("KP_Enter"), [0xff8d]);
        assert_eq!(combo("XF86AudioMute"), [0x1008ff12]);
        assert_eq!(combo("é"), [0xe9]);
    }

    #[test]
    fn unknown_names_get_suggestions() {
        let err = parse_combo("ctrl+Retrun").unwrap_err().to_string();
        assert!(
            err.starts_with("unknown key \"Retrun\"; did you mean \"Return\""),
            "{err}"
        );
        let err = parse_combo("escpae").unwrap_err().to_string();
        assert!(err.contains("did you mean \"Escape\""), "{err}");
        let err = parse_combo("ctrl++s+").unwrap_err().to_string();
        assert!(err.contains("empty part"), "{err}");
    }

    #[test]
    fn text_characters() {
        assert_eq!(char_keysym('a'), Some('a' as u32));
        assert_eq!(char_keysym('\n'), Some(0xff0d));
        assert_eq!(char_keysym('漢'), Some(0x0100_6f22));
        assert_eq!(char_keysym('😀'), Some(0x0101_f600));
    }
}
