//! `focus`, `close`, `launch`, `open` and `quit`.

use std::time::{Duration, Instant};

use desk_core::call::{CloseArgs, FocusArgs, LaunchArgs, OpenArgs, QuitArgs};
use desk_core::window::Window;
use serde_json::json;

use crate::done::Done;
use crate::error::DeskError;
use crate::guard::Desk;
use crate::intent::{Intent, Target};
use crate::system::{Ending, Launched};

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
    let window = first_window(desk, &launched, None)?;
    Ok(Done::json(launched_result(&launched, window)))
}

/// The first window (or dialog; no splash) of a launched app, within [`LAUNCH_WAIT`]. With
/// `before` (the windows there were), a new window of another process counts too: an app
/// that runs once per person hands a file to its running instance and exits.
fn first_window(
    desk: &Desk,
    launched: &Launched,
    before: Option<&[String]>,
) -> Result<Option<Window>, DeskError> {
    let deadline = Instant::now() + LAUNCH_WAIT;
    loop {
        let windows = desk.windows()?;
        let ours = windows.iter().find(|w| {
            w.role != "splash"
                && w.pid
                    .is_some_and(|pid| desk.descends_from(pid, launched.pid))
        });
        let new = || {
            before.and_then(|before| {
                windows
                    .iter()
                    .find(|w| w.role != "splash" && !before.contains(&w.id))
            })
        };
        let found = ours.or_else(new).cloned();
        if found.is_some() || Instant::now() >= deadline || desk.cancel().is_cancelled() {
            return Ok(found);
        }
        std::thread::sleep(POLL);
    }
}

fn launched_result(launched: &Launched, window: Option<Window>) -> serde_json::Value {
    let mut result = json!({
        "pid": launched.pid,
        "scoped": launched.scoped,
        "window": window,
    });
    if !launched.added.is_empty() {
        result["added_args"] = json!(launched.added);
    }
    result
}

pub(super) fn open(desk: &Desk, args: &OpenArgs) -> Result<Done, DeskError> {
    let target = args.target.trim();
    if target.starts_with('/') && !std::path::Path::new(target).exists() {
        return Err(DeskError::Invalid(format!(
            "there is no file at {target}; nothing was opened"
        )));
    }
    let opener = desk.opener(target)?;
    let admitted = desk.admit(Intent::new(
        format!("open {target} with {}", opener.program),
        vec![Target::Program(opener.program.clone())],
    ))?;
    let before: Vec<String> = desk.windows()?.into_iter().map(|w| w.id).collect();
    let launched = admitted.launch(&opener.program, &opener.args)?;
    let window = first_window(desk, &launched, Some(&before))?;
    // A new window of another process may be the running instance the file went to, or
    // anything else that opened meanwhile: say so.
    let elsewhere = window.as_ref().is_some_and(|w| {
        !w.pid
            .is_some_and(|pid| desk.descends_from(pid, launched.pid))
    });
    let mut result = launched_result(&launched, window);
    if elsewhere {
        result["from_other_process"] = json!(true);
    }
    result["opened"] = json!(target);
    result["kind"] = json!(opener.kind);
    result["app"] = json!(opener.entry);
    result["program"] = json!(opener.program);
    Ok(Done::json(result))
}

/// How long `quit` waits for SIGTERM, then for SIGKILL, to end an app.
const TERM_WAIT: Duration = Duration::from_secs(2);

pub(super) fn quit(desk: &Desk, args: &QuitArgs) -> Result<Done, DeskError> {
    let pid = match (args.pid, args.window.as_deref()) {
        (Some(pid), None) => pid,
        (_, window) => {
            let picked = desk.pick(window, args.pid)?;
            picked.pid.ok_or_else(|| {
                DeskError::Invalid(format!(
                    "window {} ({:?}) does not say which process owns it, so its app cannot be \
                     quit; close it instead",
                    picked.id, picked.title
                ))
            })?
        }
    };
    let windows: Vec<Window> = desk
        .windows()?
        .into_iter()
        .filter(|w| w.pid == Some(pid))
        .collect();
    let Some(first) = windows.first().cloned() else {
        return Err(DeskError::Invalid(format!(
            "process {pid} shows no window, so it is not an app quit can end (or not one this \
             agent may see); nothing was sent"
        )));
    };
    let app = first.app.clone().unwrap_or_else(|| format!("pid {pid}"));
    let admitted = desk.admit(Intent::on(
        format!("quit {app} (pid {pid}), closing"),
        windows.iter().map(Target::window).collect(),
    ))?;
    for window in &windows {
        admitted.close(window)?;
    }
    let grace = Duration::from_secs(args.grace_s.unwrap_or(5));
    let ended = |limit: Duration| {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline && !desk.cancel().is_cancelled() {
            if !desk.running(pid) {
                return true;
            }
            std::thread::sleep(POLL);
        }
        !desk.running(pid)
    };
    let result = |how: &str, note: &str| {
        Done::json(json!({
            "pid": pid, "app": app, "ended": how, "windows_closed": windows.len(), "note": note,
        }))
    };
    if ended(grace) {
        return Ok(result(
            "closed",
            "the app ended when its windows were asked to close",
        ));
    }
    if desk.cancel().is_cancelled() {
        return Err(DeskError::Cancelled {
            done: format!("its windows were asked to close; process {pid} still ran"),
        });
    }
    admitted.end(&first, pid, Ending::Terminate)?;
    if ended(TERM_WAIT) {
        return Ok(result(
            "terminated",
            &format!(
                "the app was still running {} s after its windows were asked to close, and \
                 ended on SIGTERM",
                grace.as_secs()
            ),
        ));
    }
    admitted.end(&first, pid, Ending::Kill)?;
    if ended(TERM_WAIT) {
        return Ok(result(
            "killed",
            "the app ignored its close requests and SIGTERM, and ended on SIGKILL; it saved \
             nothing it had not saved",
        ));
    }
    Err(DeskError::Invalid(format!(
        "process {pid} still runs after close requests, SIGTERM and SIGKILL: it may be stopped \
         or stuck in the kernel"
    )))
}
