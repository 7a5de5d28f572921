//! `key`, `type`, `click`, `scroll` and `drag`.
//!
//! Each result says where the input went and what the app there answered after it
//! (`app_answer`): read, or still busy, when the input was sent but its effect may show later.
//! Under `[daemon] input = "background"` keys, typing and the wheel go from the agent's own devices
//! to a named window ([`Way`]); clicks and drags never do.

use desk_core::app_text::Quoted;
use desk_core::call::{Button, ClickArgs, DragArgs, KeyArgs, MAX_SCROLL, ScrollArgs, TypeArgs};
use desk_core::results::{Clicked, Dragged, Keyed, Scrolled, Typed};
use desk_core::window::Window;

use super::target;
use crate::error::DeskError;
use crate::guard::way::{Input, Refusal, Way};
use crate::guard::{Admitted, Desk, Seen, Spot};
use crate::intent::{Intent, Target};
use crate::keys;

/// Decides how keyboard input goes, admits it, and, in the foreground, gives the target the
/// focus: the window named by `window`/`pid`, focused and checked, else whatever has the
/// focus. In the background it goes to the named window alone, focused by the agent's own devices.
fn keyboard_target<'d>(
    desk: &'d Desk,
    window: Option<&str>,
    pid: Option<u32>,
    what: &str,
    intent: impl FnOnce(Target) -> Intent,
) -> Result<(Admitted<'d>, Option<Window>), DeskError> {
    let named = window.is_some() || pid.is_some();
    let way = desk.way(Input::Keyboard { named }, |why| why.error(what))?;
    if !named {
        let focused = desk.focused()?;
        let admitted = desk.admit_by(intent(focused.target(Target::NoFocus)), way)?;
        // A foreign window with the focus was refused by admission; what is left is ours.
        return Ok((admitted, focused.window().cloned()));
    }
    let window = desk.pick(window, pid)?;
    let behind = matches!(way, Way::Background(_));
    let admitted = desk.admit_by(intent(Target::window(&window)), way)?;
    if !behind {
        admitted.focus(&window)?;
    }
    Ok((admitted, Some(window)))
}

pub(super) fn key(desk: &Desk, args: &KeyArgs) -> Result<Keyed, DeskError> {
    let combo = keys::parse_combo(&args.keys)?;
    let what = format!("press {}", args.keys);
    let (admitted, window) =
        keyboard_target(desk, args.window.as_deref(), args.pid, "a key", |place| {
            Intent::new(what, vec![place])
        })?;
    admitted.press_keys(&combo, window.as_ref())?;
    let (window, app_answer) = target::delivery(&admitted, window.as_ref());
    let route = admitted.route(|| {
        format!(
            "{} pressed on the agent's keyboard, focused on window {}",
            args.keys,
            window.as_deref().unwrap_or_default()
        )
    });
    Ok(Keyed {
        keys: args.keys.clone(),
        window,
        app_answer,
        route,
    })
}

pub(super) fn type_text(desk: &Desk, args: &TypeArgs) -> Result<Typed, DeskError> {
    let chars = args.text.chars().count();
    let intent = |place| Intent {
        text: Some(args.text.clone()),
        ..Intent::new(format!("type {chars} characters"), vec![place])
    };
    let (admitted, window) =
        keyboard_target(desk, args.window.as_deref(), args.pid, "typing", intent)?;
    let typed = admitted.type_text(&args.text, window.as_ref())?;
    let (id, app_answer) = target::delivery(&admitted, window.as_ref());
    // In the background, read back: the field with the app's focus shows the text, or it
    // stays unverified.
    let route = admitted.typed_route(
        &args.text,
        window.as_ref(),
        format!(
            "{typed} characters typed on the agent's keyboard, focused on window {}",
            id.as_deref().unwrap_or_default()
        ),
    );
    Ok(Typed {
        typed,
        window: id,
        app_answer,
        route,
    })
}

pub(super) fn click(desk: &Desk, args: &ClickArgs) -> Result<Clicked, DeskError> {
    let (x, y) = args.point();
    let spot = target::spot(desk, x, y, args.window.as_deref(), args.pid)?;
    let button = args.button.unwrap_or(Button::Left);
    let count = args.count.unwrap_or(1);
    let times = match count {
        1 => String::new(),
        2 => " twice".into(),
        n => format!(" {n} times"),
    };
    let what = format!("click {}{times} at ({}, {})", button.name(), spot.x, spot.y);
    let route = desk.in_front(Refusal::Pointer.error("a click"))?;
    let admitted = desk.admit(Intent::new(what, vec![spot.target()]))?;
    admitted.click(&spot, button, count)?;
    let (window, app_answer) = target::delivery(&admitted, spot.on.window());
    Ok(Clicked {
        x: spot.x,
        y: spot.y,
        button: button.name().to_string(),
        count,
        window,
        app_answer,
        route,
    })
}

