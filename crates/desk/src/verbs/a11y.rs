//! `snapshot`, `find`, `read`, `press`, `act`, `at` and `unanswered`: the desk seen through
//! the accessibility tree, where controls have names and nothing has to be guessed from pixels.

use std::time::{Duration, Instant};

use desk_core::a11y::{self, Node};
use desk_core::call::{ActArgs, AtArgs, FindArgs, NodeAction, PressArgs, ReadArgs, SnapshotArgs};
use desk_core::geometry::Rect;
use desk_core::window::Window;
use serde_json::{Value, json};

use super::Outcome;
use super::target::{self, SETTLE_WAIT};
use crate::accessibility::{Accessibility, AppWindow, Want};
use crate::backend::Backend;
use crate::error::DeskError;
use crate::intent::{Intent, Target};

/// How far outside its window a node may reach before its bounds count as bogus (toolkits
/// report widgets they never laid out at absurd places).
const BOUNDS_SLACK: i32 = 64;
/// How long a menu may take to open.
const MENU_WAIT: Duration = Duration::from_secs(2);

/// The accessible top-level window that is `window` on the screen: same process, same title.
fn frame_of(acc: &dyn Accessibility, window: &Window) -> Result<AppWindow, DeskError> {
    let no_tree = || DeskError::NoTree {
        id: window.id.clone(),
        title: window.title.clone(),
        app: window.app.clone().unwrap_or_else(|| "its app".into()),
    };
    let pid = window.pid.ok_or_else(no_tree)?;
    let frames = acc.windows_of(pid)?.ok_or_else(no_tree)?;
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
                    "cannot tell which of {} accessible windows of process {pid} is window {} {:?}; \
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
    backend: &dyn Backend,
    window: Option<&str>,
    pid: Option<u32>,
) -> Result<Window, DeskError> {
    if window.is_none() && pid.is_none() {
        return target::focused(backend)?.ok_or_else(|| {
            DeskError::Invalid("no window has the focus; name one with window or pid".into())
        });
    }
    target::pick(backend, window, pid)
}

