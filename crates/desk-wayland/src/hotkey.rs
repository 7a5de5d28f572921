//! The kill hotkey on sway. A Wayland client cannot grab keys, so the daemon asks sway to bind
//! the combination to a command that does nothing (`nop`) but names this daemon, and listens
//! for sway's binding events: one with that command is the person pressing the keys. The
//! binding is removed when the hotkey is dropped.

use std::path::Path;

use desk::keys::{keysym_name, parse_combo};
use desk::{DeskError, Hotkey};

use crate::backend::desk_error;
use crate::events::{Subscription, on_binding};
use crate::sway::Sway;

/// A combination bound in sway for as long as it lives.
pub struct SwayHotkey {
    sway: Sway,
    keys: String,
    subscription: Subscription,
}

impl SwayHotkey {
    /// Binds `combo` (as the `key` verb names keys) in the sway whose IPC is at `ipc`; each
    /// press calls `pressed`, whichever window has the focus.
    pub fn grab(
        ipc: &Path,
        combo: &str,
        pressed: Box<dyn Fn() + Send + Sync>,
    ) -> Result<Self, DeskError> {
        let keys = sway_keys(combo)?;
        let sway = Sway::connect(ipc).map_err(desk_error)?;
        let command = format!("nop shuttle-kill-hotkey-{}", std::process::id());
        let subscription = on_binding(&sway, command.clone(), pressed).map_err(desk_error)?;
        sway.command(&format!("bindsym --no-repeat {keys} {command}"))
            .map_err(desk_error)?;
        Ok(Self {
            sway,
            keys,
            subscription,
        })
    }
}

impl Hotkey for SwayHotkey {
    fn alive(&self) -> bool {
        self.subscription.alive()
    }
}

impl Drop for SwayHotkey {
    fn drop(&mut self) {
        if let Err(e) = self.sway.command(&format!("unbindsym {}", self.keys)) {
            eprintln!("shuttle: could not remove the kill hotkey's binding from sway: {e}");
        }
    }
}

/// `combo` as sway's `bindsym` spells it: `super+shift+Escape` is `Mod4+Shift+Escape`.
fn sway_keys(combo: &str) -> Result<String, DeskError> {
    let parsed = parse_combo(combo)?;
    let names: Vec<String> = parsed
        .keysyms
        .iter()
        .map(|&keysym| {
            let name = keysym_name(keysym);
            match name.as_str() {
                "Control_L" | "Control_R" => "Ctrl".into(),
                "Shift_L" | "Shift_R" => "Shift".into(),
                "Alt_L" | "Alt_R" | "Meta_L" | "Meta_R" => "Mod1".into(),
                "Super_L" | "Super_R" | "Hyper_L" | "Hyper_R" => "Mod4".into(),
                _ => name,
            }
        })
        .collect();
    Ok(names.join("+"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combos_are_spelled_as_sway_binds_them() {
        assert_eq!(
            sway_keys("super+shift+Escape").unwrap(),
            "Mod4+Shift+Escape"
        );
        assert_eq!(sway_keys("ctrl+alt+Delete").unwrap(), "Ctrl+Mod1+Delete");
        assert!(sway_keys("ctrl+nosuchkey").is_err());
    }
}
