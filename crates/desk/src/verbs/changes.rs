//! What changed among the windows, in every reply: the windows that opened, closed, came
//! forward or took a new title since the caller's previous reply, each with how long after the
//! caller's latest action it happened. The caller's last-told list is kept
//! ([`crate::news::WindowNews`]), so a dialog that an app maps after one reply went out is in
//! the next one: nothing is lost to timing, and no action waits in case something comes.
//!
//! The display records window events as they happen. An action waits only when windows are
//! already moving as it ends (an event came while it ran): until they have held still for
//! [`QUIET`], at most [`MOVING_LIMIT`]. `settle` asks for longer.

use std::time::{Duration, Instant};

use desk_core::call::{Settle, StillArgs};
use desk_core::results::WindowChanges;

use crate::error::DeskError;
use crate::guard::Desk;
use crate::news::Seen;
use crate::system::{WindowEventKind, WindowEvents};

/// How long the window events must pause for moving windows to count as settled.
const QUIET: Duration = Duration::from_millis(40);
/// The longest an action waits for windows that are moving as it ends.
const MOVING_LIMIT: Duration = Duration::from_millis(300);
/// How often the events are looked at while waiting.
const LOOK_EVERY: Duration = Duration::from_millis(5);

/// Where the display's event stream stood when a call started.
pub(super) struct Mark {
    count: u64,
    at: Instant,
}

impl Mark {
    /// When the call started.
    pub(super) fn at(&self) -> Instant {
        self.at
    }
}

/// Where the event stream stands now.
pub(super) fn mark(desk: &Desk) -> Mark {
    Mark {
        count: desk.window_events(u64::MAX).last,
        at: Instant::now(),
    }
}

/// After an action: waits while windows are moving (or as long as `settle` asks), then, for
/// `"still"`, until the screen holds still too.
pub(super) fn settle(desk: &Desk, mark: &Mark, settle: Option<Settle>) -> Result<(), DeskError> {
    let asked = match settle {
        Some(Settle::Ms(ms)) => Some(Duration::from_millis(ms)),
        Some(Settle::Still) => Some(MOVING_LIMIT),
        None => None,
    };
    let events = desk.window_events(mark.count);
    let moving = !events.events.is_empty();
    if asked.is_some() || moving {
        wait_quiet(desk, events, asked.unwrap_or(MOVING_LIMIT), moving);
    }
    if settle == Some(Settle::Still) {
        super::still::still(desk, &StillArgs::default())?;
    }
    Ok(())
}

/// Waits until the events have paused for [`QUIET`] after at least one came (`moved`: one
/// already has), or until `limit` has passed.
fn wait_quiet(desk: &Desk, events: WindowEvents, limit: Duration, mut moved: bool) {
    let deadline = Instant::now() + limit;
    let mut count = events.last;
    let mut last_event = events.events.last().map_or_else(Instant::now, |e| e.at);
    while Instant::now() < deadline && !desk.cancel().is_cancelled() {
        if moved && last_event.elapsed() >= QUIET {
            return;
        }
        std::thread::sleep(LOOK_EVERY);
        let newer = desk.window_events(count);
        if let Some(latest) = newer.events.last() {
            moved = true;
            last_event = latest.at;
            count = newer.last;
        }
    }
}

/// What changed since the caller's previous reply, remembering the windows as told now.
/// `None` for the caller's first reply, when nothing changed, or when the list cannot be read
/// (the next reply then says it).
pub(super) fn news(desk: &Desk) -> Option<WindowChanges> {
    let (changes, told) = pending(desk)?;
    desk.news().told(desk.agent(), told);
    changes
}

