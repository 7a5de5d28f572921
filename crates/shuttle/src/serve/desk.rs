//! The daemon's handle on the desktop: connected on first use, reconnected after a break.

use std::sync::{Arc, Mutex};

use desk::{Backend, DeskError, x11::X11Backend};

/// The backend, made when a call first needs it.
#[derive(Default)]
pub struct DeskHandle {
    backend: Mutex<Option<Arc<dyn Backend>>>,
}

impl DeskHandle {
    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Arc<dyn Backend>>> {
        self.backend.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The connected backend, connecting now if need be. Blocking.
    pub fn get(&self) -> Result<Arc<dyn Backend>, DeskError> {
        let mut slot = self.slot();
        if let Some(backend) = slot.as_ref() {
            return Ok(backend.clone());
        }
        let backend: Arc<dyn Backend> = Arc::new(X11Backend::connect()?);
        *slot = Some(backend.clone());
        Ok(backend)
    }

    /// The backend if one is connected, without connecting.
    pub fn current(&self) -> Option<Arc<dyn Backend>> {
        self.slot().clone()
    }

    /// Forgets a backend whose connection broke, so the next call connects afresh.
    pub fn reset(&self) {
        *self.slot() = None;
    }
}
