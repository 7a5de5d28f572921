//! Turning a call's coordinates and window names into desk points and spots.

use desk_core::app_text::Quoted;
use std::time::Duration;

use desk_core::geometry::Rect;
use desk_core::results::AppAnswer;
use desk_core::window::Window;

use crate::error::DeskError;
use crate::guard::{Admitted, Desk, Spot};

/// How long an action waits for the app to read the input and be idle again.
pub(super) const ANSWER_WAIT: Duration = Duration::from_millis(1500);

/// A pixel `(x, y)` of `window`'s shot image as a desk point, refusing one outside the image.
pub(super) fn window_point(
    desk: &Desk,
    window: &Window,
    x: i32,
    y: i32,
) -> Result<(i32, i32), DeskError> {
    let rect = desk.rect_of(window)?;
    if !Rect::new(0, 0, rect.w, rect.h).contains_point(x, y) {
        return Err(DeskError::Unplaced(format!(
            "point ({x}, {y}) is outside window {} {}, whose shot is {}x{}",
            window.id,
            Quoted(&window.title),
            rect.w,
            rect.h
        )));
    }
    Ok((rect.x + x, rect.y + y))
}

/// Refuses a desk point that is not on the screen.
pub(super) fn on_screen(desk: &Desk, x: i32, y: i32) -> Result<(), DeskError> {
    let screen = desk.screen()?;
    if screen.contains_point(x, y) {
        Ok(())
    } else {
        Err(DeskError::Unplaced(format!(
            "point ({x}, {y}) is off the screen ({}x{})",
            screen.w, screen.h
        )))
    }
}

/// Where pointer input at `x`, `y` goes: desk coordinates and whatever is on top there, or,
/// with `window`/`pid`, pixels of that window's shot, the window raised if covered.
pub(super) fn spot(
    desk: &Desk,
    x: i32,
    y: i32,
    window: Option<&str>,
    pid: Option<u32>,
) -> Result<Spot, DeskError> {
    if window.is_none() && pid.is_none() {
        on_screen(desk, x, y)?;
        return Ok(Spot {
            x,
            y,
            on: desk.top_at(x, y)?,
            raise: false,
        });
    }
    let window = desk.pick(window, pid)?;
    named_spot(desk, window, x, y)
}

/// A pixel of `window`'s shot as a spot in that window, which input may raise.
pub(super) fn named_spot(desk: &Desk, window: Window, x: i32, y: i32) -> Result<Spot, DeskError> {
    let (x, y) = window_point(desk, &window, x, y)?;
    on_screen(desk, x, y)?;
    Ok(Spot {
        x,
        y,
        on: crate::guard::Seen::Window(window),
        raise: true,
    })
}

/// `window` and `app_answer` for a result: where the input went and what its app answered.
pub(super) fn delivery(
    admitted: &Admitted<'_>,
    window: Option<&Window>,
) -> (Option<String>, Option<AppAnswer>) {
    match window {
        Some(w) => (
            Some(w.id.clone()),
            Some(admitted.app_answer(w, ANSWER_WAIT)),
        ),
        None => (None, None),
    }
}
