//! Reading accessibility trees in as few round trips as the app allows.
//!
//! The app's `Cache.GetItems` returns most of its objects (role, name, states, parent, child
//! count) in one call, but toolkits leave parts out (GTK 3 misses table cells and headers, Qt 5
//! answers nothing). So the tree is walked level by level from the window down: every node the
//! cache covers costs nothing, and for the rest, and for nodes whose cached children are
//! incomplete, all the calls of a level go out at once and their answers are awaited together.
//! Bounds, key bindings and values are then fetched for all nodes at once too.

use std::collections::{HashMap, HashSet};

use atspi::ObjectRefOwned;
use atspi::proxy::cache::CacheProxy;
use atspi::proxy::text::TextProxy;
use atspi::proxy::value::ValueProxy;
use atspi::{CoordType, Interface, InterfaceSet, Role, State, StateSet};
use desk_core::a11y::{self, Node};
use futures::future::join_all;
use zbus::proxy::CacheProperties;
use zbus::zvariant::OwnedValue;

use super::ids::NodeRef;
use super::names::{
    doubled, is_class_name, meaningful_keys, name_from_descriptions, name_from_labels,
    notable_states, plain_name, plain_text,
};
use super::{ACCESSIBLE, AtSpi, COMPONENT, PROPERTIES, cells};
use desk::DeskError;
use desk::accessibility::{Tree, Truncated, Want};

/// How long a walk may take before it stops and says what it left out.
const WALK_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The most characters of a node's text a snapshot reports as its value.
const VALUE_CHARS: i32 = 1000;

/// The most characters `read` with text returns.
const TEXT_CHARS: i32 = 100_000;

/// What one object is, before it has a place in a snapshot.
#[derive(Clone)]
pub(super) struct Info {
    pub(super) role: Role,
    pub(super) name: String,
    pub(super) states: StateSet,
    /// The interfaces, when the cache said; walked nodes skip asking, to save a round trip.
    pub(super) ifaces: Option<InterfaceSet>,
    pub(super) child_count: i32,
}

impl Info {
    /// Whether the node may have `interface`: surely when the cache said so, possibly when
    /// nobody asked.
    fn may_have(&self, interface: Interface) -> bool {
        self.ifaces.is_none_or(|i| i.contains(interface))
    }

    /// Whether the node holds a value worth reporting: a number (slider, spin button, scroll
    /// bar) or the text of an editable field.
    fn has_value(&self) -> Option<Interface> {
        match self.ifaces {
            // A spreadsheet cell has a Value too, but its text is what it shows.
            Some(i)
                if i.contains(Interface::Value)
                    && (VALUE_ROLES.contains(&self.role) || !i.contains(Interface::Text)) =>
            {
                Some(Interface::Value)
            }
            // Firefox gives every stretch of page text EditableText, Chromium none at all:
            // an editable node with text holds a value.
            Some(i)
                if self.states.contains(State::Editable)
                    && (i.contains(Interface::EditableText) || i.contains(Interface::Text)) =>
            {
                Some(Interface::EditableText)
            }
            Some(_) => None,
            None if VALUE_ROLES.contains(&self.role) => Some(Interface::Value),
            None if self.states.contains(State::Editable) => Some(Interface::EditableText),
            None => None,
        }
    }
}

/// Roles whose children are rows or items, of which there may be thousands.
const ROWS_HOLDERS: [Role; 5] = [
    Role::Table,
    Role::TreeTable,
    Role::Tree,
    Role::List,
    Role::ListBox,
];

/// Roles whose nodes carry a numeric value.
const VALUE_ROLES: [Role; 5] = [
    Role::Slider,
    Role::SpinButton,
    Role::ScrollBar,
    Role::ProgressBar,
    Role::LevelBar,
];

