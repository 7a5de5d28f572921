//! Results of the observation verbs that read the screen, the window list and the clipboard.

use schemars::JsonSchema;
use serde::Serialize;

use crate::window::Window;

/// `screen`: its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ScreenSize {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// `shot`: the PNG's size (the PNG itself is the reply's image), and where a window's part of
/// it lies.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Shot {
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// With window: the image's top left in the whole window image ([0, 0] uncropped and on
    /// the screen).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<[i64; 2]>,
    /// With window: the image's top left on the screen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen_origin: Option<[i64; 2]>,
    /// With window: its id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// With path: the file the PNG went to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// With max_edge: screen pixels per image pixel (1 when the image was small enough); pass
    /// it to click or drag with points of this image.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
}

/// `wait`: whether the window list changed, and the list.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Waited {
    /// Whether it differs from since.
    pub changed: bool,
    /// The window list at the answer.
    pub windows: Vec<Window>,
}

/// `still`: whether the screen stopped changing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Still {
    /// Whether nothing that counts changed for hold_ms.
    pub still: bool,
    /// Whether anything that counts changed during the wait.
    pub changed: bool,
    /// How long the wait took.
    pub ms: u64,
    /// Blocks that changed too often to count (a clock, a spinner).
    pub volatile: usize,
}

/// `clipboard_read`: what the clipboard holds in the format asked (an image is the reply's
/// image).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ClipboardRead {
    /// Whether it holds that format.
    pub present: bool,
    /// text, image or files.
    pub format: String,
    /// An image's width.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// An image's height.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// The text's or the PNG's size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<usize>,
    /// The text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The files' paths.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<String>>,
    /// The first 64 bits of the PNG's SHA-256, in hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256_64: Option<String>,
}

/// `clipboard_write`: what went on the clipboard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ClipboardWrote {
    /// text, image or files.
    pub wrote: String,
    /// An image's width.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// An image's height.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// The text's or the PNG's size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<usize>,
    /// How many files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<usize>,
    /// The first 64 bits of the text's SHA-256, in hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256_64: Option<String>,
}
