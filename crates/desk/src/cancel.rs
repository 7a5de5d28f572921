//! Cancelling a desk call that is already running.
//!
//! Desk calls run on blocking threads, where dropping a future cannot stop them; the daemon
//! raises this flag instead (the client went away, or the user stopped shuttle), and long
//! actions check it between steps, release what they hold and stop.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A flag shared by the daemon and one running call.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// Asks the call to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether the call should stop.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}
