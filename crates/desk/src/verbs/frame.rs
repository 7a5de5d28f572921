//! `set_frame`, `minimize`, `maximize` and `restore`: window geometry through the window
//! manager, each answering what the window manager actually did.

use std::time::{Duration, Instant};

use desk_core::call::{MaximizeArgs, MinimizeArgs, RestoreArgs, SetFrameArgs};
use desk_core::geometry::Rect;
use desk_core::results::{FrameAsked, Framed};
use desk_core::window::Window;

use crate::error::DeskError;
use crate::guard::Desk;
use crate::intent::{Intent, Target};
use crate::system::{FrameChange, WindowState};

/// How long a change may take to show.
const FRAME_WAIT: Duration = Duration::from_secs(2);
/// A frame that has not changed for this long is where the window manager put it.
const STEADY: Duration = Duration::from_millis(150);
const POLL: Duration = Duration::from_millis(20);

/// What a window looks like now: its app's area (none while minimized) and state.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Frame {
    rect: Option<Rect>,
    state: WindowState,
}

fn frame_of(desk: &Desk, window: &Window) -> Result<Frame, DeskError> {
    Ok(Frame {
        rect: desk.window_rect(window)?,
        state: desk.window_state(window)?,
    })
}

/// The frame around the app's area `client`, given decorations `[left, right, top, bottom]`.
fn outer(client: Rect, [left, right, top, bottom]: [u32; 4]) -> Rect {
    let (left, top) = (left as i32, top as i32);
    Rect::new(
        client.x - left,
        client.y - top,
        client.w + left as u32 + right,
        client.h + top as u32 + bottom,
    )
}

/// The app's area inside frame `frame`; `None` when the decorations leave no room.
fn inner(frame: Rect, [left, right, top, bottom]: [u32; 4]) -> Option<Rect> {
    let w = frame.w.checked_sub(left + right).filter(|&w| w > 0)?;
    let h = frame.h.checked_sub(top + bottom).filter(|&h| h > 0)?;
    Some(Rect::new(frame.x + left as i32, frame.y + top as i32, w, h))
}

fn corners(rect: Rect) -> [i32; 4] {
    [rect.x, rect.y, rect.w as i32, rect.h as i32]
}

fn state_name(state: WindowState) -> &'static str {
    if state.minimized {
        "minimized"
    } else if state.maximized {
        "maximized"
    } else {
        "normal"
    }
}

/// Sends `change`, then waits until the frame shows `done`, or stops changing, or the wait
/// ends; answers the frame with what was asked.
fn change(
    desk: &Desk,
    window: &Window,
    change: FrameChange,
    describe: String,
    asked: FrameAsked,
    done: impl Fn(&Frame) -> bool,
) -> Result<Framed, DeskError> {
    let admitted = desk.admit(Intent::on(&describe, vec![Target::window(window)]))?;
    let before = frame_of(desk, window)?;
    admitted.frame(window, change)?;
    let started = Instant::now();
    let mut last = before;
    let mut steady_since = Instant::now();
    loop {
        std::thread::sleep(POLL);
        let now = frame_of(desk, window)?;
        if now != last {
            last = now;
            steady_since = Instant::now();
        }
        let moved_and_settled = now != before && steady_since.elapsed() >= STEADY;
        // Done when the change showed and held still, or nothing needed to change.
        let unchanged_and_done = now == before && done(&now);
        if moved_and_settled
            || unchanged_and_done
            || started.elapsed() >= FRAME_WAIT
            || desk.cancel().is_cancelled()
        {
            break;
        }
    }
    let note = (!done(&last)).then(|| {
        if started.elapsed() >= FRAME_WAIT {
            format!(
                "the window manager had not done all that was asked after {} s: frame and \
                 state are what it had done",
                FRAME_WAIT.as_secs()
            )
        } else {
            "the window manager (or the app) settled on something other than what was asked: \
             frame and state are what it did"
                .to_string()
        }
    });
    // Read afresh: a window manager may take its decorations off a maximized window.
    let extents = desk.frame_extents(window)?;
    Ok(Framed {
        window: window.id.clone(),
        title: window.title.clone(),
        frame: last.rect.map(|r| corners(outer(r, extents))),
        client: last.rect.map(corners),
        state: state_name(last.state).to_string(),
        asked,
        note,
    })
}

