//! `still`: answer once the screen has stopped changing.
//!
//! The screen is captured, shrunk to 320 pixels wide and cut into 8-pixel blocks. A block
//! changes when any of its pixels moves by more than 24 in a channel. Not every change counts:
//! a block that goes back to a content it already showed (a blinking caret) counts only with new
//! contents, and a block that has shown three or more contents during the wait (a clock, a
//! spinner, a video) is volatile and stops counting. The screen is still once no change has
//! counted for `hold_ms`.

use std::time::{Duration, Instant};

use desk_core::call::StillArgs;
use desk_core::results::Still;

use crate::error::DeskError;
use crate::guard::Desk;
use crate::image::RgbImage;

/// Width of the shrunken capture.
const WIDTH: u32 = 320;
/// Side of a block, in shrunken pixels.
const BLOCK: u32 = 8;
/// A channel must move by more than this for a pixel to have changed.
const THRESHOLD: u8 = 24;
/// Contents a block may show before it counts as volatile.
const VOLATILE_AFTER: usize = 3;
/// Pause between captures.
const TICK: Duration = Duration::from_millis(2);

pub(super) fn still(desk: &Desk, args: &StillArgs) -> Result<Still, DeskError> {
    let (timeout, hold) = args.timing();
    let (timeout, hold) = (Duration::from_millis(timeout), Duration::from_millis(hold));
    let screen = desk.screen()?;
    let start = Instant::now();
    let watch = desk.watch(screen, WIDTH)?;
    let mut tracker = Tracker::new(watch.next()?);
    // shuttle's own marker comes and goes with its actions; the screen is still without it.
    let scale = f64::from(WIDTH) / f64::from(screen.w.max(1));
    for overlay in desk.overlays() {
        let shrunk = |v: i32| (f64::from(v.max(0)) * scale) as u32;
        tracker.ignore(
            shrunk(overlay.x),
            shrunk(overlay.y),
            shrunk(overlay.x + overlay.w as i32).saturating_add(1),
            shrunk(overlay.y + overlay.h as i32).saturating_add(1),
        );
    }
    let mut last_change = Instant::now();
    let mut changed = false;
    let still = loop {
        if desk.cancel().is_cancelled() {
            return Err(DeskError::Cancelled {
                done: "the screen was being watched".into(),
            });
        }
        std::thread::sleep(TICK);
        if tracker.update(watch.next()?) {
            changed = true;
            last_change = Instant::now();
        }
        if last_change.elapsed() >= hold {
            break true;
        }
        if start.elapsed() >= timeout {
            break false;
        }
    };
    Ok(Still {
        still,
        changed,
        ms: start.elapsed().as_millis() as u64,
        volatile: tracker.volatile_count(),
    })
}

/// What each block has shown during a wait.
pub(crate) struct Tracker {
    current: RgbImage,
    blocks_x: u32,
    blocks_y: u32,
    /// Per block, the contents it has shown (up to [`VOLATILE_AFTER`]).
    seen: Vec<Vec<Vec<u8>>>,
    /// Per block, whether its changes never count.
    ignored: Vec<bool>,
}

impl Tracker {
    pub(crate) fn new(first: RgbImage) -> Self {
        let blocks_x = first.width.div_ceil(BLOCK);
        let blocks_y = first.height.div_ceil(BLOCK);
        let seen = (0..blocks_y)
            .flat_map(|by| (0..blocks_x).map(move |bx| (bx, by)))
            .map(|(bx, by)| vec![block(&first, bx, by)])
            .collect();
        Self {
            current: first,
            blocks_x,
            blocks_y,
            seen,
            ignored: vec![false; (blocks_x * blocks_y) as usize],
        }
    }

    /// Stops counting changes in the blocks that touch the shrunken pixels from (x0, y0) to
    /// (x1, y1), exclusive.
    pub(crate) fn ignore(&mut self, x0: u32, y0: u32, x1: u32, y1: u32) {
        for by in y0 / BLOCK..y1.div_ceil(BLOCK).min(self.blocks_y) {
            for bx in x0 / BLOCK..x1.div_ceil(BLOCK).min(self.blocks_x) {
                self.ignored[(by * self.blocks_x + bx) as usize] = true;
            }
        }
    }

