//! LibreOffice's style boxes ("Paragraph Style"): a name the box does not know makes a new
//! style from the selection, so `set_value` checks the name against the box's list first.
//!
//! The box's list exists only while it is open, in a popup window of its own; the box's hidden
//! combo lists nothing. So the list is opened with the box's button, read, and closed again.

use desk_core::a11y::Node;

use std::time::Duration;

use super::node::{AdmittedNode, is_libreoffice};
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

/// The name of the LibreOffice style box the target field is the entry of ("Paragraph
/// Style"), where typing an unknown name makes something new; `None` for any other field.
pub(super) fn style_box<'t>(target: &'t AdmittedNode<'_>) -> Option<&'t str> {
    let name = target.node.name.as_str();
    let libreoffice = target.window.as_ref().is_some_and(is_libreoffice);
    (libreoffice && name.ends_with(" Style")).then_some(name)
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
        "the {style_box:?} box lists no {name:?}; nothing was typed, since LibreOffice makes a \
         new style of any name it does not know: pick one the box lists ({}), or for a style \
         it does not list, press its \"More Styles...\" entry and pick it there",
        listed
            .iter()
            .map(|entry| format!("{entry:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// Opens the box's list with its button, reads the names it offers, and closes it again,
/// whatever the read found.
fn read_list(
    nodes: &Nodes<'_>,
    target: &AdmittedNode<'_>,
    style_box: &str,
) -> Result<Vec<String>, DeskError> {
    let cannot = |why: &str| {
        DeskError::AppRefused(format!(
            "the {style_box:?} box could not be checked against its list ({why}), and a name \
             it does not know would become a new style, so nothing was typed: press its list \
             button, then the style's entry"
        ))
    };
    let window = target
        .window
        .as_ref()
        .ok_or_else(|| cannot("it is in no window on the screen"))?;
    let button = list_button(nodes, target)?.ok_or_else(|| cannot("it has no list button"))?;
    let before = nodes
        .windows_of(window)?
        .ok_or_else(|| cannot("its app left the accessibility bus"))?;
    let listed_popup =
        |now: Vec<AppWindow>| -> Result<Option<(AppWindow, Vec<String>)>, DeskError> {
            let Some(popup) = new_window(&before, now) else {
                return Ok(None);
            };
            let read = nodes.tree(
                &popup.id,
                Want {
                    max_nodes: Some(LIST_NODES),
                    ..Want::default()
                },
            )?;
            let entries = entries(&read.nodes);
            // Another window of the app (all LibreOffice documents share one process) holds
            // no list; the list is only read whole.
            Ok((!entries.is_empty() && read.truncated.is_none()).then_some((popup, entries)))
        };
    press(nodes, target, &button, style_box, "open")?;
    let opened = poll_until(LIST_WAIT, || {
        listed_popup(nodes.windows_of(window)?.unwrap_or_default())
    });
    // Closed again whatever was read, so the app is left as it was: the list read, or else
    // whatever new window the button opened.
    let popup = match &opened {
        Ok(Some((popup, _))) => Some(popup.id.clone()),
        _ => None,
    };
    let still_open = || -> Result<bool, DeskError> {
        let now = nodes.windows_of(window)?.unwrap_or_default();
        Ok(match &popup {
            Some(popup) => now.iter().any(|w| w.id == *popup),
            None => new_window(&before, now).is_some(),
        })
    };
    if still_open()? {
        press(nodes, target, &button, style_box, "close")?;
        poll_until(LIST_WAIT, || Ok((!still_open()?).then_some(())))?.ok_or_else(|| {
            DeskError::AppRefused(format!(
                "the {style_box:?} box's list did not close, and nothing was typed: press \
                 Escape to close it"
            ))
        })?;
    }
    let (_, entries) = opened?.ok_or_else(|| cannot("its list did not show in time"))?;
    Ok(entries)
}

/// The style names among a list's nodes. "More Styles..." opens a dialog: it names no style.
fn entries(nodes: &[Node]) -> Vec<String> {
    nodes
        .iter()
        .filter(|n| ENTRY_ROLES.contains(&n.role.as_str()) && !n.name.is_empty())
        .filter(|n| !n.name.ends_with("...") && !n.name.ends_with('…'))
        .map(|n| n.name.clone())
        .collect()
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

/// Presses the list button through its first action, to `what` (open, close) the list.
fn press(
    nodes: &Nodes<'_>,
    target: &AdmittedNode<'_>,
    button: &Node,
    style_box: &str,
    what: &str,
) -> Result<(), DeskError> {
    let has_action = !nodes.actions(&button.id)?.is_empty();
    if has_action && target.admitted.nodes().do_action(&button.id, 0)? {
        return Ok(());
    }
    let then = if what == "close" {
        "press Escape to close it"
    } else {
        "press its list button, then the style's entry"
    };
    Err(DeskError::AppRefused(format!(
        "the {style_box:?} box's list button did not {what} its list, and nothing was typed: \
         {then}"
    )))
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
