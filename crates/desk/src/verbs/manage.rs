//! `focus`, `close`, `launch`, `open` and `quit`.

use std::time::{Duration, Instant};

use desk_core::call::{CloseArgs, FocusArgs, LaunchArgs, OpenArgs, QuitArgs};
use desk_core::results::{Closed, Focused, Opened, Quit, QuitEnding, Started, WindowRef};
use desk_core::window::{Window, role};

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
/// How often `quit` looks for a window its app opened instead of closing.
const DIALOG_POLL: Duration = Duration::from_millis(100);

pub(super) fn focus(desk: &Desk, args: &FocusArgs) -> Result<Focused, DeskError> {
    let window = desk.pick(args.window.as_deref(), args.pid)?;
    let admitted = desk.admit(Intent::on("focus", vec![Target::window(&window)]))?;
    admitted.focus(&window)?;
    Ok(Focused {
        focused: true,
        window: window.id,
        title: window.title,
    })
}

pub(super) fn close(desk: &Desk, args: &CloseArgs) -> Result<Closed, DeskError> {
    let window = desk.pick(args.window.as_deref(), args.pid)?;
    let admitted = desk.admit(Intent::on("close", vec![Target::window(&window)]))?;
    let before = desk.windows()?;
    admitted.close(&window)?;
    let deadline = Instant::now() + CLOSE_WAIT;
    let answer = |closed, questions, note| Closed {
        closed,
        window: window.id.clone(),
        title: window.title.clone(),
        questions,
        note,
    };
    loop {
        let now = desk.windows()?;
        if !now.iter().any(|w| w.id == window.id) {
            return Ok(answer(true, None, None));
        }
        let asked = window
            .pid
            .map(|pid| opened_since(&before, &now, pid))
            .unwrap_or_default();
        if !asked.is_empty() {
            let note = format!(
                "asked to close, the app opened {} instead, most likely a question such as \
                 whether to save: read it and answer it",
                titles(&asked)
            );
            return Ok(answer(
                false,
                Some(asked.iter().map(WindowRef::from).collect()),
                Some(note),
            ));
        }
        if Instant::now() >= deadline || desk.cancel().is_cancelled() {
            let note = format!(
                "the window was asked to close but is still open after {} s; it may be asking \
                 something (such as whether to save): look at it before asking again",
                CLOSE_WAIT.as_secs()
            );
            return Ok(answer(false, None, Some(note)));
        }
        std::thread::sleep(POLL);
    }
}

pub(super) fn launch(desk: &Desk, args: &LaunchArgs) -> Result<Started, DeskError> {
    let mut what = format!("launch {}", args.app);
    for arg in &args.args {
        what.push(' ');
        what.push_str(arg);
    }
    let admitted = desk.admit(Intent::new(what, vec![Target::Program(args.app.clone())]))?;
    let launched = admitted.launch(&args.app, &args.args)?;
    let window = first_window(desk, &launched, None, &args.app)?;
    Ok(started(&launched, window))
}

/// The first window (or dialog; no splash) of a launched app, within [`LAUNCH_WAIT`]. With
/// `before` (the windows there were), a new window of another process counts too: an app
/// that runs once per person hands a file to its running instance and exits.
///
/// An app that exits first ends the wait: with a failure, as an error that says how and what it
/// wrote last; with success, at once for `launch` (a window its children open later is no
/// longer its own), and at the deadline for `open` (it may have handed the file on).
fn first_window(
    desk: &Desk,
    launched: &Launched,
    before: Option<&[String]>,
    program: &str,
) -> Result<Option<Window>, DeskError> {
    let deadline = Instant::now() + LAUNCH_WAIT;
    let mut looked_after_exit = false;
    loop {
        let windows = desk.windows()?;
        let ours = windows.iter().find(|w| {
            w.role != role::SPLASH
                && w.pid
                    .is_some_and(|pid| desk.descends_from(pid, launched.pid))
        });
        let new = || {
            before.and_then(|before| {
                windows
                    .iter()
                    .find(|w| w.role != role::SPLASH && !before.contains(&w.id))
            })
        };
        let found = ours.or_else(new).cloned();
        if found.is_some() || Instant::now() >= deadline || desk.cancel().is_cancelled() {
            return Ok(found);
        }
        if let Some(exit) = launched.exit.get() {
            // One more look: its window may have been listed just before it exited.
            if !looked_after_exit {
                looked_after_exit = true;
                continue;
            }
            if !exit.success {
                let said = match exit.output.as_deref() {
                    None => " (its output was not kept)".to_string(),
                    Some("") => " and wrote nothing".to_string(),
                    Some(output) => format!("; its last output: {output}"),
                };
                return Err(DeskError::After {
                    done: format!("started {program} (pid {})", launched.pid),
                    source: Box::new(DeskError::Invalid(format!(
                        "it ended ({}) before showing a window{said}",
                        exit.status
                    ))),
                });
            }
            if before.is_none() {
                return Ok(None);
            }
        }
        std::thread::sleep(POLL);
    }
}

fn started(launched: &Launched, window: Option<Window>) -> Started {
    let note = window.is_none().then(|| match launched.exit.get() {
        Some(exit) => format!(
            "the process ended ({}) without showing a window of its own; if it handed the \
                 work to another process, look with windows",
            exit.status
        ),
        None => format!(
            "no window within {} s, and process {} still runs: it may be slow to start or \
                 show no window; look with windows or wait",
            LAUNCH_WAIT.as_secs(),
            launched.pid
        ),
    });
    Started {
        pid: launched.pid,
        scoped: launched.scoped,
        window,
        added_args: (!launched.added.is_empty()).then(|| launched.added.clone()),
        note,
    }
}

