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
mod shot;
mod still;
mod target;
mod wait;

use std::time::{Duration, Instant};

use desk_core::call::DeskCall;
use serde_json::{Value, json};

use crate::done::{Body, Done};
use crate::error::DeskError;
use crate::guard::Desk;

/// Runs one desk call's verb. A click, key, press or act that completed says which windows
/// opened, closed or were retitled meanwhile: those are what open dialogs and close them, and watching costs
/// each of them its quiet period, which typing, scrolling and dragging are spared.
pub(crate) fn dispatch(desk: &Desk, call: &DeskCall) -> Result<Done, DeskError> {
    let reports_changes = matches!(
        call,
        DeskCall::Click(_) | DeskCall::Key(_) | DeskCall::Press(_) | DeskCall::Act(_)
    );
    let before = reports_changes.then(|| changes::before(desk)).flatten();
    let mut done = verb(desk, call)?;
    if let (Some(before), Body::Json(Value::Object(result))) = (before, &mut done.body)
        && let Some(changed) = changes::since(desk, &before)
    {
        result.insert("windows_changed".into(), changed);
    }
    Ok(done)
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

fn verb(desk: &Desk, call: &DeskCall) -> Result<Done, DeskError> {
    match call {
        DeskCall::Windows(_) => Ok(Done::of(desk.windows()?)),
        DeskCall::SetFrame(args) => frame::set_frame(desk, args),
        DeskCall::Minimize(args) => frame::minimize(desk, args),
        DeskCall::Maximize(args) => frame::maximize(desk, args),
        DeskCall::Restore(args) => frame::restore(desk, args),
        DeskCall::Open(args) => manage::open(desk, args),
        DeskCall::Quit(args) => manage::quit(desk, args),
        DeskCall::ClipboardRead(args) => clipboard::read(desk, args),
        DeskCall::ClipboardWrite(args) => clipboard::write(desk, args),
        DeskCall::Screen(_) => {
            let screen = desk.screen()?;
            Ok(Done::json(json!({"width": screen.w, "height": screen.h})))
        }
        DeskCall::Shot(args) => shot::shot(desk, args),
        DeskCall::Wait(args) => wait::wait(desk, args),
        DeskCall::Still(args) => still::still(desk, args),
        DeskCall::Key(args) => input::key(desk, args),
        DeskCall::Type(args) => input::type_text(desk, args),
        DeskCall::Click(args) => input::click(desk, args),
        DeskCall::Scroll(args) => input::scroll(desk, args),
        DeskCall::Drag(args) => input::drag(desk, args),
        DeskCall::Focus(args) => manage::focus(desk, args),
        DeskCall::Close(args) => manage::close(desk, args),
        DeskCall::Launch(args) => manage::launch(desk, args),
        DeskCall::Snapshot(args) => a11y::snapshot(desk, args),
        DeskCall::Find(args) => a11y::find(desk, args),
        DeskCall::Read(args) => a11y::read(desk, args),
        DeskCall::Press(args) => a11y::press(desk, args),
        DeskCall::Act(args) => a11y::act(desk, args),
        DeskCall::SetValue(args) => fields::set_value(desk, args),
        DeskCall::SelectOption(args) => fields::select_option(desk, args),
        DeskCall::InsertText(args) => fields::insert_text(desk, args),
        DeskCall::SelectText(args) => fields::select_text(desk, args),
        DeskCall::At(args) => a11y::at(desk, args),
        DeskCall::Unanswered(_) => a11y::unanswered(desk),
        DeskCall::ComputerState(args) => computer::state(desk, args),
        DeskCall::ComputerAct(args) => computer_act::act(desk, args),
        DeskCall::ComputerEnd(args) => computer::end(desk, args),
        DeskCall::ComputerScale(args) => computer::scale(desk, args),
        DeskCall::Look(args) => computer::look(desk, args),
        DeskCall::TitleAt(args) => computer::title_at(desk, args),
    }
}
