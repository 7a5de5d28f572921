//! Accessibility positions on the screen. A native Wayland app knows nothing of where its
//! window is, so GTK and Qt report positions relative to their own surface; an XWayland app
//! reports the screen's. An X11 app drawn at a scale (`GDK_SCALE=2`, `QT_SCALE_FACTOR`)
//! reports the screen's too, but in its own logical pixels, all of them divided by the scale.
//! GTK 4 on X11 reports positions relative to its window, as on Wayland.
//! [`Placed`] wraps an [`Accessibility`] and places an app's nodes by where its window shows
//! ([`Surfaces`]), both ways: bounds read are made the screen's, and a screen point asked
//! about is made the app's.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use desk::accessibility::{AppWindow, Tree, Want};
use desk::{Accessibility, DeskError};
use desk_core::a11y::Node;
use desk_core::geometry::Rect;

/// Roles of a node that is a top-level window.
const WINDOW_ROLES: [&str; 3] = ["frame", "dialog", "window"];
/// How long the scale found for an X11 app is used before it is looked at again.
const SCALE_KEPT: Duration = Duration::from_secs(5);

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
    /// Where its app's positions count from.
    pub counts_from: CountsFrom,
}

/// Where an app's accessibility positions count from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountsFrom {
    /// Its own window (a native Wayland app).
    Window,
    /// The screen's corner, as an X11 app's do. Such an app may draw at a scale, found from
    /// its window node's width against the window's.
    Screen,
    /// Its own window, on X11 (GTK 4): it may draw at a scale too, and puts its window node
    /// at (0, 0), inset in the X window by an invisible border.
    XWindow,
}

impl Surface {
    /// Where the positions of an app whose window node has the bounds `root` start: at the
    /// buffer for a window node as large as it (GTK 3) or put where the window sits in it
    /// (Firefox), below the title bar an app draws itself (Qt on GNOME), else at the window.
    fn origin(&self, root: Option<[i32; 4]>) -> (i32, i32) {
        if let Some((dx, dy)) = root.and_then(|r| self.drawn_title_bar(r)) {
            return (self.frame.x + dx, self.frame.y + dy);
        }
        let inset = (self.frame.x - self.buffer.x, self.frame.y - self.buffer.y);
        let from_buffer = root.is_some_and(|[x, y, w, h]| {
            let as_large = (i64::from(w), i64::from(h))
                == (i64::from(self.buffer.w), i64::from(self.buffer.h));
            as_large || (inset != (0, 0) && (x, y) == inset)
        });
        if from_buffer {
            (self.buffer.x, self.buffer.y)
        } else {
            (self.frame.x, self.frame.y)
        }
    }

    /// Where the content of a window starts inside it when its app draws a title bar of its
    /// own there, counting its positions from below it (Qt without a decoration of the
    /// compositor's): its window node is at (0, 0), narrower by the side borders, shorter by
    /// the title bar and the bottom border, which is as thick as a side one.
    fn drawn_title_bar(&self, [x, y, w, h]: [i32; 4]) -> Option<(i32, i32)> {
        let (dw, dh) = (self.frame.w as i32 - w, self.frame.h as i32 - h);
        ((x, y) == (0, 0) && (0..=TITLE_BAR_SIDES).contains(&dw) && dh > dw && dh <= TITLE_BAR)
            .then(|| {
                let left = (dw + 1) / 2;
                (left, dh - (dw - left))
            })
    }
}

/// The most a title bar an app draws, and its borders, may take, in logical pixels.
const TITLE_BAR: i32 = 64;
const TITLE_BAR_SIDES: i32 = 16;

/// Where a display shows each process's windows.
pub trait Surfaces: Send + Sync {
    /// The windows of process `pid` whose positions need placing: on Wayland the native ones
    /// (not XWayland's), on X11 all of them.
    fn native_windows(&self, pid: u32) -> Result<Vec<Surface>, DeskError>;
}

/// Where an app's positions land on the screen: multiplied by `scale`, then moved by
/// `(dx, dy)`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Placement {
    scale: f64,
    dx: i32,
    dy: i32,
    /// An X11 app counting from its window (GTK 4): its popups (menus, popovers) are surfaces
    /// of their own, whose nodes it places as if in the window, so their bounds are left out.
    from_window: bool,
}