/// Reads the objects under `root` level by level, within `want`'s node budget and
/// [`WALK_LIMIT`], leaving crowded containers unwalked and, for a view of what shows, what is
/// under a node that does not show (a spreadsheet's closed menus are most of its tree).
pub(super) async fn walk(at: &AtSpi, root: &NodeRef, want: Want) -> Result<Walked, DeskError> {
    let budget = want.budget();
    let started = std::time::Instant::now();
    let sets_showing = want.shown_only && at.surely_sets_showing(&root.bus).await;
    let hides_below = |info: &Info| hides_below(want, sets_showing, info);
    let mut truncated: Option<String> = None;
    let mut timed_out = false;
    let (mut infos, mut children) = cached(at, root).await?;
    if !infos.contains_key(root) {
        let info = info(at, root).await?;
        infos.insert(root.clone(), info);
    }
    let mut level = vec![root.clone()];
    // Containers with more children than the budget, and how many they report.
    let mut crowded_all: Vec<(NodeRef, usize)> = Vec::new();
    // Every object is read and placed once, under the first parent that lists it: toolkits
    // can list one object under two parents, and a bad one could even list an ancestor.
    let mut visited: HashSet<NodeRef> = HashSet::from([root.clone()]);
    let mut seen = 1;
    // Nodes listed by their parents, walked or not.
    let mut saw = 1;
    // The rows and items of lists and tables, walked once the rest of the tree is: a budget
    // spent on a file chooser's files would leave out its name field and buttons.
    let mut deferred: Vec<NodeRef> = Vec::new();
    while !level.is_empty() || !deferred.is_empty() {
        if seen >= budget {
            truncated.get_or_insert(format!("the walk stopped at its budget of {budget} nodes"));
            break;
        }
        if started.elapsed() > WALK_LIMIT {
            timed_out = true;
            truncated.get_or_insert(format!(
                "the walk stopped after {} s; the app answers slowly",
                WALK_LIMIT.as_secs()
            ));
            break;
        }
        // The cache says "unknown" (-1) for a container that manages its descendants, such as
        // a spreadsheet. Asking such a container for its children makes the app list them
        // all, 2^31 cells for LibreOffice Calc, and hang: its count is asked for first.
        let unknown: Vec<NodeRef> = level
            .iter()
            .filter(|n| infos[*n].child_count < 0)
            .cloned()
            .collect();
        let counted = join_all(unknown.iter().map(|n| child_count(at, n))).await;
        for (node, count) in unknown.into_iter().zip(counted) {
            if let Some(count) = skip_gone(count)?
                && let Some(info) = infos.get_mut(&node)
            {
                info.child_count = count;
            }
        }
        // A container with more children than the budget is left unwalked. The cache may
        // list them all while its count says "unknown" (-1).
        let mut crowded: HashSet<NodeRef> = HashSet::new();
        for node in &level {
            let info = &infos[node];
            let count = usize::try_from(info.child_count)
                .unwrap_or(0)
                .max(children.get(node).map_or(0, Vec::len));
            if count > budget {
                children.remove(node);
                crowded.insert(node.clone());
                crowded_all.push((node.clone(), count));
            }
        }
        // Children the cache does not (fully) list are asked for, all at once.
        let incomplete: Vec<&NodeRef> = level
            .iter()
            .filter(|n| !crowded.contains(*n))
            .filter(|n| {
                // A negative count (the cache's "unknown", as for containers that manage their
                // descendants) means the children must be asked for.
                let expected = infos.get(*n).map_or(0, |i| i.child_count);
                expected < 0
                    || (expected > 0 && children.get(*n).map_or(0, Vec::len) != expected as usize)
            })
            .collect();
        let asked = join_all(incomplete.iter().map(|n| list_children(at, n))).await;
        for (node, listed) in incomplete.into_iter().zip(asked) {
            if let Some(listed) = skip_gone(listed)? {
                if listed.len() > budget {
                    crowded_all.push((node.clone(), listed.len()));
                    continue;
                }
                children.insert(node.clone(), listed);
            }
        }
        let mut listed: Vec<NodeRef> = Vec::new();
        let was_deferred = deferred.len();
        for node in &level {
            let kids = children.get(node).into_iter().flatten();
            let kids = kids.filter(|n| !visited.contains(*n)).cloned();
            if infos
                .get(node)
                .is_some_and(|i| ROWS_HOLDERS.contains(&i.role))
            {
                deferred.extend(kids);
            } else {
                listed.extend(kids);
            }
        }
        saw += listed.len() + deferred.len() - was_deferred;
        if listed.is_empty() {
            listed = std::mem::take(&mut deferred);
        }
        if seen + listed.len() > budget {
            truncated.get_or_insert(format!("the walk stopped at its budget of {budget} nodes"));
        }
        let next: Vec<NodeRef> = listed
            .into_iter()
            .filter(|n| visited.insert(n.clone()))
            .take(budget.saturating_sub(seen))
            .collect();
        let unknown: Vec<&NodeRef> = next.iter().filter(|n| !infos.contains_key(*n)).collect();
        let fetched = join_all(unknown.iter().map(|n| info(at, n))).await;
        for (node, fetched) in unknown.into_iter().zip(fetched) {
            if let Some(fetched) = skip_gone(fetched)? {
                infos.insert(node.clone(), fetched);
            }
        }
        seen += next.len();
        level = next
            .into_iter()
            .filter(|n| infos.get(n).is_some_and(|info| !hides_below(info)))
            .collect();
    }
    Ok(Walked {
        infos,
        children,
        crowded: crowded_all,
        truncated,
        timed_out,
        seen,
        saw,
        sets_showing,
    })
}

