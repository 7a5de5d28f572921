//! `select_option`, and `press` on an item of a combo box: picking an item so that the app
//! holds it (not only its highlight), closing the list it was picked from, and reading the
//! control back.

use desk_core::a11y::{Node, role};
use desk_core::app_text::Quoted;
use desk_core::call::SelectOptionArgs;
use desk_core::results::{OptionPicked, PickHow, PressHow, Pressed};

use super::fields::FIELD_WAIT;
use super::node::{AdmittedNode, admitted_node, node_words};
use super::poll_until;
use crate::accessibility::{Tree, Want};
use crate::error::DeskError;
use crate::guard::{Desk, Nodes};
use crate::keys;

/// Roles of the items of combo boxes and lists.
const OPTION_ROLES: [&str; 6] = [
    "menu item",
    "check menu item",
    "radio menu item",
    "list item",
    "tree item",
    "table cell",
];

/// Whether `node`, of the tree `items`, is an item of a combo box or list.
fn is_option(node: &Node, items: &[Node]) -> bool {
    let parent = items.iter().find(|n| Some(n.node_ref) == node.parent);
    is_item_under(node, parent)
}

/// Whether `node`, under `parent`, is an item of a combo box or list: a node of an item's role,
/// or a label straight in a list (Swing shows a combo box's items as labels).
fn is_item_under(node: &Node, parent: Option<&Node>) -> bool {
    OPTION_ROLES.contains(&node.role.as_str())
        || (node.role == "label" && parent.is_some_and(|p| p.role == "list"))
}

pub(super) fn select_option(
    desk: &Desk,
    args: &SelectOptionArgs,
) -> Result<OptionPicked, DeskError> {
    let nodes = desk.nodes();
    let items = items_of(&nodes, &args.id)?;
    let is_option = |n: &Node| is_option(n, &items);
    let options: Vec<&Node> = items
        .iter()
        .skip(1)
        .filter(|n| is_option(n) && !n.name.is_empty())
        .collect();
    let chosen = options
        .iter()
        .find(|n| n.name == args.option)
        .or_else(|| {
            options
                .iter()
                .find(|n| n.name.eq_ignore_ascii_case(&args.option))
        })
        .copied()
        .ok_or_else(|| {
            let names: Vec<String> = options
                .iter()
                .take(30)
                .map(|n| Quoted(&n.name).to_string())
                .collect();
            let typed_into = items
                .iter()
                .any(|n| n.states.iter().any(|s| s == "editable"));
            DeskError::Unfit(if names.is_empty() && typed_into {
                format!(
                    "node {} lists no items, but it holds a field that takes the name: \
                     set_value id={} value={:?} types it and commits it",
                    args.id, args.id, args.option
                )
            } else if names.is_empty() {
                format!(
                    "node {} has no items to pick from; pass a combo box or a list",
                    args.id
                )
            } else {
                format!(
                    "no item {:?} in node {}; its items are {}",
                    args.option,
                    args.id,
                    names.join(", ")
                )
            })
        })?;
    pick(desk, &nodes, &args.id, &items, chosen)
}

/// The tree under a combo box or list, deep enough for its items.
fn items_of(nodes: &Nodes<'_>, id: &str) -> Result<Vec<Node>, DeskError> {
    let Tree { nodes: items, .. } = nodes.tree(
        id,
        Want {
            max_nodes: Some(2000),
            ..Want::default()
        },
    )?;
    Ok(items)
}

/// `press` on an item of a combo box's list picks it through the combo box, as `select_option`
/// does: a click or the item's own action may only move the list's highlight (Swing), and the
/// reply must not say done when the app does not hold the item. `None` for any other node.
pub(super) fn press_item(
    desk: &Desk,
    nodes: &Nodes<'_>,
    pressed: &AdmittedNode<'_>,
) -> Result<Option<Pressed>, DeskError> {
    let item = &pressed.node;
    let is_item = is_item_under(item, pressed.ancestors.first());
    let Some(combo) = pressed.ancestors.iter().find(|a| a.role == role::COMBO_BOX) else {
        return Ok(None);
    };
    if !is_item || item.name.is_empty() {
        return Ok(None);
    }
    let items = items_of(nodes, &combo.id)?;
    // Swing names its items anew at each read: the same node, else the same name.
    let options: Vec<&Node> = items
        .iter()
        .skip(1)
        .filter(|n| is_option(n, &items))
        .collect();
    let Some(chosen) = options
        .iter()
        .find(|n| n.id == item.id)
        .or_else(|| options.iter().find(|n| n.name == item.name))
    else {
        return Ok(None);
    };
    let picked = pick(desk, nodes, &combo.id, &items, chosen)?;
    let note = (!picked.as_asked).then(|| {
        format!(
            "{} does not show {:?} after the pick{}: the app may hold only a highlight; \
             look before going on",
            node_words(combo),
            item.name,
            picked
                .holds
                .as_ref()
                .map(|h| format!(" (it shows {h:?})"))
                .unwrap_or_default()
        )
    });
    Ok(Some(Pressed {
        holds: picked.holds,
        note,
        ..Pressed::new(&item.id, PressHow::Picked)
    }))
}

