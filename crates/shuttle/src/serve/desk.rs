//! The daemon's handle on the desktop: connected on first use, reconnected after a break.

use std::sync::{Arc, Mutex};

use desk::{Backend, DeskError, Platform};

/// The backend, made when a call first needs it.
pub struct DeskHandle {
    platform: Arc<dyn Platform>,
    backend: Mutex<Option<Backend>>,
}

impl DeskHandle {
    /// A handle that connects through `platform`.
    pub fn new(platform: Arc<dyn Platform>) -> Self {
        Self {
            platform,
            backend: Mutex::new(None),
        }
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Backend>> {
        self.backend.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The connected backend, connecting now if need be. Blocking; the slot is not held while
    /// connecting, so `status` answers meanwhile (two calls may both connect; one backend stays).
    pub fn get(&self) -> Result<Backend, DeskError> {
        if let Some(backend) = self.current() {
            return Ok(backend);
        }
        let backend = self.platform.connect()?;
        Ok(self.slot().get_or_insert(backend).clone())
    }

    /// The backend if one is connected, without connecting.
    pub fn current(&self) -> Option<Backend> {
        self.slot().clone()
    }

    /// Forgets a backend whose connection broke, so the next call connects afresh.
    pub fn reset(&self) {
        *self.slot() = None;
    }
}
