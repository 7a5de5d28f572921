//! `computer_state`, `computer_scale`, `computer_end`, `look` and `title_at`: the desk as a
//! vision agent sees it, in the pixels of the screenshot it was shown.
//!
//! These see the whole screen, so the app allowlist refuses them before anything is read.

use std::fmt::Write as _;

use desk_core::a11y::{self, Node, View};
use desk_core::app_text::Quoted;
use desk_core::call::vision::{
    ComputerEndArgs, ComputerScaleArgs, ComputerStateArgs, DEFAULT_MAX_EDGE, LookArgs,
    MAX_ELEMENTS, TitleAtArgs,
};
use desk_core::geometry::Rect;
use desk_core::results::{Scale, SessionEnded, TitleAt};
use desk_core::window::Window;

use super::node::{accessible_window, drop_bogus_bounds, place_misreported};
use crate::accessibility::Want;
use crate::done::Picture;
use crate::error::DeskError;
use crate::guard::{Desk, Seen};
use crate::vision::{Element, Screenshot, token_estimate};

/// The longest value an element line shows.
const VALUE_CHARS: usize = 40;

/// Roles of windows that are part of the desktop, not an app's.
const SHELL_ROLES: [&str; 2] = desk_core::window::role::SHELL;

pub(super) fn state(desk: &Desk, args: &ComputerStateArgs) -> Result<(String, Picture), DeskError> {
    let source = desk.screen_source("computer_state")?;
    let session = desk
        .sessions()
        .resolve(desk.agent(), args.session.as_deref())?;
    let max_edge = args.max_edge.unwrap_or(DEFAULT_MAX_EDGE);
    let screen = desk.screen()?;
    // The screenshot is captured and encoded while the accessibility tree is read: the two wait
    // on different processes (the X server and the app).
    let (screenshot, body, elements) = std::thread::scope(|scope| {
        let capturing = scope.spawn(|| Screenshot::capture(&source, screen, max_edge));
        let scale = Screenshot::scale_for(screen, max_edge);
        let listed = describe_desk(desk, args, scale);
        let screenshot = capturing
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let (body, elements) = listed?;
        Ok::<_, DeskError>((screenshot?, body, elements))
    })?;
    let mut text = format!(
        "session {session:?}; screen {}x{}; screenshot {}; scale {} screen pixels per \
         screenshot pixel. Coordinates below are screenshot pixels.\n",
        screen.w,
        screen.h,
        screenshot.describe(),
        round3(screenshot.shot.scale)
    );
    text.push_str(&body);
    desk.sessions().listed(&session, elements);
    desk.sessions().shown(&session, screenshot.shot);
    Ok((text, screenshot.picture))
}

/// The windows, modal lines and elements of a state, at `scale` screen pixels per screenshot
/// pixel, and the elements to keep.
fn describe_desk(
    desk: &Desk,
    args: &ComputerStateArgs,
    scale: f64,
) -> Result<(String, Vec<Element>), DeskError> {
    let mut all = Vec::new();
    for window in desk.windows()? {
        let rect = desk.window_rect(&window)?;
        all.push((window, rect));
    }
    let windows: Vec<(Window, Option<Rect>)> = all
        .iter()
        .filter(|(_, rect)| !args.workspace_only || rect.is_some())
        .cloned()
        .collect();
    let mut text = String::from("windows, frontmost first:\n");
    for (window, rect) in &windows {
        text.push_str(&window_line(window, *rect, scale));
    }
    // A minimised modal dialog is not on the workspace, and is just what these lines are for.
    for (window, _) in all.iter().filter(|(w, _)| w.modal.is_some()) {
        let _ = writeln!(
            text,
            "modal: dialog {} {} is {} and blocks {}: the window it blocks ignores input \
             until it is answered",
            window.id,
            Quoted(&window.title),
            window.modal.as_deref().unwrap_or_default(),
            window
                .blocks
                .as_deref()
                .map_or_else(|| "its app".to_string(), |b| Quoted(b).to_string())
        );
    }
    let elements = match subject(desk, args, &windows)? {
        Some((window, rect)) => match elements_of(desk, &window, rect, args.query.as_deref()) {
            Ok(listed) => {
                let _ = writeln!(
                    text,
                    "elements of {} {:?} ({}){}:",
                    window.id,
                    window.title,
                    window.app.as_deref().unwrap_or("?"),
                    args.query
                        .as_ref()
                        .map(|q| format!(" matching {q:?}"))
                        .unwrap_or_default()
                );
                for (i, (element, node)) in listed.iter().enumerate() {
                    text.push_str(&element_line(i, element, node, scale));
                }
                if listed.is_empty() {
                    text.push_str("  (none)\n");
                }
                listed.into_iter().map(|(element, _)| element).collect()
            }
            Err(e) => {
                let _ = writeln!(text, "elements: none listed: {e}");
                Vec::new()
            }
        },
        None => {
            text.push_str("elements: none: no app window shows on the screen\n");
            Vec::new()
        }
    };
    Ok((text, elements))
}

