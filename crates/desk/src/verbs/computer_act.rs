//! `computer_act`: one action or a list of them, by element index or screenshot pixels, each
//! waited out until the screen is still, then what changed and a new screenshot.
//!
//! A step runs through the same verb a desk call of its kind would (`click`, `type`, `key`,
//! `scroll`, `drag`, `launch`), so it passes the same safety controls and answers the same
//! delivery facts. Everything that can be checked without the screen is checked for every step
//! before the first one runs.

use std::time::{Duration, Instant};

use desk_core::a11y::Node;
use desk_core::call::vision::{ActStep, Action, ComputerActArgs, DEFAULT_MAX_EDGE};
use desk_core::call::{
    Button, ClickArgs, DeskCall, DragArgs, KeyArgs, LaunchArgs, PressArgs, ScrollArgs, StillArgs,
    TypeArgs,
};
use desk_core::geometry::Rect;
use desk_core::window::Window;
use serde_json::Value;

use super::a11y::is_hidden;
use super::computer::centre;
use crate::accessibility::Want;
use crate::done::Done;
use crate::error::DeskError;
use crate::guard::{Desk, Seen};
use crate::vision::{Element, Frame, Session, Shot};

/// How long the screen must stay unchanged after a step for it to count as done.
pub const SETTLE_HOLD_MS: u64 = 150;
/// The longest a step's settle waits.
const SETTLE_LIMIT_MS: u64 = 2500;
/// How far an element may have shifted since its state and still be the one that was listed.
const MOVED_SLACK: i32 = 2;

/// How a step's points map onto the screen.
#[derive(Debug, Clone, Copy)]
struct Mapping {
    /// The screenshot the points were read on, when known.
    shot: Option<Shot>,
    /// Screen pixels per screenshot pixel.
    scale: f64,
    /// The screen.
    screen: Rect,
}

impl Mapping {
    /// Screenshot point (x, y) on the screen; refused off the screenshot or the screen.
    fn point(&self, x: f64, y: f64, which: &str) -> Result<(i32, i32), DeskError> {
        if let Some(shot) = self.shot
            && (x >= f64::from(shot.width) || y >= f64::from(shot.height))
        {
            return Err(DeskError::Invalid(format!(
                "{which} ({x}, {y}) is off the screenshot, which is {}x{}",
                shot.width, shot.height
            )));
        }
        // The epsilon keeps a point computed from a rounded mapping on its own pixel.
        let (sx, sy) = (
            (x * self.scale + 1e-6).floor() as i64,
            (y * self.scale + 1e-6).floor() as i64,
        );
        let inside =
            sx >= 0 && sy >= 0 && sx < i64::from(self.screen.w) && sy < i64::from(self.screen.h);
        if !inside {
            return Err(DeskError::Invalid(format!(
                "{which} ({x}, {y}) at scale {} is screen point ({sx}, {sy}), off the screen \
                 ({}x{})",
                self.scale, self.screen.w, self.screen.h
            )));
        }
        Ok((sx as i32, sy as i32))
    }
}

pub(super) fn act(desk: &Desk, args: &ComputerActArgs) -> Result<Done, DeskError> {
    let source = desk.screen_source("computer_act")?;
    let sessions = desk.sessions();
    let name = sessions.resolve(desk.agent(), args.session.as_deref())?;
    let session = sessions.get(&name);
    let latest = sessions.shot_of(&name);
    let mapping = Mapping {
        shot: if args.scale.is_some() { None } else { latest },
        scale: args.scale.or(latest.map(|s| s.scale)).unwrap_or(0.0),
        screen: desk.screen()?,
    };
    let steps = args.steps();
    let of = steps.len();
    let failed = |step: usize, ran: &[String], what: String, e: DeskError| match e {
        // A dry run's plan is its answer, not a failure.
        DeskError::DryRun(_) => e,
        e => DeskError::StepFailed {
            step: step + 1,
            of,
            what,
            ran: ran.to_vec(),
            source: Box::new(e),
        },
    };
    // Every step's indexes and points are checked before any step runs.
    for (i, step) in steps.iter().enumerate() {
        precheck(&session, &name, mapping, step).map_err(|e| {
            let e = failed(i, &[], describe(step), e);
            DeskError::Invalid(format!("{e}; no step was run"))
        })?;
    }
    let before = desk.windows().ok();
    let mut ran: Vec<String> = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let line = run_step(desk, &session, mapping, step)
            .map_err(|e| failed(i, &ran, describe(step), e))?;
        ran.push(line);
        let settled = settle(desk).map_err(|e| {
            failed(
                i,
                &ran,
                format!("{}, waiting for the screen after it", describe(step)),
                e,
            )
        })?;
        if let Some(last) = ran.last_mut() {
            last.push_str(&format!("; {settled}"));
        }
    }
    let mut text = String::new();
    for (i, line) in ran.iter().enumerate() {
        if of > 1 {
            text.push_str(&format!("{}. ", i + 1));
        }
        text.push_str(line);
        text.push('\n');
    }
    if let Some(before) = before
        && let Ok(after) = desk.windows()
    {
        text.push_str(&window_changes(&before, &after));
    }
    let max_edge = args
        .max_edge
        .or(latest.map(|s| s.max_edge))
        .unwrap_or(DEFAULT_MAX_EDGE);
    // The actions ran: a screenshot that fails now must not hide what they did.
    let frame = match Frame::capture(&source, mapping.screen, max_edge) {
        Ok(frame) => frame,
        Err(e) => {
            text.push_str(&format!("screenshot: none, the capture failed: {e}"));
            return Ok(Done::text(text));
        }
    };
    sessions.shown(&name, frame.shot);
    text.push_str(&format!(
        "screenshot {}; scale {}",
        frame.describe(),
        (frame.shot.scale * 1000.0).round() / 1000.0
    ));
    Ok(Done {
        image: Some(frame.picture),
        ..Done::text(text)
    })
}