/// What a walk gathered: every object it read, the children it listed, and what it left out.
pub(super) struct Walked {
    pub(super) infos: HashMap<NodeRef, Info>,
    children: Children,
    /// Containers with more children than the budget, and how many they report.
    crowded: Vec<(NodeRef, usize)>,
    /// Why the walk stopped short, if it did.
    truncated: Option<String>,
    /// Whether the walk stopped at [`WALK_LIMIT`].
    timed_out: bool,
    /// Objects read.
    seen: usize,
    /// Objects listed by their parents, read or not.
    saw: usize,
    /// Whether the app is known to set `showing` below its windows.
    sets_showing: bool,
}

/// Whether a view of what shows leaves out what is under a node. A toolkit not known to set
/// `showing` below its windows is walked whole: the view then decides what shows from the
/// whole tree, as [`showing`] does.
fn hides_below(want: Want, sets_showing: bool, info: &Info) -> bool {
    want.shown_only
        && !info.states.contains(State::Showing)
        && (sets_showing || !info.states.contains(State::Visible))
}

/// A tree as read, with what a later check needs to tell whether it still holds.
pub(super) struct Read {
    pub(super) tree: Tree,
    /// Each node of the tree that lasts (not a spreadsheet's transient cells, made anew for
    /// every read), with the number of children it reported. A child taken out and another
    /// put in its place leave the count as it was, but GTK 3 says when a child is taken out.
    pub(super) counts: Vec<(NodeRef, i32)>,
    /// False when the read stopped at the time limit or some cells did not answer in time:
    /// what a slow moment left out.
    pub(super) complete: bool,
}