pub(super) fn open(desk: &Desk, args: &OpenArgs) -> Result<Opened, DeskError> {
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
    let window = first_window(desk, &launched, Some(&before), &opener.program)?;
    // A new window of another process may be the running instance the file went to, or
    // anything else that opened meanwhile: say so.
    let elsewhere = window.as_ref().is_some_and(|w| {
        !w.pid
            .is_some_and(|pid| desk.descends_from(pid, launched.pid))
    });
    Ok(Opened {
        started: started(&launched, window),
        from_other_process: elsewhere.then_some(true),
        opened: target.to_string(),
        kind: opener.kind,
        app: opener.entry,
        program: opener.program,
    })
}

/// How long `quit` waits for SIGTERM, then for SIGKILL, to end an app.
const TERM_WAIT: Duration = Duration::from_secs(2);

/// The windows of process `pid` in `now` that were not in `before`: what an app opened when
/// asked to close, such as a "save changes?" dialog.
fn opened_since(before: &[Window], now: &[Window], pid: u32) -> Vec<Window> {
    now.iter()
        .filter(|w| w.pid == Some(pid) && !before.iter().any(|b| b.id == w.id))
        .cloned()
        .collect()
}

/// `"Save changes?" (0x1)`, comma-separated.
fn titles(windows: &[Window]) -> String {
    windows
        .iter()
        .map(|w| format!("{:?} ({})", w.title, w.id))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn quit(desk: &Desk, args: &QuitArgs) -> Result<Quit, DeskError> {
    let pid = match (args.pid, args.window.as_deref()) {
        (Some(pid), None) => pid,
        (_, window) => {
            let picked = desk.pick(window, args.pid)?;
            picked.pid.ok_or_else(|| {
                DeskError::Unfit(format!(
                    "window {} ({:?}) does not say which process owns it, so its app cannot be \
                     quit; close it instead",
                    picked.id, picked.title
                ))
            })?
        }
    };
    let before = desk.windows()?;
    let windows: Vec<Window> = before
        .iter()
        .filter(|w| w.pid == Some(pid))
        .cloned()
        .collect();
    let Some(first) = windows.first().cloned() else {
        return Err(DeskError::Unfit(format!(
            "process {pid} shows no window, so it is not an app quit can end (or not one this \
             agent may see)"
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
    // Waits out the grace, unless the app ends or opens a window (it is asking something).
    let answered = || -> Result<Vec<Window>, DeskError> {
        let deadline = Instant::now() + grace;
        let mut looked = Instant::now();
        while Instant::now() < deadline && !desk.cancel().is_cancelled() {
            if !desk.running(pid) {
                return Ok(Vec::new());
            }
            if looked.elapsed() >= DIALOG_POLL {
                looked = Instant::now();
                let asked = opened_since(&before, &desk.windows()?, pid);
                if !asked.is_empty() {
                    return Ok(asked);
                }
            }
            std::thread::sleep(POLL);
        }
        Ok(opened_since(&before, &desk.windows()?, pid))
    };
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
    let asked = answered()?;
    let result = |ended: QuitEnding, note: &str| Quit {
        pid,
        app: app.clone(),
        ended,
        close_requests: windows.len(),
        note: note.to_string(),
        questions: (!asked.is_empty()).then(|| asked.iter().map(WindowRef::from).collect()),
    };
    if !desk.running(pid) {
        return Ok(result(
            QuitEnding::Closed,
            "the app ended when its windows were asked to close",
        ));
    }
    if desk.cancel().is_cancelled() {
        return Err(DeskError::Cancelled {
            done: format!("its windows were asked to close; process {pid} still ran"),
        });
    }
    if !asked.is_empty() && !args.force {
        return Err(DeskError::AppRefused(format!(
            "{app} (pid {pid}) did not quit: asked to close its windows, it opened {} instead, \
             most likely a question such as whether to save its work; nothing was terminated. \
             Read it and answer it, or quit again with force: true to end the app by SIGTERM \
             and lose what it asked about",
            titles(&asked)
        )));
    }
    let unanswered = if asked.is_empty() {
        String::new()
    } else {
        format!("; it had opened {}, which went unanswered", titles(&asked))
    };
    admitted.end(&first, pid, Ending::Terminate)?;
    if ended(TERM_WAIT) {
        let waited = if asked.is_empty() {
            format!(
                "the app was still running {} s after its windows were asked to close",
                grace.as_secs()
            )
        } else {
            "forced: the app asked something instead of closing".to_string()
        };
        return Ok(result(
            QuitEnding::Terminated,
            &format!("{waited}, and ended on SIGTERM{unanswered}"),
        ));
    }
    admitted.end(&first, pid, Ending::Kill)?;
    if ended(TERM_WAIT) {
        return Ok(result(
            QuitEnding::Killed,
            &format!(
                "the app ignored its close requests and SIGTERM, and ended on SIGKILL; it saved \
                 nothing it had not saved{unanswered}"
            ),
        ));
    }
    Err(DeskError::AppRefused(format!(
        "process {pid} still runs after close requests, SIGTERM and SIGKILL: it may be stopped \
         or stuck in the kernel"
    )))
}
