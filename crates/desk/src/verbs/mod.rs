//! The desk verbs, written once against [`Desk`]: what a verb reads comes filtered by the
//! policy, and what it sends goes through the [`Admitted`](crate::guard::Admitted) that
//! admission hands back.

mod a11y;
mod changes;
mod clipboard;
mod computer;
mod computer_act;
mod fields;
mod frame;
mod input;
mod manage;
mod node;
mod pick;
mod press;
mod segments;
mod shot;
mod still;
mod style_box;
mod target;
mod wait;

use std::time::{Duration, Instant};

use desk_core::call::{DeskCall, Kind};
use desk_core::results::{ScreenSize, SnapshotResult};

use crate::done::{Body, Done};
use crate::error::DeskError;
use crate::guard::Desk;

/// Runs one desk call's verb and renders its typed result, once, with what changed among the
/// windows since the caller's previous reply ([`changes`]). An action waits after its input only
/// while windows are moving, or as long as its `settle` asks.
pub(crate) fn dispatch(desk: &Desk, call: &DeskCall) -> Result<Done, DeskError> {
    // computer_act's text names what its own steps changed; what changed before them, since
    // the caller's previous reply, leads it, so that news is not lost either. It counts as told
    // with the rest once the call has answered.
    let earlier = match call {
        DeskCall::ComputerAct(_) => changes::pending(desk).and_then(|(changes, _)| changes),
        _ => None,
    };
    let mark = changes::mark(desk);
    let acts = call.verb().kind() == Kind::Act;
    if acts {
        desk.news().acted(desk.agent(), mark.at());
    }
    let mut done = verb(desk, call)?;
    if let (Some(earlier), Body::Text(text)) = (earlier, &mut done.body) {
        text.insert_str(
            0,
            &format!("before these steps, windows: {}\n", earlier.words()),
        );
    }
    if acts {
        changes::settle(desk, &mark, call.settle())?;
    }
    let news = changes::news(desk);
    // The window list is its own news, and computer_act says what its steps changed.
    if !matches!(call, DeskCall::Windows(_) | DeskCall::ComputerAct(_)) {
        done.windows_changed = news;
    }
    Ok(done)
}

/// Runs the verb alone.
fn verb(desk: &Desk, call: &DeskCall) -> Result<Done, DeskError> {
    Ok(match call {
        DeskCall::Windows(_) => Done::of(desk.windows()?),
        DeskCall::Screen(_) => {
            let screen = desk.screen()?;
            Done::of(ScreenSize {
                width: screen.w,
                height: screen.h,
            })
        }
        DeskCall::Shot(args) => {
            let (shot, png) = shot::shot(desk, args)?;
            Done::of(shot).with_image(png)
        }
        DeskCall::Unanswered(_) => Done::of(a11y::unanswered(desk)?),
        DeskCall::Wait(args) => Done::of(wait::wait(desk, args)?),
        DeskCall::Still(args) => Done::of(still::still(desk, args)?),
        DeskCall::Snapshot(args) => match a11y::snapshot(desk, args)? {
            SnapshotResult::Outline(text) => Done::text(text),
            tree => Done::of(tree),
        },
        DeskCall::Find(args) => Done::of(a11y::find(desk, args)?),
        DeskCall::Read(args) => Done::of(a11y::read(desk, args)?),
        DeskCall::At(args) => Done::of(a11y::at(desk, args)?),
        DeskCall::Key(args) => Done::of(input::key(desk, args)?),
        DeskCall::Type(args) => Done::of(input::type_text(desk, args)?),
        DeskCall::Click(args) => Done::of(input::click(desk, args)?),
        DeskCall::Scroll(args) => Done::of(input::scroll(desk, args)?),
        DeskCall::Drag(args) => Done::of(input::drag(desk, args)?),
        DeskCall::Press(args) => Done::of(press::press(desk, args)?),
        DeskCall::Act(args) => Done::of(press::act(desk, args)?),
        DeskCall::SetValue(args) => Done::of(fields::set_value(desk, args)?),
        DeskCall::SelectOption(args) => Done::of(pick::select_option(desk, args)?),
        DeskCall::InsertText(args) => Done::of(fields::insert_text(desk, args)?),
        DeskCall::SelectText(args) => Done::of(fields::select_text(desk, args)?),
        DeskCall::Focus(args) => Done::of(manage::focus(desk, args)?),
        DeskCall::Close(args) => Done::of(manage::close(desk, args)?),
        DeskCall::Launch(args) => Done::of(manage::launch(desk, args)?),
        DeskCall::Open(args) => Done::of(manage::open(desk, args)?),
        DeskCall::Quit(args) => Done::of(manage::quit(desk, args)?),
        DeskCall::SetFrame(args) => Done::of(frame::set_frame(desk, args)?),
        DeskCall::Minimize(args) => Done::of(frame::minimize(desk, args)?),
        DeskCall::Maximize(args) => Done::of(frame::maximize(desk, args)?),
        DeskCall::Restore(args) => Done::of(frame::restore(desk, args)?),
        DeskCall::ClipboardRead(args) => {
            let (read, png) = clipboard::read(desk, args)?;
            let done = Done::of(read);
            match png {
                Some(png) => done.with_image(png),
                None => done,
            }
        }
        DeskCall::ClipboardWrite(args) => Done::of(clipboard::write(desk, args)?),
        DeskCall::ComputerState(args) => {
            let (text, screenshot) = computer::state(desk, args)?;
            Done::text(text).with_image(screenshot)
        }
        DeskCall::ComputerAct(args) => {
            let (text, screenshot) = computer_act::act(desk, args)?;
            let done = Done::text(text);
            match screenshot {
                Some(screenshot) => done.with_image(screenshot),
                None => done,
            }
        }
        DeskCall::ComputerEnd(args) => Done::of(computer::end(desk, args)),
        DeskCall::ComputerScale(args) => Done::of(computer::scale(desk, args)?),
        DeskCall::Look(args) => {
            let (text, image) = computer::look(desk, args)?;
            Done::text(text).with_image(image)
        }
        DeskCall::TitleAt(args) => Done::of(computer::title_at(desk, args)?),
    })
}

/// Asks `check` every 10 ms until it answers something or `limit` has passed.
fn poll_until<T>(
    limit: Duration,
    check: impl Fn() -> Result<Option<T>, DeskError>,
) -> Result<Option<T>, DeskError> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(found) = check()? {
            return Ok(Some(found));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
