//! The boundary between the desk verbs and an operating system.

use desk_core::geometry::Rect;
use desk_core::window::Window;
use serde::Serialize;

use crate::error::DeskError;
use crate::image::RgbImage;

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

/// One desktop, as the verbs see it. Implementations are blocking and shareable across threads.
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
}
