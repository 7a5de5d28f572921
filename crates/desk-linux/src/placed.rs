//! Accessibility positions on the screen. A native Wayland app knows nothing of where its
//! window is, so GTK and Qt report positions relative to their own surface; an XWayland app
//! reports the screen's. [`Placed`] wraps an [`Accessibility`] and moves the positions of a
//! native app's nodes by where the compositor shows its window ([`Surfaces`]), both ways:
//! bounds read are made the screen's, and a screen point asked about is made the window's.

use std::sync::Arc;

use desk::accessibility::{AppWindow, Tree, Want};
use desk::{Accessibility, DeskError};
use desk_core::a11y::Node;
use desk_core::geometry::Rect;

/// Roles of a node that is a top-level window.
const WINDOW_ROLES: [&str; 3] = ["frame", "dialog", "window"];

/// A native Wayland window as the compositor shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Surface {
    /// Its title.
    pub title: String,
    /// Where the window is on the screen: its window geometry, what the person sees as the
    /// window.
    pub frame: Rect,
    /// Where its whole buffer is, the shadows an app draws around a window included (the
    /// frame where it draws none). Some toolkits (GTK 3) count their positions from here, and
    /// say so by a window node as large as the buffer.
    pub buffer: Rect,
}

impl Surface {
    /// Where the positions of an app whose window node is `root` (width, height) large start.
    fn origin(&self, root: Option<(u32, u32)>) -> (i32, i32) {
        if root == Some((self.buffer.w, self.buffer.h)) {
            (self.buffer.x, self.buffer.y)
        } else {
            (self.frame.x, self.frame.y)
        }
    }
}

/// Where a compositor shows each process's native windows.
pub trait Surfaces: Send + Sync {
    /// The native (not XWayland) windows of process `pid`.
    fn native_windows(&self, pid: u32) -> Result<Vec<Surface>, DeskError>;
}

/// An accessibility API whose positions are the screen's, whether the app runs native on
/// Wayland or under XWayland.
pub struct Placed {
    inner: Arc<dyn Accessibility>,
    surfaces: Arc<dyn Surfaces>,
}

impl Placed {
    /// Wraps `inner`, placing native windows where `surfaces` says they are.
    pub fn new(inner: Arc<dyn Accessibility>, surfaces: Arc<dyn Surfaces>) -> Self {
        Self { inner, surfaces }
    }

    /// How far node `id`'s positions are from the screen's: its window's origin for a native
    /// app, (0, 0) for an XWayland one. `top` is the node's top-level window node as read
    /// (its name, and its bounds when read), when known; it is looked up only when the app has
    /// more than one window, or draws shadows that its positions may count from.
    fn shift(&self, id: &str, top: Option<&Node>) -> Result<(i32, i32), DeskError> {
        let pid = self.inner.pid_of(id)?;
        let native = self.surfaces.native_windows(pid)?;
        let window = match native.as_slice() {
            [] => return Ok((0, 0)),
            [one] => one,
            several => {
                let name = match top {
                    Some(top) => top.name.clone(),
                    None => self.top(id)?.name,
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
                window
            }
        };
        if window.buffer == window.frame {
            return Ok((window.frame.x, window.frame.y));
        }
        let size = |node: &Node| {
            node.bounds
                .map(|[_, _, w, h]| (w.max(0) as u32, h.max(0) as u32))
        };
        let root = match top.and_then(size) {
            Some(size) => Some(size),
            None => size(&self.top(id)?),
        };
        Ok(window.origin(root))
    }
}

impl Placed {
    /// The top-level window node `id` is in, with its bounds as the app gives them: its
    /// outermost ancestor, or itself when it is that window.
    fn top(&self, id: &str) -> Result<Node, DeskError> {
        let want = Want {
            bounds: true,
            ..Want::default()
        };
        match self.inner.ancestors(id)?.pop() {
            Some(top) if top.bounds.is_some() => Ok(top),
            Some(top) => self.inner.node(&top.id, want),
            None => self.inner.node(id, want),
        }
    }
}

fn moved(node: &mut Node, (dx, dy): (i32, i32)) {
    if let Some([x, y, _, _]) = node.bounds.as_mut() {
        *x += dx;
        *y += dy;
    }
}

/// The top-level window node a tree read from `nodes[0]` is, when its root is one.
fn root_window(nodes: &[Node]) -> Option<&Node> {
    nodes
        .first()
        .filter(|n| WINDOW_ROLES.contains(&n.role.as_str()))
}

impl Accessibility for Placed {
    fn windows_of(&self, pid: u32) -> Result<Option<Vec<AppWindow>>, DeskError> {
        self.inner.windows_of(pid)
    }

    fn tree(&self, root: &str, want: Want) -> Result<Tree, DeskError> {
        let mut tree = self.inner.tree(root, want)?;
        if want.bounds && !tree.nodes.is_empty() {
            let top = root_window(&tree.nodes).cloned();
            let shift = self.shift(root, top.as_ref())?;
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
                .then(|| node.clone());
            moved(&mut node, self.shift(id, own.as_ref())?);
        }
        Ok(node)
    }

    fn ancestors(&self, id: &str) -> Result<Vec<Node>, DeskError> {
        let mut nodes = self.inner.ancestors(id)?;
        if nodes.iter().any(|n| n.bounds.is_some()) {
            let top = nodes.last().cloned();
            let shift = self.shift(id, top.as_ref())?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_start_at_the_buffer_only_for_a_window_node_as_large_as_it() {
        let surface = Surface {
            title: "t".into(),
            frame: Rect::new(48, 45, 151, 71),
            buffer: Rect::new(22, 19, 203, 123),
        };
        assert_eq!(
            surface.origin(Some((203, 123))),
            (22, 19),
            "GTK 3: shadows counted"
        );
        assert_eq!(
            surface.origin(Some((151, 71))),
            (48, 45),
            "GTK 4: the window's own"
        );
        assert_eq!(surface.origin(None), (48, 45), "unknown: the window's own");
    }
}
