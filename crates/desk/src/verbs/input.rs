//! `key`, `type`, `click`, `scroll` and `drag`.
//!
//! Each result says where the input went and whether the app there confirmed it handled it
//! (`confirmed`); without that confirmation the input was sent but may not have been read yet.

use desk_core::call::{Button, ClickArgs, DragArgs, KeyArgs, ScrollArgs, TypeArgs};
use desk_core::window::Window;
use serde_json::{Value, json};

use super::Outcome;
use super::target::{self, SETTLE_WAIT};
use crate::backend::Backend;
use crate::cancel::Cancel;
use crate::error::DeskError;
use crate::keys;

/// The window named by `window`/`pid`, focused and checked; else whatever has the focus.
fn keyboard_target(
    backend: &dyn Backend,
    window: Option<&str>,
    pid: Option<u32>,
) -> Result<Option<Window>, DeskError> {
    if window.is_none() && pid.is_none() {
        return target::active(backend);
    }
    let window = target::pick(backend, window, pid)?;
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
    let window = keyboard_target(backend, args.window.as_deref(), args.pid)?;
    let id = window.as_ref().map(|w| w.id.as_str());
    backend.press_keys(&combo.keysyms, id, cancel)?;
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
    let window = keyboard_target(backend, args.window.as_deref(), args.pid)?;
    let id = window.as_ref().map(|w| w.id.as_str());
    let typed = backend.type_text(&args.text, id, cancel)?;
    let (window, confirmed) = delivery(backend, window.as_ref());
    Ok(Outcome::of(
        json!({"typed": typed, "window": window, "confirmed": confirmed}),
    ))
}

/// A desk point from `x`, `y` (pixels of `window`'s shot when one is named).
fn point(
    backend: &dyn Backend,
    x: i32,
    y: i32,
    window: Option<&str>,
    pid: Option<u32>,
) -> Result<(i32, i32), DeskError> {
    if window.is_none() && pid.is_none() {
        target::on_screen(backend, x, y)?;
        return Ok((x, y));
    }
    let window = target::pick(backend, window, pid)?;
    target::uncovered_point(backend, &window, x, y)
}

pub(super) fn click(backend: &dyn Backend, args: &ClickArgs) -> Result<Outcome, DeskError> {
    let (x, y) = point(backend, args.x, args.y, args.window.as_deref(), args.pid)?;
    let button = args.button.unwrap_or(Button::Left);
    let count = args.count.unwrap_or(1);
    let under = target::window_at(backend, x, y)?;
    backend.move_pointer(x, y)?;
    backend.click(button, count)?;
    let (window, confirmed) = delivery(backend, under.as_ref());
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
    let (x, y) = match args.point().map_err(DeskError::Invalid)? {
        Some((x, y)) => point(backend, x, y, args.window.as_deref(), args.pid)?,
        None => focused_centre(backend)?,
    };
    let under = target::window_at(backend, x, y)?;
    backend.move_pointer(x, y)?;
    backend.scroll(args.direction, amount, cancel)?;
    let (window, confirmed) = delivery(backend, under.as_ref());
    Ok(Outcome::of(json!({
        "x": x, "y": y, "amount": amount, "window": window, "confirmed": confirmed
    })))
}

/// The centre of the focused window, refused when another window covers it.
fn focused_centre(backend: &dyn Backend) -> Result<(i32, i32), DeskError> {
    let focused = target::active(backend)?.ok_or_else(|| {
        DeskError::Invalid("no window has the focus; pass x and y to scroll at a point".into())
    })?;
    let rect = target::rect_of(backend, &focused)?;
    let (x, y) = (rect.x + (rect.w / 2) as i32, rect.y + (rect.h / 2) as i32);
    target::on_screen(backend, x, y)?;
    match target::window_at(backend, x, y)? {
        Some(top) if top.id == focused.id => Ok((x, y)),
        Some(top) => Err(DeskError::Invalid(format!(
            "the centre of the focused window {} {:?} is covered by {} {:?}; pass x and y, or focus the window first",
            focused.id, focused.title, top.id, top.title
        ))),
        None => Err(DeskError::WindowGone { id: focused.id }),
    }
}

pub(super) fn drag(
    backend: &dyn Backend,
    args: &DragArgs,
    cancel: &Cancel,
) -> Result<Outcome, DeskError> {
    let (from, to) = if args.window.is_none() && args.pid.is_none() {
        target::on_screen(backend, args.x, args.y)?;
        target::on_screen(backend, args.to_x, args.to_y)?;
        ((args.x, args.y), (args.to_x, args.to_y))
    } else {
        let window = target::pick(backend, args.window.as_deref(), args.pid)?;
        let to = target::window_point(backend, &window, args.to_x, args.to_y)?;
        target::on_screen(backend, to.0, to.1)?;
        (
            target::uncovered_point(backend, &window, args.x, args.y)?,
            to,
        )
    };
    let under = target::window_at(backend, from.0, from.1)?;
    backend.drag(from, to, cancel)?;
    let (window, confirmed) = delivery(backend, under.as_ref());
    Ok(Outcome::of(json!({
        "from": [from.0, from.1], "to": [to.0, to.1], "window": window, "confirmed": confirmed
    })))
}