    /// Takes the next capture; true when a change that counts happened since the last one.
    pub(crate) fn update(&mut self, next: RgbImage) -> bool {
        let mut counts = false;
        for by in 0..self.blocks_y {
            for bx in 0..self.blocks_x {
                if self.ignored[(by * self.blocks_x + bx) as usize] {
                    continue;
                }
                let now = block(&next, bx, by);
                if similar(&now, &block(&self.current, bx, by)) {
                    continue;
                }
                let seen = &mut self.seen[(by * self.blocks_x + bx) as usize];
                if seen.len() >= VOLATILE_AFTER || seen.iter().any(|old| similar(old, &now)) {
                    continue;
                }
                seen.push(now);
                counts |= seen.len() < VOLATILE_AFTER;
            }
        }
        self.current = next;
        counts
    }

    /// Blocks that stopped counting because they kept changing.
    pub(crate) fn volatile_count(&self) -> usize {
        self.seen
            .iter()
            .filter(|s| s.len() >= VOLATILE_AFTER)
            .count()
    }
}

/// The pixels of block (bx, by), row by row.
fn block(image: &RgbImage, bx: u32, by: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((BLOCK * BLOCK * 3) as usize);
    for y in by * BLOCK..((by + 1) * BLOCK).min(image.height) {
        let row = (y * image.width) as usize * 3;
        let x0 = (bx * BLOCK) as usize * 3;
        let x1 = (((bx + 1) * BLOCK).min(image.width)) as usize * 3;
        out.extend_from_slice(&image.pixels[row + x0..row + x1]);
    }
    out
}

fn similar(a: &[u8], b: &[u8]) -> bool {
    a.iter().zip(b).all(|(&p, &q)| p.abs_diff(q) <= THRESHOLD)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(value: u8) -> RgbImage {
        RgbImage {
            width: 32,
            height: 16,
            pixels: vec![value; 32 * 16 * 3],
        }
    }

    fn with_block(base: u8, value: u8) -> RgbImage {
        let mut image = flat(base);
        for y in 0..8 {
            for x in 0..8 {
                let i = ((y * 32 + x) * 3) as usize;
                image.pixels[i..i + 3].copy_from_slice(&[value; 3]);
            }
        }
        image
    }

    #[test]
    fn small_moves_do_not_count() {
        let mut tracker = Tracker::new(flat(100));
        assert!(!tracker.update(flat(120)));
        assert!(tracker.update(flat(200)));
    }

    #[test]
    fn ignored_blocks_never_count() {
        let mut tracker = Tracker::new(with_block(0, 0));
        tracker.ignore(0, 0, 1, 1);
        assert!(!tracker.update(with_block(0, 255)));
    }

    #[test]
    fn a_blinking_caret_counts_once() {
        let mut tracker = Tracker::new(with_block(0, 0));
        assert!(tracker.update(with_block(0, 255)), "new content counts");
        assert!(
            !tracker.update(with_block(0, 0)),
            "back to the first content"
        );
        assert!(
            !tracker.update(with_block(0, 255)),
            "a content already seen"
        );
        assert_eq!(tracker.volatile_count(), 0);
    }

    #[test]
    fn a_spinner_becomes_volatile_and_stops_counting() {
        let mut tracker = Tracker::new(with_block(0, 0));
        assert!(tracker.update(with_block(0, 80)));
        assert!(
            !tracker.update(with_block(0, 160)),
            "the third content makes it volatile"
        );
        assert!(!tracker.update(with_block(0, 240)));
        assert_eq!(tracker.volatile_count(), 1);
        // Another block changing still counts.
        let mut other = with_block(0, 240);
        other.pixels[(8 * 32 + 20) * 3] = 255;
        assert!(tracker.update(other));
    }
}
