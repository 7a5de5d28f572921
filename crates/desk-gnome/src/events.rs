//! The window news: the extension signals each window opened, closed or retitled and each
//! change of focus, and a thread records them in a [`WindowLog`] as they come.

use std::sync::{Arc, Mutex, PoisonError, Weak};

use desk::{WindowEventKind, WindowEvents, WindowLog};
use zbus::blocking::{Connection, MessageIterator};

use crate::shell::{BUS_NAME, GnomeError, INTERFACE};

/// The window event stream. Its thread ends when the bus connection ends, or at the first
/// signal after the stream is dropped.
pub struct WindowStream {
    log: Arc<Mutex<WindowLog>>,
}

impl WindowStream {
    /// Starts recording the signals the extension sends on `connection`'s bus.
    pub fn start(connection: &Connection) -> Result<Self, GnomeError> {
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .sender(BUS_NAME)
            .and_then(|b| b.interface(INTERFACE))
            .and_then(|b| b.member("WindowEvent"))
            .map_err(|e| GnomeError::Broken(e.to_string()))?
            .build();
        let signals = MessageIterator::for_match_rule(rule, connection, Some(256))
            .map_err(|e| GnomeError::Broken(format!("subscribing to window events: {e}")))?;
        let log = Arc::new(Mutex::new(WindowLog::new()));
        let kept = Arc::downgrade(&log);
        std::thread::Builder::new()
            .name("gnome-window-events".into())
            .spawn(move || record(signals, kept))
            .map_err(|e| GnomeError::Broken(format!("cannot start a thread: {e}")))?;
        Ok(Self { log })
    }

    /// The events after count `after`.
    pub fn after(&self, after: u64) -> WindowEvents {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .after(after)
    }
}

fn record(signals: MessageIterator, log: Weak<Mutex<WindowLog>>) {
    for message in signals {
        let Ok(message) = message else { break };
        let Some(log) = log.upgrade() else { break };
        let Ok((kind, id)) = message.body().deserialize::<(String, u64)>() else {
            continue;
        };
        let kind = match kind.as_str() {
            "opened" => WindowEventKind::Opened,
            "closed" => WindowEventKind::Closed,
            "retitled" => WindowEventKind::Retitled,
            "activated" => WindowEventKind::Activated,
            _ => continue,
        };
        let window = (id != 0).then(|| id.to_string());
        log.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(kind, window);
    }
}
