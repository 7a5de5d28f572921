//! Finding the node a call names and admitting input to it: its window on the screen, where it
//! is (LibreOffice misplaces its nodes; some toolkits report bounds far off), and an
//! [`AdmittedNode`] that acts on it. The verbs that act on nodes (press, act, the field verbs,
//! the vision verbs) start here.

use super::target::ANSWER_WAIT;
use crate::accessibility::{AppWindow, Want};
use crate::error::DeskError;
use crate::guard::{Admitted, Desk, Nodes, Seen, Spot};
use crate::intent::{Intent, Target};
use crate::system::{AccessibilityOff, FORCE_ACCESSIBILITY};
use desk_core::a11y::Node;
use desk_core::app_text::Quoted;
use desk_core::geometry::Rect;
use desk_core::results::{PressHow, Pressed};
use desk_core::window::Window;

/// How far outside its window a node may reach before its bounds count as bogus (toolkits
/// report widgets they never laid out at absurd places).
pub(super) const BOUNDS_SLACK: i32 = 64;

/// The accessible top-level window that is `window` on the screen: same process, same title.
pub(super) fn accessible_window(
    desk: &Desk,
    nodes: &Nodes<'_>,
    window: &Window,
) -> Result<AppWindow, DeskError> {
    let no_tree = || DeskError::NoTree {
        id: window.id.clone(),
        title: window.title.clone(),
        app: window.app.clone().unwrap_or_else(|| "its app".into()),
        why: match window.pid.and_then(|pid| desk.accessibility_off(pid)) {
            Some(AccessibilityOff::Chromium) => format!(
                "Chromium-based apps (Chrome, Edge, Electron apps) expose their pages only when \
                 started with {FORCE_ACCESSIBILITY} or while a screen reader runs; close it and \
                 start it again with launch, which adds that switch, or use shot and pixel input"
            ),
            Some(AccessibilityOff::Gtk2 { installed: true }) => {
                "GTK 2 apps (GIMP 2.10) join the accessibility bus only with the gail and \
                 atk-bridge modules loaded, and this one was started without them; close it and \
                 start it again with launch, which loads them, or use shot and pixel input"
                    .into()
            }
            Some(AccessibilityOff::Gtk2 { installed: false }) => {
                "GTK 2 apps (GIMP 2.10) join the accessibility bus only with the gail and \
                 atk-bridge modules, which are not installed; ask the person to install them \
                 (Debian: libgail-common and libatk-adaptor) and start the app again with \
                 launch, or use shot and pixel input"
                    .into()
            }
            None => "its app is not on the accessibility bus (terminals such as xterm and apps \
                     that draw their own widgets are not); use shot and pixel input instead"
                .into(),
        },
    };
    let frames = nodes.windows_of(window)?.ok_or_else(no_tree)?;
    if let [only] = frames.as_slice() {
        return Ok(only.clone());
    }
    let titled: Vec<&AppWindow> = frames.iter().filter(|f| f.name == window.title).collect();
    match titled.as_slice() {
        [one] => Ok((*one).clone()),
        [] if frames.is_empty() => Err(no_tree()),
        many => {
            // Several accessible windows share the title: the active one if the screen's is.
            let pool: Vec<&AppWindow> = if many.is_empty() {
                frames.iter().collect()
            } else {
                many.to_vec()
            };
            match pool
                .iter()
                .filter(|f| f.active == window.active)
                .collect::<Vec<_>>()
                .as_slice()
            {
                [one] => Ok((**one).clone()),
                _ => Err(DeskError::Invalid(format!(
                    "cannot tell which of {} accessible windows of its process is window {} {:?}; \
                     give the window a title of its own",
                    pool.len(),
                    window.id,
                    window.title
                ))),
            }
        }
    }
}

/// The window a call names by `window`, `id` or `pid`, else the focused one.
pub(super) fn named_or_focused(
    desk: &Desk,
    window: Option<&str>,
    pid: Option<u32>,
) -> Result<Window, DeskError> {
    if window.is_none() && pid.is_none() {
        return desk.focused_window()?.ok_or_else(|| {
            DeskError::Missing("no window has the focus; name one with window or pid".into())
        });
    }
    desk.pick(window, pid)
}

/// Whether `window`'s app reports bounds that need placing (LibreOffice; see
/// [`desk_core::bounds`]).
pub(super) fn misreports_bounds(window: &Window) -> bool {
    is_libreoffice(window)
}

/// Whether `window` is LibreOffice's (`soffice.bin`).
pub(super) fn is_libreoffice(window: &Window) -> bool {
    window
        .app
        .as_deref()
        .is_some_and(|app| app.starts_with("soffice"))
}

