//! The daemon's handle on the desktop: connected on first use, reconnected after a break.

use std::sync::{Arc, Mutex};

use desk::{Backend, DeskError, Platform};

/// The backend, made when a call first needs it.
pub struct DeskHandle {
    platform: Arc<dyn Platform>,
    backend: Mutex<Option<Backend>>,
    /// Held while connecting, so that one connection is made at a time: a backend's first
    /// connection undoes what a killed daemon left, which a second one racing it would skip.
    connecting: Mutex<()>,
}

impl DeskHandle {
    /// A handle that connects through `platform`.
    pub fn new(platform: Arc<dyn Platform>) -> Self {
        Self {
            platform,
            backend: Mutex::new(None),
            connecting: Mutex::new(()),
        }
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Backend>> {
        self.backend.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The connected backend, connecting now if need be. Blocking: a call that comes while
    /// another connects waits for that connection. The slot is not held while connecting, so
    /// `status` answers meanwhile.
    pub fn get(&self) -> Result<Backend, DeskError> {
        if let Some(backend) = self.current() {
            return Ok(backend);
        }
        let _connecting = self.connecting.lock().unwrap_or_else(|e| e.into_inner());
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

#[cfg(test)]
mod tests {
    use super::*;
    use desk::Hotkey;
    use desk::fake::FakeDesk;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// A platform whose connections are slow and counted.
    struct Counted {
        desk: FakeDesk,
        connects: AtomicUsize,
    }

    impl Platform for Counted {
        fn connect(&self) -> Result<Backend, DeskError> {
            self.connects.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(50));
            Ok(self.desk.backend())
        }

        fn grab_hotkey(
            &self,
            combo: &str,
            pressed: Box<dyn Fn() + Send + Sync>,
        ) -> Result<Box<dyn Hotkey>, DeskError> {
            self.desk.grab_hotkey(combo, pressed)
        }

        fn ask_person(
            &self,
            question: &desk::Question,
            cancel: &desk::Cancel,
        ) -> Result<desk::Answer, DeskError> {
            self.desk.ask_person(question, cancel)
        }
    }

    #[test]
    fn calls_that_come_while_it_connects_wait_for_that_one_connection() {
        let platform = Arc::new(Counted {
            desk: FakeDesk::new(800, 600),
            connects: AtomicUsize::new(0),
        });
        let handle = Arc::new(DeskHandle::new(platform.clone()));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let handle = handle.clone();
                std::thread::spawn(move || handle.get().map(|_| ()))
            })
            .collect();
        for thread in threads {
            thread.join().unwrap().unwrap();
        }
        assert_eq!(platform.connects.load(Ordering::SeqCst), 1);
    }
}
