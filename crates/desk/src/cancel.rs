//! Cancelling a desk call that is already running.
//!
//! Desk calls run on blocking threads, where dropping a future cannot stop them; the daemon
//! raises this flag instead (the client went away, or the person stopped shuttle), and long
//! actions check it between steps, release what they hold and stop. The flag remembers which
//! of the two it was, since a stop is the person's safety control and a departed client is not.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

const RUNNING: u8 = 0;
const CANCELLED: u8 = 1;
const STOPPED: u8 = 2;

/// A flag shared by the daemon and one running call.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicU8>);

impl Cancel {
    /// Asks the call to stop because its caller went away.
    pub fn cancel(&self) {
        let _ = self
            .0
            .compare_exchange(RUNNING, CANCELLED, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Asks the call to stop because the person stopped shuttle.
    pub fn stop(&self) {
        self.0.store(STOPPED, Ordering::SeqCst);
    }

    /// Whether the call should stop.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst) != RUNNING
    }

    /// Whether it was the person who stopped it.
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::SeqCst) == STOPPED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_is_told_from_a_departed_caller() {
        let gone = Cancel::default();
        assert!(!gone.is_cancelled());
        gone.cancel();
        assert!(gone.is_cancelled() && !gone.is_stopped());
        let stopped = Cancel::default();
        stopped.stop();
        stopped.cancel();
        assert!(
            stopped.is_cancelled() && stopped.is_stopped(),
            "a stop stays a stop"
        );
    }
}