/// A step in words, for its line and its failure.
fn describe(step: &ActStep) -> String {
    let action = step.action.map_or("?", Action::name);
    match (step.element, step.point()) {
        (Some(element), _) => format!("{action} element [{element}]"),
        (None, Some((x, y))) => format!("{action} at ({x}, {y})"),
        (None, None) => action.to_string(),
    }
}

/// What can be checked before anything runs: element indexes against the session's state,
/// points against the screenshot and the screen.
fn precheck(
    session: &Session,
    name: &str,
    mapping: Mapping,
    step: &ActStep,
) -> Result<(), DeskError> {
    if let Some(index) = step.element {
        let element = listed(session, name, index)?;
        let single_left = step
            .action
            .and_then(Action::click)
            .is_some_and(|(button, count)| {
                step.button.unwrap_or(button) == Button::Left && count == 1
            });
        if element.bounds.is_none() && !single_left {
            return Err(unplaced(index, element));
        }
    }
    if let Some(keys) = keys_of(step) {
        crate::keys::parse_combo(&keys)?;
    }
    for (point, which) in [
        (step.point(), "point"),
        (step.to_x.zip(step.to_y), "drag end"),
    ] {
        if let Some((x, y)) = point {
            if mapping.scale <= 0.0 {
                return Err(DeskError::Invalid(format!(
                    "session {name:?} has been shown no screenshot, so x,y cannot be mapped: \
                     call computer_state first, or pass scale"
                )));
            }
            mapping.point(x, y, which)?;
        }
    }
    Ok(())
}

/// The keys a key or hotkey step presses, as one combination such as `ctrl+s`.
fn keys_of(step: &ActStep) -> Option<String> {
    match step.action? {
        Action::Key => step.key.clone(),
        Action::Hotkey => step.keys.as_ref().map(|keys| keys.join("+")),
        _ => None,
    }
}

/// Element `index` of the session's latest state.
fn listed<'s>(session: &'s Session, name: &str, index: u32) -> Result<&'s Element, DeskError> {
    session.elements.get(index as usize).ok_or_else(|| {
        DeskError::Invalid(match session.elements.len() {
            0 => format!(
                "element [{index}]: session {name:?} holds no elements; call computer_state"
            ),
            n => format!(
                "element [{index}] is not in session {name:?}'s latest state, which lists [0] to \
                 [{}]; call computer_state",
                n - 1
            ),
        })
    })
}

/// `[3] button "Save"`.
fn element_words(index: u32, element: &Element) -> String {
    if element.name.is_empty() {
        format!("[{index}] {}", element.role)
    } else {
        format!("[{index}] {} {:?}", element.role, element.name)
    }
}

/// The refusal of anything but a single left click on an element its app gives no position.
fn unplaced(index: u32, element: &Element) -> DeskError {
    DeskError::Invalid(format!(
        "element {} has no position on the screen (its app gives none): only a single left \
         click, which runs its action, can reach it; use x,y for anything else",
        element_words(index, element)
    ))
}