/// What changed since the caller's previous reply, without telling it: the changes, and what
/// the caller will have been told once they are. `None` when its list is as it was told, or
/// cannot be read.
pub(super) fn pending(desk: &Desk) -> Option<(Option<WindowChanges>, Seen)> {
    let caller = desk.agent();
    let seen = desk.news().seen(caller);
    let events = desk.window_events(seen.last);
    let same_stream = events.stream != 0 && events.stream == seen.stream;
    // With the stream running and nothing new on it, the list is as the caller was told.
    if same_stream && events.events.is_empty() && seen.windows.is_some() {
        return None;
    }
    let windows = desk.windows().ok()?;
    let changes = seen.windows.as_ref().and_then(|before| {
        let mut changes = WindowChanges::between(before, &windows)?;
        if same_stream && let Some(acted) = seen.acted {
            time(&mut changes, &events, acted);
        }
        Some(changes)
    });
    let told = Seen {
        stream: events.stream,
        last: events.last,
        windows: Some(windows),
        ..seen
    };
    Some((changes, told))
}

/// Marks each change with how long after `acted` its event came.
fn time(changes: &mut WindowChanges, events: &WindowEvents, acted: Instant) {
    let after = |kind: WindowEventKind, id: Option<&str>, latest: bool| {
        let mut matching = events
            .events
            .iter()
            .filter(|e| e.kind == kind && (id.is_none() || e.window.as_deref() == id));
        let event = if latest {
            matching.next_back()
        } else {
            matching.next()
        }?;
        let ms = event.at.checked_duration_since(acted)?.as_millis();
        Some(u64::try_from(ms).unwrap_or(u64::MAX))
    };
    for w in &mut changes.opened {
        w.after_ms = after(WindowEventKind::Opened, Some(&w.id), false);
    }
    for w in &mut changes.closed {
        w.after_ms = after(WindowEventKind::Closed, Some(&w.id), true);
    }
    for r in &mut changes.retitled {
        r.after_ms = after(WindowEventKind::Retitled, Some(&r.id), true);
    }
    if let Some(raised) = &mut changes.raised {
        raised.after_ms = after(WindowEventKind::Activated, None, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::WindowEvent;
    use desk_core::window::Window;

    fn window(id: &str, title: &str) -> Window {
        Window {
            id: id.into(),
            title: title.into(),
            role: "window".into(),
            pid: Some(1),
            active: false,
            app: None,
            shell: false,
            owner: None,
            modal: None,
            blocks: None,
        }
    }

    #[test]
    fn a_change_is_timed_from_the_callers_latest_action() {
        let acted = Instant::now();
        let at = |ms| acted + Duration::from_millis(ms);
        let event = |ms, window: Option<&str>, kind| WindowEvent {
            at: at(ms),
            window: window.map(String::from),
            kind,
        };
        let events = WindowEvents {
            stream: 3,
            last: 4,
            events: vec![
                event(20, Some("0x2"), WindowEventKind::Retitled),
                event(150, Some("0x3"), WindowEventKind::Opened),
                event(160, None, WindowEventKind::Activated),
                event(210, Some("0x2"), WindowEventKind::Retitled),
            ],
            dropped: 0,
        };
        let before = [window("0x1", "Notes"), window("0x2", "Mail")];
        let after = [
            window("0x3", "Save as"),
            window("0x1", "Notes"),
            window("0x2", "Mail (2)"),
        ];
        let mut changes = WindowChanges::between(&before, &after).unwrap();
        time(&mut changes, &events, acted);
        assert_eq!(changes.opened[0].after_ms, Some(150));
        assert_eq!(
            changes.retitled[0].after_ms,
            Some(210),
            "the latest title's time"
        );
        assert_eq!(
            changes.raised, None,
            "a new window in front is opened, not raised"
        );
    }

    #[test]
    fn a_storm_of_windows_is_summed_up_not_listed() {
        let after: Vec<Window> = (0..10_000)
            .map(|n| window(&format!("0x{n:x}"), "popup"))
            .collect();
        let changes = WindowChanges::between(&[], &after).unwrap();
        assert_eq!(changes.opened.len(), WindowChanges::LISTED);
        assert_eq!(changes.more, Some(10_000 - WindowChanges::LISTED));
        assert!(changes.words().ends_with("and 9950 more changes"));
    }
}
