//! Keeping the kill hotkey grabbed: at start, after the config names another combination, and
//! again after the display comes back.

use std::sync::Mutex;

use desk::x11::Hotkey;
use serde_json::{Value, json};

/// The hotkey as it stands.
#[derive(Default)]
pub struct HotkeyKeeper {
    state: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    combo: String,
    hotkey: Option<Hotkey>,
    problem: Option<String>,
}

impl HotkeyKeeper {
    /// Grabs `combo` (empty: none) unless it is already held; `pressed` runs on each press.
    /// Blocking: it talks to the X server.
    pub fn ensure(&self, combo: &str, pressed: impl Fn() + Send + 'static) {
        let mut held = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let holding = held.hotkey.as_ref().is_some_and(Hotkey::alive);
        if held.combo == combo && (holding || combo.is_empty()) {
            return;
        }
        held.hotkey = None;
        held.combo = combo.to_string();
        if combo.is_empty() {
            held.problem = None;
            return;
        }
        let Ok(x_display) = std::env::var("DISPLAY") else {
            held.problem = Some("no DISPLAY to grab it on".into());
            return;
        };
        match Hotkey::grab(&x_display, combo, pressed) {
            Ok(hotkey) => {
                tracing::info!(%combo, %x_display, "kill hotkey grabbed");
                held.hotkey = Some(hotkey);
                held.problem = None;
            }
            Err(e) => {
                let problem = e.to_string();
                if held.problem.as_deref() != Some(problem.as_str()) {
                    tracing::warn!(%combo, error = %problem, "cannot grab the kill hotkey");
                }
                held.problem = Some(problem);
            }
        }
    }

    /// For `status`: the combination and whether it is grabbed.
    pub fn describe(&self) -> Value {
        let held = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let grabbed = held.hotkey.as_ref().is_some_and(Hotkey::alive);
        let mut value = json!({"keys": held.combo, "grabbed": grabbed});
        if let Some(problem) = &held.problem {
            value["problem"] = json!(problem);
        }
        value
    }
}