/// Element `element`'s node as it is now, with its bounds; gone is a refusal.
fn reread(desk: &Desk, element: &Element, words: &str) -> Result<Node, DeskError> {
    desk.nodes()
        .node(
            &element.node,
            Want {
                bounds: true,
                ..Want::default()
            },
        )
        .map_err(|e| match e {
            DeskError::NodeGone { .. } => DeskError::Changed(format!(
                "element {words} is gone since computer_state; call computer_state again \
                 (nothing was sent)"
            )),
            e => e,
        })
}

/// Presses element `index` through its accessible action: the click of an element its app
/// gives no position.
fn press_unplaced(
    desk: &Desk,
    session: &Session,
    index: u32,
    button: Button,
    count: u8,
) -> Result<Option<String>, DeskError> {
    let Some(element) = session.elements.get(index as usize) else {
        return Ok(None);
    };
    if element.bounds.is_some() {
        return Ok(None);
    }
    let words = element_words(index, element);
    if (button, count) != (Button::Left, 1) {
        return Err(unplaced(index, element));
    }
    let node = reread(desk, element, &words)?;
    if is_hidden(&node) {
        return Err(DeskError::Changed(format!(
            "element {words} is hidden now; call computer_state again (nothing was sent)"
        )));
    }
    let result = json_of(super::verb(
        desk,
        &DeskCall::Press(PressArgs {
            id: element.node.clone(),
            allow_auth: false,
        }),
    )?);
    Ok(Some(format!(
        "{words}: pressed through accessibility ({})",
        result["how"].as_str().unwrap_or("action")
    )))
}

/// Where element `index` is now: its centre, when it still shows where the state saw it, on
/// top in its window.
fn element_point(
    desk: &Desk,
    session: &Session,
    index: u32,
) -> Result<(i32, i32, String), DeskError> {
    let element = listed(session, "this", index)?;
    let words = element_words(index, element);
    let Some(was) = element.bounds else {
        return Err(unplaced(index, element));
    };
    let node = reread(desk, element, &words)?;
    if is_hidden(&node) {
        return Err(DeskError::Changed(format!(
            "element {words} is hidden now; call computer_state again (nothing was sent)"
        )));
    }
    let Some([x, y, w, h]) = node.bounds.filter(|b| b[2] > 0 && b[3] > 0) else {
        return Err(DeskError::Changed(format!(
            "element {words} no longer shows on the screen; call computer_state again (nothing \
             was sent)"
        )));
    };
    let moved = (x - was.x).abs() > MOVED_SLACK
        || (y - was.y).abs() > MOVED_SLACK
        || (w - was.w as i32).abs() > MOVED_SLACK
        || (h - was.h as i32).abs() > MOVED_SLACK;
    if moved {
        return Err(DeskError::Changed(format!(
            "element {words} moved from {was} to {x},{y} {w}x{h} since computer_state; call \
             computer_state again (nothing was sent)"
        )));
    }
    let (cx, cy) = centre(was);
    match desk.top_at(cx, cy)? {
        Seen::Window(top) if top.id == element.window => Ok((cx, cy, words)),
        other => Err(DeskError::Changed(format!(
            "element {words} is covered at its centre ({cx}, {cy}) by {}; call computer_state \
             again (nothing was sent)",
            other.target(crate::intent::Target::Background)
        ))),
    }
}

/// The screen point a step aims at, and the words for it.
fn aim(
    desk: &Desk,
    session: &Session,
    mapping: Mapping,
    step: &ActStep,
) -> Result<Option<(i32, i32, String)>, DeskError> {
    if let Some(index) = step.element {
        return element_point(desk, session, index).map(Some);
    }
    match step.point() {
        Some((x, y)) => {
            let (sx, sy) = mapping.point(x, y, "point")?;
            Ok(Some((sx, sy, format!("({x}, {y})"))))
        }
        None => Ok(None),
    }
}

fn click_at(desk: &Desk, x: i32, y: i32, button: Button, count: u8) -> Result<Value, DeskError> {
    let done = super::verb(
        desk,
        &DeskCall::Click(ClickArgs {
            x,
            y,
            button: Some(button),
            count: Some(count),
            window: None,
            pid: None,
            allow_auth: false,
        }),
    )?;
    Ok(json_of(done))
}

fn json_of(done: Done) -> Value {
    match done.body {
        crate::done::Body::Json(value) => value,
        crate::done::Body::Text(text) => Value::String(text),
    }
}

/// `, confirmed` when the app under the input answered a ping after it.
fn confirmed(result: &Value) -> &'static str {
    if result["confirmed"] == Value::Bool(true) {
        ", confirmed"
    } else {
        ", not confirmed (the app did not answer a ping yet)"
    }
}