/// Picks `chosen`, an item under the combo box or list `id` (whose tree is `items`), so that
/// the app holds it; closes the combo box's list when it is left open; reads the control back.
fn pick(
    desk: &Desk,
    nodes: &Nodes<'_>,
    id: &str,
    items: &[Node],
    chosen: &Node,
) -> Result<OptionPicked, DeskError> {
    let is_option = |n: &Node| is_option(n, items);
    // The items beside it, in order (separators do not count), and its place among them: what
    // a combo box's selection counts and its arrow keys step through; only for an item straight
    // under the combo's own menu or list.
    let siblings: Vec<&Node> = items
        .iter()
        .filter(|n| n.parent == chosen.parent && is_option(n))
        .collect();
    let index = siblings
        .iter()
        .position(|n| n.node_ref == chosen.node_ref)
        .unwrap_or(0);
    // In a submenu: under a second menu (a combo box's own list is in one menu at most; Swing
    // holds it deeper, in a popup, a scroll pane and a viewport, but in no menu).
    let menus = std::iter::successors(Some(chosen), |n| {
        items.iter().find(|p| Some(p.node_ref) == n.parent)
    })
    .skip(1)
    .filter(|n| n.role == "menu")
    .count();
    let nested = menus >= 2;
    let target = admitted_node(desk, nodes, id, "pick an item of")?;
    let container = &target.node;
    let acting = target.admitted.nodes();
    let combo = container.role == role::COMBO_BOX;
    if combo && nested {
        return Err(DeskError::Unfit(format!(
            "{:?} sits in a submenu of {}; press it instead",
            chosen.name,
            node_words(container)
        )));
    }
    // A toolkit's combo box shows its item as its name; a web page's shows its label.
    let shows_item = combo && siblings.iter().any(|o| o.name == container.name);
    let tried = |attempt: Result<bool, DeskError>| match attempt {
        Ok(accepted) => Ok(accepted),
        Err(DeskError::Unfit(_)) => Ok(false),
        Err(e) => Err(e),
    };
    // GTK's combo box picks by index. Qt's has no Selection: the keyboard steps to the item.
    // A web page's select has none either: Firefox's list of options has one; Chromium's
    // refuses it, and the item's own action picks it there.
    let picked_by_combo = combo && tried(acting.select_child(&container.id, index))?;
    let by_name = picked_by_combo || shows_item;
    let how = if picked_by_combo {
        PickHow::Selection
    } else if shows_item {
        let list = items
            .iter()
            .find(|n| Some(n.node_ref) == chosen.parent)
            .map_or(container.id.as_str(), |n| n.id.as_str());
        step_to(&target, nodes, list, &siblings, index)?;
        PickHow::Keys
    } else if chosen.states.iter().any(|s| s == "selected") {
        // Picked already: an item's action may toggle it off.
        PickHow::Already
    } else if tried(acting.select(&chosen.id))? {
        PickHow::Selection
    } else {
        let refused = || {
            DeskError::AppRefused(format!(
                "{} refused to pick {:?}",
                node_words(container),
                chosen.name
            ))
        };
        let actions: Vec<String> = nodes
            .actions(&chosen.id)?
            .iter()
            .map(|a| a.to_lowercase())
            .collect();
        let select = ["select", "click", "toggle"]
            .iter()
            .find_map(|wanted| actions.iter().position(|a| a == wanted))
            .ok_or_else(refused)?;
        if !acting.do_action(&chosen.id, select)? {
            return Err(refused());
        }
        PickHow::ItemAction
    };
    if combo {
        close_list(&target, nodes)?;
    }
    // Read back: a toolkit's combo box shows its item as its name; an item of a web page's
    // says it is selected. Firefox picks a moment after it answers.
    let read_back = || -> Result<(Option<String>, bool), DeskError> {
        if by_name {
            let now = nodes.node(&container.id, Want::default())?;
            let shown = now.name == chosen.name;
            Ok((Some(now.name), shown))
        } else {
            let now = nodes.node(&chosen.id, Want::default())?;
            let selected = now.states.iter().any(|s| s == "selected");
            Ok((selected.then_some(now.name), selected))
        }
    };
    let (holds, as_asked) = poll_until(FIELD_WAIT, || {
        Ok(Some(read_back()?).filter(|(_, asked)| *asked))
    })?
    .map_or_else(read_back, Ok)?;
    Ok(OptionPicked {
        id: container.id.clone(),
        picked: chosen.name.clone(),
        holds,
        how,
        as_asked,
    })
}