/// The tree under `root`, root first, in document order, within `want`'s node budget and
/// [`WALK_LIMIT`]. A container reporting more children than the budget (a spreadsheet's
/// 2^30 cells) is not walked child by child.
pub(super) async fn read(at: &AtSpi, root: &NodeRef, want: Want) -> Result<Read, DeskError> {
    let budget = want.budget();
    let Walked {
        mut infos,
        mut children,
        crowded: crowded_all,
        mut truncated,
        timed_out,
        mut seen,
        mut saw,
        sets_showing,
    } = walk(at, root, want).await?;
    let mut complete = !timed_out;
    let hides_below = |info: &Info| hides_below(want, sets_showing, info);

    // Of a crowded table, what shows on the screen.
    for (node, count) in &crowded_all {
        let mut reason = crowded_reason(&infos[node], *count, budget);
        let shown = if infos[node].may_have(Interface::Table) {
            match cells::visible(at, node, budget.saturating_sub(seen)).await {
                Ok(shown) => shown,
                Err(e @ DeskError::NotAnswering { .. }) => return Err(e),
                // A sheet still loading lacks parts of its Table: the rest of the tree stands.
                Err(e) => {
                    reason.push_str(&format!(
                        "; the cells that show could not be read: {}",
                        desk_core::app_text::Quoted(&e.to_string())
                    ));
                    None
                }
            }
        } else {
            None
        };
        if let Some(shown) = shown {
            let unknown: Vec<&NodeRef> = shown
                .cells
                .iter()
                .filter(|n| !infos.contains_key(*n))
                .collect();
            let fetched = join_all(unknown.iter().map(|n| info(at, n))).await;
            for (cell, fetched) in unknown.into_iter().zip(fetched) {
                if let Some(fetched) = skip_gone(fetched)? {
                    infos.insert(cell.clone(), fetched);
                }
            }
            seen += shown.read;
            saw += shown.read + shown.unread;
            reason = format!(
                "{reason}, but for rows {}-{} and columns {}-{} (counted from 1), which show: of \
                 their {} cells, the {} that hold text or have the focus are read",
                shown.rows.0 + 1,
                shown.rows.1 + 1,
                shown.columns.0 + 1,
                shown.columns.1 + 1,
                shown.read + shown.unread,
                shown.cells.len()
            );
            if shown.unread > 0 {
                complete = false;
                reason.push_str(&format!(
                    ", and {} did not answer in time and are missing",
                    shown.unread
                ));
            }
            children.insert(node.clone(), shown.cells);
        }
        truncated.get_or_insert(reason);
    }

    // Document order, with refs, parents and depths.
    let mut order: Vec<(NodeRef, Option<usize>, usize)> = Vec::new();
    let mut stack = vec![(root.clone(), None, 0)];
    let mut placed: HashSet<NodeRef> = HashSet::new();
    while let Some((node, parent, depth)) = stack.pop() {
        if !infos.contains_key(&node) || order.len() >= budget || !placed.insert(node.clone()) {
            continue;
        }
        let me = order.len();
        let below = parent.is_none() || !hides_below(&infos[&node]);
        if let Some(kids) = children.get(&node).filter(|_| below) {
            for kid in kids.iter().rev() {
                stack.push((kid.clone(), Some(me), depth + 1));
            }
        }
        order.push((node, parent, depth));
    }
    let extras = join_all(
        order
            .iter()
            .map(|(node, ..)| extras(at, node, &infos[node], want)),
    )
    .await;
    let states: Vec<(Option<usize>, StateSet)> = order
        .iter()
        .map(|(node, parent, _)| (*parent, infos[node].states))
        .collect();
    let by_visible = !at.sets_showing(&root.bus).await;
    let mut showing = showing(&states, by_visible);
    hide_under_flat_menu_bars(at, &order, &infos, &mut showing).await;
    let shown_guessed = by_visible
        && !states
            .iter()
            .skip(1)
            .any(|(_, states)| states.contains(State::Showing));
    let mut nodes = Vec::with_capacity(order.len());
    for (i, ((node, parent, depth), extra)) in order.iter().zip(extras).enumerate() {
        let info = &infos[node];
        let (bounds, keys, value) = skip_gone(extra)?.unwrap_or_default();
        let kids = children.get(node).map(Vec::as_slice).unwrap_or_default();
        let kid_names = kids
            .iter()
            .filter_map(|k| infos.get(k))
            .map(|k| k.name.as_str());
        nodes.push(Node {
            node_ref: i,
            id: at.id(node),
            parent: *parent,
            depth: *depth,
            role: info.role.name().to_string(),
            name: plain_name(&info.name, kid_names),
            named_by: None,
            states: notable_states(info.states, showing[i]),
            bounds,
            keys,
            value,
        });
    }
    name_from_labels(at, &order, &mut nodes).await;
    name_from_descriptions(at, &order, &mut nodes).await;
    a11y::name_from_boxes(&mut nodes);
    let counts = order
        .iter()
        .map(|(node, ..)| (node, &infos[node]))
        // A count the walk never asked for ("unknown" in the app's cache) is of a node whose
        // children the tree does not hold.
        .filter(|(_, info)| !info.states.contains(State::Transient) && info.child_count >= 0)
        .map(|(node, info)| (node.clone(), info.child_count))
        .collect();
    Ok(Read {
        tree: Tree {
            truncated: truncated.map(|reason| Truncated {
                reason,
                seen: saw.max(nodes.len()),
            }),
            nodes,
            shown_guessed,
        },
        counts,
        complete,
    })
}

