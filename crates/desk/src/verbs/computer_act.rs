//! `computer_act`: one action or a list of them, by element index or screenshot pixels, each
//! waited out until the screen is still, then what changed and a new screenshot.
//!
//! A step runs through the same verb a desk call of its kind would (`click`, `type`, `key`,
//! `scroll`, `drag`, `launch`), with arguments that pass the same checks, so it passes the same
//! safety controls and answers the same delivery facts, typed. Everything that can be checked
//! without the screen is checked for every step before the first one runs.

use std::time::{Duration, Instant};

use desk_core::a11y::Node;
use desk_core::app_text::Quoted;
use desk_core::call::vision::{Aim, ComputerActArgs, DEFAULT_MAX_EDGE, Step};
use desk_core::call::{
    Args, Button, ClickArgs, DragArgs, KeyArgs, LaunchArgs, PressArgs, ScrollArgs, StillArgs,
    TypeArgs,
};
use desk_core::geometry::Rect;
use desk_core::results::{AppAnswer, Clicked, WindowChanges};
use desk_core::window::Window;

use super::computer::centre;
use super::node::is_hidden;
use super::target::ANSWER_WAIT;
use super::{input, manage, press, still};
use crate::accessibility::Want;
use crate::done::Picture;
use crate::error::DeskError;
use crate::guard::{Desk, Seen};
use crate::vision::{Element, Screenshot, Session, Shot};

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
            return Err(DeskError::Unplaced(format!(
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
            return Err(DeskError::Unplaced(format!(
                "{which} ({x}, {y}) at scale {} is screen point ({sx}, {sy}), off the screen \
                 ({}x{})",
                self.scale, self.screen.w, self.screen.h
            )));
        }
        Ok((sx as i32, sy as i32))
    }
}

pub(super) fn act(
    desk: &Desk,
    args: &ComputerActArgs,
) -> Result<(String, Option<Picture>), DeskError> {
    let source = desk.screen_source("computer_act")?;
    // Its steps aim at screen pixels, where only the person's pointer and keyboard reach.
    desk.in_front(DeskError::Unsupported(
        "computer_act aims at screen pixels, which background input does not reach; under \
         [daemon] input = \"background\" use the desk tool: type, key and scroll with a window \
         named, press by element id"
            .into(),
    ))?;
    let sessions = desk.sessions();
    let name = sessions.resolve(desk.agent(), args.session.as_deref())?;
    let session = sessions.get(&name);
    let latest = sessions.shot_of(&name);
    let mapping = Mapping {
        shot: if args.scale.is_some() { None } else { latest },
        scale: args.scale.or(latest.map(|s| s.scale)).unwrap_or(0.0),
        screen: desk.screen()?,
    };
    let steps = &args.steps;
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
    let screenshot = match Screenshot::capture(&source, mapping.screen, max_edge) {
        Ok(screenshot) => screenshot,
        Err(e) => {
            text.push_str(&format!("screenshot: none, the capture failed: {e}"));
            return Ok((text, None));
        }
    };
    sessions.shown(&name, screenshot.shot);
    text.push_str(&format!(
        "screenshot {}; scale {}",
        screenshot.describe(),
        (screenshot.shot.scale * 1000.0).round() / 1000.0
    ));
    Ok((text, Some(screenshot.picture)))
}

/// A step in words, for its line and its failure.
fn describe(step: &Step) -> String {
    let action = step.action().name();
    match step.aim() {
        Some(Aim::Element(element)) => format!("{action} element [{element}]"),
        Some(Aim::Point { x, y }) => format!("{action} at ({x}, {y})"),
        None => action.to_string(),
    }
}

/// Checks what a step needs from the session and the screen before any step runs: its
/// element is listed (and placed, unless a single left click presses it), its keys are keys,
/// its points are on the screenshot and the screen.
fn precheck(session: &Session, name: &str, mapping: Mapping, step: &Step) -> Result<(), DeskError> {
    if let Some(Aim::Element(index)) = step.aim() {
        let element = listed(session, name, index)?;
        let single_left = matches!(
            step,
            Step::Click {
                button: Button::Left,
                count: 1,
                ..
            }
        );
        if element.bounds.is_none() && !single_left {
            return Err(unplaced(index, element));
        }
    }
    if let Step::Key { keys, .. } = step {
        let keys = checked(key_args(keys))?.keys;
        crate::keys::parse_combo(&keys)?;
    }
    let start = match step.aim() {
        Some(Aim::Point { x, y }) => Some((x, y)),
        _ => None,
    };
    let end = match step {
        Step::Drag { to, .. } => Some(*to),
        _ => None,
    };
    for (point, which) in [(start, "point"), (end, "drag end")] {
        if let Some((x, y)) = point {
            if mapping.scale <= 0.0 {
                return Err(DeskError::Missing(format!(
                    "session {name:?} has been shown no screenshot, so x,y cannot be mapped: \
                     call computer_state first, or pass scale"
                )));
            }
            mapping.point(x, y, which)?;
        }
    }
    Ok(())
}

