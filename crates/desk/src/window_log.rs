//! The log behind a display's window event stream ([`crate::Display::window_events`]), shared
//! by the backends: each records the events its own way and keeps them here.
//!
//! The log keeps the latest [`KEPT`] events; older ones are counted as dropped, so a storm of
//! windows never grows the daemon's memory.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::system::{WindowEvent, WindowEventKind, WindowEvents};

/// How many events the log keeps.
pub const KEPT: usize = 4096;

/// Tells one stream from the next (a reconnection starts a new one).
static STREAMS: AtomicU64 = AtomicU64::new(1);

/// The events of one stream so far.
#[derive(Debug)]
pub struct WindowLog {
    stream: u64,
    /// How many events there have been.
    count: u64,
    /// The latest ones, each with its count.
    kept: VecDeque<(u64, WindowEvent)>,
}

impl Default for WindowLog {
    fn default() -> Self {
        Self::new()
    }
}

impl WindowLog {
    /// An empty log, of a stream of its own.
    pub fn new() -> Self {
        Self {
            stream: STREAMS.fetch_add(1, Ordering::Relaxed),
            count: 0,
            kept: VecDeque::new(),
        }
    }

    /// Records that `kind` happened now, to `window` (as `windows` names it) when known.
    pub fn push(&mut self, kind: WindowEventKind, window: Option<String>) {
        self.count += 1;
        self.kept.push_back((
            self.count,
            WindowEvent {
                at: Instant::now(),
                window,
                kind,
            },
        ));
        if self.kept.len() > KEPT {
            self.kept.pop_front();
        }
    }

    /// The events after count `after` (0: all it keeps).
    pub fn after(&self, after: u64) -> WindowEvents {
        let first_kept = self.kept.front().map_or(self.count + 1, |(n, _)| *n);
        WindowEvents {
            stream: self.stream,
            last: self.count,
            events: self
                .kept
                .iter()
                .filter(|(n, _)| *n > after)
                .map(|(_, e)| e.clone())
                .collect(),
            dropped: first_kept.saturating_sub(after.saturating_add(1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_keeps_the_latest_and_counts_what_it_dropped() {
        let mut log = WindowLog::new();
        for _ in 0..KEPT + 10 {
            log.push(WindowEventKind::Appearing, None);
        }
        let all = log.after(0);
        assert_eq!(all.last, (KEPT + 10) as u64);
        assert_eq!(all.events.len(), KEPT);
        assert_eq!(all.dropped, 10);
        let recent = log.after((KEPT + 8) as u64);
        assert_eq!((recent.events.len(), recent.dropped), (2, 0));
        log.push(WindowEventKind::Opened, Some("0x2a".into()));
        let newest = log.after((KEPT + 10) as u64);
        assert_eq!(newest.events[0].window.as_deref(), Some("0x2a"));
        assert!(log.after(log.count).events.is_empty());
        assert_ne!(WindowLog::new().after(0).stream, all.stream);
    }
}
