//! When the marker that tells the person an agent is acting shows, whatever draws it: shown
//! while an action runs and for a moment after, so a quick run of actions does not flicker.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long the marker stays after an action ends.
pub const LINGER: Duration = Duration::from_millis(1000);

/// Runs a marker until the sender of `told` is dropped or `show` fails: `told` says when
/// actions start (`true`) and end; `show(true)` is called when an action starts and again
/// every `refresh` while one runs (a marker that must stay on top re-raises itself),
/// `show(false)` once [`LINGER`] has passed since the last action ended.
pub fn show_while_acting<E>(
    told: &Receiver<bool>,
    refresh: Duration,
    mut show: impl FnMut(bool) -> Result<(), E>,
) {
    let mut acting = false;
    let mut shown = false;
    let mut hide_at: Option<Instant> = None;
    loop {
        let wait = match (acting, hide_at) {
            (true, _) => refresh,
            (false, Some(at)) => at.saturating_duration_since(Instant::now()),
            (false, None) => Duration::from_secs(3600),
        };
        match told.recv_timeout(wait) {
            Ok(now_acting) => {
                acting = now_acting;
                hide_at = (!acting).then(|| Instant::now() + LINGER);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        let result = if acting {
            shown = true;
            show(true)
        } else if shown && hide_at.is_some_and(|at| Instant::now() >= at) {
            shown = false;
            hide_at = None;
            show(false)
        } else {
            Ok(())
        };
        if result.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn shows_at_once_and_hides_a_linger_after_the_last_action() {
        let (tell, told) = mpsc::channel();
        let (seen, calls) = mpsc::channel();
        let runner = std::thread::spawn(move || {
            show_while_acting(&told, Duration::from_secs(60), |on| {
                seen.send((on, Instant::now())).map_err(drop)
            })
        });
        let start = Instant::now();
        tell.send(true).unwrap();
        assert!(calls.recv().unwrap().0);
        tell.send(false).unwrap();
        let (on, at) = calls.recv().unwrap();
        assert!(!on);
        assert!(at.duration_since(start) >= LINGER);
        drop(tell);
        runner.join().unwrap();
    }
}
