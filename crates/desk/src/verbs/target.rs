//! Finding, focusing and hitting the window a call names.

use std::time::{Duration, Instant};

use desk_core::geometry::Rect;
use desk_core::matching::pick_window;
use desk_core::window::Window;

use crate::backend::Backend;
use crate::error::DeskError;
use crate::intent::Target;

/// How long a focus request may take to show.
const FOCUS_WAIT: Duration = Duration::from_secs(1);
/// How long an action waits for the app to confirm it handled the input.
pub(super) const SETTLE_WAIT: Duration = Duration::from_secs(1);

/// The windows of `windows` the agent may see (all of them, without an app allowlist).
pub(super) fn allowed(backend: &dyn Backend, windows: Vec<Window>) -> Vec<Window> {
    windows
        .into_iter()
        .filter(|w| backend.allows(w.pid).is_ok())
        .collect()
}

/// Whether an app allowlist is in force: only then is a window of no known process refused.
pub(super) fn restricted(backend: &dyn Backend) -> bool {
    backend.allows(None).is_err()
}

/// The refusal for a window outside the allowlist.
pub(super) fn refused(backend: &dyn Backend, window: &Window) -> DeskError {
    let why = backend.allows(window.pid).err().unwrap_or_default();
    DeskError::Refused(format!("{}: {why}", Target::window(window)))
}

/// The window `window` and `pid` name, among the windows the agent may see; a window outside
/// the allowlist is refused as such rather than reported missing.
pub(super) fn pick(
    backend: &dyn Backend,
    window: Option<&str>,
    pid: Option<u32>,
) -> Result<Window, DeskError> {
    let windows = backend.windows()?;
    let visible = allowed(backend, windows.clone());
    match pick_window(&visible, window, pid) {
        Ok(picked) => Ok(picked.clone()),
        Err(e) => match pick_window(&windows, window, pid) {
            Ok(foreign) if backend.allows(foreign.pid).is_err() => Err(refused(backend, foreign)),
            _ => Err(e.into()),
        },
    }
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

/// The focused window, if any, whoever's it is.
pub(super) fn active(backend: &dyn Backend) -> Result<Option<Window>, DeskError> {
    Ok(backend.windows()?.into_iter().find(|w| w.active))
}

/// The focused window, if any, refused when it is outside the allowlist.
pub(super) fn focused(backend: &dyn Backend) -> Result<Option<Window>, DeskError> {
    match active(backend)? {
        Some(window) if backend.allows(window.pid).is_err() => Err(refused(backend, &window)),
        found => Ok(found),
    }
}

/// Where input at desk point (x, y) lands: the topmost window there, or the bare desktop.
pub(super) fn target_at(backend: &dyn Backend, x: i32, y: i32) -> Result<Target, DeskError> {
    Ok(match window_at(backend, x, y)? {
        Some(window) => Target::window(&window),
        None => Target::Bare("the desktop background".into()),
    })
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

/// Makes sure `window` is on top at desk point (x, y), raising it when another window covers
/// the point, and refusing when it stays covered.
pub(super) fn bring_to_top(
    backend: &dyn Backend,
    window: &Window,
    x: i32,
    y: i32,
) -> Result<(), DeskError> {
    match window_at(backend, x, y)? {
        Some(top) if top.id == window.id => return Ok(()),
        _ => focus(backend, window)?,
    }
    match window_at(backend, x, y)? {
        Some(top) if top.id == window.id => Ok(()),
        Some(top) => Err(DeskError::Invalid(format!(
            "window {} {:?} is covered at ({x}, {y}) by {} {:?} even after raising it; nothing was sent",
            window.id, window.title, top.id, top.title
        ))),
        None => Err(DeskError::WindowGone {
            id: window.id.clone(),
        }),
    }
}
