//! sway's event streams: a thread per subscription reads them as they come. The window events
//! go into a [`WindowLog`], so a reply can say what changed since the caller's previous one;
//! the binding events serve the kill hotkey.

use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use desk::{WindowEventKind, WindowEvents, WindowLog};
use swayipc::{Event, EventType, WindowChange};

use crate::session::WaylandError;
use crate::sway::Sway;

/// A running subscription; dropping it ends its thread.
pub struct Subscription {
    socket: UnixStream,
    reading: Arc<AtomicBool>,
}

impl Subscription {
    /// Whether its thread still reads events (sway has not gone away).
    pub fn alive(&self) -> bool {
        self.reading.load(Ordering::Relaxed)
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        // The thread's read then fails and it returns; not joined, as nothing waits on it.
        let _ = self.socket.shutdown(Shutdown::Both);
    }
}

/// Starts a thread that calls `on_event` with every event of `kinds` sway sends, until the
/// subscription is dropped or the connection breaks.
fn subscribe(
    sway: &Sway,
    kinds: &[EventType],
    name: &str,
    mut on_event: impl FnMut(Event) + Send + 'static,
) -> Result<Subscription, WaylandError> {
    let (conn, socket) = sway.another()?;
    let reading = Arc::new(AtomicBool::new(true));
    let ended = reading.clone();
    let events = conn
        .subscribe(kinds)
        .map_err(|e| WaylandError::Broken(format!("sway refused an event subscription: {e}")))?;
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            for event in events {
                match event {
                    Ok(event) => on_event(event),
                    // Events this version of the IPC crate does not know are skipped.
                    Err(swayipc::Error::UnimplementedEvent(..)) => {}
                    Err(_) => break,
                }
            }
            ended.store(false, Ordering::Relaxed);
        })
        .map_err(|e| WaylandError::Broken(format!("cannot start a thread: {e}")))?;
    Ok(Subscription { socket, reading })
}

/// The window event stream.
pub struct WindowStream {
    log: Arc<Mutex<WindowLog>>,
    _subscription: Subscription,
}

impl WindowStream {
    /// Starts recording sway's window events.
    pub fn start(sway: &Sway) -> Result<Self, WaylandError> {
        let log = Arc::new(Mutex::new(WindowLog::new()));
        let kept = log.clone();
        let subscription = subscribe(
            sway,
            &[EventType::Window],
            "shuttle-wayland-window-events",
            move |event| {
                let Event::Window(event) = event else { return };
                let kind = match event.change {
                    WindowChange::New => WindowEventKind::Opened,
                    WindowChange::Close => WindowEventKind::Closed,
                    WindowChange::Title => WindowEventKind::Retitled,
                    WindowChange::Focus => WindowEventKind::Activated,
                    _ => return,
                };
                kept.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(kind, Some(event.container.id.to_string()));
            },
        )?;
        Ok(Self {
            log,
            _subscription: subscription,
        })
    }

    /// The events after count `after`.
    pub fn after(&self, after: u64) -> WindowEvents {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .after(after)
    }
}

/// Calls `pressed` each time sway runs a binding whose command is `command`.
pub fn on_binding(
    sway: &Sway,
    command: String,
    pressed: Box<dyn Fn() + Send + Sync>,
) -> Result<Subscription, WaylandError> {
    subscribe(
        sway,
        &[EventType::Binding],
        "shuttle-wayland-hotkey",
        move |event| {
            if let Event::Binding(event) = event
                && event.binding.command == command
            {
                pressed();
            }
        },
    )
}
