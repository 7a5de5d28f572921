//! The user's stop: `shuttle stop`, or the kill hotkey, ends every desk call in flight and
//! refuses new ones until `shuttle resume`.
//!
//! Each desk call registers its cancel flag here for as long as it runs; a stop raises every
//! registered flag (the calls release what they hold and end) and wakes calls still waiting
//! for the desk turn. Stopping works from any thread, since the hotkey fires on one of its own.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use desk::Cancel;
use tokio::sync::Notify;

/// The refusal while stopped.
pub const STOPPED: &str = "stopped by the user: the person at the desktop stopped shuttle \
     (shuttle stop or the kill hotkey); wait for them to run `shuttle resume`";

/// The answer to a resume without a stop.
pub const NOT_STOPPED: &str = "shuttle is not stopped, so there is nothing to resume";

/// Whether the user stopped shuttle, and the calls a stop must end.
#[derive(Default)]
pub struct StopSwitch {
    stopped: AtomicBool,
    next: AtomicU64,
    running: Mutex<HashMap<u64, Cancel>>,
    woken: Notify,
}

/// A call's registration; dropping it takes the call off the list.
pub struct Running<'a> {
    switch: &'a StopSwitch,
    id: u64,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.switch.running().remove(&self.id);
    }
}

impl StopSwitch {
    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Cancel>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether calls are refused.
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// Registers a call's cancel flag, refusing it when stopped. The check happens under the
    /// same lock a stop takes, so a call either is refused or is cancelled by the stop.
    pub fn register(&self, cancel: &Cancel) -> Result<Running<'_>, &'static str> {
        let mut running = self.running();
        if self.is_stopped() {
            return Err(STOPPED);
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        running.insert(id, cancel.clone());
        Ok(Running { switch: self, id })
    }

    /// Stops: refuses new calls and cancels those in flight; returns how many were cancelled.
    pub fn stop(&self) -> usize {
        let running = self.running();
        self.stopped.store(true, Ordering::SeqCst);
        for cancel in running.values() {
            cancel.stop();
        }
        self.woken.notify_waiters();
        running.len()
    }

    /// Lifts a stop; an error when there was none.
    pub fn resume(&self) -> Result<(), &'static str> {
        let _running = self.running();
        if self.stopped.swap(false, Ordering::SeqCst) {
            Ok(())
        } else {
            Err(NOT_STOPPED)
        }
    }

    /// Resolves at the next stop (for calls waiting for the desk turn).
    pub async fn stopped(&self) {
        let woken = self.woken.notified();
        if self.is_stopped() {
            return;
        }
        woken.await;
    }

    /// [`StopSwitch::stopped`] for a task that outlives its caller's borrow.
    pub async fn stopped_owned(self: std::sync::Arc<Self>) {
        self.stopped().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_cancels_running_calls_and_refuses_new_ones() {
        let switch = StopSwitch::default();
        let cancel = Cancel::default();
        let running = switch.register(&cancel).unwrap();
        assert_eq!(switch.stop(), 1);
        assert!(
            cancel.is_stopped(),
            "the call knows it was the person's stop"
        );
        assert_eq!(switch.register(&Cancel::default()).err(), Some(STOPPED));
        drop(running);
        switch.resume().unwrap();
        assert!(switch.register(&Cancel::default()).is_ok());
    }

    #[test]
    fn resume_without_stop_is_an_error() {
        let switch = StopSwitch::default();
        assert!(switch.resume().unwrap_err().contains("not stopped"));
    }

    #[tokio::test]
    async fn waiters_wake_on_stop() {
        let switch = std::sync::Arc::new(StopSwitch::default());
        let waiter = tokio::spawn({
            let switch = switch.clone();
            async move { switch.stopped().await }
        });
        tokio::task::yield_now().await;
        switch.stop();
        tokio::time::timeout(std::time::Duration::from_secs(2), waiter)
            .await
            .expect("woken")
            .unwrap();
    }
}