/// A key step's combination as `key` takes it: to the focused window.
fn key_args(keys: &str) -> KeyArgs {
    KeyArgs {
        keys: keys.to_string(),
        window: None,
        pid: None,
        allow_auth: false,
        settle: None,
    }
}

/// A verb's arguments as a step builds them, after the checks a caller's pass.
fn checked<A: Args>(args: A) -> Result<A, DeskError> {
    desk_core::call::checked(args).map_err(DeskError::Invalid)
}

/// Element `index` of the session's latest state.
fn listed<'s>(session: &'s Session, name: &str, index: u32) -> Result<&'s Element, DeskError> {
    session.elements.get(index as usize).ok_or_else(|| {
        DeskError::Missing(match session.elements.len() {
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
        format!("[{index}] {} {}", element.role, Quoted(&element.name))
    }
}

/// The refusal of anything but a single left click on an element its app gives no position.
fn unplaced(index: u32, element: &Element) -> DeskError {
    DeskError::Unfit(format!(
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
                "element {words} is gone since computer_state; call computer_state again"
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
            "element {words} is hidden now; call computer_state again"
        )));
    }
    let pressed = press::press(
        desk,
        &checked(PressArgs {
            id: element.node.clone(),
            allow_auth: false,
            settle: None,
        })?,
    )?;
    Ok(Some(format!(
        "{words}: pressed through accessibility ({})",
        pressed.how.name()
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
            "element {words} is hidden now; call computer_state again"
        )));
    }
    let Some([x, y, w, h]) = node.bounds.filter(|b| b[2] > 0 && b[3] > 0) else {
        return Err(DeskError::Changed(format!(
            "element {words} no longer shows on the screen; call computer_state again"
        )));
    };
    let moved = (x - was.x).abs() > MOVED_SLACK
        || (y - was.y).abs() > MOVED_SLACK
        || (w - was.w as i32).abs() > MOVED_SLACK
        || (h - was.h as i32).abs() > MOVED_SLACK;
    if moved {
        return Err(DeskError::Changed(format!(
            "element {words} moved from {was} to {x},{y} {w}x{h} since computer_state; call \
             computer_state again"
        )));
    }
    let (cx, cy) = centre(was);
    match desk.top_at(cx, cy)? {
        Seen::Window(top) if top.id == element.window => Ok((cx, cy, words)),
        other => Err(DeskError::Changed(format!(
            "element {words} is covered at its centre ({cx}, {cy}) by {}; call computer_state \
             again",
            other.target(crate::intent::Target::Background)
        ))),
    }
}

/// The screen point `aim` names, and the words for it.
fn locate(
    desk: &Desk,
    session: &Session,
    mapping: Mapping,
    aim: Aim,
) -> Result<(i32, i32, String), DeskError> {
    match aim {
        Aim::Element(index) => element_point(desk, session, index),
        Aim::Point { x, y } => {
            let (sx, sy) = mapping.point(x, y, "point")?;
            Ok((sx, sy, format!("({x}, {y})")))
        }
    }
}

fn click_at(desk: &Desk, x: i32, y: i32, button: Button, count: u8) -> Result<Clicked, DeskError> {
    input::click(
        desk,
        &checked(ClickArgs {
            x,
            y,
            button: Some(button),
            count: Some(count),
            window: None,
            pid: None,
            scale: None,
            allow_auth: false,
            settle: None,
        })?,
    )
}

/// What the app under the input answered after it, in words an agent acts on.
fn answered(answer: Option<AppAnswer>) -> String {
    match answer {
        Some(AppAnswer::Read) => ", the app read it".into(),
        Some(AppAnswer::Busy) => format!(
            ", the app was still busy after {} ms (not a failure: look before repeating it)",
            ANSWER_WAIT.as_millis()
        ),
        Some(AppAnswer::Unknown) => ", the app cannot be asked whether it read it".into(),
        None => String::new(),
    }
}