/// Whether every node of `counts` still reports the number of children it did; false when
/// one differs or cannot be asked (it is gone).
pub(super) async fn counts_hold(at: &AtSpi, counts: &[(NodeRef, i32)]) -> bool {
    let now = join_all(
        counts
            .iter()
            .map(|(node, _)| property(at, node, "ChildCount")),
    )
    .await;
    counts.iter().zip(now).all(|((_, then), now)| {
        now.ok()
            .and_then(|now| i32::try_from(&now).ok())
            .is_some_and(|now| now == *then)
    })
}

fn crowded_reason(info: &Info, count: usize, budget: usize) -> String {
    format!(
        "{} {:?} reports {count} children, more than the {budget} a walk reads one by one; they \
         are left out",
        info.role.name(),
        info.name,
    )
}

/// Whether each node (its parent's index and its states, root first, parents before children)
/// is showing on the screen. Toolkits that set `showing` below the window are taken at their
/// word; GTK 4 sets it on the window alone, so there a node shows when it is `visible` inside
/// a showing parent. GTK 4.8 does not set it even on a dialog (a file chooser): with
/// `window_by_visible` (a GTK 4 app), a window shows when it is `visible`.
fn showing(nodes: &[(Option<usize>, StateSet)], window_by_visible: bool) -> Vec<bool> {
    let sets_showing = nodes
        .iter()
        .skip(1)
        .any(|(_, states)| states.contains(State::Showing));
    let mut showing: Vec<bool> = Vec::with_capacity(nodes.len());
    for (parent, own) in nodes {
        let shown = match parent {
            None => {
                own.contains(State::Showing) || (window_by_visible && own.contains(State::Visible))
            }
            Some(_) if sets_showing => own.contains(State::Showing),
            Some(p) => own.contains(State::Visible) && showing[*p],
        };
        showing.push(shown);
    }
    showing
}

/// Marks as not shown every node under a menu bar that takes no room on the screen.
/// LibreOffice keeps its own menu bar, zero pixels high, beside the GTK one it shows, and says
/// both and all their menus are showing: an agent would see every menu twice, the hidden copy
/// placed over the toolbar.
async fn hide_under_flat_menu_bars(
    at: &AtSpi,
    order: &[(NodeRef, Option<usize>, usize)],
    infos: &HashMap<NodeRef, Info>,
    showing: &mut [bool],
) {
    let menu_bars: Vec<usize> = (0..order.len())
        .filter(|&i| showing[i] && infos[&order[i].0].role == Role::MenuBar)
        .collect();
    let extents = join_all(menu_bars.iter().map(|&i| {
        at.call::<(i32, i32, i32, i32), _>(
            &order[i].0,
            COMPONENT,
            "GetExtents",
            &(CoordType::Screen as u32),
        )
    }))
    .await;
    let mut flat = vec![false; order.len()];
    for (&i, extents) in menu_bars.iter().zip(extents) {
        flat[i] = matches!(extents, Ok((_, _, w, h)) if w <= 0 || h <= 0);
    }
    // Parents come before their children, so one pass carries the mark down.
    for i in 0..order.len() {
        if let Some(parent) = order[i].1 {
            flat[i] |= flat[parent];
        }
        showing[i] &= !flat[i];
    }
}