/// Runs one step and says what it did.
fn run_step(
    desk: &Desk,
    session: &Session,
    mapping: Mapping,
    step: &ActStep,
) -> Result<String, DeskError> {
    let action = step.check().map_err(DeskError::Invalid)?;
    let name = action.name();
    if let Some((button, count)) = action.click() {
        let button = step.button.unwrap_or(button);
        if let Some(index) = step.element
            && let Some(line) = press_unplaced(desk, session, index, button, count)?
        {
            return Ok(format!("{name} {line}"));
        }
        let (x, y, words) = aim(desk, session, mapping, step)?
            .ok_or_else(|| DeskError::Invalid(format!("{name}: pass element, or x and y")))?;
        let result = click_at(desk, x, y, button, count)?;
        return Ok(format!(
            "{name} {words}: clicked {} ×{count} at screen ({x}, {y}){}",
            button.name(),
            confirmed(&result)
        ));
    }
    match action {
        Action::Type => {
            let text = step.text.clone().unwrap_or_default();
            let total = text.chars().count();
            let mut line = String::new();
            if let Some((x, y, words)) = aim(desk, session, mapping, step)? {
                click_at(desk, x, y, Button::Left, 1)?;
                line = format!("clicked {words} at screen ({x}, {y}), then ");
            }
            let result = super::verb(
                desk,
                &DeskCall::Type(TypeArgs {
                    text,
                    window: None,
                    pid: None,
                    allow_auth: false,
                }),
            )
            .map_err(|e| match line.strip_suffix(", then ") {
                Some(done) => DeskError::After {
                    done: done.to_string(),
                    source: Box::new(e),
                },
                None => e,
            })?;
            let result = json_of(result);
            let typed = result["typed"].as_u64().unwrap_or(0);
            Ok(format!(
                "type: {line}typed {typed} of {total} characters{}",
                confirmed(&result)
            ))
        }
        Action::Key | Action::Hotkey => {
            let keys = keys_of(step).unwrap_or_default();
            let result = json_of(super::verb(
                desk,
                &DeskCall::Key(KeyArgs {
                    keys: keys.clone(),
                    window: None,
                    pid: None,
                    allow_auth: false,
                }),
            )?);
            Ok(format!("{name}: pressed {keys}{}", confirmed(&result)))
        }
        Action::Scroll => {
            let target = aim(desk, session, mapping, step)?;
            let (x, y) = target.as_ref().map(|(x, y, _)| (*x, *y)).unzip();
            let direction = step.direction.ok_or_else(|| {
                DeskError::Invalid("scroll: pass direction: up, down, left or right".into())
            })?;
            let result = json_of(super::verb(
                desk,
                &DeskCall::Scroll(ScrollArgs {
                    direction,
                    amount: Some(step.amount.unwrap_or(3)),
                    x,
                    y,
                    window: None,
                    pid: None,
                    allow_auth: false,
                }),
            )?);
            Ok(format!(
                "scroll {} {} notches at screen ({}, {}){}",
                direction.name(),
                result["amount"],
                result["x"],
                result["y"],
                confirmed(&result)
            ))
        }
        Action::Drag => {
            let (x, y, words) = aim(desk, session, mapping, step)?
                .ok_or_else(|| DeskError::Invalid("drag: pass element or x,y to start".into()))?;
            let (tx, ty) = step
                .to_x
                .zip(step.to_y)
                .ok_or_else(|| DeskError::Invalid("drag: pass to_x and to_y to end".into()))?;
            let (to_x, to_y) = mapping.point(tx, ty, "drag end")?;
            let result = json_of(super::verb(
                desk,
                &DeskCall::Drag(DragArgs {
                    x,
                    y,
                    to_x,
                    to_y,
                    window: None,
                    pid: None,
                    allow_auth: false,
                }),
            )?);
            Ok(format!(
                "drag from {words} to ({tx}, {ty}): screen ({x}, {y}) to ({to_x}, {to_y}){}",
                confirmed(&result)
            ))
        }
        Action::Wait => {
            let seconds = step.seconds.unwrap_or(1.0);
            let deadline = Instant::now() + Duration::from_secs_f64(seconds);
            while Instant::now() < deadline {
                if desk.cancel().is_cancelled() {
                    return Err(DeskError::Cancelled {
                        done: "it was waiting".into(),
                    });
                }
                std::thread::sleep(Duration::from_millis(20).min(deadline - Instant::now()));
            }
            Ok(format!("waited {seconds} s"))
        }
        Action::LaunchApp => {
            let app = step.app.clone().unwrap_or_default();
            let result = json_of(super::verb(
                desk,
                &DeskCall::Launch(LaunchArgs {
                    app: app.clone(),
                    args: Vec::new(),
                }),
            )?);
            let window = &result["window"];
            Ok(match window.get("id") {
                Some(id) => format!(
                    "launch_app {app}: pid {}, window {} {}",
                    result["pid"], id, window["title"]
                ),
                None => format!("launch_app {app}: pid {}", result["pid"]),
            })
        }
        _ => Err(DeskError::Invalid(format!("{name} is not an action"))),
    }
}

