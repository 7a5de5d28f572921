//! The kill hotkey on GNOME. A Wayland client cannot grab keys; shuttle's Shell extension
//! grabs the combination for the daemon and signals each press. The grab goes when the
//! daemon's connections leave the bus.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use desk::keys::{keysym_name, parse_combo};
use desk::{DeskError, Hotkey};
use zbus::blocking::MessageIterator;

use crate::backend::desk_error;
use crate::shell::{BUS_NAME, GnomeError, INTERFACE, Shell};

/// A combination the Shell grabs for as long as it lives.
pub struct GnomeHotkey {
    listening: Arc<AtomicBool>,
    _shell: Shell,
}

impl GnomeHotkey {
    /// Grabs `combo` (as the `key` verb names keys) in the GNOME session on the session bus
    /// at `bus` (the environment's when `None`); each press calls `pressed`.
    pub fn grab(
        bus: Option<&str>,
        combo: &str,
        pressed: Box<dyn Fn() + Send + Sync>,
    ) -> Result<Self, DeskError> {
        let accelerator = accelerator(combo)?;
        let shell = Shell::connect(bus).map_err(desk_error)?;
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .sender(BUS_NAME)
            .and_then(|b| b.interface(INTERFACE))
            .and_then(|b| b.member("HotkeyPressed"))
            .map_err(|e| desk_error(GnomeError::Broken(e.to_string())))?
            .build();
        let presses = MessageIterator::for_match_rule(rule, shell.connection(), Some(16))
            .map_err(|e| desk_error(GnomeError::Broken(e.to_string())))?;
        if !shell.grab(&accelerator).map_err(desk_error)? {
            return Err(DeskError::Unsupported(format!(
                "GNOME Shell would not grab {combo} for the kill hotkey (another shortcut \
                 holds it?); set another in [safety] kill_hotkey"
            )));
        }
        let listening = Arc::new(AtomicBool::new(true));
        let ended = listening.clone();
        std::thread::Builder::new()
            .name("gnome-hotkey".into())
            .spawn(move || {
                for press in presses {
                    if press.is_err() {
                        break;
                    }
                    pressed();
                }
                ended.store(false, Ordering::Relaxed);
            })
            .map_err(|e| desk_error(GnomeError::Broken(format!("cannot start a thread: {e}"))))?;
        Ok(Self {
            listening,
            _shell: shell,
        })
    }
}

impl Hotkey for GnomeHotkey {
    fn alive(&self) -> bool {
        self.listening.load(Ordering::Relaxed)
    }
}

/// `combo` as GNOME spells an accelerator: `super+shift+Escape` is `<Super><Shift>Escape`.
fn accelerator(combo: &str) -> Result<String, DeskError> {
    let parsed = parse_combo(combo)?;
    let mut spelled = String::new();
    for &keysym in &parsed.keysyms {
        let name = keysym_name(keysym);
        spelled.push_str(match name.as_str() {
            "Control_L" | "Control_R" => "<Control>",
            "Shift_L" | "Shift_R" => "<Shift>",
            "Alt_L" | "Alt_R" | "Meta_L" | "Meta_R" => "<Alt>",
            "Super_L" | "Super_R" | "Hyper_L" | "Hyper_R" => "<Super>",
            _ => &name,
        });
    }
    Ok(spelled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combos_are_spelled_as_gnome_grabs_them() {
        assert_eq!(
            accelerator("super+shift+Escape").unwrap(),
            "<Super><Shift>Escape"
        );
        assert_eq!(
            accelerator("ctrl+alt+Delete").unwrap(),
            "<Control><Alt>Delete"
        );
        assert!(accelerator("ctrl+nosuchkey").is_err());
    }
}
