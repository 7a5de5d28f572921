//! `press` and `act`: a node's click, action, selection or focus, menus opened on the way.

use super::node::{AdmittedNode, admitted_node, centre, is_hidden, node_words};
use super::target::ANSWER_WAIT;
use super::{pick, poll_until};
use crate::accessibility::Want;
use crate::error::DeskError;
use crate::guard::way;
use crate::guard::{ActingNodes, Desk, Nodes, Seen, Spot};
use desk_core::a11y::Node;
use desk_core::a11y::role::{MENU, MENU_ITEMS};
use desk_core::call::{ActArgs, NodeAction, PressArgs};
use desk_core::results::{PressHow, Pressed, Route};
use desk_core::window::role::POPUP;
use std::time::Duration;

/// How long a menu may take to open.
pub(super) const MENU_WAIT: Duration = Duration::from_secs(2);

/// Opens the menus above a hidden menu item, outermost first, waiting for each to open. A
/// popup menu that is itself hidden is opened by what it belongs to (a combo box, a menu
/// button).
pub(super) fn open_menus_above(
    desk: &Desk,
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
        let pid = nodes.pid_of(inner)?;
        let open = poll_until(MENU_WAIT, || {
            let shows = !is_hidden(&nodes.node(inner, Want::default())?);
            Ok((shows || over_popup(desk, nodes, inner, pid)?).then_some(()))
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

/// Whether a popup window of `id`'s app (process `pid`) covers the node's centre: a menu open there. GTK 2
/// (gail) never says its open menus' items show, and keeps a closed menu's places, so only
/// the popup on the screen tells the menu opened.
fn over_popup(desk: &Desk, nodes: &Nodes<'_>, id: &str, pid: u32) -> Result<bool, DeskError> {
    let with_bounds = Want {
        bounds: true,
        ..Want::default()
    };
    let Some(point) = centre(desk, &nodes.node(id, with_bounds)?)? else {
        return Ok(false);
    };
    Ok(matches!(
        desk.top_at(point.0, point.1)?,
        Seen::Window(w) if w.role == POPUP && w.pid == Some(pid)
    ))
}

pub(super) const SELECTABLE: [&str; 5] = [
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
    if let Some(picked) = pick::press_item(desk, &nodes, &pressed)? {
        return Ok(Pressed {
            route: press_route(desk),
            ..picked
        });
    }
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
    // The window list as it stands before a dialog's default button is pressed.
    let closing = closes_its_dialog(&pressed)
        .then(|| desk.fingerprint())
        .transpose()?;
    let menu_item = MENU_ITEMS.contains(&role);
    let opened = if (menu_item || role == MENU) && is_hidden(&pressed.node) {
        open_menus_above(desk, &nodes, &acting, &pressed.node)?
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
    if let Some(before) = closing {
        // The app answers pings while it gets there (GTK's file chooser checks the file
        // first): the dialog closing, or another opening, belongs in this reply.
        poll_until(CLOSE_WAIT, || {
            Ok((desk.cancel().is_cancelled() || desk.fingerprint()? != before).then_some(()))
        })?;
    }
    Ok(done)
}

/// How long a dialog may take to close once its default button is pressed: GTK 3's file
/// chooser closes some 300 ms after Save, and LibreOffice's Save dialog as late.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// Whether `pressed` is the default button of a dialog, whose press is meant to close it.
fn closes_its_dialog(pressed: &AdmittedNode<'_>) -> bool {
    pressed.node.states.iter().any(|s| s == "is-default")
        && pressed.window.as_ref().is_some_and(|w| w.role == "dialog")
}

/// Clicks `node` (as it shows now) at its centre when the node itself is what is there (or a
/// part of it, for a node with no action), so the app sees a real click; else, or when another
/// window stays over that point, runs its own action.
pub(super) fn click_or_action(
    desk: &Desk,
    nodes: &Nodes<'_>,
    pressed: &AdmittedNode<'_>,
    node: &Node,
) -> Result<Pressed, DeskError> {
    let mut covered = None;
    if let (Some(point), Some(_)) = (centre(desk, node)?, &pressed.window) {
        let root = pressed
            .window_node()
            .map_or(node.id.as_str(), |w| w.id.as_str());
        let (dx, dy) = pressed.moved;
        let hit = nodes.at_point(root, point.0 - dx, point.1 - dy)?;
        // A node with no action of its own (LibreOffice's title placeholder) is clicked where
        // one of its own parts shows, as a person would; one with an action runs it instead.
        let lands = match hit.as_deref() {
            Some(hit) if hit == node.id => true,
            Some(hit) => {
                nodes.actions(&node.id)?.is_empty()
                    && nodes.ancestors(hit)?.iter().any(|a| a.id == node.id)
            }
            None => false,
        };
        if lands {
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
pub(super) fn click_in_menu(
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
    let app_answer = spot
        .on
        .window()
        .map(|w| pressed.admitted.app_answer(w, ANSWER_WAIT));
    Ok(Some(Pressed {
        at: Some([point.0, point.1]),
        app_answer,
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
pub(super) fn press_route(desk: &Desk) -> Route {
    if desk.presses_behind() {
        way::confirmed_behind()
    } else {
        Route::default()
    }
}
