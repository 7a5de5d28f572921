//! Accessibility positions on the screen. A native Wayland app knows nothing of where its
//! window is, so GTK and Qt report positions relative to their own surface; an XWayland app
//! reports the screen's. [`Placed`] wraps an [`Accessibility`] and moves the positions of a
//! native app's nodes by where sway shows its window, both ways: bounds read are made the
//! screen's, and a screen point asked about is made the window's.

use std::sync::Arc;

use desk::accessibility::{AppWindow, Tree, Want};
use desk::{Accessibility, DeskError};
use desk_core::a11y::Node;

use crate::backend::desk_error;
use crate::sway::{Sway, SwayWindow};

/// Roles of a node that is a top-level window.
const WINDOW_ROLES: [&str; 3] = ["frame", "dialog", "window"];

/// An accessibility API whose positions are the screen's, whether the app runs native on
/// Wayland or under XWayland.
pub struct Placed {
    inner: Arc<dyn Accessibility>,
    sway: Arc<Sway>,
}

impl Placed {
    /// Wraps `inner`, placing native windows where `sway` shows them.
    pub fn new(inner: Arc<dyn Accessibility>, sway: Arc<Sway>) -> Self {
        Self { inner, sway }
    }

    /// How far node `id`'s positions are from the screen's: its window's origin for a native
    /// app, (0, 0) for an XWayland one. `window_name` is the name of the node's top-level
    /// window when known; it is looked up only when the app has more than one window.
    fn shift(&self, id: &str, window_name: Option<&str>) -> Result<(i32, i32), DeskError> {
        let pid = self.inner.pid_of(id)?;
        let windows: Vec<SwayWindow> = self
            .sway
            .windows()
            .map_err(desk_error)?
            .into_iter()
            .filter(|w| w.pid == Some(pid))
            .collect();
        let native: Vec<&SwayWindow> = windows.iter().filter(|w| !w.xwayland).collect();
        let window = match native.as_slice() {
            [] => return Ok((0, 0)),
            [one] => *one,
            several => {
                let name = match window_name {
                    Some(name) => name.to_string(),
                    None => self.window_name(id)?,
                };
                let Some(window) = several.iter().find(|w| w.title == name) else {
                    return Err(DeskError::Accessibility(format!(
                        "node {id} is in a window named {}, and process {pid} shows {} \
                         windows none of which has that title, so where it is on the screen \
                         is unknown",
                        desk_core::app_text::Quoted(&name),
                        several.len()
                    )));
                };
                *window
            }
        };
        Ok((window.content.x, window.content.y))
    }
}

impl Placed {
    /// The name of the top-level window node `id` is in: its outermost ancestor's, or its own
    /// when it is that window.
    fn window_name(&self, id: &str) -> Result<String, DeskError> {
        if let Some(top) = self.inner.ancestors(id)?.pop() {
            return Ok(top.name);
        }
        Ok(self.inner.node(id, Want::default())?.name)
    }
}

fn moved(node: &mut Node, (dx, dy): (i32, i32)) {
    if let Some([x, y, _, _]) = node.bounds.as_mut() {
        *x += dx;
        *y += dy;
    }
}

/// The name of the top-level window a tree read from `nodes[0]` is in, when its root is one.
fn root_window(nodes: &[Node]) -> Option<&str> {
    nodes
        .first()
        .filter(|n| WINDOW_ROLES.contains(&n.role.as_str()))
        .map(|n| n.name.as_str())
}

impl Accessibility for Placed {
    fn windows_of(&self, pid: u32) -> Result<Option<Vec<AppWindow>>, DeskError> {
        self.inner.windows_of(pid)
    }

    fn tree(&self, root: &str, want: Want) -> Result<Tree, DeskError> {
        let mut tree = self.inner.tree(root, want)?;
        if want.bounds && !tree.nodes.is_empty() {
            let name = root_window(&tree.nodes).map(str::to_string);
            let shift = self.shift(root, name.as_deref())?;
            for node in &mut tree.nodes {
                moved(node, shift);
            }
        }
        Ok(tree)
    }

    fn node(&self, id: &str, want: Want) -> Result<Node, DeskError> {
        let mut node = self.inner.node(id, want)?;
        if want.bounds {
            let own = WINDOW_ROLES
                .contains(&node.role.as_str())
                .then(|| node.name.clone());
            moved(&mut node, self.shift(id, own.as_deref())?);
        }
        Ok(node)
    }

    fn ancestors(&self, id: &str) -> Result<Vec<Node>, DeskError> {
        let mut nodes = self.inner.ancestors(id)?;
        if nodes.iter().any(|n| n.bounds.is_some()) {
            let name = nodes.last().map(|top| top.name.clone());
            let shift = self.shift(id, name.as_deref())?;
            for node in &mut nodes {
                moved(node, shift);
            }
        }
        Ok(nodes)
    }

    fn at_point(&self, root: &str, x: i32, y: i32) -> Result<Option<String>, DeskError> {
        let (dx, dy) = self.shift(root, None)?;
        self.inner.at_point(root, x - dx, y - dy)
    }

    fn actions(&self, id: &str) -> Result<Vec<String>, DeskError> {
        self.inner.actions(id)
    }

    fn do_action(&self, id: &str, index: usize) -> Result<bool, DeskError> {
        self.inner.do_action(id, index)
    }

    fn select(&self, id: &str) -> Result<bool, DeskError> {
        self.inner.select(id)
    }

    fn grab_focus(&self, id: &str) -> Result<bool, DeskError> {
        self.inner.grab_focus(id)
    }

    fn select_child(&self, container: &str, index: usize) -> Result<bool, DeskError> {
        self.inner.select_child(container, index)
    }

    fn set_text(&self, id: &str, text: &str) -> Result<bool, DeskError> {
        self.inner.set_text(id, text)
    }

    fn set_number(&self, id: &str, value: f64) -> Result<bool, DeskError> {
        self.inner.set_number(id, value)
    }

    fn insert_text(
        &self,
        id: &str,
        position: Option<usize>,
        text: &str,
    ) -> Result<bool, DeskError> {
        self.inner.insert_text(id, position, text)
    }

    fn select_text(&self, id: &str, start: usize, end: usize) -> Result<bool, DeskError> {
        self.inner.select_text(id, start, end)
    }

    fn set_caret(&self, id: &str, offset: usize) -> Result<bool, DeskError> {
        self.inner.set_caret(id, offset)
    }

    fn caret(&self, id: &str) -> Result<Option<usize>, DeskError> {
        self.inner.caret(id)
    }

    fn selection(&self, id: &str) -> Result<Option<(usize, usize, String)>, DeskError> {
        self.inner.selection(id)
    }

    fn pid_of(&self, id: &str) -> Result<u32, DeskError> {
        self.inner.pid_of(id)
    }

    fn focused_in(&self, pid: u32) -> Result<Option<Node>, DeskError> {
        let Some(mut node) = self.inner.focused_in(pid)? else {
            return Ok(None);
        };
        if node.bounds.is_some() {
            let shift = self.shift(&node.id, None)?;
            moved(&mut node, shift);
        }
        Ok(Some(node))
    }
}
