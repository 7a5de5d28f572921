//! The accessibility tree under the same rules as the screen: [`Nodes`] reads only nodes of
//! allowed apps, and [`ActingNodes`] acts only on nodes of the apps an action was admitted for.

use std::sync::Arc;

use desk_core::a11y::Node;
use desk_core::window::Window;

use super::admitted::Admitted;
use super::desk::Desk;
use crate::accessibility::{Accessibility, AppWindow, Tree, Want};
use crate::error::DeskError;

/// Reading accessibility nodes of allowed apps.
pub struct Nodes<'d> {
    desk: &'d Desk,
    api: Arc<dyn Accessibility>,
}

impl<'d> Nodes<'d> {
    pub(super) fn new(desk: &'d Desk, api: Arc<dyn Accessibility>) -> Self {
        Self { desk, api }
    }

    /// Where node `id`'s caret is.
    pub fn caret(&self, id: &str) -> Result<Option<usize>, DeskError> {
        self.pid_of(id)?;
        self.api.caret(id)
    }

    /// The process of node `id`, refused when it is outside the allowlist.
    pub fn pid_of(&self, id: &str) -> Result<u32, DeskError> {
        let pid = self.api.pid_of(id)?;
        self.desk.check_pid(pid, &format!("node {id}"))?;
        Ok(pid)
    }

    /// The accessible top-level windows of `window`'s process, or `None` when it is not on the
    /// accessibility bus.
    pub fn windows_of(&self, window: &Window) -> Result<Option<Vec<AppWindow>>, DeskError> {
        let Some(pid) = window.pid else {
            return Ok(None);
        };
        self.desk.check_pid(pid, &format!("window {}", window.id))?;
        self.api.windows_of(pid)
    }

    /// The tree under node `root`, root first.
    pub fn tree(&self, root: &str, want: Want) -> Result<Tree, DeskError> {
        self.pid_of(root)?;
        self.api.tree(root, want)
    }

    /// One node.
    pub fn node(&self, id: &str, want: Want) -> Result<Node, DeskError> {
        self.pid_of(id)?;
        self.api.node(id, want)
    }

    /// A node's ancestors, nearest first, up to its top-level window.
    pub fn ancestors(&self, id: &str) -> Result<Vec<Node>, DeskError> {
        self.pid_of(id)?;
        self.api.ancestors(id)
    }

    /// The deepest node under `root` at the desk point.
    pub fn at_point(&self, root: &str, x: i32, y: i32) -> Result<Option<String>, DeskError> {
        self.pid_of(root)?;
        self.api.at_point(root, x, y)
    }

    /// A text node's first selection: start, end and the text.
    pub fn selection(&self, id: &str) -> Result<Option<(usize, usize, String)>, DeskError> {
        self.pid_of(id)?;
        self.api.selection(id)
    }

    /// The names of a node's actions, in order.
    pub fn actions(&self, id: &str) -> Result<Vec<String>, DeskError> {
        self.pid_of(id)?;
        self.api.actions(id)
    }
}

/// Acting on accessibility nodes, for an admitted action.
pub struct ActingNodes<'a> {
    admitted: &'a Admitted<'a>,
    api: Arc<dyn Accessibility>,
}

impl<'a> ActingNodes<'a> {
    pub(super) fn new(admitted: &'a Admitted<'a>, api: Arc<dyn Accessibility>) -> Self {
        Self { admitted, api }
    }

    /// Sends an action to node `id` when the node belongs to an admitted app.
    fn send(
        &self,
        id: &str,
        what: &str,
        action: impl FnOnce(&dyn Accessibility) -> Result<bool, DeskError>,
    ) -> Result<bool, DeskError> {
        let pid = self.api.pid_of(id)?;
        self.admitted
            .require(self.admitted.admits_app(pid), &format!("{what} ({id})"))?;
        self.admitted.sending(what, || action(self.api.as_ref()))
    }

    /// Runs node `id`'s action `index`; false when the app refused.
    pub fn do_action(&self, id: &str, index: usize) -> Result<bool, DeskError> {
        self.send(id, "running an accessibility action", |api| {
            api.do_action(id, index)
        })
    }

    /// Selects node `id` within its parent; false when the app refused.
    pub fn select(&self, id: &str) -> Result<bool, DeskError> {
        self.send(id, "selecting a node", |api| api.select(id))
    }

    /// Gives node `id` the keyboard focus; false when the app refused.
    pub fn grab_focus(&self, id: &str) -> Result<bool, DeskError> {
        self.send(id, "focusing a node", |api| api.grab_focus(id))
    }

    /// Selects the `index`th child within node `container`; false when the app refused.
    pub fn select_child(&self, container: &str, index: usize) -> Result<bool, DeskError> {
        self.send(container, "selecting an item", |api| {
            api.select_child(container, index)
        })
    }

    /// Replaces node `id`'s text; false when the app refused.
    pub fn set_text(&self, id: &str, text: &str) -> Result<bool, DeskError> {
        self.send(id, "setting a field's text", |api| api.set_text(id, text))
    }

    /// Inserts `text` into node `id` before character `position` (the end when `None`).
    pub fn insert_text(
        &self,
        id: &str,
        position: Option<usize>,
        text: &str,
    ) -> Result<bool, DeskError> {
        self.send(id, "inserting text", |api| {
            api.insert_text(id, position, text)
        })
    }

    /// Selects characters `start` to `end` of node `id`.
    pub fn select_text(&self, id: &str, start: usize, end: usize) -> Result<bool, DeskError> {
        self.send(id, "selecting text", |api| api.select_text(id, start, end))
    }

    /// Puts node `id`'s caret before character `offset`; false when the app refused.
    pub fn set_caret(&self, id: &str, offset: usize) -> Result<bool, DeskError> {
        self.send(id, "moving the caret", |api| api.set_caret(id, offset))
    }

    /// Sets node `id`'s number; false when the app refused.
    pub fn set_number(&self, id: &str, value: f64) -> Result<bool, DeskError> {
        self.send(id, "setting a value", |api| api.set_number(id, value))
    }
}
