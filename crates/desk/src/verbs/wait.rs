//! `wait`: answer as soon as the window list differs from what the caller last saw.
//!
//! A full window list costs a round trip per window's properties; the stacking-ordered client
//! list is one small property. So the list's fingerprint is checked every 10 ms and the full list
//! read when it moves, and otherwise every 100 ms (or as often as a read takes, if longer), to
//! catch title changes, which do not move the fingerprint.

use std::time::{Duration, Instant};

use desk_core::call::WaitArgs;
use desk_core::results::Waited;
use desk_core::window::Window;

use crate::error::DeskError;
use crate::guard::Desk;

const FINGERPRINT_EVERY: Duration = Duration::from_millis(10);
const FULL_READ_EVERY: Duration = Duration::from_millis(100);

pub(super) fn wait(desk: &Desk, args: &WaitArgs) -> Result<Waited, DeskError> {
    let timeout = Duration::from_millis(args.timeout());
    let deadline = Instant::now() + timeout;
    let answer = |windows: Vec<Window>, changed: bool| Waited { changed, windows };

    // Both sides of the comparison are what the agent may see: a window of another app coming
    // or going is no change to it.
    let since = desk.visible(args.since.clone());
    let mut fingerprint = desk.fingerprint()?;
    let (mut windows, mut read_at, mut read_cost) = timed_read(desk)?;
    loop {
        if windows != since {
            return Ok(answer(windows, true));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(answer(windows, false));
        }
        if desk.cancel().is_cancelled() {
            return Err(DeskError::Cancelled {
                done: "no change had been seen".into(),
            });
        }
        std::thread::sleep(FINGERPRINT_EVERY.min(deadline - now));
        let moved = desk.fingerprint()?;
        let at_deadline = Instant::now() >= deadline;
        if moved != fingerprint
            || at_deadline
            || read_at.elapsed() >= FULL_READ_EVERY.max(read_cost)
        {
            fingerprint = moved;
            (windows, read_at, read_cost) = timed_read(desk)?;
        }
    }
}

fn timed_read(desk: &Desk) -> Result<(Vec<Window>, Instant, Duration), DeskError> {
    let start = Instant::now();
    let windows = desk.windows()?;
    Ok((windows, Instant::now(), start.elapsed()))
}
