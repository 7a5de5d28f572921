//! `focus`, `close`, `launch`, `open` and `quit`.

use std::time::{Duration, Instant};

use desk_core::app_text::Quoted;
use desk_core::call::{CloseArgs, FocusArgs, LaunchArgs, OpenArgs, QuitArgs};
use desk_core::results::{
    BlockingDialog, Closed, Focused, Opened, Quit, QuitEnding, Started, WindowRef,
};
use desk_core::window::{Window, role};

use crate::error::DeskError;
use crate::guard::Desk;
use crate::intent::{Intent, Target};
use crate::system::{AccessibilityOff, Ending, Launched};

/// How long `close` waits for the window to go.
const CLOSE_WAIT: Duration = Duration::from_secs(3);
/// How long `launch` waits for the app's first window.
const LAUNCH_WAIT: Duration = Duration::from_secs(15);
/// How long an app's windows and titles must stay as they are, with the app using little CPU,
/// for `launch` to take its start-up as done: a big app (LibreOffice) keeps working for a
/// second after its main window maps, then opens a dialog (a tip, a recovery question).
const APP_QUIET: Duration = Duration::from_millis(300);
/// The CPU an app may use in [`APP_QUIET`] and still count as waiting for input: a tenth.
const APP_IDLE_CPU: Duration = Duration::from_millis(30);
/// The longest `launch` waits for that, after the first window: an app that keeps busy (an
/// animation) is answered as it stands then.
const APP_SETTLE_MAX: Duration = Duration::from_secs(4);
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
    desk.progress().tell(|| {
        format!(
            "started {} (pid {}); waiting for its window",
            args.app, launched.pid
        )
    });
    let window = first_window(desk, &launched, None, &args.app)?;
    started(desk, &launched, window)
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
                    Some(output) => format!("; its last output: {}", Quoted(output)),
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

/// The app's windows once they have stopped changing (see [`APP_QUIET`]), starting from its
/// first window `first`: its main window, and its dialogs in front of it. The app's windows
/// are those of the launched process and its children, and of `first`'s process (a running
/// instance a file went to). `None` when every window of the app closed meanwhile.
fn settled(
    desk: &Desk,
    launched: &Launched,
    first: Window,
) -> Result<Option<(Window, Vec<BlockingDialog>)>, DeskError> {
    let ours = |w: &Window| {
        ![role::SPLASH, role::POPUP, role::DOCK, role::DESKTOP].contains(&w.role.as_str())
            && w.pid
                .is_some_and(|pid| Some(pid) == first.pid || desk.descends_from(pid, launched.pid))
    };
    let started = Instant::now();
    let deadline = started + APP_SETTLE_MAX;
    // When each window was first seen, to tell dialogs that came after the main window.
    let mut seen: Vec<(String, Instant)> = vec![(first.id.clone(), started)];
    let mut last: Vec<(String, String)> = vec![(first.id.clone(), first.title.clone())];
    let mut changed = started;
    let mut cpu = CpuWatch::default();
    let windows = loop {
        let windows: Vec<Window> = desk.windows()?.into_iter().filter(|w| ours(w)).collect();
        let now = Instant::now();
        let shape: Vec<(String, String)> = windows
            .iter()
            .map(|w| (w.id.clone(), w.title.clone()))
            .collect();
        if shape != last {
            changed = now;
            last = shape;
        }
        for w in &windows {
            if !seen.iter().any(|(id, _)| *id == w.id) {
                seen.push((w.id.clone(), now));
            }
        }
        let mut pids: Vec<u32> = windows.iter().filter_map(|w| w.pid).collect();
        pids.sort_unstable();
        pids.dedup();
        let busy = cpu.busy(now, &pids, |pid| desk.cpu_time(pid));
        let quiet = now.duration_since(changed) >= APP_QUIET && !busy;
        if quiet || now >= deadline || desk.cancel().is_cancelled() {
            if windows.is_empty() {
                desk.progress().tell(|| "its windows closed".into());
            } else if quiet {
                desk.progress().tell(|| "settled".into());
            } else if now >= deadline {
                desk.progress().tell(|| {
                    format!(
                        "still changing after {} s; answering as it is",
                        APP_SETTLE_MAX.as_secs()
                    )
                });
            }
            break windows;
        }
        std::thread::sleep(POLL);
    };
    // The topmost ordinary window is the main one (the list is topmost first); an app that
    // shows only dialogs has its first one.
    let Some(main) = windows
        .iter()
        .find(|w| w.role == role::WINDOW && w.owner.is_none())
        .or_else(|| windows.first())
        .cloned()
    else {
        return Ok(None);
    };
    let seen_at = |id: &str| seen.iter().find(|(s, _)| s == id).map(|(_, at)| *at);
    let dialogs = windows
        .iter()
        .filter(|w| w.id != main.id && (w.role == role::DIALOG || w.owner.is_some()))
        .filter_map(|w| {
            let blocking = if w.modal.is_some() {
                "modal"
            } else if w.owner.as_deref() == Some(main.id.as_str()) {
                "transient"
            } else if seen_at(&w.id) >= seen_at(&main.id) {
                "newer"
            } else {
                return None;
            };
            Some(BlockingDialog {
                window: WindowRef::from(w),
                blocking: blocking.into(),
            })
        })
        .collect();
    Ok(Some((main, dialogs)))
}