/// Runs one step and says what it did.
fn run_step(
    desk: &Desk,
    session: &Session,
    mapping: Mapping,
    step: &Step,
) -> Result<String, DeskError> {
    let name = step.action().name();
    match step {
        Step::Click {
            button, count, aim, ..
        } => {
            if let Aim::Element(index) = *aim
                && let Some(line) = press_unplaced(desk, session, index, *button, *count)?
            {
                return Ok(format!("{name} {line}"));
            }
            let (x, y, words) = locate(desk, session, mapping, *aim)?;
            let clicked = click_at(desk, x, y, *button, *count)?;
            Ok(format!(
                "{name} {words}: clicked {} ×{count} at screen ({x}, {y}){}",
                button.name(),
                answered(clicked.app_answer)
            ))
        }
        Step::Type { text, aim } => {
            let total = text.chars().count();
            let mut line = String::new();
            if let Some(aim) = aim {
                let (x, y, words) = locate(desk, session, mapping, *aim)?;
                click_at(desk, x, y, Button::Left, 1)?;
                line = format!("clicked {words} at screen ({x}, {y}), then ");
            }
            let typed = checked(TypeArgs {
                text: text.clone(),
                window: None,
                pid: None,
                allow_auth: false,
            })
            .and_then(|args| input::type_text(desk, &args))
            .map_err(|e| match line.strip_suffix(", then ") {
                Some(done) => DeskError::After {
                    done: done.to_string(),
                    source: Box::new(e),
                },
                None => e,
            })?;
            Ok(format!(
                "type: {line}typed {} of {total} characters{}",
                typed.typed,
                answered(typed.app_answer)
            ))
        }
        Step::Key { keys, .. } => {
            let keyed = input::key(desk, &checked(key_args(keys))?)?;
            Ok(format!(
                "{name}: pressed {keys}{}",
                answered(keyed.app_answer)
            ))
        }
        Step::Scroll {
            direction,
            amount,
            aim,
        } => {
            let target = aim
                .map(|aim| locate(desk, session, mapping, aim))
                .transpose()?;
            let (x, y) = target.as_ref().map(|(x, y, _)| (*x, *y)).unzip();
            let scrolled = input::scroll(
                desk,
                &checked(ScrollArgs {
                    direction: *direction,
                    amount: Some(*amount),
                    x,
                    y,
                    window: None,
                    pid: None,
                    allow_auth: false,
                })?,
            )?;
            Ok(format!(
                "scroll {} {} notches at screen ({}, {}){}",
                direction.name(),
                scrolled.amount,
                scrolled.x,
                scrolled.y,
                answered(scrolled.app_answer)
            ))
        }
        Step::Drag { from, to } => {
            let (x, y, words) = locate(desk, session, mapping, *from)?;
            let (tx, ty) = *to;
            let (to_x, to_y) = mapping.point(tx, ty, "drag end")?;
            let dragged = input::drag(
                desk,
                &checked(DragArgs {
                    x,
                    y,
                    to_x,
                    to_y,
                    window: None,
                    pid: None,
                    scale: None,
                    allow_auth: false,
                })?,
            )?;
            Ok(format!(
                "drag from {words} to ({tx}, {ty}): screen ({x}, {y}) to ({to_x}, {to_y}){}",
                answered(dragged.app_answer)
            ))
        }
        Step::Wait { seconds } => {
            let deadline = Instant::now() + Duration::from_secs_f64(*seconds);
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
        Step::LaunchApp { app } => {
            let started = manage::launch(
                desk,
                &checked(LaunchArgs {
                    app: app.clone(),
                    args: Vec::new(),
                })?,
            )?;
            Ok(match &started.window {
                Some(window) => format!(
                    "launch_app {app}: pid {}, window {:?} {:?}",
                    started.pid, window.id, window.title
                ),
                None => format!("launch_app {app}: pid {}", started.pid),
            })
        }
    }
}

/// Waits for the screen to be still after a step; says how long that took.
fn settle(desk: &Desk) -> Result<String, DeskError> {
    let still = still::still(
        desk,
        &checked(StillArgs {
            timeout_ms: Some(SETTLE_LIMIT_MS),
            hold_ms: Some(SETTLE_HOLD_MS),
        })?,
    )?;
    Ok(if still.still {
        format!("screen still after {} ms", still.ms)
    } else {
        format!(
            "screen still changing after {} ms (look again before acting on it)",
            still.ms
        )
    })
}

/// `windows: opened …; closed …; raised …` for what differs between two lists (topmost
/// first), or that nothing did.
fn window_changes(before: &[Window], after: &[Window]) -> String {
    match WindowChanges::between(before, after) {
        Some(changes) => format!("windows: {}\n", changes.words()),
        None => "windows: no window opened, closed or came to the front\n".into(),
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