pub(super) fn set_frame(desk: &Desk, args: &SetFrameArgs) -> Result<Framed, DeskError> {
    let window = desk.pick(args.window.as_deref(), args.pid)?;
    let client = desk.window_rect(&window)?.ok_or_else(|| {
        DeskError::Unplaced(format!(
            "window {} ({:?}) is minimized or not shown: restore it before moving it",
            window.id, window.title
        ))
    })?;
    // The frame asked is the one the screen shows, decorations included; the window manager
    // is asked for the app's area inside it.
    let extents = desk.frame_extents(&window)?;
    let now = outer(client, extents);
    let frame = Rect::new(
        args.x.unwrap_or(now.x),
        args.y.unwrap_or(now.y),
        args.width.unwrap_or(now.w),
        args.height.unwrap_or(now.h),
    );
    let screen = desk.screen()?;
    if frame.intersect(&screen).is_none() {
        return Err(DeskError::Unplaced(format!(
            "a frame at {},{} of {}x{} is outside the screen ({}x{}); nothing was changed",
            frame.x, frame.y, frame.w, frame.h, screen.w, screen.h
        )));
    }
    let [left, right, top, bottom] = extents;
    let wanted = inner(frame, extents).ok_or_else(|| {
        DeskError::Invalid(format!(
            "a frame of {}x{} leaves no room inside the window's decorations (left {left}, \
             right {right}, top {top}, bottom {bottom} pixels); nothing was changed",
            frame.w, frame.h
        ))
    })?;
    let asked = FrameAsked::Frame {
        x: args.x,
        y: args.y,
        width: args.width,
        height: args.height,
    };
    change(
        desk,
        &window,
        // What was not asked is asked to stay: openbox, given only a size with static
        // gravity, moves the window by its title bar.
        FrameChange::Set {
            x: Some(wanted.x),
            y: Some(wanted.y),
            width: Some(wanted.w),
            height: Some(wanted.h),
        },
        format!(
            "set the frame to {},{} {}x{} of",
            frame.x, frame.y, frame.w, frame.h
        ),
        asked,
        move |frame| frame.rect == Some(wanted),
    )
}

pub(super) fn minimize(desk: &Desk, args: &MinimizeArgs) -> Result<Framed, DeskError> {
    let window = desk.pick(args.window.as_deref(), args.pid)?;
    let describe = "minimize".to_string();
    change(
        desk,
        &window,
        FrameChange::Minimize,
        describe,
        FrameAsked::State("minimized".into()),
        |f| f.state.minimized,
    )
}

pub(super) fn maximize(desk: &Desk, args: &MaximizeArgs) -> Result<Framed, DeskError> {
    let window = desk.pick(args.window.as_deref(), args.pid)?;
    let describe = "maximize".to_string();
    change(
        desk,
        &window,
        FrameChange::Maximize,
        describe,
        FrameAsked::State("maximized".into()),
        |f| f.state.maximized && !f.state.minimized,
    )
}

pub(super) fn restore(desk: &Desk, args: &RestoreArgs) -> Result<Framed, DeskError> {
    let window = desk.pick(args.window.as_deref(), args.pid)?;
    let describe = "restore".to_string();
    change(
        desk,
        &window,
        FrameChange::Restore,
        describe,
        FrameAsked::State("normal".into()),
        |f| !f.state.maximized && !f.state.minimized && f.rect.is_some(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_and_the_area_inside_its_decorations_convert_both_ways() {
        let decorations = [1, 1, 22, 4];
        let client = Rect::new(101, 122, 500, 300);
        let frame = outer(client, decorations);
        assert_eq!(frame, Rect::new(100, 100, 502, 326));
        assert_eq!(inner(frame, decorations), Some(client));
        assert_eq!(inner(Rect::new(0, 0, 2, 100), decorations), None);
        assert_eq!(inner(Rect::new(0, 0, 100, 26), decorations), None);
        assert_eq!(outer(client, [0; 4]), client);
    }
}