/// Closes a combo box's list that is still open after a pick (one the agent opened to press
/// an item in), with Escape, as a person would: the pick is made already, and an open list
/// would take the next keys and clicks. Swing's is closed by its toggle action instead.
fn close_list(target: &AdmittedNode<'_>, nodes: &Nodes<'_>) -> Result<(), DeskError> {
    let expanded = |id: &str| -> Result<bool, DeskError> {
        Ok(nodes
            .node(id, Want::default())?
            .states
            .iter()
            .any(|s| s == "expanded"))
    };
    let combo = &target.node.id;
    let Some(window) = &target.window else {
        return Ok(());
    };
    if !expanded(combo)? {
        return Ok(());
    }
    // Swing's list does not take the keyboard focus, so it is closed by its own toggle.
    let toggle = nodes
        .actions(combo)?
        .iter()
        .position(|a| a.eq_ignore_ascii_case("togglepopup"));
    match toggle {
        Some(toggle) => {
            target.admitted.nodes().do_action(combo, toggle)?;
        }
        None => target
            .admitted
            .press_keys(&keys::parse_combo("escape")?, Some(window))?,
    }
    let closed = poll_until(FIELD_WAIT, || Ok((!expanded(combo)?).then_some(())))?;
    if closed.is_none() {
        return Err(DeskError::AppRefused(format!(
            "{} kept its list open after the pick and Escape",
            node_words(&target.node)
        )));
    }
    Ok(())
}

/// Picks item `to` of a combo box with the keyboard: opens its `list` with its own action unless
/// it is open, steps from the highlighted item with the arrow keys, and takes the item with
/// Return.
fn step_to(
    target: &AdmittedNode<'_>,
    nodes: &Nodes<'_>,
    list: &str,
    siblings: &[&Node],
    to: usize,
) -> Result<(), DeskError> {
    let combo = &target.node;
    let cannot = |why: &str| {
        DeskError::Unfit(format!(
            "{} has no Selection and {why}, so shuttle cannot pick an item; open its list (press it) and click the \
             item where the list shows it",
            node_words(combo)
        ))
    };
    if list == combo.id {
        return Err(cannot("has no list of its own to open"));
    }
    // The arrow keys skip items that are disabled.
    let enabled: Vec<&&Node> = siblings
        .iter()
        .filter(|o| !o.states.iter().any(|s| s == "disabled"))
        .collect();
    let to = enabled
        .iter()
        .position(|o| o.node_ref == siblings[to].node_ref)
        .ok_or_else(|| cannot("has that item disabled"))?;
    let window = target
        .window
        .as_ref()
        .ok_or_else(|| cannot("is in no window shuttle can tell on the screen"))?;
    // The list is open once it takes room on the screen (Qt's has none while closed).
    let with_bounds = Want {
        bounds: true,
        ..Want::default()
    };
    let is_open = || -> Result<Option<()>, DeskError> {
        let list = nodes.node(list, with_bounds)?;
        Ok(list
            .bounds
            .is_some_and(|b| b[2] > 0 && b[3] > 0)
            .then_some(()))
    };
    // An open list (the agent opened it) steps from its highlight; a closed one opens on the
    // item its combo box shows.
    let from = if is_open()?.is_some() {
        enabled
            .iter()
            .position(|o| o.states.iter().any(|s| s == "selected" || s == "focused"))
    } else {
        let actions = nodes.actions(&combo.id)?;
        let open = actions
            .iter()
            .position(|a| ["showmenu", "open", "press"].contains(&a.to_lowercase().as_str()))
            .ok_or_else(|| cannot("no action that opens its list"))?;
        target.admitted.focus(window)?;
        if !target.admitted.nodes().do_action(&combo.id, open)? {
            return Err(cannot("refused to open its list"));
        }
        if poll_until(FIELD_WAIT, is_open)?.is_none() {
            return Err(cannot("did not open its list"));
        }
        enabled.iter().position(|o| o.name == combo.name)
    }
    .ok_or_else(|| cannot("shows no item of its list"))?;
    let step = keys::parse_combo(if to > from { "down" } else { "up" })?;
    for _ in 0..from.abs_diff(to) {
        target.admitted.press_keys(&step, Some(window))?;
    }
    target
        .admitted
        .press_keys(&keys::parse_combo("return")?, Some(window))
}