/// The window whose elements a state lists: `window_id`, else `pid`'s frontmost, else the
/// frontmost app window that shows.
fn subject(
    desk: &Desk,
    args: &ComputerStateArgs,
    windows: &[(Window, Option<Rect>)],
) -> Result<Option<(Window, Rect)>, DeskError> {
    if args.window_id.is_some() || args.pid.is_some() {
        let window = desk.pick(args.window_id.as_deref(), args.pid)?;
        let rect = desk.rect_of(&window)?;
        return Ok(Some((window, rect)));
    }
    Ok(windows
        .iter()
        .filter(|(w, _)| !w.shell && !SHELL_ROLES.contains(&w.role.as_str()))
        .find_map(|(w, rect)| rect.map(|r| (w.clone(), r))))
}

/// The interactive elements of `window` that show, in document order, at most
/// [`MAX_ELEMENTS`], with the nodes they come from.
fn elements_of(
    desk: &Desk,
    window: &Window,
    rect: Rect,
    query: Option<&str>,
) -> Result<Vec<(Element, Node)>, DeskError> {
    let nodes = desk.nodes();
    let accessible = accessible_window(desk, &nodes, window)?;
    let want = Want {
        bounds: true,
        shown_only: true,
        ..Want::default()
    };
    let mut tree = nodes.tree(&accessible.id, want)?.nodes;
    place_misreported(window, &mut tree);
    drop_bogus_bounds(&mut tree, rect);
    let screen = desk.screen()?;
    let query = query.map(str::to_lowercase);
    let matches = |node: &Node| {
        query.as_deref().is_none_or(|q| {
            node.role.to_lowercase().contains(q)
                || node.name.to_lowercase().contains(q)
                || node
                    .value
                    .as_deref()
                    .is_some_and(|v| v.to_lowercase().contains(q))
        })
    };
    // An app that gives no node a position (GTK 4 before 4.10) still lists its controls, to
    // be acted on by their accessible action; in an app that gives positions, a node without
    // one is not on the screen.
    let positioned = tree
        .iter()
        .any(|n| n.parent.is_some() && n.bounds.is_some());
    Ok(a11y::view(tree, View::Interactive)
        .into_iter()
        .filter(|node| node.parent.is_some() && matches(node))
        .filter_map(|node| {
            let bounds = match node.bounds {
                Some([x, y, w, h]) => {
                    let bounds = Rect::new(x, y, w as u32, h as u32);
                    let (cx, cy) = centre(bounds);
                    if !(screen.contains_point(cx, cy) && rect.contains_point(cx, cy)) {
                        return None;
                    }
                    Some(bounds)
                }
                None if positioned || !a11y::is_control_role(&node.role) => return None,
                None => None,
            };
            let element = Element {
                node: node.id.clone(),
                window: window.id.clone(),
                role: node.role.clone(),
                name: node.name.clone(),
                bounds,
            };
            Some((element, node))
        })
        .take(MAX_ELEMENTS)
        .collect())
}

/// The centre of a rectangle, in its own coordinates.
pub(super) fn centre(rect: Rect) -> (i32, i32) {
    (rect.x + (rect.w / 2) as i32, rect.y + (rect.h / 2) as i32)
}

