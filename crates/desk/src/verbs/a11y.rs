//! `snapshot`, `find`, `read`, `press`, `act`, `at` and `unanswered`: the desk seen through
//! the accessibility tree, where controls have names and nothing has to be guessed from pixels.

use std::time::Duration;

use desk_core::a11y::role::{DOCUMENT_WEB, MENU, MENU_ITEMS};
use desk_core::app_text::Quoted;
use std::collections::HashMap;

use desk_core::a11y::{self, Node, View};
use desk_core::call::{ActArgs, AtArgs, FindArgs, NodeAction, PressArgs, ReadArgs, SnapshotArgs};
use desk_core::geometry::Rect;
use desk_core::results::{
    At, Covered, Found, NodeAlone, PressHow, Pressed, Route, Snapshot, SnapshotResult, TreeChanges,
    Unanswered, WindowRef,
};
use desk_core::window::Window;

use super::poll_until;
use super::target::{self, SETTLE_WAIT};
use crate::accessibility::{AppWindow, Tree, Want};
use crate::error::DeskError;
use crate::guard::way;
use crate::guard::{ActingNodes, Admitted, Desk, Nodes, Seen, Spot};
use crate::intent::{Intent, Target};
use crate::system::FORCE_ACCESSIBILITY;
use crate::trees::{Fingerprints, Shown, fingerprints};

/// How far outside its window a node may reach before its bounds count as bogus (toolkits
/// report widgets they never laid out at absurd places).
const BOUNDS_SLACK: i32 = 64;
/// How long a menu may take to open.
const MENU_WAIT: Duration = Duration::from_secs(2);

