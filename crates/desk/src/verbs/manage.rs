//! `focus`, `close` and `launch`.

use std::time::{Duration, Instant};

use desk_core::call::{CloseArgs, FocusArgs, LaunchArgs};
use serde_json::json;

use crate::done::Done;
use crate::error::DeskError;
use crate::guard::Desk;
use crate::intent::{Intent, Target};

/// How long `close` waits for the window to go.
const CLOSE_WAIT: Duration = Duration::from_secs(3);
/// How long `launch` waits for the app's first window.
const LAUNCH_WAIT: Duration = Duration::from_secs(15);
/// How often they look.
const POLL: Duration = Duration::from_millis(20);

pub(super) fn focus(desk: &Desk, args: &FocusArgs) -> Result<Done, DeskError> {
    let window = desk.pick(args.window.as_deref(), args.pid)?;
    let admitted = desk.admit(Intent::on("focus", vec![Target::window(&window)]))?;
    admitted.focus(&window)?;
    Ok(Done::json(
        json!({"focused": true, "window": window.id, "title": window.title}),
    ))
}

pub(super) fn close(desk: &Desk, args: &CloseArgs) -> Result<Done, DeskError> {
    let window = desk.pick(args.window.as_deref(), args.pid)?;
    let admitted = desk.admit(Intent::on("close", vec![Target::window(&window)]))?;
    admitted.close(&window)?;
    let deadline = Instant::now() + CLOSE_WAIT;
    loop {
        if !desk.windows()?.iter().any(|w| w.id == window.id) {
            return Ok(Done::json(
                json!({"closed": true, "window": window.id, "title": window.title}),
            ));
        }
        if Instant::now() >= deadline || desk.cancel().is_cancelled() {
            return Ok(Done::json(json!({
                "closed": false, "window": window.id, "title": window.title,
                "note": format!(
                    "the window was asked to close but is still open after {} s; it may be asking \
                     something (such as whether to save): look at it before asking again",
                    CLOSE_WAIT.as_secs()
                )
            })));
        }
        std::thread::sleep(POLL);
    }
}

pub(super) fn launch(desk: &Desk, args: &LaunchArgs) -> Result<Done, DeskError> {
    let mut what = format!("launch {}", args.app);
    for arg in &args.args {
        what.push(' ');
        what.push_str(arg);
    }
    let admitted = desk.admit(Intent::new(what, vec![Target::Program(args.app.clone())]))?;
    let launched = admitted.launch(&args.app, &args.args)?;
    let deadline = Instant::now() + LAUNCH_WAIT;
    let window = loop {
        // A splash screen is not the app's window: wait on for the main window or a dialog.
        let found = desk.windows()?.into_iter().find(|w| {
            w.role != "splash"
                && w.pid
                    .is_some_and(|pid| desk.descends_from(pid, launched.pid))
        });
        if found.is_some() || Instant::now() >= deadline || desk.cancel().is_cancelled() {
            break found;
        }
        std::thread::sleep(POLL);
    };
    let mut result = json!({
        "pid": launched.pid,
        "scoped": launched.scoped,
        "window": window,
    });
    if !launched.added.is_empty() {
        result["added_args"] = json!(launched.added);
    }
    Ok(Done::json(result))
}