/// One node, on its own (ref 0, depth 0).
pub(super) async fn read_one(at: &AtSpi, node: &NodeRef, want: Want) -> Result<Node, DeskError> {
    let info = info(at, node).await?;
    let (bounds, keys, value) = extras(at, node, &info, want).await?;
    // Without the tree around it, a node of a toolkit that never sets `showing` below its
    // windows counts as shown when it is visible.
    let shown = info.states.contains(State::Showing)
        || (info.states.contains(State::Visible) && !at.sets_showing(&node.bus).await);
    // A name the toolkit made up from the children needs them to be read plainly.
    let mut kid_names = Vec::new();
    if is_class_name(&info.name) || doubled(&info.name).is_some() {
        let kids = skip_gone(list_children(at, node).await)?.unwrap_or_default();
        for kid in join_all(kids.iter().map(|k| self::info(at, k))).await {
            if let Some(kid) = skip_gone(kid)? {
                kid_names.push(kid.name);
            }
        }
    }
    Ok(Node {
        node_ref: 0,
        id: at.id(node),
        parent: None,
        depth: 0,
        role: info.role.name().to_string(),
        name: plain_name(&info.name, kid_names.iter().map(String::as_str)),
        named_by: None,
        states: notable_states(info.states, shown),
        bounds,
        keys,
        value,
    })
}