impl Placement {
    const AS_IS: Placement = Placement {
        scale: 1.0,
        dx: 0,
        dy: 0,
        from_window: false,
    };

    fn moved(dx: i32, dy: i32) -> Self {
        Self {
            dx,
            dy,
            ..Self::AS_IS
        }
    }

    fn place(&self, node: &mut Node) {
        if let Some([x, y, w, h]) = node.bounds.as_mut() {
            for v in [&mut *x, &mut *y, &mut *w, &mut *h] {
                *v = (f64::from(*v) * self.scale).round() as i32;
            }
            *x += self.dx;
            *y += self.dy;
        }
    }

    /// A screen point in the app's own positions.
    fn unplace(&self, x: i32, y: i32) -> (i32, i32) {
        let back = |v: i32, d: i32| (f64::from(v - d) / self.scale).round() as i32;
        (back(x, self.dx), back(y, self.dy))
    }
}

/// How an X11 app's positions become the screen's, from its `window` and its window node's
/// bounds as the app gives them: multiplied by the scale it draws at. The app rounds its
/// window's origin down to its own pixels, so a position may be short by less than one of them.
/// GTK 4 counts from its window instead, whose node it puts at (0, 0) wherever the window is,
/// inset by its window's invisible border (5 of its pixels): such positions are moved by where
/// the node sits, centred in the window.
fn scaled(window: &Surface, [_, _, w, h]: [i32; 4]) -> Placement {
    let frame = window.frame;
    let scale = drawn_scale(frame, w.max(0) as u32);
    if window.counts_from != CountsFrom::XWindow {
        return Placement {
            scale,
            ..Placement::AS_IS
        };
    }
    let inset = |outer: u32, inner: i32| {
        ((f64::from(outer) - f64::from(inner.max(0)) * scale) / 2.0).round() as i32
    };
    Placement {
        scale,
        dx: frame.x + inset(frame.w, w),
        dy: frame.y + inset(frame.h, h),
        from_window: true,
    }
}

/// Roles of the nodes that are popups of their own below a window: GTK 4's menus and popovers.
const POPUP_ROLES: [&str; 5] = ["menu", "popup menu", "dialog", "window", "tool tip"];

/// Whether `node`, below its window, is a popup of its own.
fn is_popup(node: &Node) -> bool {
    POPUP_ROLES.contains(&node.role.as_str())
}

/// The scale an app draws its window at: the window's width over its window node's, to the
/// nearest quarter; 1 within a tenth of it, or when the node's width is implausible.
fn drawn_scale(window: Rect, node_width: u32) -> f64 {
    if node_width == 0 {
        return 1.0;
    }
    let ratio = f64::from(window.w) / f64::from(node_width);
    if (ratio - 1.0).abs() < 0.1 || !(0.4..=4.5).contains(&ratio) {
        1.0
    } else {
        (ratio * 4.0).round() / 4.0
    }
}

/// An accessibility API whose positions are the screen's, whether the app runs native on
/// Wayland or under XWayland.
pub struct Placed {
    inner: Arc<dyn Accessibility>,
    surfaces: Arc<dyn Surfaces>,
    /// The placement found for each X11 app lately, and when: an app keeps its scale.
    scales: Mutex<HashMap<u32, (Placement, Instant)>>,
}

impl Placed {
    /// Wraps `inner`, placing windows where `surfaces` says they are.
    pub fn new(inner: Arc<dyn Accessibility>, surfaces: Arc<dyn Surfaces>) -> Self {
        Self {
            inner,
            surfaces,
            scales: Mutex::new(HashMap::new()),
        }
    }

    fn kept_placement(&self, pid: u32) -> Option<Placement> {
        let scales = self.scales.lock().unwrap_or_else(|e| e.into_inner());
        scales
            .get(&pid)
            .filter(|(_, at)| at.elapsed() < SCALE_KEPT)
            .map(|(placement, _)| *placement)
    }

