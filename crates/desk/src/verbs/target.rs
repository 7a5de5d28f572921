//! Finding, focusing and hitting the window a call names.

use std::time::{Duration, Instant};

use desk_core::geometry::Rect;
use desk_core::matching::pick_window;
use desk_core::window::Window;

use crate::backend::Backend;
use crate::error::DeskError;

/// How long a focus request may take to show.
const FOCUS_WAIT: Duration = Duration::from_secs(1);
/// How long an action waits for the app to confirm it handled the input.
pub(super) const SETTLE_WAIT: Duration = Duration::from_secs(1);

/// The window `window` and `pid` name.
pub(super) fn pick(
    backend: &dyn Backend,
    window: Option<&str>,
    pid: Option<u32>,
) -> Result<Window, DeskError> {
    let windows = backend.windows()?;
    Ok(pick_window(&windows, window, pid)?.clone())
}

/// Gives `window` the keyboard focus and checks that it has it.
pub(super) fn focus(backend: &dyn Backend, window: &Window) -> Result<(), DeskError> {
    if backend.has_focus(&window.id)? {
        return Ok(());
    }
    backend.request_focus(&window.id)?;
    let deadline = Instant::now() + FOCUS_WAIT;
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
        if backend.has_focus(&window.id)? {
            return Ok(());
        }
    }
    let windows = backend.windows()?;
    if !windows.iter().any(|w| w.id == window.id) {
        return Err(DeskError::WindowGone {
            id: window.id.clone(),
        });
    }
    let active = match windows.iter().find(|w| w.active) {
        Some(w) if w.id == window.id => {
            "this window, but the keyboard focus did not follow; the app may not accept it yet"
                .into()
        }
        Some(w) => format!("{} {:?}", w.id, w.title),
        None => "none".into(),
    };
    Err(DeskError::FocusRefused {
        id: window.id.clone(),
        title: window.title.clone(),
        active,
    })
}

/// The focused window, if any.
pub(super) fn active(backend: &dyn Backend) -> Result<Option<Window>, DeskError> {
    Ok(backend.windows()?.into_iter().find(|w| w.active))
}

/// The window's rectangle on the screen, refusing a window that is not shown.
pub(super) fn rect_of(backend: &dyn Backend, window: &Window) -> Result<Rect, DeskError> {
    backend
        .window_rect(&window.id)?
        .ok_or_else(|| DeskError::WindowHidden {
            id: window.id.clone(),
            title: window.title.clone(),
        })
}

/// A pixel `(x, y)` of `window`'s shot image as a desk point, refusing one outside the image.
pub(super) fn window_point(
    backend: &dyn Backend,
    window: &Window,
    x: i32,
    y: i32,
) -> Result<(i32, i32), DeskError> {
    let rect = rect_of(backend, window)?;
    if !Rect::new(0, 0, rect.w, rect.h).contains_point(x, y) {
        return Err(DeskError::Invalid(format!(
            "point ({x}, {y}) is outside window {} {:?}, whose shot is {}x{}",
            window.id, window.title, rect.w, rect.h
        )));
    }
    Ok((rect.x + x, rect.y + y))
}

/// Refuses a desk point that is not on the screen.
pub(super) fn on_screen(backend: &dyn Backend, x: i32, y: i32) -> Result<(), DeskError> {
    let screen = backend.screen()?;
    if screen.contains_point(x, y) {
        Ok(())
    } else {
        Err(DeskError::Invalid(format!(
            "point ({x}, {y}) is off the screen ({}x{}); nothing was sent",
            screen.w, screen.h
        )))
    }
}

/// The topmost window whose client area holds the desk point.
pub(super) fn window_at(
    backend: &dyn Backend,
    x: i32,
    y: i32,
) -> Result<Option<Window>, DeskError> {
    for window in backend.windows()? {
        if let Some(rect) = backend.window_rect(&window.id)?
            && rect.contains_point(x, y)
        {
            return Ok(Some(window));
        }
    }
    Ok(None)
}

/// A desk point for input aimed at `window`: raises the window when another one covers the
/// point, and refuses when it stays covered.
pub(super) fn uncovered_point(
    backend: &dyn Backend,
    window: &Window,
    x: i32,
    y: i32,
) -> Result<(i32, i32), DeskError> {
    let (dx, dy) = window_point(backend, window, x, y)?;
    on_screen(backend, dx, dy)?;
    let on_top =
        |backend: &dyn Backend| -> Result<Option<Window>, DeskError> { window_at(backend, dx, dy) };
    match on_top(backend)? {
        Some(top) if top.id == window.id => return Ok((dx, dy)),
        _ => focus(backend, window)?,
    }
    match on_top(backend)? {
        Some(top) if top.id == window.id => Ok((dx, dy)),
        Some(top) => Err(DeskError::Invalid(format!(
            "window {} {:?} is covered at ({x}, {y}) by {} {:?} even after raising it; nothing was sent",
            window.id, window.title, top.id, top.title
        ))),
        None => Err(DeskError::WindowGone {
            id: window.id.clone(),
        }),
    }
}
