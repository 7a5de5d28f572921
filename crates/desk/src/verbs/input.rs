//! `key`, `type`, `click`, `scroll` and `drag`.
//!
//! Each result says where the input went and whether the app there confirmed it handled it
//! (`confirmed`); without that confirmation the input was sent but may not have been read yet.

use std::time::{Duration, Instant};

use desk_core::call::{Button, ClickArgs, Direction, DragArgs, KeyArgs, ScrollArgs, TypeArgs};
use desk_core::window::Window;
use serde_json::{Value, json};

use super::Outcome;
use super::target::{self, SETTLE_WAIT};
use crate::backend::Backend;
use crate::cancel::Cancel;
use crate::error::DeskError;
use crate::intent::{Intent, Target};
use crate::keys;

/// Admits keyboard input, then gives the target the focus: the window named by `window`/`pid`,
/// focused and checked, else whatever has the focus.
fn keyboard_target(
    backend: &dyn Backend,
    window: Option<&str>,
    pid: Option<u32>,
    intent: impl FnOnce(Target) -> Intent,
) -> Result<Option<Window>, DeskError> {
    if window.is_none() && pid.is_none() {
        let active = target::active(backend)?;
        let place = match &active {
            Some(window) => Target::window(window),
            None => Target::Bare("no window (nothing has the keyboard focus)".into()),
        };
        let checked_at = Instant::now();
        backend.admit(&intent(place))?;
        if checked_at.elapsed() >= RECHECK_AFTER {
            let now = target::active(backend)?;
            if now.as_ref().map(|w| &w.id) != active.as_ref().map(|w| &w.id) {
                return Err(DeskError::Invalid(
                    "the keyboard focus moved to another window while the action was being \
                     checked; nothing was sent: look again, or name the window"
                        .into(),
                ));
            }
        }
        return Ok(active);
    }
    let window = target::pick(backend, window, pid)?;
    backend.admit(&intent(Target::window(&window)))?;
    target::focus(backend, &window)?;
    Ok(Some(window))
}

/// `window` and `confirmed` for a result: where the input went and whether its app has read it.
fn delivery(backend: &dyn Backend, window: Option<&Window>) -> (Value, bool) {
    match window {
        Some(w) => (json!(w.id), backend.settle(&w.id, SETTLE_WAIT)),
        None => (Value::Null, false),
    }
}

pub(super) fn key(
    backend: &dyn Backend,
    args: &KeyArgs,
    cancel: &Cancel,
) -> Result<Outcome, DeskError> {
    let combo = keys::parse_combo(&args.keys)?;
    let what = format!("press {}", args.keys);
    let window = keyboard_target(backend, args.window.as_deref(), args.pid, |place| {
        Intent::new(what, vec![place])
    })?;
    backend.press_keys(&combo.keysyms, window.as_ref(), cancel)?;
    let (window, confirmed) = delivery(backend, window.as_ref());
    Ok(Outcome::of(
        json!({"keys": args.keys, "window": window, "confirmed": confirmed}),
    ))
}

pub(super) fn type_text(
    backend: &dyn Backend,
    args: &TypeArgs,
    cancel: &Cancel,
) -> Result<Outcome, DeskError> {
    let chars = args.text.chars().count();
    let window = keyboard_target(backend, args.window.as_deref(), args.pid, |place| Intent {
        text: Some(args.text.clone()),
        ..Intent::new(format!("type {chars} characters"), vec![place])
    })?;
    let typed = backend.type_text(&args.text, window.as_ref(), cancel)?;
    let (window, confirmed) = delivery(backend, window.as_ref());
    Ok(Outcome::of(
        json!({"typed": typed, "window": window, "confirmed": confirmed}),
    ))
}

/// Where point input goes: a desk point and the window that receives input there (none: the
/// desktop background). A named window must be on top at the point when the input goes out.
struct Aim {
    x: i32,
    y: i32,
    under: Option<Window>,
    named: bool,
    checked_at: Instant,
}

/// How old the check of what is at the point may be when the input goes out; an older one
/// (a confirm dialog stood open meanwhile) is made again.
const RECHECK_AFTER: Duration = Duration::from_millis(20);

impl Aim {
    /// Aims at `x`, `y`: desk coordinates, or pixels of the named window's shot.
    fn at(
        backend: &dyn Backend,
        x: i32,
        y: i32,
        window: Option<&str>,
        pid: Option<u32>,
    ) -> Result<Self, DeskError> {
        if window.is_none() && pid.is_none() {
            target::on_screen(backend, x, y)?;
            return Ok(Self {
                x,
                y,
                under: target::window_at(backend, x, y)?,
                named: false,
                checked_at: Instant::now(),
            });
        }
        let window = target::pick(backend, window, pid)?;
        let (x, y) = target::window_point(backend, &window, x, y)?;
        target::on_screen(backend, x, y)?;
        Ok(Self {
            x,
            y,
            under: Some(window),
            named: true,
            checked_at: Instant::now(),
        })
    }

    /// Where the input lands, for admission.
    fn target(&self) -> Target {
        match &self.under {
            Some(window) => Target::window(window),
            None => Target::Bare("the desktop background".into()),
        }
    }

