//! `focus`, `close` and `launch`.

use std::time::{Duration, Instant};

use desk_core::call::{CloseArgs, FocusArgs, LaunchArgs};
use serde_json::json;

use super::Outcome;
use super::target;
use crate::backend::Backend;
use crate::cancel::Cancel;
use crate::error::DeskError;
use crate::intent::{Intent, Target};
use crate::launch;

/// How long `close` waits for the window to go.
const CLOSE_WAIT: Duration = Duration::from_secs(3);
/// How long `launch` waits for the app's first window.
const LAUNCH_WAIT: Duration = Duration::from_secs(5);
/// How often they look.
const POLL: Duration = Duration::from_millis(20);

pub(super) fn focus(backend: &dyn Backend, args: &FocusArgs) -> Result<Outcome, DeskError> {
    let window = target::pick(backend, args.window.as_deref(), args.pid)?;
    backend.admit(&Intent::on("focus", vec![Target::window(&window)]))?;
    target::focus(backend, &window)?;
    Ok(Outcome::of(
        json!({"focused": true, "window": window.id, "title": window.title}),
    ))
}

pub(super) fn close(
    backend: &dyn Backend,
    args: &CloseArgs,
    cancel: &Cancel,
) -> Result<Outcome, DeskError> {
    let window = target::pick(backend, args.window.as_deref(), args.pid)?;
    backend.admit(&Intent::on("close", vec![Target::window(&window)]))?;
    backend.request_close(&window.id)?;
    let deadline = Instant::now() + CLOSE_WAIT;
    loop {
        if !backend.windows()?.iter().any(|w| w.id == window.id) {
            return Ok(Outcome::of(
                json!({"closed": true, "window": window.id, "title": window.title}),
            ));
        }
        if Instant::now() >= deadline || cancel.is_cancelled() {
            return Ok(Outcome::of(json!({
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

pub(super) fn launch(
    backend: &dyn Backend,
    args: &LaunchArgs,
    cancel: &Cancel,
) -> Result<Outcome, DeskError> {
    let mut what = format!("launch {}", args.app);
    for arg in &args.args {
        what.push(' ');
        what.push_str(arg);
    }
    backend.admit(&Intent::new(what, vec![Target::Program(args.app.clone())]))?;
    let launched = launch::spawn(&args.app, &args.args)?;
    let deadline = Instant::now() + LAUNCH_WAIT;
    let window = loop {
        let found = backend.windows()?.into_iter().find(|w| {
            w.pid
                .is_some_and(|pid| launch::descends_from(pid, launched.pid))
        });
        if found.is_some() || Instant::now() >= deadline || cancel.is_cancelled() {
            break found;
        }
        std::thread::sleep(POLL);
    };
    Ok(Outcome::of(json!({
        "pid": launched.pid,
        "scoped": launched.scoped,
        "window": window,
    })))
}