/// A screen point in pixels of a screenshot at `scale` screen pixels per pixel.
pub(super) fn to_shot(scale: f64, x: i32, y: i32) -> (i64, i64) {
    // Floor, as computer_act maps back: a point on the last column stays on the screenshot.
    let map = |v: i32| (f64::from(v) / scale).floor() as i64;
    (map(x), map(y))
}

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

fn window_line(window: &Window, rect: Option<Rect>, scale: f64) -> String {
    let mut line = format!(
        "  {} {:?} app {} pid {}",
        window.id,
        window.title,
        window.app.as_deref().unwrap_or("?"),
        window
            .pid
            .map_or_else(|| "?".to_string(), |pid| pid.to_string()),
    );
    // A window with no size yet (GNOME lists one before it shows) is not on the screen.
    match rect.filter(|r| r.w > 0 && r.h > 0) {
        Some(r) => {
            let (x, y) = to_shot(scale, r.x, r.y);
            let (right, bottom) = to_shot(scale, r.x + r.w as i32, r.y + r.h as i32);
            let _ = write!(line, " at {x},{y} size {}x{}", right - x, bottom - y);
        }
        None => line.push_str(" not shown"),
    }
    if window.role != "window" {
        let _ = write!(line, " ({})", window.role);
    }
    if window.active {
        line.push_str(" active");
    }
    line.push('\n');
    line
}

fn element_line(index: usize, element: &Element, node: &Node, scale: f64) -> String {
    let mut line = format!("  [{index}] {}", element.role);
    if !element.name.is_empty() {
        let _ = write!(line, " {:?}", element.name);
    }
    if let Some(value) = node.value.as_deref().filter(|v| !v.is_empty()) {
        let short: String = value.chars().take(VALUE_CHARS).collect();
        let more = if value.chars().count() > VALUE_CHARS {
            "…"
        } else {
            ""
        };
        let _ = write!(line, " = {short:?}{more}");
    }
    match element.bounds {
        Some(bounds) => {
            let (x, y) = centre(bounds);
            let (x, y) = to_shot(scale, x, y);
            let _ = write!(line, " ({x},{y})");
        }
        None => line.push_str(" (no position: click runs its action)"),
    }
    if !node.states.is_empty() {
        let _ = write!(line, " {}", node.states.join(","));
    }
    line.push('\n');
    line
}

pub(super) fn scale(desk: &Desk, args: &ComputerScaleArgs) -> Result<Scale, DeskError> {
    desk.require_whole_screen("computer_scale")?;
    let session = desk
        .sessions()
        .resolve(desk.agent(), args.session.as_deref())?;
    let shot = desk.sessions().scale_of(&session).ok_or_else(|| {
        DeskError::Missing(
            "no screenshot has been taken yet: call computer_state or look first".into(),
        )
    })?;
    Ok(Scale {
        session,
        scale: shot.scale,
        width: shot.width,
        height: shot.height,
    })
}

pub(super) fn end(desk: &Desk, args: &ComputerEndArgs) -> SessionEnded {
    let held = desk.sessions().end(&args.session);
    SessionEnded {
        ended: args.session.clone(),
        held,
    }
}