/// The accessible top-level window that is `window` on the screen: same process, same title.
pub(super) fn frame_of(
    desk: &Desk,
    nodes: &Nodes<'_>,
    window: &Window,
) -> Result<AppWindow, DeskError> {
    let no_tree = || DeskError::NoTree {
        id: window.id.clone(),
        title: window.title.clone(),
        app: window.app.clone().unwrap_or_else(|| "its app".into()),
        why: if window
            .pid
            .is_some_and(|pid| desk.chromium_without_accessibility(pid))
        {
            format!(
                "Chromium-based apps (Chrome, Edge, Electron apps) expose their pages only when \
                 started with {FORCE_ACCESSIBILITY} or while a screen reader runs; close it and \
                 start it again with launch, which adds that switch, or use shot and pixel input"
            )
        } else {
            "its app is not on the accessibility bus (terminals such as xterm and apps that draw \
             their own widgets are not); use shot and pixel input instead"
                .into()
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
fn named_or_focused(
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

/// The deepest node of `tree` whose bounds hold (`x`, `y`), the smallest among equals.
fn deepest_at(tree: Vec<Node>, x: i32, y: i32) -> Option<Node> {
    tree.into_iter()
        .filter(|n| {
            n.bounds
                .is_some_and(|[bx, by, w, h]| x >= bx && y >= by && x < bx + w && y < by + h)
        })
        .max_by_key(|n| {
            let area = n
                .bounds
                .map_or(0, |[_, _, w, h]| i64::from(w) * i64::from(h));
            (n.depth, std::cmp::Reverse(area))
        })
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

pub(super) fn snapshot(desk: &Desk, args: &SnapshotArgs) -> Result<SnapshotResult, DeskError> {
    let name = args.id.as_deref().or(args.window.as_deref());
    let window = desk
        .pick(name, args.pid)
        .map_err(|e| match (name, args.pid) {
            (None, None) => DeskError::Invalid("name the window: pass window, id or pid".into()),
            _ => e,
        })?;
    let nodes = desk.nodes();
    let frame = frame_of(desk, &nodes, &window)?;
    let view = args.view.unwrap_or_default();
    let want = Want {
        bounds: args.bounds,
        keys: args.keys,
        text: false,
        max_nodes: args.max_nodes.map(|m| m as usize),
        shown_only: view != View::All,
    };
    let Tree {
        nodes: mut tree,
        truncated,
        shown_guessed,
    } = nodes.tree(&frame.id, want)?;
    if args.bounds {
        place_misreported(&window, &mut tree);
        if let Some(rect) = desk.window_rect(&window)? {
            drop_bogus_bounds(&mut tree, rect);
        }
    }
    let read = tree.len();
    let note = (window
        .pid
        .is_some_and(|pid| desk.chromium_without_accessibility(pid))
        && !shows_a_page(&tree))
    .then(|| {
        format!(
            "this Chromium-based app shows its window's frame but no page content: it was \
                 started without {FORCE_ACCESSIBILITY}; close it and start it again with launch, \
                 which adds that switch, or use shot and pixel input"
        )
    })
    .or_else(|| {
        let empty = a11y::views_without_items(&tree);
        (!empty.is_empty()).then(|| {
            let named: Vec<String> = empty.iter().map(|n| node_words(n)).collect();
            format!(
                "{} exposes no items to accessibility: what the screen shows in it is there \
                 only (shot it to see it; move through it with keys, such as arrows and \
                 Return, or with clicks)",
                named.join(", ")
            )
        })
    })
    .or_else(|| {
        (shown_guessed && view != View::All).then(|| {
            "this app's toolkit (GTK 4) does not say what is on the screen: what it keeps \
                 visible is listed, which may include a hidden bar or another page's text; a \
                 shot shows what is there"
                .to_string()
        })
    });
    let tree = a11y::view(tree, view);
    // Every snapshot is remembered, outlines too, for the caller's next one with changes.
    let shown = Shown {
        caller: desk.agent().to_string(),
        window: window.id.clone(),
        view,
        bounds: args.bounds,
        keys: args.keys,
    };
    let now = fingerprints(&tree);
    let before = desk.trees().swap(shown, now.clone());
    if args.text {
        let mut header = format!(
            "window {} {:?}: {} nodes ({} view of {read} read)\n",
            window.id,
            window.title,
            tree.len(),
            view.name(),
        );
        if let Some(truncated) = &truncated {
            header.push_str(&format!(
                "truncated: {}; {} nodes seen\n",
                truncated.reason, truncated.seen
            ));
        }
        if let Some(note) = &note {
            header.push_str(&format!("note: {note}\n"));
        }
        let limit = args
            .max_chars
            .map(|m| (m as usize).saturating_sub(header.len()));
        return Ok(SnapshotResult::Outline(
            header + &a11y::outline(&tree, limit),
        ));
    }
    let (nodes, changes) = match (args.changes, before) {
        (false, _) => (tree, None),
        (true, before) => {
            let (nodes, changes) = tree_changes(tree, &now, before);
            (nodes, Some(Box::new(changes)))
        }
    };
    Ok(SnapshotResult::Tree(Snapshot {
        window: WindowRef::from(&window),
        view,
        read,
        nodes,
        changes,
        truncated,
        note,
    }))
}

/// The nodes of `tree` (whose fingerprints are `now`) that are new or changed since `before`,
/// and the account of what changed; every node, and why, when there is no `before`.
fn tree_changes(
    tree: Vec<Node>,
    now: &Fingerprints,
    before: Option<Fingerprints>,
) -> (Vec<Node>, TreeChanges) {
    let ids: HashMap<usize, String> = tree.iter().map(|n| (n.node_ref, n.id.clone())).collect();
    let (listed, removed, added, whole) = match before {
        None => (
            tree,
            Vec::new(),
            0,
            Some(
                "no earlier snapshot of this window in this view (with the same bounds and keys) \
                 to compare with: every node is listed"
                    .to_string(),
            ),
        ),
        Some(before) => {
            let mut removed: Vec<String> = before
                .keys()
                .filter(|id| !now.contains_key(*id))
                .cloned()
                .collect();
            removed.sort();
            let added = tree.iter().filter(|n| !before.contains_key(&n.id)).count();
            let listed: Vec<Node> = tree
                .into_iter()
                .filter(|n| before.get(&n.id) != now.get(&n.id))
                .collect();
            (listed, removed, added, None)
        }
    };
    let parent_ids = listed
        .iter()
        .filter_map(|n| n.parent)
        .filter_map(|p| Some((p, ids.get(&p)?.clone())))
        .collect();
    let changes = TreeChanges {
        added: if whole.is_some() { listed.len() } else { added },
        changed: if whole.is_some() {
            0
        } else {
            listed.len() - added
        },
        removed,
        unchanged: now.len() - listed.len(),
        parent_ids,
        whole,
    };
    (listed, changes)
}

/// Whether a tree holds a web page with something in it: a Chromium-based app started without
/// accessibility shows only its own frame.
fn shows_a_page(tree: &[Node]) -> bool {
    tree.iter()
        .filter(|n| n.role == DOCUMENT_WEB)
        .any(|page| tree.iter().any(|n| n.parent == Some(page.node_ref)))
}

pub(super) fn find(desk: &Desk, args: &FindArgs) -> Result<Found, DeskError> {
    let window = named_or_focused(desk, args.window.as_deref(), args.pid)?;
    let nodes = desk.nodes();
    let frame = frame_of(desk, &nodes, &window)?;
    // Where bounds are misreported, the tree's shape tells how: read it with them.
    let misreported = misreports_bounds(&window);
    let Tree {
        nodes: mut tree,
        truncated,
        ..
    } = nodes.tree(
        &frame.id,
        Want {
            bounds: misreported,
            ..Want::default()
        },
    )?;
    if misreported {
        place_misreported(&window, &mut tree);
    }
    let rect = desk.window_rect(&window)?;
    let mut found: Vec<Node> = Vec::new();
    for hit in a11y::find_by_name(&tree, &args.name, args.role.as_deref()) {
        if misreported {
            found.push(hit.clone());
            continue;
        }
        let mut node = nodes.node(
            &hit.id,
            Want {
                bounds: true,
                ..Want::default()
            },
        )?;
        // The tree read the node among its relatives, which tells its name and whether it
        // shows better than the node alone does.
        node.node_ref = hit.node_ref;
        node.parent = hit.parent;
        node.depth = hit.depth;
        node.name.clone_from(&hit.name);
        node.named_by = hit.named_by;
        node.states.clone_from(&hit.states);
        found.push(node);
    }
    if let Some(rect) = rect {
        drop_bogus_bounds(&mut found, rect);
    }
    Ok(Found {
        window: WindowRef::from(&window),
        nodes: found,
        truncated,
    })
}

pub(super) fn read(desk: &Desk, args: &ReadArgs) -> Result<NodeAlone, DeskError> {
    let nodes = desk.nodes();
    let mut node = nodes.node(
        &args.id,
        Want {
            bounds: true,
            keys: true,
            text: args.text,
            ..Want::default()
        },
    )?;
    // Only a node of an app that misreports its bounds pays for its window's tree.
    let pid = nodes.pid_of(&node.id)?;
    let misreported = desk
        .windows()?
        .iter()
        .any(|w| w.pid == Some(pid) && misreports_bounds(w));
    if misreported
        && node.bounds.is_some()
        && let (_, Some(window), _) = node_target(desk, &nodes, &node)?
    {
        place_by_tree(desk, &nodes, &window, &mut node)?;
    }
    Ok(NodeAlone::from(node))
}

/// The centre of a node's bounds, when it has bounds on the screen.
fn centre(desk: &Desk, node: &Node) -> Result<Option<(i32, i32)>, DeskError> {
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
    pub(super) fn frame(&self) -> Option<&Node> {
        self.ancestors.last()
    }

    /// Whether the node is in an app's main window (not a dialog, where Return may press the
    /// default button).
    pub(super) fn in_main_window(&self) -> bool {
        self.frame().is_some_and(|f| f.role == "frame")
    }

    /// Clicks the node's centre, which must show its window on top (raised if need be), and
    /// says where the click went.
    fn click(&self, at: (i32, i32)) -> Result<Pressed, DeskError> {
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
        let confirmed = spot
            .on
            .window()
            .is_some_and(|w| self.admitted.settle(w, SETTLE_WAIT));
        Ok(Pressed {
            at: Some([at.0, at.1]),
            confirmed: Some(confirmed),
            ..Pressed::new(&self.node.id, PressHow::Clicked)
        })
    }

    /// Runs the node's first action and says which.
    fn run_action(&self, nodes: &Nodes<'_>) -> Result<Pressed, DeskError> {
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

/// Opens the menus above a hidden menu item, outermost first, waiting for each to open. A
/// popup menu that is itself hidden is opened by what it belongs to (a combo box, a menu
/// button).
fn open_menus_above(
    nodes: &Nodes<'_>,
    acting: &ActingNodes<'_>,
    node: &Node,
) -> Result<Vec<String>, DeskError> {
    let ancestors = nodes.ancestors(&node.id)?;
    let menus = ancestors.iter().take_while(|a| a.role == MENU).count();
    let mut chain: Vec<Node> = ancestors[..menus].to_vec();
    chain.reverse();
    if chain.first().is_some_and(is_hidden)
        && let Some(opener) = ancestors.get(menus)
    {
        chain.insert(0, opener.clone());
    }
    let mut opened = Vec::new();
    for (i, menu) in chain.iter().enumerate() {
        let inner = chain.get(i + 1).map_or(node.id.as_str(), |m| m.id.as_str());
        if !is_hidden(&nodes.node(inner, Want::default())?) {
            continue;
        }
        if nodes.actions(&menu.id)?.is_empty() || !acting.do_action(&menu.id, 0)? {
            return Err(DeskError::AppRefused(format!(
                "{} {:?} did not open its menu; its item was not run",
                menu.role, menu.name
            )));
        }
        opened.push(if menu.name.is_empty() {
            menu.role.clone()
        } else {
            menu.name.clone()
        });
        let open = poll_until(MENU_WAIT, || {
            Ok((!is_hidden(&nodes.node(inner, Want::default())?)).then_some(()))
        })?;
        if open.is_none() {
            return Err(DeskError::AppRefused(format!(
                "menu {:?} did not open within {} s; its item was not run",
                menu.name,
                MENU_WAIT.as_secs()
            )));
        }
    }
    Ok(opened)
}

/// Where input to a node lands: the screen window of its top-level accessible window, that
/// window when it is on the screen, and the node's ancestors, nearest first, its accessible
/// window last (read once, for the hit test a click makes and what the field verbs ask).
fn node_target(
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
fn place_by_tree(
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
    let root = frame_of(desk, nodes, window)?;
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
fn screen_window_of<'w>(windows: &'w [Window], pid: u32, title: &str) -> Option<&'w Window> {
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

const SELECTABLE: [&str; 5] = [
    "page tab",
    "table row",
    "list item",
    "tree item",
    "table cell",
];
pub(super) fn press(desk: &Desk, args: &PressArgs) -> Result<Pressed, DeskError> {
    let nodes = desk.nodes();
    let pressed = admitted_node(desk, &nodes, &args.id, "press")?;
    let acting = pressed.admitted.nodes();
    let role = pressed.node.role.as_str();
    if SELECTABLE.contains(&role) && acting.select(&pressed.node.id)? {
        return Ok(Pressed {
            route: press_route(desk),
            ..Pressed::new(&pressed.node.id, PressHow::Selected)
        });
    }
    // In the background the node's action runs and nothing is clicked, even when the action
    // fails: it may have fired all the same.
    if desk.presses_behind() {
        return Ok(Pressed {
            route: press_route(desk),
            ..pressed.run_action(&nodes)?
        });
    }
    let menu_item = MENU_ITEMS.contains(&role);
    let opened = if (menu_item || role == MENU) && is_hidden(&pressed.node) {
        open_menus_above(&nodes, &acting, &pressed.node)?
    } else {
        Vec::new()
    };
    // A menu entry is clicked where its open menu shows it, and runs its action only where it
    // cannot be: the toolkit runs an action inside the accessibility call, so an entry that
    // opens a modal dialog (Save As...) leaves the app deaf to accessibility until the dialog
    // closes. A menu is clicked at its centre like any other control, where it shows now that
    // the menus above it are open.
    let mut done = if menu_item {
        match click_in_menu(desk, &nodes, &pressed)? {
            Some(clicked) => clicked,
            None => pressed.run_action(&nodes)?,
        }
    } else if opened.is_empty() {
        click_or_action(desk, &nodes, &pressed, &pressed.node)?
    } else {
        let shown = nodes.node(
            &pressed.node.id,
            Want {
                bounds: true,
                ..Want::default()
            },
        )?;
        click_or_action(desk, &nodes, &pressed, &shown)?
    };
    if !opened.is_empty() {
        done.opened = Some(opened);
    }
    Ok(done)
}

/// Clicks `node` (as it shows now) at its centre when the node itself is what is there, so the
/// app sees a real click; else, or when another window stays over that point, runs its own
/// action.
fn click_or_action(
    desk: &Desk,
    nodes: &Nodes<'_>,
    pressed: &AdmittedNode<'_>,
    node: &Node,
) -> Result<Pressed, DeskError> {
    let mut covered = None;
    if let (Some(point), Some(_)) = (centre(desk, node)?, &pressed.window) {
        let root = pressed.frame().map_or(node.id.as_str(), |w| w.id.as_str());
        let (dx, dy) = pressed.moved;
        if nodes.at_point(root, point.0 - dx, point.1 - dy)?.as_deref() == Some(node.id.as_str()) {
            match pressed.click(point) {
                Err(DeskError::Changed(why)) => covered = Some(why),
                clicked => return clicked,
            }
        }
    }
    let mut done = pressed.run_action(nodes)?;
    if let Some(why) = covered {
        done.note = Some(format!("not clicked: {why}; pressed by its action instead"));
    }
    Ok(done)
}

/// Clicks a menu entry at its centre when its open menu shows it there, over its window (a
/// menu is a popup of its own on X11); `None`, with nothing sent, when it cannot tell.
fn click_in_menu(
    desk: &Desk,
    nodes: &Nodes<'_>,
    pressed: &AdmittedNode<'_>,
) -> Result<Option<Pressed>, DeskError> {
    let id = pressed.node.id.as_str();
    let shown = nodes.node(
        id,
        Want {
            bounds: true,
            ..Want::default()
        },
    )?;
    let Some(point) = centre(desk, &shown)? else {
        return Ok(None);
    };
    let Some(menu) = nodes.ancestors(id)?.into_iter().find(|n| n.role == MENU) else {
        return Ok(None);
    };
    let (dx, dy) = pressed.moved;
    if nodes
        .at_point(&menu.id, point.0 - dx, point.1 - dy)?
        .as_deref()
        != Some(id)
    {
        return Ok(None);
    }
    let Some(window) = pressed.window.clone() else {
        return Ok(None);
    };
    // Not raised: that would close the menu. The spot is the window's own, or a popup of its
    // app over it (the menu).
    let spot = Spot {
        x: point.0,
        y: point.1,
        on: Seen::Window(window),
        raise: false,
    };
    match pressed
        .admitted
        .click(&spot, desk_core::call::Button::Left, 1)
    {
        Err(DeskError::Changed(_)) => return Ok(None),
        clicked => clicked?,
    }
    let confirmed = spot
        .on
        .window()
        .is_some_and(|w| pressed.admitted.settle(w, SETTLE_WAIT));
    Ok(Some(Pressed {
        at: Some([point.0, point.1]),
        confirmed: Some(confirmed),
        ..Pressed::new(id, PressHow::Clicked)
    }))
}

pub(super) fn act(desk: &Desk, args: &ActArgs) -> Result<Pressed, DeskError> {
    let verb = match args.action {
        NodeAction::Click => "click",
        NodeAction::Action => "run the action of",
        NodeAction::Select => "select",
        NodeAction::Focus => "focus",
    };
    // Refused before admission, so the person is not asked about what will not be done.
    let route = match args.action {
        NodeAction::Click => desk.in_front(DeskError::Unsupported(format!(
            "a click on {} is not sent in the background, where a window manager would raise \
             its window and take the person's focus; use action: \"action\" or \"select\"",
            args.id
        )))?,
        NodeAction::Focus => desk.in_front(DeskError::Unsupported(format!(
            "focusing {} is not done in the background: the toolkit raises and activates its \
             window to focus it; type into it by naming its window instead",
            args.id
        )))?,
        NodeAction::Action | NodeAction::Select => press_route(desk),
    };
    let nodes = desk.nodes();
    let pressed = admitted_node(desk, &nodes, &args.id, verb)?;
    let node = &pressed.node;
    let refused =
        |what: &str| DeskError::AppRefused(format!("{} refused to {what}", node_words(node)));
    let done = match args.action {
        NodeAction::Click => {
            let point = centre(desk, node)?.ok_or_else(|| {
                DeskError::Unfit(format!(
                    "{} has no bounds on the screen to click; try action or select",
                    node_words(node)
                ))
            })?;
            pressed.click(point)?
        }
        NodeAction::Action => pressed.run_action(&nodes)?,
        NodeAction::Select => {
            if !pressed.admitted.nodes().select(&node.id)? {
                return Err(refused("be selected"));
            }
            Pressed::new(&node.id, PressHow::Selected)
        }
        NodeAction::Focus => {
            if !pressed.admitted.nodes().grab_focus(&node.id)? {
                return Err(refused("take the focus"));
            }
            Pressed::new(&node.id, PressHow::Focused)
        }
    };
    Ok(Pressed { route, ..done })
}

/// The route of a press by the node's action or selection: background, under background or
/// auto input.
fn press_route(desk: &Desk) -> Route {
    if desk.presses_behind() {
        way::confirmed_behind()
    } else {
        Route::default()
    }
}

pub(super) fn at(desk: &Desk, args: &AtArgs) -> Result<At, DeskError> {
    // With a window, x and y are pixels of its shot, as for click.
    let named = if args.window.is_some() || args.pid.is_some() {
        let window = desk.pick(args.window.as_deref(), args.pid)?;
        let (x, y) = target::window_point(desk, &window, args.x, args.y)?;
        Some((window, x, y))
    } else {
        None
    };
    let (x, y) = named
        .as_ref()
        .map_or((args.x, args.y), |(_, x, y)| (*x, *y));
    target::on_screen(desk, x, y)?;
    let top = desk.top_app_at(x, y)?;
    let window = match (named, &top) {
        (Some((window, ..)), _) => window,
        (None, Seen::Window(window)) => window.clone(),
        (None, Seen::Foreign(target)) => {
            let place = format!("the window at ({x}, {y})");
            return Err(desk.refusal_of(target, &place));
        }
        (None, Seen::Nothing) => {
            return Err(DeskError::Unplaced(format!(
                "no app window is at ({x}, {y}); nothing to read there"
            )));
        }
    };
    let nodes = desk.nodes();
    let frame = frame_of(desk, &nodes, &window)?;
    // An app that misreports its bounds hit-tests by them too: find the node by the bounds put
    // where the screen shows them instead.
    let placed = if misreports_bounds(&window) {
        let want = Want {
            bounds: true,
            shown_only: true,
            ..Want::default()
        };
        let mut tree = nodes.tree(&frame.id, want)?.nodes;
        place_misreported(&window, &mut tree);
        Some(deepest_at(tree, x, y))
    } else {
        None
    };
    let id = match &placed {
        Some(Some(node)) => node.id.clone(),
        Some(None) => frame.id.clone(),
        None => nodes
            .at_point(&frame.id, x, y)?
            .unwrap_or_else(|| frame.id.clone()),
    };
    let mut node = nodes.node(
        &id,
        Want {
            bounds: true,
            ..Want::default()
        },
    )?;
    if let Some(Some(placed)) = placed {
        node.bounds = placed.bounds;
    }
    let ancestors = nodes.ancestors(&id)?;
    let covered = match top {
        // The window on top counts as the one read when it is the accessible window's own: its
        // process's only window, or that process's one window with the accessible window's
        // title.
        Seen::Window(above) if above.id != window.id => {
            let windows = desk.windows()?;
            let own = window
                .pid
                .and_then(|pid| screen_window_of(&windows, pid, &frame.name));
            (own.map(|w| w.id.as_str()) != Some(above.id.as_str())).then(|| Covered {
                title: Some(above.title.clone()),
                pid: above.pid,
                note: None,
            })
        }
        Seen::Foreign(_) => Some(Covered {
            title: None,
            pid: None,
            note: Some("a window of an app outside the allowlist".into()),
        }),
        _ => None,
    };
    Ok(At {
        at: [x, y],
        window: WindowRef::from(&window),
        pid: window.pid,
        node: NodeAlone::from(node),
        ancestors: ancestors.into_iter().map(NodeAlone::from).collect(),
        covered,
    })
}

pub(super) fn unanswered(desk: &Desk) -> Result<Option<Unanswered>, DeskError> {
    let Seen::Window(active) = desk.focused()? else {
        return Ok(None);
    };
    let Some(pid) = active.pid else {
        return Ok(None);
    };
    let silent = match desk.nodes().windows_of(&active) {
        Ok(Some(frames)) => frames.is_empty(),
        Ok(None) | Err(DeskError::NotAnswering { .. }) => true,
        Err(other) => return Err(other),
    };
    Ok(silent.then(|| Unanswered {
        id: String::new(),
        title: active.title,
        pid,
        role: active.role,
        app: active.app,
    }))
}