    /// After admission: raises the named window where another one covers the point; else,
    /// when admission took a while, checks that what is at the point is still what was
    /// admitted.
    fn uncover(&self, backend: &dyn Backend) -> Result<(), DeskError> {
        if let (Some(window), true) = (&self.under, self.named) {
            return target::bring_to_top(backend, window, self.x, self.y);
        }
        if self.checked_at.elapsed() < RECHECK_AFTER {
            return Ok(());
        }
        let now = target::window_at(backend, self.x, self.y)?;
        if now.as_ref().map(|w| &w.id) == self.under.as_ref().map(|w| &w.id) {
            return Ok(());
        }
        let now = now.map_or_else(
            || "the desktop background".into(),
            |w| Target::window(&w).to_string(),
        );
        Err(DeskError::Invalid(format!(
            "what is at ({}, {}) changed after it was checked: it is now {now}; nothing was sent, \
             look again before retrying",
            self.x, self.y
        )))
    }
}

pub(super) fn click(backend: &dyn Backend, args: &ClickArgs) -> Result<Outcome, DeskError> {
    let aim = Aim::at(backend, args.x, args.y, args.window.as_deref(), args.pid)?;
    let (x, y) = (aim.x, aim.y);
    let button = args.button.unwrap_or(Button::Left);
    let count = args.count.unwrap_or(1);
    let times = match count {
        1 => String::new(),
        2 => " twice".into(),
        n => format!(" {n} times"),
    };
    let what = format!("click {}{times} at ({x}, {y})", button_name(button));
    backend.admit(&Intent::new(what, vec![aim.target()]))?;
    aim.uncover(backend)?;
    backend.move_pointer(x, y)?;
    backend.click(button, count)?;
    let (window, confirmed) = delivery(backend, aim.under.as_ref());
    Ok(Outcome::of(json!({
        "x": x, "y": y, "button": button_name(button), "count": count,
        "window": window, "confirmed": confirmed
    })))
}

fn button_name(button: Button) -> &'static str {
    match button {
        Button::Left => "left",
        Button::Right => "right",
        Button::Middle => "middle",
    }
}

pub(super) fn scroll(
    backend: &dyn Backend,
    args: &ScrollArgs,
    cancel: &Cancel,
) -> Result<Outcome, DeskError> {
    let amount = args.amount().map_err(DeskError::Invalid)?;
    let aim = match args.point().map_err(DeskError::Invalid)? {
        Some((x, y)) => Aim::at(backend, x, y, args.window.as_deref(), args.pid)?,
        None => focused_centre(backend)?,
    };
    let (x, y) = (aim.x, aim.y);
    let what = format!(
        "scroll {} {amount} notches at ({x}, {y})",
        direction_name(args.direction)
    );
    backend.admit(&Intent::new(what, vec![aim.target()]))?;
    aim.uncover(backend)?;
    backend.move_pointer(x, y)?;
    backend.scroll(args.direction, amount, cancel)?;
    let (window, confirmed) = delivery(backend, aim.under.as_ref());
    Ok(Outcome::of(json!({
        "x": x, "y": y, "amount": amount, "window": window, "confirmed": confirmed
    })))
}

/// The centre of the focused window, refused when another window covers it.
fn focused_centre(backend: &dyn Backend) -> Result<Aim, DeskError> {
    let focused = target::focused(backend)?.ok_or_else(|| {
        DeskError::Invalid("no window has the focus; pass x and y to scroll at a point".into())
    })?;
    let rect = target::rect_of(backend, &focused)?;
    let (x, y) = (rect.x + (rect.w / 2) as i32, rect.y + (rect.h / 2) as i32);
    target::on_screen(backend, x, y)?;
    match target::window_at(backend, x, y)? {
        Some(top) if top.id == focused.id => Ok(Aim {
            x,
            y,
            under: Some(focused),
            named: false,
            checked_at: Instant::now(),
        }),
        Some(top) => Err(DeskError::Invalid(format!(
            "the centre of the focused window {} {:?} is covered by {} {:?}; pass x and y, or focus the window first",
            focused.id, focused.title, top.id, top.title
        ))),
        None => Err(DeskError::WindowGone { id: focused.id }),
    }
}

fn direction_name(direction: Direction) -> &'static str {
    match direction {
        Direction::Up => "up",
        Direction::Down => "down",
        Direction::Left => "left",
        Direction::Right => "right",
    }
}

pub(super) fn drag(
    backend: &dyn Backend,
    args: &DragArgs,
    cancel: &Cancel,
) -> Result<Outcome, DeskError> {
    let from = Aim::at(backend, args.x, args.y, args.window.as_deref(), args.pid)?;
    let to = match (&from.under, from.named) {
        (Some(window), true) => target::window_point(backend, window, args.to_x, args.to_y)?,
        _ => (args.to_x, args.to_y),
    };
    target::on_screen(backend, to.0, to.1)?;
    // What is under the end is what receives the drop, so it is gated as the start is.
    let drop_target = target::target_at(backend, to.0, to.1)?;
    let what = format!("drag from ({}, {}) to ({}, {})", from.x, from.y, to.0, to.1);
    backend.admit(&Intent::new(what, vec![from.target(), drop_target]))?;
    from.uncover(backend)?;
    backend.drag((from.x, from.y), to, cancel)?;
    let (window, confirmed) = delivery(backend, from.under.as_ref());
    Ok(Outcome::of(json!({
        "from": [from.x, from.y], "to": [to.0, to.1], "window": window, "confirmed": confirmed
    })))
}