    /// The placement of an X11 app of `windows`, from the window node `top` when known (else
    /// looked up from `id`) against the window of its title; as the app gives them where none
    /// has it. It is a refinement: when the window node cannot be read, the positions go as the
    /// app gives them, and the next read looks again.
    fn screen_placement(
        &self,
        pid: u32,
        windows: &[Surface],
        id: &str,
        top: Option<&Node>,
    ) -> Placement {
        let top = match top.filter(|t| t.bounds.is_some()) {
            Some(top) => top.clone(),
            None => match self.top(id) {
                Ok(top) => top,
                Err(_) => return Placement::AS_IS,
            },
        };
        let window = match windows {
            [one] => Some(one),
            several => several.iter().find(|w| w.title == top.name),
        };
        let placement = match (window, top.bounds) {
            (Some(window), Some(node)) => scaled(window, node),
            _ => Placement::AS_IS,
        };
        // A placement counted from a window moves with it: only a scale is kept.
        if !placement.from_window {
            let mut scales = self.scales.lock().unwrap_or_else(|e| e.into_inner());
            scales.retain(|_, (_, at)| at.elapsed() < SCALE_KEPT);
            scales.insert(pid, (placement, Instant::now()));
        }
        placement
    }

    /// How node `id`'s positions become the screen's: moved by its window's origin for a native
    /// Wayland app, as they are for an XWayland one, scaled for an X11 app drawn at a scale.
    /// `top` is the node's top-level window node as read (its name, and its bounds when read),
    /// when known; it is looked up only when the app has more than one window, draws shadows
    /// that its positions may count from, or is an X11 app whose scale is not known lately.
    fn placement(&self, id: &str, top: Option<&Node>) -> Result<Placement, DeskError> {
        let pid = self.inner.pid_of(id)?;
        if let Some(kept) = self.kept_placement(pid) {
            return Ok(kept);
        }
        let native = self.surfaces.native_windows(pid)?;
        if native
            .first()
            .is_some_and(|w| w.counts_from != CountsFrom::Window)
        {
            return Ok(self.screen_placement(pid, &native, id, top));
        }
        let window = match native.as_slice() {
            [] => return Ok(Placement::AS_IS),
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
        let root = match top.and_then(|t| t.bounds) {
            Some(bounds) => Some(bounds),
            None => self.top(id)?.bounds,
        };
        let (dx, dy) = window.origin(root);
        Ok(Placement::moved(dx, dy))
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
            let placement = self.placement(root, top.as_ref())?;
            // Whether each node, in document order, is in a popup below the root.
            let mut in_popup: Vec<bool> = Vec::with_capacity(tree.nodes.len());
            for (i, node) in tree.nodes.iter().enumerate() {
                let parent = node.parent.filter(|&p| p < i).is_some_and(|p| in_popup[p]);
                in_popup.push(i > 0 && (parent || is_popup(node)));
            }
            for (node, popped) in tree.nodes.iter_mut().zip(in_popup) {
                if placement.from_window && popped {
                    node.bounds = None;
                }
                placement.place(node);
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
            let placement = self.placement(id, own.as_ref())?;
            if placement.from_window && own.is_none() {
                let mut above = self.inner.ancestors(id)?;
                above.pop();
                if is_popup(&node) || above.iter().any(is_popup) {
                    node.bounds = None;
                }
            }
            placement.place(&mut node);
        }
        Ok(node)
    }

    fn ancestors(&self, id: &str) -> Result<Vec<Node>, DeskError> {
        let mut nodes = self.inner.ancestors(id)?;
        if nodes.iter().any(|n| n.bounds.is_some()) {
            let top = nodes.last().cloned();
            let placement = self.placement(id, top.as_ref())?;
            // Nearest first: a node is in a popup when it or one above it, below the window,
            // is one.
            let count = nodes.len();
            let mut popped = false;
            for (k, node) in nodes.iter_mut().enumerate().rev() {
                popped |= k + 1 < count && is_popup(node);
                if placement.from_window && popped {
                    node.bounds = None;
                }
                placement.place(node);
            }
        }
        Ok(nodes)
    }

    fn at_point(&self, root: &str, x: i32, y: i32) -> Result<Option<String>, DeskError> {
        let (x, y) = self.placement(root, None)?.unplace(x, y);
        self.inner.at_point(root, x, y)
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
            self.placement(&node.id, None)?.place(&mut node);
        }
        Ok(Some(node))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_start_at_the_buffer_only_for_a_window_node_as_large_as_it_or_placed_in_it() {
        let surface = Surface {
            title: "t".into(),
            frame: Rect::new(48, 45, 151, 71),
            buffer: Rect::new(22, 19, 203, 123),
            counts_from: CountsFrom::Window,
        };
        assert_eq!(
            surface.origin(Some([0, 0, 203, 123])),
            (22, 19),
            "GTK 3: shadows counted"
        );
        assert_eq!(
            surface.origin(Some([26, 26, 151, 71])),
            (22, 19),
            "Firefox: its window node where the window sits in the buffer"
        );
        assert_eq!(
            surface.origin(Some([0, 0, 151, 71])),
            (48, 45),
            "GTK 4: the window's own"
        );
        assert_eq!(surface.origin(None), (48, 45), "unknown: the window's own");
    }

    #[test]
    fn positions_start_below_a_title_bar_the_app_draws_inside_its_window() {
        // Qt 5's own decoration on GNOME: 3 pixels left, 2 right and below, a 30-pixel bar.
        let frame = Rect::new(106, 107, 425, 272);
        let surface = Surface {
            title: "t".into(),
            frame,
            buffer: frame,
            counts_from: CountsFrom::Window,
        };
        assert_eq!(surface.origin(Some([0, 0, 420, 240])), (109, 137));
        assert_eq!(
            surface.origin(Some([0, 0, 425, 272])),
            (106, 107),
            "no title bar of its own"
        );
        assert_eq!(
            surface.origin(Some([0, 0, 425, 172])),
            (106, 107),
            "100 pixels shorter: no title bar"
        );
    }

    #[test]
    fn an_app_drawn_at_a_scale_is_found_by_its_window_node_against_its_window() {
        let window = Rect::new(201, 220, 800, 600);
        assert_eq!(drawn_scale(window, 401), 2.0, "GDK_SCALE=2");
        assert_eq!(drawn_scale(window, 533), 1.5, "QT_SCALE_FACTOR=1.5");
        assert_eq!(
            drawn_scale(window, 790),
            1.0,
            "a border's difference is no scale"
        );
        assert_eq!(drawn_scale(window, 0), 1.0);
        assert_eq!(drawn_scale(window, 20), 1.0, "implausible");
    }

    #[test]
    fn an_app_counting_from_its_window_is_moved_to_where_its_window_node_sits() {
        let x11 = |frame: Rect, counts_from: CountsFrom| Surface {
            title: "t".into(),
            frame,
            buffer: frame,
            counts_from,
        };
        // GTK 4.8 on X11: its window node at (0, 0), 355x486, in a window of 365x496 (730x992
        // at GDK_SCALE=2).
        let gtk4 = |frame| x11(frame, CountsFrom::XWindow);
        assert_eq!(
            scaled(&gtk4(Rect::new(777, 304, 365, 496)), [0, 0, 355, 486]),
            Placement {
                scale: 1.0,
                dx: 782,
                dy: 309,
                from_window: true
            }
        );
        assert_eq!(
            scaled(&gtk4(Rect::new(595, 69, 730, 992)), [0, 0, 355, 486]),
            Placement {
                scale: 2.0,
                dx: 605,
                dy: 79,
                from_window: true
            }
        );
        // Counting from the screen, a window node at (0, 0) is where it says (LibreOffice's).
        let other = x11(Rect::new(201, 220, 800, 600), CountsFrom::Screen);
        assert_eq!(scaled(&other, [0, 0, 800, 600]), Placement::AS_IS);
    }

    #[test]
    fn a_scaled_app_is_placed_on_the_screen_and_a_screen_point_back_in_its_pixels() {
        let placement = Placement {
            scale: 2.0,
            ..Placement::AS_IS
        };
        let mut node = Node {
            node_ref: 0,
            id: "n0".into(),
            parent: None,
            depth: 0,
            role: "push button".into(),
            name: "OK".into(),
            named_by: None,
            states: vec![],
            bounds: Some([100, 110, 400, 300]),
            keys: None,
            value: None,
        };
        placement.place(&mut node);
        assert_eq!(node.bounds, Some([200, 220, 800, 600]));
        assert_eq!(placement.unplace(600, 520), (300, 260));
        let moved = Placement::moved(48, 45);
        assert_eq!(moved.unplace(58, 50), (10, 5));
    }
}