/// Waits for the screen to be still after a step; says how long that took.
fn settle(desk: &Desk) -> Result<String, DeskError> {
    let done = super::still::still(
        desk,
        &StillArgs {
            timeout_ms: Some(SETTLE_LIMIT_MS),
            hold_ms: Some(SETTLE_HOLD_MS),
        },
    )?;
    let result = json_of(done);
    Ok(if result["still"] == Value::Bool(true) {
        format!("screen still after {} ms", result["ms"])
    } else {
        format!(
            "screen still changing after {} ms (look again before acting on it)",
            result["ms"]
        )
    })
}

/// `windows: opened …; closed …; raised …` for what differs between two lists (topmost
/// first), or nothing.
fn window_changes(before: &[Window], after: &[Window]) -> String {
    let words = |w: &Window| format!("{} {:?}", w.id, w.title);
    let mut parts = Vec::new();
    let opened: Vec<String> = after
        .iter()
        .filter(|w| !before.iter().any(|b| b.id == w.id))
        .map(words)
        .collect();
    if !opened.is_empty() {
        parts.push(format!("opened {}", opened.join(", ")));
    }
    let closed: Vec<String> = before
        .iter()
        .filter(|b| !after.iter().any(|w| w.id == b.id))
        .map(words)
        .collect();
    if !closed.is_empty() {
        parts.push(format!("closed {}", closed.join(", ")));
    }
    let front = |list: &[Window]| list.iter().find(|w| !w.shell).map(|w| w.id.clone());
    if let Some(top) = front(after)
        && front(before) != Some(top.clone())
        && before.iter().any(|b| b.id == top)
        && let Some(window) = after.iter().find(|w| w.id == top)
    {
        parts.push(format!("raised {}", words(window)));
    }
    for window in after {
        if let Some(was) = before
            .iter()
            .find(|b| b.id == window.id && b.title != window.title)
        {
            parts.push(format!("retitled {} from {:?}", words(window), was.title));
        }
    }
    if parts.is_empty() {
        "windows: no window opened, closed or came to the front\n".into()
    } else {
        format!("windows: {}\n", parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(id: &str, title: &str) -> Window {
        Window {
            id: id.into(),
            title: title.into(),
            role: "window".into(),
            pid: Some(1),
            active: false,
            app: None,
            shell: false,
            owner: None,
            modal: None,
            blocks: None,
        }
    }

    #[test]
    fn changes_name_opened_closed_and_raised_windows() {
        let a = window("0x1", "A");
        let b = window("0x2", "B");
        let c = window("0x3", "C");
        assert_eq!(
            window_changes(&[a.clone(), b.clone()], &[b.clone(), a.clone()]),
            "windows: raised 0x2 \"B\"\n"
        );
        assert_eq!(
            window_changes(&[a.clone(), b.clone()], &[c.clone(), a.clone()]),
            "windows: opened 0x3 \"C\"; closed 0x2 \"B\"\n"
        );
        let alone = std::slice::from_ref(&a);
        assert!(window_changes(alone, alone).contains("no window opened"));
    }

    #[test]
    fn points_map_by_the_scale_and_stay_on_the_screen() {
        let mapping = Mapping {
            shot: Some(Shot {
                width: 1024,
                height: 576,
                scale: 1.875,
                max_edge: 1024,
            }),
            scale: 1.875,
            screen: Rect::new(0, 0, 1920, 1080),
        };
        assert_eq!(mapping.point(512.0, 288.0, "point").unwrap(), (960, 540));
        assert_eq!(mapping.point(0.0, 0.0, "point").unwrap(), (0, 0));
        let e = mapping
            .point(1024.0, 10.0, "point")
            .unwrap_err()
            .to_string();
        assert!(e.contains("off the screenshot, which is 1024x576"), "{e}");
        let unscaled = Mapping {
            shot: None,
            scale: 4.0,
            ..mapping
        };
        let e = unscaled
            .point(500.0, 10.0, "point")
            .unwrap_err()
            .to_string();
        assert!(e.contains("off the screen (1920x1080)"), "{e}");
    }
}
