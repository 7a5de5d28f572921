//! LibreOffice's style boxes ("Paragraph Style"): a name the box does not know makes a new
//! style from the selection, so `set_value` checks the name against the box's list first.
//!
//! The box's list exists only while it is open, in a popup window of its own; the box's hidden
//! combo lists nothing. So the list is opened with the box's button, read, and closed again.

use desk_core::a11y::Node;

use std::time::Duration;

use super::a11y::AdmittedNode;
use super::poll_until;
use crate::accessibility::{AppWindow, Want};
use crate::error::DeskError;
use crate::guard::Nodes;

/// How long the list may take to open or close.
const LIST_WAIT: Duration = Duration::from_secs(2);
/// The most nodes read of an open list.
const LIST_NODES: usize = 400;
/// Roles of a list's entries (its menu's items are commands, not styles).
const ENTRY_ROLES: [&str; 2] = ["table cell", "list item"];

/// The name of the style box the target field is the entry of ("Paragraph Style"), where
/// typing an unknown name makes something new; `None` for any other field.
pub(super) fn style_box<'t>(target: &'t AdmittedNode<'_>) -> Option<&'t str> {
    let name = target.node.name.as_str();
    name.ends_with(" Style").then_some(name)
}

/// Refuses `name` unless the box `style_box` around `target`'s field lists it; nothing is
/// typed either way.
pub(super) fn check_listed(
    nodes: &Nodes<'_>,
    target: &AdmittedNode<'_>,
    style_box: &str,
    name: &str,
) -> Result<(), DeskError> {
    let listed = read_list(nodes, target, style_box)?;
    if listed.iter().any(|entry| entry == name) {
        return Ok(());
    }
    Err(DeskError::Unfit(format!(
        "the {style_box:?} box lists no {name:?}, and LibreOffice would make a new style of \
         that name from the selection; nothing was typed: pick one it lists ({}); for a style \
         it does not list, open its \"More Styles...\" entry",
        listed
            .iter()
            .map(|entry| format!("{entry:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// Opens the box's list with its button, reads the names it offers, and closes it.
fn read_list(
    nodes: &Nodes<'_>,
    target: &AdmittedNode<'_>,
    style_box: &str,
) -> Result<Vec<String>, DeskError> {
    let cannot = |why: &str| {
        DeskError::AppRefused(format!(
            "the {style_box:?} box could not be checked against its list ({why}), and a name \
             it does not list would make a new style; nothing was typed: open its list and \
             pick the style there"
        ))
    };
    let window = target
        .window
        .as_ref()
        .ok_or_else(|| cannot("it is in no window on the screen"))?;
    let button = list_button(nodes, target)?.ok_or_else(|| cannot("it has no list button"))?;
    let before = nodes.windows_of(window)?.unwrap_or_default();
    toggle(nodes, target, &button, style_box)?;
    let popup = poll_until(LIST_WAIT, || {
        let now = nodes.windows_of(window)?.unwrap_or_default();
        Ok(new_window(&before, now))
    })?
    .ok_or_else(|| cannot("its list did not open"))?;
    let read = nodes.tree(
        &popup.id,
        Want {
            max_nodes: Some(LIST_NODES),
            ..Want::default()
        },
    );
    // Closed whatever the read found, so the app is left as it was.
    toggle(nodes, target, &button, style_box)?;
    poll_until(LIST_WAIT, || {
        let now = nodes.windows_of(window)?.unwrap_or_default();
        Ok(now.iter().all(|w| w.id != popup.id).then_some(()))
    })?
    .ok_or_else(|| cannot("its list did not close"))?;
    Ok(read?
        .nodes
        .into_iter()
        .filter(|n| ENTRY_ROLES.contains(&n.role.as_str()) && !n.name.is_empty())
        // "More Styles..." opens a dialog: it names no style.
        .filter(|n| !n.name.ends_with("...") && !n.name.ends_with('…'))
        .map(|n| n.name)
        .collect())
}

/// The toggle button beside the field, under the same parent, that opens the list.
fn list_button(nodes: &Nodes<'_>, target: &AdmittedNode<'_>) -> Result<Option<Node>, DeskError> {
    let Some(parent) = target.ancestors.first() else {
        return Ok(None);
    };
    let family = nodes.tree(
        &parent.id,
        Want {
            max_nodes: Some(16),
            ..Want::default()
        },
    )?;
    let parent_ref = family.nodes[0].node_ref;
    Ok(family
        .nodes
        .into_iter()
        .find(|n| n.role == "toggle button" && n.parent == Some(parent_ref)))
}

/// Presses the list button through its first action.
fn toggle(
    nodes: &Nodes<'_>,
    target: &AdmittedNode<'_>,
    button: &Node,
    style_box: &str,
) -> Result<(), DeskError> {
    let pressed = !nodes.actions(&button.id)?.is_empty()
        && target.admitted.nodes().do_action(&button.id, 0)?;
    if pressed {
        Ok(())
    } else {
        Err(DeskError::AppRefused(format!(
            "the {style_box:?} box did not open or close its list; nothing was typed"
        )))
    }
}

/// The one accessible window in `now` that was not in `before`.
fn new_window(before: &[AppWindow], now: Vec<AppWindow>) -> Option<AppWindow> {
    let mut new = now
        .into_iter()
        .filter(|w| before.iter().all(|b| b.id != w.id));
    match (new.next(), new.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}
