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

/// What a window looks like now: its place (none while minimized) and state.
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
    Ok(Framed {
        window: window.id.clone(),
        title: window.title.clone(),
        frame: last.rect.map(|r| [r.x, r.y, r.w as i32, r.h as i32]),
        state: state_name(last.state).to_string(),
        asked,
        note,
    })
}

pub(super) fn set_frame(desk: &Desk, args: &SetFrameArgs) -> Result<Framed, DeskError> {
    let window = desk.pick(args.window.as_deref(), args.pid)?;
    let now = desk.window_rect(&window)?.ok_or_else(|| {
        DeskError::Unplaced(format!(
            "window {} ({:?}) is minimized or not shown: restore it before moving it",
            window.id, window.title
        ))
    })?;
    let wanted = Rect::new(
        args.x.unwrap_or(now.x),
        args.y.unwrap_or(now.y),
        args.width.unwrap_or(now.w),
        args.height.unwrap_or(now.h),
    );
    let screen = desk.screen()?;
    if wanted.intersect(&screen).is_none() {
        return Err(DeskError::Unplaced(format!(
            "a frame at {},{} of {}x{} is outside the screen ({}x{}); nothing was changed",
            wanted.x, wanted.y, wanted.w, wanted.h, screen.w, screen.h
        )));
    }
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
            wanted.x, wanted.y, wanted.w, wanted.h
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