/// Puts the bounds of a tree of `window` where the screen shows them, for the apps known to
/// misreport them.
pub(super) fn place_misreported(window: &Window, nodes: &mut [Node]) {
    if misreports_bounds(window) {
        desk_core::bounds::place_drawn_area(nodes);
    }
}

/// Drops bounds that lie outside the window (or have no area): those nodes are not on screen.
pub(super) fn drop_bogus_bounds(nodes: &mut [Node], window: Rect) {
    let allowed = Rect::new(
        window.x - BOUNDS_SLACK,
        window.y - BOUNDS_SLACK,
        window.w + 2 * BOUNDS_SLACK as u32,
        window.h + 2 * BOUNDS_SLACK as u32,
    );
    for node in nodes {
        if let Some([x, y, w, h]) = node.bounds {
            let inside = w > 0
                && h > 0
                && allowed
                    .intersect(&Rect::new(x, y, w as u32, h as u32))
                    .is_some();
            if !inside {
                node.bounds = None;
            }
        }
    }
}

/// The centre of a node's bounds, when it has bounds on the screen.
pub(super) fn centre(desk: &Desk, node: &Node) -> Result<Option<(i32, i32)>, DeskError> {
    let Some([x, y, w, h]) = node.bounds.filter(|b| b[2] > 0 && b[3] > 0) else {
        return Ok(None);
    };
    let point = (x + w / 2, y + h / 2);
    Ok(desk
        .screen()?
        .contains_point(point.0, point.1)
        .then_some(point))
}

pub(super) fn is_hidden(node: &Node) -> bool {
    node.states.iter().any(|s| s == "hidden")
}

/// A node of an admitted action, with the screen window it is in, when that is known.
pub(super) struct AdmittedNode<'d> {
    pub(super) admitted: Admitted<'d>,
    pub(super) node: Node,
    pub(super) window: Option<Window>,
    /// Its ancestors, nearest first: the accessible window it is in, when it is in one, last.
    pub(super) ancestors: Vec<Node>,
    /// How far the node's bounds were moved to where the screen shows them (an app that
    /// misreports them): the app's own hit test still counts in its misreported places.
    pub(super) moved: (i32, i32),
}

impl AdmittedNode<'_> {
    /// The accessible window the node is in, when it is in one.
    pub(super) fn window_node(&self) -> Option<&Node> {
        self.ancestors.last()
    }

    /// Whether the node is in an app's main window (not a dialog, where Return may press the
    /// default button).
    pub(super) fn in_main_window(&self) -> bool {
        self.window_node()
            .is_some_and(|f| f.role == desk_core::a11y::role::FRAME)
    }

    /// Clicks the node's centre, which must show its window on top (raised if need be), and
    /// says where the click went.
    pub(super) fn click(&self, at: (i32, i32)) -> Result<Pressed, DeskError> {
        let window = self.window.clone().ok_or_else(|| {
            DeskError::Unplaced(format!(
                "{} is in no window shuttle can tell on the screen (none of its app's windows, or \
                 several, carry its window's title), so it cannot be clicked; try action or select",
                node_words(&self.node)
            ))
        })?;
        let spot = Spot {
            x: at.0,
            y: at.1,
            on: Seen::Window(window),
            raise: true,
        };
        self.admitted
            .click(&spot, desk_core::call::Button::Left, 1)?;
        let app_answer = spot
            .on
            .window()
            .map(|w| self.admitted.app_answer(w, ANSWER_WAIT));
        Ok(Pressed {
            at: Some([at.0, at.1]),
            app_answer,
            ..Pressed::new(&self.node.id, PressHow::Clicked)
        })
    }

    /// Runs the node's first action and says which.
    pub(super) fn run_action(&self, nodes: &Nodes<'_>) -> Result<Pressed, DeskError> {
        let node = &self.node;
        let actions = nodes.actions(&node.id)?;
        let Some(name) = actions.first() else {
            return Err(DeskError::Unfit(format!(
                "{} ({}) has no action to run and cannot be clicked where it is",
                node_words(node),
                node.id
            )));
        };
        if !self.admitted.nodes().do_action(&node.id, 0)? {
            return Err(DeskError::AppRefused(format!(
                "{} refused its action {}",
                node_words(node),
                Quoted(name)
            )));
        }
        Ok(Pressed {
            action: Some(name.clone()),
            ..Pressed::new(&node.id, PressHow::Action)
        })
    }
}