/// A node that vanished while the tree was read (a closing window, a refreshing list) is left
/// out; any other failure, such as an app that stopped answering, ends the read.
fn skip_gone<T>(result: Result<T, DeskError>) -> Result<Option<T>, DeskError> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(DeskError::NodeGone { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

pub(super) type Children = HashMap<NodeRef, Vec<NodeRef>>;

/// What the app's cache says, keyed by object, and the children it lists, in order.
pub(super) async fn cached(
    at: &AtSpi,
    root: &NodeRef,
) -> Result<(HashMap<NodeRef, Info>, Children), DeskError> {
    let cache = CacheProxy::builder(&at.conn)
        .destination(root.bus.clone())
        .and_then(|b| b.path("/org/a11y/atspi/cache"))
        .map_err(|e| super::bad_id(root, &e))?
        .cache_properties(CacheProperties::No)
        .build()
        .await
        .map_err(|e| super::bad_id(root, &e))?;
    let items = match cache.get_items().await {
        Ok(items) => items,
        Err(e) if is_timeout(&e) => return Err(at.failed(root, "read its accessibility tree", e)),
        // An app without the cache, or with an older signature: walk instead.
        Err(_) => Vec::new(),
    };
    let mut infos = HashMap::with_capacity(items.len());
    let mut placed: HashMap<NodeRef, Vec<(i32, NodeRef)>> = HashMap::new();
    for item in items {
        let (Some(node), parent) = (
            NodeRef::from_object(&item.object),
            NodeRef::from_object(&item.parent),
        ) else {
            continue;
        };
        if let Some(parent) = parent {
            placed
                .entry(parent)
                .or_default()
                .push((item.index, node.clone()));
        }
        infos.insert(
            node,
            Info {
                role: item.role,
                name: item.short_name,
                states: item.states,
                ifaces: Some(item.ifaces),
                child_count: item.children,
            },
        );
    }
    // Children in the order of their places. GTK 3's cache sometimes gives a freshly built
    // menu's items one place, or none: such a list is left for the walk to ask for.
    let children = placed
        .into_iter()
        .filter_map(|(parent, mut kids)| {
            kids.sort_by_key(|(index, _)| *index);
            let in_order = kids
                .iter()
                .enumerate()
                .all(|(i, (index, _))| *index == i as i32);
            in_order.then(|| (parent, kids.into_iter().map(|(_, kid)| kid).collect()))
        })
        .collect();
    Ok((infos, children))
}

fn is_timeout(e: &zbus::Error) -> bool {
    matches!(e, zbus::Error::InputOutput(io) if io.kind() == std::io::ErrorKind::TimedOut)
}

async fn list_children(at: &AtSpi, node: &NodeRef) -> Result<Vec<NodeRef>, DeskError> {
    let listed: Vec<ObjectRefOwned> = at
        .call(node, ACCESSIBLE, "GetChildren", &())
        .await
        .map_err(|e| at.failed(node, "list children", e))?;
    Ok(listed.iter().filter_map(NodeRef::from_object).collect())
}

/// How many children a node says it has.
async fn child_count(at: &AtSpi, node: &NodeRef) -> Result<i32, DeskError> {
    let count = property(at, node, "ChildCount")
        .await
        .map_err(|e| at.failed(node, "count children", e))?;
    Ok(i32::try_from(&count).unwrap_or(0))
}

/// One property of a node's Accessible interface. Properties are asked one by one: Qt 5's
/// bridge crashes the app on a GetAll.
pub(super) async fn property(at: &AtSpi, node: &NodeRef, name: &str) -> zbus::Result<OwnedValue> {
    at.call(node, PROPERTIES, "Get", &(ACCESSIBLE, name)).await
}

/// Role, states, name and child count, in four calls sent at once.
async fn info(at: &AtSpi, node: &NodeRef) -> Result<Info, DeskError> {
    let (role, states, name, count) = futures::join!(
        at.call::<Role, _>(node, ACCESSIBLE, "GetRole", &()),
        at.call::<StateSet, _>(node, ACCESSIBLE, "GetState", &()),
        property(at, node, "Name"),
        property(at, node, "ChildCount"),
    );
    let fail = |e| at.failed(node, "read a node", e);
    Ok(Info {
        role: role.map_err(fail)?,
        name: String::try_from(name.map_err(fail)?).unwrap_or_default(),
        states: states.map_err(fail)?,
        ifaces: None,
        child_count: i32::try_from(&count.map_err(fail)?).unwrap_or(0),
    })
}

/// Whether an error says the object lacks the interface asked for. Properties of a missing
/// interface come back as `InvalidArgs: No such interface` (GTK 4).
pub(super) fn lacks_interface(e: &zbus::Error) -> bool {
    match e {
        zbus::Error::MethodError(name, message, _) => {
            let name = name.as_str();
            name.ends_with("UnknownMethod")
                || name.ends_with("UnknownInterface")
                || (name.ends_with("InvalidArgs")
                    && message
                        .as_deref()
                        .is_some_and(|m| m.contains("No such interface")))
        }
        zbus::Error::FDO(e) => matches!(
            **e,
            zbus::fdo::Error::UnknownMethod(_)
                | zbus::fdo::Error::UnknownInterface(_)
                | zbus::fdo::Error::InvalidArgs(_)
        ),
        _ => false,
    }
}

type Extras = (Option<[i32; 4]>, Option<String>, Option<String>);

/// Bounds, key binding and value, as far as wanted and as far as the node has them.
async fn extras(at: &AtSpi, node: &NodeRef, info: &Info, want: Want) -> Result<Extras, DeskError> {
    let secret = info.role == Role::PasswordText;
    let bounds = async {
        if !want.bounds || !info.may_have(Interface::Component) {
            return Ok::<_, DeskError>(None);
        }
        let extents = at
            .call::<(i32, i32, i32, i32), _>(
                node,
                COMPONENT,
                "GetExtents",
                &(CoordType::Screen as u32),
            )
            .await;
        match extents {
            // GTK 3 gives widgets of a page not shown this placeholder.
            Ok((x, y, ..)) if x == i32::MIN || y == i32::MIN => Ok(None),
            Ok((_, _, w, h)) if w < 0 || h < 0 => Ok(None),
            Ok((x, y, w, h)) => Ok(Some([x, y, w, h])),
            Err(e) if lacks_interface(&e) => Ok(None),
            Err(e) => Err(at.failed(node, "read bounds", e)),
        }
    };
    let keys = async {
        if !want.keys || !info.may_have(Interface::Action) {
            return Ok(None);
        }
        let binding = at
            .action(node)
            .await?
            .get_key_binding(0)
            .await
            .unwrap_or_default();
        Ok::<_, DeskError>(meaningful_keys(&binding))
    };
    let value = async {
        // A password field's contents are never read, not even into the daemon.
        if secret {
            return Ok::<_, DeskError>(None);
        }
        let has_value = info.has_value();
        // Asked for text, a node's own text wins over its number: Firefox's date segments
        // read 0 as a number while they show "03".
        if has_value == Some(Interface::Value) && want.text && info.may_have(Interface::Text) {
            let proxy: TextProxy<'_> = at.proxy(node).await?;
            match text_up_to(&proxy, VALUE_CHARS).await {
                Ok(text) if !text.is_empty() => return Ok(Some(text)),
                Ok(_) => {}
                Err(e) if lacks_interface(&e) => {}
                Err(e) => return Err(at.failed(node, "read text", e)),
            }
        }
        if has_value == Some(Interface::Value) {
            let proxy: ValueProxy<'_> = at.proxy(node).await?;
            return match proxy.current_value().await {
                Ok(current) => Ok(Some(a11y::format_number(current))),
                Err(e) if lacks_interface(&e) => Ok(None),
                Err(e) => Err(at.failed(node, "read a value", e)),
            };
        }
        // Text that says something without a name (a web page's paragraph, a calculator's
        // read-only display) shows as its value.
        let unnamed_text = info.name.is_empty()
            && (a11y::is_readable_role(info.role.name())
                || (info.role == Role::Text && has_value.is_none()))
            && info.may_have(Interface::Text);
        let readable = has_value == Some(Interface::EditableText)
            || (want.text && info.may_have(Interface::Text))
            || unnamed_text;
        if readable {
            let limit = if want.text { TEXT_CHARS } else { VALUE_CHARS };
            let proxy: TextProxy<'_> = at.proxy(node).await?;
            return match text_up_to(&proxy, limit).await {
                Ok(text) if unnamed_text && !want.text => Ok(plain_text(&text)),
                Ok(text) => Ok(Some(text)),
                Err(e) if lacks_interface(&e) => Ok(None),
                Err(e) => Err(at.failed(node, "read text", e)),
            };
        }
        Ok(None)
    };
    let (bounds, keys, value) = futures::join!(bounds, keys, value);
    Ok((bounds?, keys?, value?))
}

/// The node's text, its first `limit` characters at most. Firefox answers nothing at all when
/// asked for more characters than the text has, so an empty answer is checked by the count.
async fn text_up_to(proxy: &TextProxy<'_>, limit: i32) -> zbus::Result<String> {
    let text = proxy.get_text(0, limit).await?;
    if !text.is_empty() {
        return Ok(text);
    }
    match proxy.character_count().await? {
        0 => Ok(text),
        count => proxy.get_text(0, count.min(limit)).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn a_gtk_4_window_that_is_visible_shows_and_so_do_its_visible_nodes() {
        let set = |states: &[State]| states.iter().copied().collect::<StateSet>();
        let dialog = [
            (None, set(&[State::Visible, State::Modal])),
            (Some(0), set(&[State::Visible])),
            (Some(1), set(&[])),
            (Some(2), set(&[State::Visible])),
        ];
        assert_eq!(showing(&dialog, true), [true, true, false, false]);
        assert_eq!(
            showing(&dialog, false),
            [false; 4],
            "a toolkit that sets showing is taken at its word"
        );
        let gtk3 = [
            (None, set(&[State::Visible, State::Showing])),
            (Some(0), set(&[State::Visible, State::Showing])),
            (Some(0), set(&[State::Visible])),
        ];
        assert_eq!(showing(&gtk3, false), [true, true, false]);
    }
}
