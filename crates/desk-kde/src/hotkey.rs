//! The kill hotkey on KDE. A Wayland client cannot grab keys; a KWin script of shuttle's
//! registers the combination as a global shortcut and calls the daemon on each press. The grab
//! goes with the daemon's connection.

use std::path::Path;

use desk::keys::{keysym_name, parse_combo};
use desk::{DeskError, Hotkey};

use crate::backend::desk_error;
use crate::kwin::KWin;

/// A combination KWin grabs for as long as it lives.
pub struct KdeHotkey {
    kwin: KWin,
}

impl KdeHotkey {
    /// Grabs `combo` (as the `key` verb names keys) in the KWin on the session bus at `bus`
    /// (the environment's when `None`), writing its script under `scripts`, a directory of the
    /// daemon's alone; each press calls `pressed`.
    pub fn grab(
        bus: Option<&str>,
        scripts: &Path,
        combo: &str,
        pressed: Box<dyn Fn() + Send + Sync>,
    ) -> Result<Self, DeskError> {
        let shortcut = shortcut(combo)?;
        let kwin = KWin::connect(bus, scripts).map_err(desk_error)?;
        kwin.grab(&shortcut, pressed).map_err(desk_error)?;
        Ok(Self { kwin })
    }
}

impl Hotkey for KdeHotkey {
    fn alive(&self) -> bool {
        self.kwin.alive()
    }
}

/// `combo` as Qt spells a key sequence: `super+shift+Escape` is `Meta+Shift+Esc`.
fn shortcut(combo: &str) -> Result<String, DeskError> {
    let parsed = parse_combo(combo)?;
    let names: Vec<String> = parsed
        .keysyms
        .iter()
        .map(|&keysym| {
            let name = keysym_name(keysym);
            match name.as_str() {
                "Control_L" | "Control_R" => "Ctrl".into(),
                "Shift_L" | "Shift_R" => "Shift".into(),
                "Alt_L" | "Alt_R" => "Alt".into(),
                "Super_L" | "Super_R" | "Meta_L" | "Meta_R" | "Hyper_L" | "Hyper_R" => {
                    "Meta".into()
                }
                "Escape" => "Esc".into(),
                "Delete" => "Del".into(),
                "Insert" => "Ins".into(),
                "BackSpace" => "Backspace".into(),
                "Prior" | "Page_Up" => "PgUp".into(),
                "Next" | "Page_Down" => "PgDown".into(),
                "space" => "Space".into(),
                other if other.chars().count() == 1 => other.to_uppercase(),
                other => other.to_string(),
            }
        })
        .collect();
    Ok(names.join("+"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combos_are_spelled_as_qt_reads_a_key_sequence() {
        assert_eq!(shortcut("super+shift+Escape").unwrap(), "Meta+Shift+Esc");
        assert_eq!(shortcut("ctrl+alt+Delete").unwrap(), "Ctrl+Alt+Del");
        assert_eq!(shortcut("ctrl+alt+k").unwrap(), "Ctrl+Alt+K");
        assert_eq!(shortcut("ctrl+F12").unwrap(), "Ctrl+F12");
        assert!(shortcut("ctrl+nosuchkey").is_err());
    }
}