pub(super) fn scroll(desk: &Desk, args: &ScrollArgs) -> Result<Scrolled, DeskError> {
    let amount = args.amount().map_err(DeskError::Invalid)?;
    let point = args.point().map_err(DeskError::Invalid)?;
    let (window, pid) = (args.window.as_deref(), args.pid);
    let named = window.is_some() || pid.is_some();
    let wheel = |covered| Input::Wheel { named, covered };
    let refuse = |why: Refusal| why.error("scrolling");
    let (way, spot) = match (desk.way(wheel(false), refuse)?, point) {
        (Way::Background(devices), point) => {
            let spot = behind_spot(desk, desk.pick(window, pid)?, point)?;
            match desk.covered(&spot)? {
                None => (Way::Background(devices), spot),
                // Under auto a covered window is scrolled in front, raised as the call named it.
                Some(covered) => (
                    desk.way(wheel(true), |_| covered)?,
                    Spot {
                        raise: true,
                        ..spot
                    },
                ),
            }
        }
        (front, Some((x, y))) => (front, target::spot(desk, x, y, window, pid)?),
        (front, None) => (front, focused_centre(desk)?),
    };
    let what = format!(
        "scroll {} {amount} notches at ({}, {})",
        args.direction.name(),
        spot.x,
        spot.y
    );
    let admitted = desk.admit_by(Intent::new(what, vec![spot.target()]), way)?;
    admitted.scroll(&spot, args.direction, amount)?;
    let route = admitted.route(|| {
        format!(
            "{amount} wheel notches from the agent's pointer at ({}, {})",
            spot.x, spot.y
        )
    });
    let (window, app_answer) = target::delivery(&admitted, spot.on.window());
    Ok(Scrolled {
        x: spot.x,
        y: spot.y,
        amount,
        window,
        app_answer,
        route,
        note: args.amount.filter(|&asked| asked > amount).map(|asked| {
            format!(
                "{asked} notches asked; one scroll sends at most {MAX_SCROLL}, so {amount} were sent"
            )
        }),
    })
}

/// Where background scrolling in the named `window` goes: `point` in its shot's pixels, else
/// its centre; never raised.
fn behind_spot(desk: &Desk, window: Window, point: Option<(i32, i32)>) -> Result<Spot, DeskError> {
    let (x, y) = match point {
        Some(point) => point,
        None => {
            let rect = desk.rect_of(&window)?;
            ((rect.w / 2) as i32, (rect.h / 2) as i32)
        }
    };
    Ok(Spot {
        raise: false,
        ..target::named_spot(desk, window, x, y)?
    })
}

/// The centre of the focused window, refused when another window covers it.
fn focused_centre(desk: &Desk) -> Result<Spot, DeskError> {
    let focused = desk.focused_window()?.ok_or_else(|| {
        DeskError::Missing("no window has the focus; pass x and y to scroll at a point".into())
    })?;
    let rect = desk.rect_of(&focused)?;
    let (x, y) = (rect.x + (rect.w / 2) as i32, rect.y + (rect.h / 2) as i32);
    target::on_screen(desk, x, y)?;
    match desk.top_at(x, y)? {
        Seen::Window(top) if top.id == focused.id => Ok(Spot {
            x,
            y,
            on: Seen::Window(focused),
            raise: false,
        }),
        Seen::Nothing => Err(DeskError::WindowGone { id: focused.id }),
        covering => Err(DeskError::Unplaced(format!(
            "the centre of the focused window {} {} is covered by {}; pass x and y, or focus \
             the window first",
            focused.id,
            Quoted(&focused.title),
            covering.target(Target::Background)
        ))),
    }
}

pub(super) fn drag(desk: &Desk, args: &DragArgs) -> Result<Dragged, DeskError> {
    let ((x, y), (to_x, to_y)) = args.points();
    let from = target::spot(desk, x, y, args.window.as_deref(), args.pid)?;
    // In a named window both ends are its pixels, and the drop lands in it too.
    let to = match (&from.on, from.raise) {
        (Seen::Window(window), true) => target::named_spot(desk, window.clone(), to_x, to_y)?,
        _ => target::spot(desk, to_x, to_y, None, None)?,
    };
    let what = format!("drag from ({}, {}) to ({}, {})", from.x, from.y, to.x, to.y);
    let mut targets = vec![from.target()];
    if to.target() != from.target() {
        targets.push(to.target());
    }
    let route = desk.in_front(Refusal::Pointer.error("a drag"))?;
    let admitted = desk.admit(Intent::new(what, targets))?;
    admitted.drag(&from, &to)?;
    let (window, app_answer) = target::delivery(&admitted, from.on.window());
    Ok(Dragged {
        from: [from.x, from.y],
        to: [to.x, to.y],
        window,
        app_answer,
        route,
    })
}
