//! What an action changed on the desktop: the windows that opened, closed or took a new title
//! while it ran or in the moment after, which an agent would otherwise learn only by asking
//! `windows` again (a dialog the click opened, a crash reporter).
//!
//! An app answers a click, then maps its dialog; the window manager maps it a moment later. So
//! the list is watched until it has been quiet for [`QUIET`], at most [`WATCH`] after the action.

use std::time::{Duration, Instant};

use desk_core::results::WindowChanges;
use desk_core::window::Window;

use crate::guard::Desk;

/// How long the window list must stay the same for the desktop to count as settled.
const QUIET: Duration = Duration::from_millis(80);
/// The longest the list is watched after the action.
const WATCH: Duration = Duration::from_millis(500);
/// How often the cheap stacking fingerprint is checked, and the full list (for titles) read.
const CHECK_EVERY: Duration = Duration::from_millis(10);
const READ_EVERY: Duration = Duration::from_millis(40);

/// The windows before the action, as the caller may see them; `None` when they could not be
/// read, which leaves the action unreported rather than failed.
pub(super) fn before(desk: &Desk) -> Option<Vec<Window>> {
    desk.windows().ok()
}

/// What changed since `before`, once the list has settled; `None` when nothing changed or the
/// list could not be read.
pub(super) fn since(desk: &Desk, before: &[Window]) -> Option<WindowChanges> {
    let deadline = Instant::now() + WATCH;
    let mut windows = desk.windows().ok()?;
    let mut fingerprint = desk.fingerprint().ok()?;
    let mut quiet_since = Instant::now();
    let mut read_at = Instant::now();
    while Instant::now() < deadline && quiet_since.elapsed() < QUIET {
        if desk.cancel().is_cancelled() {
            break;
        }
        std::thread::sleep(CHECK_EVERY);
        let moved = desk.fingerprint().ok()?;
        if moved == fingerprint && read_at.elapsed() < READ_EVERY {
            continue;
        }
        fingerprint = moved;
        let now = desk.windows().ok()?;
        read_at = Instant::now();
        if differs(&now, &windows) {
            quiet_since = Instant::now();
        }
        windows = now;
    }
    WindowChanges::between(before, &windows)
}

/// Whether two lists hold different windows or titles, whatever their order.
fn differs(a: &[Window], b: &[Window]) -> bool {
    a.len() != b.len()
        || a.iter()
            .any(|w| !b.iter().any(|v| v.id == w.id && v.title == w.title))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_restacked_list_is_no_difference_but_a_new_title_is() {
        let before = [window("0x1", "Notes"), window("0x2", "Mail")];
        let restacked = [window("0x2", "Mail"), window("0x1", "Notes")];
        assert!(!differs(&before, &restacked));
        let retitled = [window("0x1", "Notes *"), window("0x2", "Mail")];
        assert!(differs(&before, &retitled));
    }
}