/// Drops bounds that lie outside the window (or have no area): those nodes are not on screen.
fn drop_bogus_bounds(nodes: &mut [Node], window: Rect) {
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

/// A node on its own: without the positions that only mean something inside a snapshot.
fn lone(node: &Node) -> Value {
    let mut value = json!(node);
    if let Some(fields) = value.as_object_mut() {
        for key in ["ref", "parent", "depth"] {
            fields.remove(key);
        }
    }
    value
}

fn window_json(window: &Window) -> Value {
    json!({"id": window.id, "title": window.title})
}

pub(super) fn snapshot(backend: &dyn Backend, args: &SnapshotArgs) -> Result<Outcome, DeskError> {
    let name = args.id.as_deref().or(args.window.as_deref());
    let window = target::pick(backend, name, args.pid).map_err(|e| match (name, args.pid) {
        (None, None) => DeskError::Invalid("name the window: pass window, id or pid".into()),
        _ => e,
    })?;
    let acc = backend.accessibility()?;
    let frame = frame_of(acc.as_ref(), &window)?;
    let want = Want {
        bounds: args.bounds,
        keys: args.keys,
        text: false,
    };
    let mut nodes = acc.tree(&frame.id, want)?;
    if args.bounds
        && let Some(rect) = backend.window_rect(&window.id)?
    {
        drop_bogus_bounds(&mut nodes, rect);
    }
    if args.text {
        let header = format!(
            "window {} {:?}: {} nodes\n",
            window.id,
            window.title,
            nodes.len()
        );
        let limit = args
            .max_chars
            .map(|m| (m as usize).saturating_sub(header.len()));
        return Ok(Outcome::text(header + &a11y::outline(&nodes, limit)));
    }
    Ok(Outcome::of(
        json!({"window": window_json(&window), "nodes": nodes}),
    ))
}

pub(super) fn find(backend: &dyn Backend, args: &FindArgs) -> Result<Outcome, DeskError> {
    let window = named_or_focused(backend, args.window.as_deref(), args.pid)?;
    let acc = backend.accessibility()?;
    let frame = frame_of(acc.as_ref(), &window)?;
    let nodes = acc.tree(&frame.id, Want::default())?;
    let rect = backend.window_rect(&window.id)?;
    let mut found: Vec<Node> = Vec::new();
    for hit in a11y::find_by_name(&nodes, &args.name, args.role.as_deref()) {
        let mut node = acc.node(
            &hit.id,
            Want {
                bounds: true,
                ..Want::default()
            },
        )?;
        node.node_ref = hit.node_ref;
        node.parent = hit.parent;
        node.depth = hit.depth;
        found.push(node);
    }
    if let Some(rect) = rect {
        drop_bogus_bounds(&mut found, rect);
    }
    Ok(Outcome::of(
        json!({"window": window_json(&window), "nodes": found}),
    ))
}

pub(super) fn read(backend: &dyn Backend, args: &ReadArgs) -> Result<Outcome, DeskError> {
    let acc = backend.accessibility()?;
    check_app(backend, acc.as_ref(), &args.id)?;
    let node = acc.node(
        &args.id,
        Want {
            bounds: true,
            keys: true,
            text: args.text,
        },
    )?;
    Ok(Outcome::of(lone(&node)))
}

/// The centre of a node's bounds, when it has bounds on the screen.
fn centre(backend: &dyn Backend, node: &Node) -> Result<Option<(i32, i32)>, DeskError> {
    let Some([x, y, w, h]) = node.bounds.filter(|b| b[2] > 0 && b[3] > 0) else {
        return Ok(None);
    };
    let point = (x + w / 2, y + h / 2);
    Ok(backend
        .screen()?
        .contains_point(point.0, point.1)
        .then_some(point))
}

fn is_hidden(node: &Node) -> bool {
    node.states.iter().any(|s| s == "hidden")
}

/// Clicks a node's centre and says where the click went.
fn click_node(backend: &dyn Backend, node: &Node, at: (i32, i32)) -> Result<Value, DeskError> {
    let under = target::window_at(backend, at.0, at.1)?;
    backend.move_pointer(at.0, at.1)?;
    backend.click(desk_core::call::Button::Left, 1)?;
    let confirmed = under
        .as_ref()
        .is_some_and(|w| backend.settle(&w.id, SETTLE_WAIT));
    Ok(json!({"pressed": node.id, "how": "clicked", "at": [at.0, at.1], "confirmed": confirmed}))
}

/// Runs a node's first action and says which.
fn run_action(acc: &dyn Accessibility, node: &Node) -> Result<Value, DeskError> {
    let actions = acc.actions(&node.id)?;
    let Some(name) = actions.first() else {
        return Err(DeskError::Invalid(format!(
            "{} {:?} ({}) has no action to run and cannot be clicked where it is; nothing was done",
            node.role, node.name, node.id
        )));
    };
    if !acc.do_action(&node.id, 0)? {
        return Err(DeskError::Invalid(format!(
            "{} {:?} refused its action {name:?}; nothing was done",
            node.role, node.name
        )));
    }
    Ok(json!({"pressed": node.id, "how": "action", "action": name}))
}

/// Opens the menus above a hidden menu item, outermost first, waiting for each to open. A
/// popup menu that is itself hidden is opened by what it belongs to (a combo box, a menu
/// button).
fn open_menus_above(acc: &dyn Accessibility, node: &Node) -> Result<Vec<String>, DeskError> {
    let ancestors = acc.ancestors(&node.id)?;
    let menus = ancestors.iter().take_while(|a| a.role == "menu").count();
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
        if !is_hidden(&acc.node(inner, Want::default())?) {
            continue;
        }
        if acc.actions(&menu.id)?.is_empty() || !acc.do_action(&menu.id, 0)? {
            return Err(DeskError::Invalid(format!(
                "{} {:?} did not open its menu; nothing was run",
                menu.role, menu.name
            )));
        }
        opened.push(if menu.name.is_empty() {
            menu.role.clone()
        } else {
            menu.name.clone()
        });
        let deadline = Instant::now() + MENU_WAIT;
        while is_hidden(&acc.node(inner, Want::default())?) {
            if Instant::now() >= deadline {
                return Err(DeskError::Invalid(format!(
                    "menu {:?} did not open within {} s; nothing was run",
                    menu.name,
                    MENU_WAIT.as_secs()
                )));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    Ok(opened)
}

/// Refuses a node of an app outside the allowlist.
fn check_app(backend: &dyn Backend, acc: &dyn Accessibility, id: &str) -> Result<u32, DeskError> {
    let pid = acc.pid_of(id)?;
    backend
        .allows(Some(pid))
        .map_err(|why| DeskError::Refused(format!("node {id}: {why}")))?;
    Ok(pid)
}

/// Where input to a node lands: the screen window of its top-level accessible window.
fn node_target(
    backend: &dyn Backend,
    acc: &dyn Accessibility,
    node: &Node,
) -> Result<Target, DeskError> {
    let pid = check_app(backend, acc, &node.id)?;
    let frame = acc.ancestors(&node.id)?.pop();
    let title = frame.map_or_else(|| node.name.clone(), |f| f.name);
    let windows = backend.windows()?;
    let mine = || windows.iter().filter(|w| w.pid == Some(pid));
    Ok(
        match mine().find(|w| w.title == title).or_else(|| mine().next()) {
            Some(window) => Target::window(window),
            None => Target::Window {
                id: String::new(),
                title,
                pid: Some(pid),
                app: None,
            },
        },
    )
}

/// Node `id` with its bounds, once the action `verb` on it has been admitted.
fn admitted_node(
    backend: &dyn Backend,
    acc: &dyn Accessibility,
    id: &str,
    verb: &str,
) -> Result<Node, DeskError> {
    let node = acc.node(
        id,
        Want {
            bounds: true,
            ..Want::default()
        },
    )?;
    let place = node_target(backend, acc, &node)?;
    backend.admit(&Intent::new(
        format!("{verb} {}", node_words(&node)),
        vec![place],
    ))?;
    Ok(node)
}

/// A node in words: `button "OK"`.
fn node_words(node: &Node) -> String {
    if node.name.is_empty() {
        node.role.clone()
    } else {
        format!("{} {:?}", node.role, node.name)
    }
}

const SELECTABLE: [&str; 5] = [
    "page tab",
    "table row",
    "list item",
    "tree item",
    "table cell",
];
const MENU_ITEMS: [&str; 4] = ["menu item", "check menu item", "radio menu item", "menu"];

pub(super) fn press(backend: &dyn Backend, args: &PressArgs) -> Result<Outcome, DeskError> {
    let acc = backend.accessibility()?;
    let node = admitted_node(backend, acc.as_ref(), &args.id, "press")?;
    if SELECTABLE.contains(&node.role.as_str()) && acc.select(&node.id)? {
        return Ok(Outcome::of(json!({"pressed": node.id, "how": "selected"})));
    }
    if MENU_ITEMS.contains(&node.role.as_str()) {
        let opened = if is_hidden(&node) {
            open_menus_above(acc.as_ref(), &node)?
        } else {
            Vec::new()
        };
        let mut done = run_action(acc.as_ref(), &node)?;
        if !opened.is_empty() {
            done["opened"] = json!(opened);
        }
        return Ok(Outcome::of(done));
    }
    // Anything else: a click at its centre when the node itself is what is there, so the app
    // sees a real click; else its own action.
    if let Some(point) = centre(backend, &node)? {
        let window = acc.ancestors(&node.id)?.pop();
        let root = window.as_ref().map_or(node.id.as_str(), |w| w.id.as_str());
        if acc.at_point(root, point.0, point.1)?.as_deref() == Some(node.id.as_str()) {
            return Ok(Outcome::of(click_node(backend, &node, point)?));
        }
    }
    Ok(Outcome::of(run_action(acc.as_ref(), &node)?))
}

pub(super) fn act(backend: &dyn Backend, args: &ActArgs) -> Result<Outcome, DeskError> {
    let acc = backend.accessibility()?;
    let verb = match args.action {
        NodeAction::Click => "click",
        NodeAction::Action => "run the action of",
        NodeAction::Select => "select",
        NodeAction::Focus => "focus",
    };
    let node = admitted_node(backend, acc.as_ref(), &args.id, verb)?;
    let refused = |what: &str| {
        DeskError::Invalid(format!(
            "{} {:?} refused to {what}; nothing was done",
            node.role, node.name
        ))
    };
    let done = match args.action {
        NodeAction::Click => {
            let point = centre(backend, &node)?.ok_or_else(|| {
                DeskError::Invalid(format!(
                    "{} {:?} has no bounds on the screen to click; try action or select",
                    node.role, node.name
                ))
            })?;
            click_node(backend, &node, point)?
        }
        NodeAction::Action => run_action(acc.as_ref(), &node)?,
        NodeAction::Select => {
            if !acc.select(&node.id)? {
                return Err(refused("be selected"));
            }
            json!({"pressed": node.id, "how": "selected"})
        }
        NodeAction::Focus => {
            if !acc.grab_focus(&node.id)? {
                return Err(refused("take the focus"));
            }
            json!({"pressed": node.id, "how": "focused"})
        }
    };
    Ok(Outcome::of(done))
}

/// The topmost window at a point that is an app's (not a panel or the desktop).
fn app_window_at(
    backend: &dyn Backend,
    x: i32,
    y: i32,
) -> Result<Option<(Window, Vec<Window>)>, DeskError> {
    let windows = backend.windows()?;
    for window in &windows {
        if window.shell || matches!(window.role.as_str(), "dock" | "desktop") {
            continue;
        }
        if let Some(rect) = backend.window_rect(&window.id)?
            && rect.contains_point(x, y)
        {
            return Ok(Some((window.clone(), windows)));
        }
    }
    Ok(None)
}

pub(super) fn at(backend: &dyn Backend, args: &AtArgs) -> Result<Outcome, DeskError> {
    target::on_screen(backend, args.x, args.y)?;
    let top = app_window_at(backend, args.x, args.y)?;
    let window = if args.window.is_some() || args.pid.is_some() {
        target::pick(backend, args.window.as_deref(), args.pid)?
    } else {
        top.as_ref().map(|(w, _)| w.clone()).ok_or_else(|| {
            DeskError::Invalid(format!(
                "no app window is at ({}, {}); nothing to read there",
                args.x, args.y
            ))
        })?
    };
    if backend.allows(window.pid).is_err() {
        return Err(target::refused(backend, &window));
    }
    let acc = backend.accessibility()?;
    let frame = frame_of(acc.as_ref(), &window)?;
    let id = acc.at_point(&frame.id, args.x, args.y)?.unwrap_or(frame.id);
    let node = acc.node(
        &id,
        Want {
            bounds: true,
            ..Want::default()
        },
    )?;
    let ancestors = acc.ancestors(&id)?;
    let mut result = json!({
        "window": window_json(&window),
        "pid": window.pid,
        "node": lone(&node),
        "ancestors": ancestors.iter().map(lone).collect::<Vec<_>>(),
    });
    if let Some((above, windows)) = top
        && above.id != window.id
    {
        let same_process_alike = above.pid == window.pid
            && (windows.iter().filter(|w| w.pid == window.pid).count() == 1
                || above.title == window.title);
        if !same_process_alike {
            result["covered"] = if backend.allows(above.pid).is_ok() {
                json!({"title": above.title, "pid": above.pid})
            } else {
                json!({"title": null, "pid": null, "note": "a window of an app outside the allowlist"})
            };
        }
    }
    Ok(Outcome::of(result))
}

pub(super) fn unanswered(backend: &dyn Backend) -> Result<Outcome, DeskError> {
    let Some(active) = target::active(backend)? else {
        return Ok(Outcome::of(Value::Null));
    };
    let Some(pid) = active.pid.filter(|&pid| backend.allows(Some(pid)).is_ok()) else {
        return Ok(Outcome::of(Value::Null));
    };
    let acc = backend.accessibility()?;
    let silent = match acc.windows_of(pid) {
        Ok(Some(frames)) => frames.is_empty(),
        Ok(None) | Err(DeskError::NotAnswering { .. }) => true,
        Err(other) => return Err(other),
    };
    if !silent {
        return Ok(Outcome::of(Value::Null));
    }
    Ok(Outcome::of(json!({
        "id": "",
        "title": active.title,
        "pid": pid,
        "role": active.role,
        "app": active.app,
    })))
}
