//! [`OnDemand`]: the accessibility bus, connected when a call first needs it.

use std::sync::{Arc, Mutex};

use desk::DeskError;
use desk::accessibility::{Accessibility, AppWindow, Tree, Want};
use desk_core::a11y::Node;

use super::AtSpi;

/// The accessibility bus, connected when a call first needs it, and tried again on each call
/// while it cannot be reached (the bus may start after the daemon).
#[derive(Default)]
pub struct OnDemand {
    bus: Mutex<Option<Arc<AtSpi>>>,
    /// The bus's address; none: the session's (`AT_SPI_BUS_ADDRESS`, else `org.a11y.Bus`).
    address: Option<String>,
}

impl OnDemand {
    /// The accessibility bus at `address` (a private display's).
    pub fn at(address: String) -> Self {
        Self {
            bus: Mutex::default(),
            address: Some(address),
        }
    }

    fn get(&self) -> Result<Arc<AtSpi>, DeskError> {
        let mut bus = self.bus.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(connected) = bus.as_ref() {
            return Ok(connected.clone());
        }
        let connected = Arc::new(AtSpi::connect(self.address.as_deref())?);
        *bus = Some(connected.clone());
        Ok(connected)
    }
}

impl Accessibility for OnDemand {
    fn windows_of(&self, pid: u32) -> Result<Option<Vec<AppWindow>>, DeskError> {
        self.get()?.windows_of(pid)
    }

    fn tree(&self, root: &str, want: Want) -> Result<Tree, DeskError> {
        self.get()?.tree(root, want)
    }

    fn node(&self, id: &str, want: Want) -> Result<Node, DeskError> {
        self.get()?.node(id, want)
    }

    fn ancestors(&self, id: &str) -> Result<Vec<Node>, DeskError> {
        self.get()?.ancestors(id)
    }

    fn at_point(&self, root: &str, x: i32, y: i32) -> Result<Option<String>, DeskError> {
        self.get()?.at_point(root, x, y)
    }

    fn actions(&self, id: &str) -> Result<Vec<String>, DeskError> {
        self.get()?.actions(id)
    }

    fn do_action(&self, id: &str, index: usize) -> Result<bool, DeskError> {
        self.get()?.do_action(id, index)
    }

    fn select(&self, id: &str) -> Result<bool, DeskError> {
        self.get()?.select(id)
    }

    fn grab_focus(&self, id: &str) -> Result<bool, DeskError> {
        self.get()?.grab_focus(id)
    }

    fn select_child(&self, container: &str, index: usize) -> Result<bool, DeskError> {
        self.get()?.select_child(container, index)
    }

    fn set_caret(&self, id: &str, offset: usize) -> Result<bool, DeskError> {
        self.get()?.set_caret(id, offset)
    }

    fn caret(&self, id: &str) -> Result<Option<usize>, DeskError> {
        self.get()?.caret(id)
    }

    fn set_text(&self, id: &str, text: &str) -> Result<bool, DeskError> {
        self.get()?.set_text(id, text)
    }

    fn insert_text(
        &self,
        id: &str,
        position: Option<usize>,
        text: &str,
    ) -> Result<bool, DeskError> {
        self.get()?.insert_text(id, position, text)
    }

    fn select_text(&self, id: &str, start: usize, end: usize) -> Result<bool, DeskError> {
        self.get()?.select_text(id, start, end)
    }

    fn selection(&self, id: &str) -> Result<Option<(usize, usize, String)>, DeskError> {
        self.get()?.selection(id)
    }

    fn set_number(&self, id: &str, value: f64) -> Result<bool, DeskError> {
        self.get()?.set_number(id, value)
    }

    fn pid_of(&self, id: &str) -> Result<u32, DeskError> {
        self.get()?.pid_of(id)
    }

    fn focused_in(&self, pid: u32) -> Result<Option<Node>, DeskError> {
        self.get()?.focused_in(pid)
    }
}
