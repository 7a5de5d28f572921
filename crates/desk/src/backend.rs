//! The boundary between the desk verbs and an operating system.

use std::time::Duration;

use std::sync::Arc;

use desk_core::call::{Button, Direction};
use desk_core::geometry::Rect;
use desk_core::window::Window;
use serde::Serialize;

use crate::accessibility::Accessibility;
use crate::cancel::Cancel;
use crate::error::DeskError;
use crate::image::RgbImage;
use crate::intent::Intent;

/// What a backend says about itself, for `status`.
#[derive(Debug, Clone, Serialize)]
pub struct BackendInfo {
    /// The windowing system: `x11`.
    pub system: &'static str,
    /// The display it is connected to.
    pub display: String,
    /// How it captures the screen: `mit-shm`, or `getimage` where shared memory is out of reach.
    pub capture: &'static str,
}

/// A question for the person at the desktop, asked before an action in confirm mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// The agent that asks.
    pub agent: String,
    /// What it would do, where.
    pub action: String,
    /// The text it would type, if any.
    pub text: Option<String>,
    /// How long to wait for an answer; no answer means Deny.
    pub timeout: Duration,
}

/// What the person answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// They allowed it.
    Allow,
    /// They denied it.
    Deny,
    /// They closed the question without answering.
    Closed,
    /// The time ran out.
    NoAnswer,
}

/// One desktop, as the verbs see it. Implementations are blocking and shareable across threads.
///
/// Input methods send input and return once the display server has it; whether an app has
/// handled it is what [`Backend::settle`] finds out.
pub trait Backend: Send + Sync {
    /// What this backend is.
    fn info(&self) -> BackendInfo;

    /// The top-level windows, topmost first.
    fn windows(&self) -> Result<Vec<Window>, DeskError>;

    /// The screen's size: the rectangle desk coordinates live in, at (0, 0).
    fn screen(&self) -> Result<Rect, DeskError>;

    /// Where window `id` is, in desk coordinates (it may reach off the screen), or `None` when
    /// it is not shown at all (minimized, or on another desktop).
    fn window_rect(&self, id: &str) -> Result<Option<Rect>, DeskError>;

    /// The pixels of a rectangle of the screen, which the caller has clipped to the screen.
    fn capture(&self, rect: Rect) -> Result<RgbImage, DeskError>;

    /// A capture shrunk to `width` pixels wide by averaging boxes of pixels. Backends that can
    /// shrink while they read pixels should, since `still` calls this many times a second.
    fn capture_scaled(&self, rect: Rect, width: u32) -> Result<RgbImage, DeskError> {
        Ok(crate::image::shrink(&self.capture(rect)?, width))
    }

    /// A cheap value that changes when windows open, close or change their stacking.
    fn fingerprint(&self) -> Result<u64, DeskError>;

    /// Whether window `id` has the keyboard focus.
    fn has_focus(&self, id: &str) -> Result<bool, DeskError>;

    /// Asks the window manager to focus and raise window `id`; returns without waiting.
    fn request_focus(&self, id: &str) -> Result<(), DeskError>;

    /// Asks window `id` to close, as its close button would; returns without waiting.
    fn request_close(&self, id: &str) -> Result<(), DeskError>;

    /// Presses `keysyms` in order, then releases them in reverse order. `focused` is the
    /// window that has the focus, as for [`Backend::type_text`].
    fn press_keys(
        &self,
        keysyms: &[u32],
        focused: Option<&Window>,
        cancel: &Cancel,
    ) -> Result<(), DeskError>;

    /// Types `text` into whatever has the focus, checking `cancel` between characters, and
    /// returns how many characters were sent. `focused` is the window that has the focus, so
    /// the backend can wait for its app where typing needs that.
    fn type_text(
        &self,
        text: &str,
        focused: Option<&Window>,
        cancel: &Cancel,
    ) -> Result<usize, DeskError>;

    /// Moves the pointer to a desk point.
    fn move_pointer(&self, x: i32, y: i32) -> Result<(), DeskError>;

    /// Clicks `button` `count` times where the pointer is.
    fn click(&self, button: Button, count: u8) -> Result<(), DeskError>;

    /// Turns the wheel `amount` notches where the pointer is.
    fn scroll(&self, direction: Direction, amount: u32, cancel: &Cancel) -> Result<(), DeskError>;

    /// Presses the left button at `from`, moves to `to` and releases it there. The button is
    /// released even when the drag fails or is cancelled.
    fn drag(&self, from: (i32, i32), to: (i32, i32), cancel: &Cancel) -> Result<(), DeskError>;

    /// Waits up to `limit` until the app that owns window `id` has handled all input sent so
    /// far. `false` when it could not tell: the app did not answer in time, or cannot be asked.
    fn settle(&self, id: &str, limit: Duration) -> bool;

    /// The accessibility API of this desktop, connected on first use.
    fn accessibility(&self) -> Result<Arc<dyn Accessibility>, DeskError>;

    /// Whether the agent may see and touch windows of process `pid`: `Err` says why not. A bare
    /// backend allows everything; [`crate::guard::Guarded`] applies the app allowlist.
    fn allows(&self, pid: Option<u32>) -> Result<(), String> {
        let _ = pid;
        Ok(())
    }

    /// The last word before an action sends input: every acting verb calls it once, with its
    /// resolved targets, before its first input. A bare backend admits everything;
    /// [`crate::guard::Guarded`] applies the safety controls here.
    fn admit(&self, intent: &Intent) -> Result<(), DeskError> {
        let _ = intent;
        Ok(())
    }

    /// Asks the person at the desktop whether an action may go ahead, waiting up to the
    /// question's timeout; `cancel` ends the wait as [`Answer::Closed`].
    fn ask(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        let _ = (question, cancel);
        Err(DeskError::Refused(
            "this desktop cannot show a confirm dialog".into(),
        ))
    }

    /// Shows (`true`) or, after a short linger, hides the marker that tells the person an
    /// agent is acting. Without a marker this does nothing.
    fn indicate(&self, acting: bool) {
        let _ = acting;
    }

    /// Parts of the screen that shuttle itself draws on (the marker), which `still` ignores.
    fn overlays(&self) -> Vec<Rect> {
        Vec::new()
    }

    /// Gives back what the backend borrowed from the desktop (on X11, lent keycodes). The
    /// daemon calls it when it stops.
    fn release(&self) -> Result<(), DeskError>;
}