pub(super) fn look(desk: &Desk, args: &LookArgs) -> Result<(String, Picture), DeskError> {
    let source = desk.screen_source("look")?;
    let session = desk
        .sessions()
        .resolve(desk.agent(), args.session.as_deref())?;
    let Some(region) = args.region else {
        let screen = desk.screen()?;
        let screenshot =
            Screenshot::capture(&source, screen, args.max_edge.unwrap_or(DEFAULT_MAX_EDGE))?;
        desk.sessions().shown(&session, screenshot.shot);
        let text = format!(
            "session {session:?}; screenshot {}; scale {} screen pixels per screenshot pixel",
            screenshot.describe(),
            round3(screenshot.shot.scale)
        );
        return Ok((text, screenshot.picture));
    };
    let shot = desk.sessions().shot_of(&session).ok_or_else(|| {
        DeskError::Missing(
            "region is in pixels of your latest screenshot, and there is none yet: call \
             computer_state or look without region first"
                .into(),
        )
    })?;
    if region.x + region.w > f64::from(shot.width) || region.y + region.h > f64::from(shot.height) {
        return Err(DeskError::Unplaced(format!(
            "region {{x: {}, y: {}, w: {}, h: {}}} reaches outside the latest screenshot ({}x{})",
            region.x, region.y, region.w, region.h, shot.width, shot.height
        )));
    }
    let screen = desk.screen()?;
    let left = (region.x * shot.scale).floor() as i32;
    let top = (region.y * shot.scale).floor() as i32;
    let right = (((region.x + region.w) * shot.scale).ceil() as i32).min(screen.w as i32);
    let bottom = (((region.y + region.h) * shot.scale).ceil() as i32).min(screen.h as i32);
    let area = Rect::new(
        left,
        top,
        (right - left).max(1) as u32,
        (bottom - top).max(1) as u32,
    );
    let image = desk.capture_screen(area)?;
    let picture = Picture::png(image.to_png());
    // Region pixel (u, v) is the computer_act point at its centre, (x + (u + 0.5) * per_pixel,
    // y + (v + 0.5) * per_pixel): half a pixel from every edge, so rounding never moves it.
    let per_pixel = 1.0 / shot.scale;
    let origin_x = f64::from(area.x) / shot.scale;
    let origin_y = f64::from(area.y) / shot.scale;
    let text = format!(
        "region at full resolution: {}x{} PNG, {} KB, about {} input tokens; screen pixels \
         {},{} to {},{}. Its pixel (u, v) is computer_act x = {} + (u + 0.5) * {}, y = {} + (v + \
         0.5) * {} \
         (session {session:?}, scale {}).",
        image.width,
        image.height,
        picture.bytes.len().div_ceil(1024),
        token_estimate(image.width, image.height),
        area.x,
        area.y,
        area.right(),
        area.bottom(),
        round6(origin_x),
        round6(per_pixel),
        round6(origin_y),
        round6(per_pixel),
        round3(shot.scale),
    );
    Ok((text, picture))
}

pub(super) fn title_at(desk: &Desk, args: &TitleAtArgs) -> Result<TitleAt, DeskError> {
    desk.require_whole_screen("title_at")?;
    super::target::on_screen(desk, args.x, args.y)?;
    let window = match desk.top_at(args.x, args.y)? {
        Seen::Window(window) => window,
        _ => return Ok(no_title(None)),
    };
    if SHELL_ROLES.contains(&window.role.as_str()) {
        return Ok(panel_title(desk, &window, args.x, args.y));
    }
    let in_title_bar = desk.window_rect(&window)?.is_some_and(|client| {
        args.y < client.y && args.x >= client.x && args.x < client.x + client.w as i32
    });
    Ok(if in_title_bar {
        TitleAt {
            title: true,
            place: Some("title bar".into()),
            window: Some(window.id),
            text: Some(window.title),
            of: None,
        }
    } else {
        no_title(Some(window.id))
    })
}

/// No title at the point, in `window` when there is one.
fn no_title(window: Option<String>) -> TitleAt {
    TitleAt {
        title: false,
        place: None,
        window,
        text: None,
        of: None,
    }
}

/// Whether a panel shows a window's title at the point: its accessible element there is named
/// as an open window is.
fn panel_title(desk: &Desk, panel: &Window, x: i32, y: i32) -> TitleAt {
    let named = || -> Result<Option<String>, DeskError> {
        let nodes = desk.nodes();
        let accessible = accessible_window(desk, &nodes, panel)?;
        let Some(id) = nodes.at_point(&accessible.id, x, y)? else {
            return Ok(None);
        };
        Ok(Some(nodes.node(&id, Want::default())?.name))
    };
    let Ok(Some(name)) = named() else {
        return no_title(Some(panel.id.clone()));
    };
    let windows = desk.windows().unwrap_or_default();
    match windows
        .iter()
        .find(|w| !w.shell && !w.title.is_empty() && w.title == name)
    {
        Some(shown) => TitleAt {
            title: true,
            place: Some("panel".into()),
            window: Some(panel.id.clone()),
            text: Some(name),
            of: Some(shown.id.clone()),
        },
        None => no_title(Some(panel.id.clone())),
    }
}