/// Where input to a node lands: the screen window of its top-level accessible window, that
/// window when it is on the screen, and the node's ancestors, nearest first, its accessible
/// window last (read once, for the hit test a click makes and what the field verbs ask).
pub(super) fn node_target(
    desk: &Desk,
    nodes: &Nodes<'_>,
    node: &Node,
) -> Result<(Target, Option<Window>, Vec<Node>), DeskError> {
    let pid = nodes.pid_of(&node.id)?;
    let ancestors = nodes.ancestors(&node.id)?;
    let title = ancestors
        .last()
        .map_or_else(|| node.name.clone(), |f| f.name.clone());
    let windows = desk.windows()?;
    let window = screen_window_of(&windows, pid, &title);
    Ok(match window {
        Some(window) => (Target::window(window), Some(window.clone()), ancestors),
        None => (
            Target::Window {
                id: String::new(),
                title,
                pid: Some(pid),
                app: None,
            },
            None,
            ancestors,
        ),
    })
}

/// Puts `node`'s bounds where the screen shows them, for an app that misreports them, as the
/// whole tree of its screen `window` tells. That tree is read from the window's accessible
/// window as snapshot reads it: the top of the node's parent chain can be another object, whose
/// tree does not show the offset. A sheet's cells are made anew for each read, so such a node
/// is not in the tree read: what LibreOffice draws (a cell is) takes the offset the tree showed.
/// An unnamed node takes the name the tree gives it there too (its label's, its
/// description's, or its box's: its parents, as the app reports them, may not lead to the box).
pub(super) fn place_by_tree(
    desk: &Desk,
    nodes: &Nodes<'_>,
    window: &Window,
    node: &mut Node,
) -> Result<(), DeskError> {
    let want = Want {
        bounds: true,
        shown_only: true,
        ..Want::default()
    };
    let root = accessible_window(desk, nodes, window)?;
    let mut tree = nodes.tree(&root.id, want)?.nodes;
    let offset = desk_core::bounds::place_drawn_area(&mut tree);
    if let Some(placed) = tree.into_iter().find(|n| n.id == node.id) {
        node.bounds = placed.bounds;
        if node.name.is_empty() && placed.named_by.is_some() {
            node.name = placed.name;
            node.named_by = placed.named_by;
        }
    } else if let (Some((dx, dy)), Some([x, y, w, h])) = (offset, node.bounds)
        && node.states.iter().any(|s| s == "transient")
    {
        node.bounds = Some([x + dx, y + dy, w, h]);
    }
    Ok(())
}

/// The screen window of an accessible window of process `pid` titled `title`: the one window of
/// that process with that title, or else its only window; where that leaves two or none, no
/// window is guessed.
pub(super) fn screen_window_of<'w>(
    windows: &'w [Window],
    pid: u32,
    title: &str,
) -> Option<&'w Window> {
    let mine: Vec<&Window> = windows.iter().filter(|w| w.pid == Some(pid)).collect();
    let titled: Vec<&Window> = mine.iter().copied().filter(|w| w.title == title).collect();
    match (titled.as_slice(), mine.as_slice()) {
        ([one], _) | ([], [one]) => Some(*one),
        _ => None,
    }
}

/// Node `id` with its bounds, once the action `verb` on it has been admitted.
pub(super) fn admitted_node<'d>(
    desk: &'d Desk,
    nodes: &Nodes<'_>,
    id: &str,
    verb: &str,
) -> Result<AdmittedNode<'d>, DeskError> {
    let mut node = nodes.node(
        id,
        Want {
            bounds: true,
            ..Want::default()
        },
    )?;
    let (place, window, ancestors) = node_target(desk, nodes, &node)?;
    let mut moved = (0, 0);
    // Bounds an app misreports are placed by its window's tree (the window, and so the place
    // admitted, stays the same).
    if let Some(screen_window) = &window
        && misreports_bounds(screen_window)
        && let Some([x, y, ..]) = node.bounds
    {
        place_by_tree(desk, nodes, screen_window, &mut node)?;
        if let Some([px, py, ..]) = node.bounds {
            moved = (px - x, py - y);
        }
    }
    let admitted = desk.admit(Intent::new(
        format!("{verb} {}", node_words(&node)),
        vec![place],
    ))?;
    Ok(AdmittedNode {
        admitted,
        node,
        window,
        ancestors,
        moved,
    })
}

/// A node in words: `button "OK"`.
pub(super) fn node_words(node: &Node) -> String {
    if node.name.is_empty() {
        node.role.clone()
    } else {
        format!("{} {}", node.role, Quoted(&node.name))
    }
}