/// The CPU time of a set of processes, sampled over time.
#[derive(Default)]
struct CpuWatch {
    pids: Vec<u32>,
    /// When, and the CPU time the processes had used by then (oldest first).
    samples: Vec<(Instant, Duration)>,
}

impl CpuWatch {
    /// Whether processes `pids` used more than [`APP_IDLE_CPU`] in the last [`APP_QUIET`], or
    /// have not been watched that long yet. Where their CPU time cannot be read, never busy.
    fn busy(
        &mut self,
        now: Instant,
        pids: &[u32],
        cpu_time: impl Fn(u32) -> Option<Duration>,
    ) -> bool {
        let Some(total) = pids
            .iter()
            .map(|&pid| cpu_time(pid))
            .sum::<Option<Duration>>()
        else {
            return false;
        };
        if self.pids != pids {
            self.pids = pids.to_vec();
            self.samples.clear();
        }
        self.samples.push((now, total));
        let Some(&(_, then)) = self
            .samples
            .iter()
            .rev()
            .find(|(at, _)| now.duration_since(*at) >= APP_QUIET)
        else {
            return true;
        };
        total.saturating_sub(then) > APP_IDLE_CPU
    }
}

/// The answer for `launched`, whose first window (if any) was `first`.
fn started(desk: &Desk, launched: &Launched, first: Option<Window>) -> Result<Started, DeskError> {
    let first_title = first
        .as_ref()
        .map(|w| format!("{} ({})", Quoted(&w.title), w.id));
    let (window, dialogs) = match first {
        Some(first) => {
            desk.progress().tell(|| {
                format!(
                    "its window {} is mapped; waiting for the app to settle",
                    first.id
                )
            });
            match settled(desk, launched, first)? {
                Some((main, dialogs)) => (Some(main), dialogs),
                None => (None, Vec::new()),
            }
        }
        None => (None, Vec::new()),
    };
    let note = match (&window, first_title) {
        (None, Some(title)) => Some(format!(
            "its window {title} showed and closed again while it started; look with windows"
        )),
        (None, None) => Some(no_window_note(launched)),
        (Some(window), _) => window
            .pid
            .and_then(|pid| desk.accessibility_off(pid))
            .filter(|off| *off == AccessibilityOff::Gtk2 { installed: false })
            .map(|_| {
                "it is a GTK 2 app, and GTK 2's accessibility modules (gail, atk-bridge) are not \
                 installed, so snapshot and find cannot read it: use shot and pixel input, or \
                 ask the person to install them (Debian: libgail-common and libatk-adaptor)"
                    .to_string()
            }),
    };
    Ok(Started {
        pid: launched.pid,
        scoped: launched.scoped,
        sandboxed: launched.sandboxed,
        window,
        dialogs: (!dialogs.is_empty()).then_some(dialogs),
        added_args: (!launched.added.is_empty()).then(|| launched.added.clone()),
        note,
    })
}

/// Why a launched app shows no window.
fn no_window_note(launched: &Launched) -> String {
    match launched.exit.get() {
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
    }
}

pub(super) fn open(desk: &Desk, args: &OpenArgs) -> Result<Opened, DeskError> {
    let target = args.target.trim();
    if target.starts_with('/') && !std::path::Path::new(target).exists() {
        return Err(DeskError::Invalid(format!(
            "there is no file at {target}; nothing was opened"
        )));
    }
    if target.starts_with('/')
        && let Some(sandbox) = desk.sandbox()
        && !sandbox.shows(std::path::Path::new(target))
    {
        return Err(DeskError::Invalid(format!(
            "{target} is out of the sandbox's sight: the apps agents launch see none of the \
             person's home but the paths [apps] share and show name, nor the person's /tmp or \
             /run; nothing was opened. Ask the person to share or show it"
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
    let started = started(desk, &launched, window)?;
    // A new window of another process may be the running instance the file went to, or
    // anything else that opened meanwhile: say so.
    let elsewhere = started.window.as_ref().is_some_and(|w| {
        !w.pid
            .is_some_and(|pid| desk.descends_from(pid, launched.pid))
    });
    Ok(Opened {
        started,
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
        .map(|w| format!("{} ({})", Quoted(&w.title), w.id))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_app_is_busy_until_watched_long_enough_and_while_it_uses_cpu() {
        let start = Instant::now();
        let at = |ms| start + Duration::from_millis(ms);
        let used = |ms| move |_pid: u32| Some(Duration::from_millis(ms));
        let mut cpu = CpuWatch::default();
        assert!(cpu.busy(at(0), &[7], used(100)), "not watched long yet");
        assert!(cpu.busy(at(200), &[7], used(110)));
        assert!(
            !cpu.busy(at(300), &[7], used(120)),
            "20 ms in 300 ms is idle"
        );
        assert!(
            cpu.busy(at(400), &[7], used(200)),
            "90 ms in 300 ms is busy"
        );
        assert!(
            cpu.busy(at(450), &[7, 9], used(200)),
            "another process: watched anew"
        );
        assert!(
            !cpu.busy(at(500), &[7], |_| None),
            "unreadable is never busy"
        );
    }
}
