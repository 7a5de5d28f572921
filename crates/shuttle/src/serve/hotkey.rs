//! Keeping the kill hotkey grabbed: at start, after the config names another combination, and
//! again after the display comes back.

use std::sync::{Arc, Mutex};

use desk::{Hotkey, Platform};

/// The hotkey as it stands.
pub struct HotkeyKeeper {
    platform: Arc<dyn Platform>,
    state: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    combo: String,
    hotkey: Option<Box<dyn Hotkey>>,
    problem: Option<String>,
}

impl HotkeyKeeper {
    /// A keeper that grabs through `platform`.
    pub fn new(platform: Arc<dyn Platform>) -> Self {
        Self {
            platform,
            state: Mutex::default(),
        }
    }

    /// Grabs `combo` (empty: none) unless it is already held; `pressed` runs on each press.
    /// Blocking: it talks to the display.
    pub fn ensure(&self, combo: &str, pressed: impl Fn() + Send + Sync + 'static) {
        {
            let mut held = self.held();
            let holding = held.hotkey.as_ref().is_some_and(|h| h.alive());
            if held.combo == combo && (holding || combo.is_empty()) {
                return;
            }
            held.hotkey = None;
            held.combo = combo.to_string();
            if combo.is_empty() {
                held.problem = None;
                return;
            }
        }
        // Not under the lock: `status` reads the state while a grab waits on the display.
        let grabbed = self.platform.grab_hotkey(combo, Box::new(pressed));
        let mut held = self.held();
        match grabbed {
            Ok(hotkey) => {
                tracing::info!(%combo, "kill hotkey grabbed");
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

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// For `status`: the combination and whether it is grabbed.
    pub fn describe(&self) -> desk_core::status::Hotkey {
        let held = self.held();
        desk_core::status::Hotkey {
            keys: held.combo.clone(),
            grabbed: held.hotkey.as_ref().is_some_and(|h| h.alive()),
            problem: held.problem.clone(),
        }
    }
}
