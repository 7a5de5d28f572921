//! `snapshot`, `find`, `read`, `at` and `unanswered`: the desk seen through the accessibility
//! tree, where controls have names and nothing has to be guessed from pixels. Acting on a node
//! is [`super::press`], finding and admitting it [`super::node`].

use desk_core::a11y::role::DOCUMENT_WEB;
use std::collections::HashMap;

use desk_core::a11y::{self, Node, View};
use desk_core::call::{AtArgs, FindArgs, ReadArgs, SnapshotArgs};
use desk_core::results::{
    At, Covered, Found, NodeAlone, Snapshot, SnapshotResult, TreeChanges, Unanswered, WindowRef,
};

use super::node::{
    accessible_window, drop_bogus_bounds, misreports_bounds, named_or_focused, node_target,
    node_words, place_by_tree, place_misreported, screen_window_of,
};
use super::target::{self};
use crate::accessibility::{Tree, Want};
use crate::error::DeskError;
use crate::guard::{Desk, Nodes, Seen};
use crate::system::FORCE_ACCESSIBILITY;
use crate::trees::{Fingerprints, Shown, fingerprints};

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

pub(super) fn snapshot(desk: &Desk, args: &SnapshotArgs) -> Result<SnapshotResult, DeskError> {
    let name = args.id.as_deref().or(args.window.as_deref());
    let window = desk
        .pick(name, args.pid)
        .map_err(|e| match (name, args.pid) {
            (None, None) => DeskError::Invalid("name the window: pass window, id or pid".into()),
            _ => e,
        })?;
    let nodes = desk.nodes();
    let frame = accessible_window(desk, &nodes, &window)?;
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
    show_terminals(&nodes, &mut tree)?;
    if args.bounds {
        place_misreported(&window, &mut tree);
        if let Some(rect) = desk.window_rect(&window)? {
            drop_bogus_bounds(&mut tree, rect);
        }
    }
    let read = tree.len();
    let note = (!shows_a_page(&tree)
        && window
            .pid
            .is_some_and(|pid| desk.chromium_without_accessibility(pid)))
    .then(|| {
        format!(
            "this Chromium-based app shows its window's frame but no page content: it was \
                 started without {FORCE_ACCESSIBILITY}; close it and start it again with launch, \
                 which adds that switch, or use shot and pixel input"
        )
    })
    .or_else(|| {
        // A walk that stopped short may have left a view's items unread (a crowded table).
        let empty = match truncated {
            None => a11y::views_without_items(&tree),
            Some(_) => Vec::new(),
        };
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
    let frame = accessible_window(desk, &nodes, &window)?;
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
    show_terminals(&nodes, &mut tree)?;
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
        if hit.role == a11y::role::TERMINAL {
            node.value.clone_from(&hit.value);
        }
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

/// Gives each terminal of `tree` the lines it shows as its value (a terminal's text is its
/// screen, which an agent reads as it would a field's value).
fn show_terminals(nodes: &Nodes<'_>, tree: &mut [Node]) -> Result<(), DeskError> {
    for node in tree.iter_mut().filter(|n| n.role == a11y::role::TERMINAL) {
        let read = nodes.node(
            &node.id,
            Want {
                text: true,
                ..Want::default()
            },
        )?;
        node.value = read.value.as_deref().map(a11y::terminal_screen);
    }
    Ok(())
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
    let frame = accessible_window(desk, &nodes, &window)?;
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
