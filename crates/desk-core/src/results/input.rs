//! Results of the input verbs: where the input went, and whether the app there confirmed it
//! read it (it answered a ping sent after the input).

use schemars::JsonSchema;
use serde::Serialize;

/// `key`: the combination pressed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Keyed {
    /// The combination, as given.
    pub keys: String,
    /// The window the keys went to; null when no window had the focus.
    pub window: Option<String>,
    /// Whether its app answered a ping sent after the keys.
    pub confirmed: bool,
}

/// `type`: the text typed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Typed {
    /// Characters that went out, all of them when the call completed.
    pub typed: usize,
    /// The window the text went to; null when no window had the focus.
    pub window: Option<String>,
    /// Whether its app answered a ping sent after the text.
    pub confirmed: bool,
}

/// `click`: where the click went.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Clicked {
    /// Screen x.
    pub x: i32,
    /// Screen y.
    pub y: i32,
    /// left, middle or right.
    pub button: String,
    /// 1, 2 or 3 clicks.
    pub count: u8,
    /// The window on top at the point; null over the bare desktop.
    pub window: Option<String>,
    /// Whether its app answered a ping sent after the click.
    pub confirmed: bool,
}

/// `scroll`: where the wheel turned.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Scrolled {
    /// Screen x.
    pub x: i32,
    /// Screen y.
    pub y: i32,
    /// Notches sent.
    pub amount: u32,
    /// The window on top at the point.
    pub window: Option<String>,
    /// Whether its app answered a ping sent after the notches.
    pub confirmed: bool,
    /// Why fewer notches went than asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `drag`: from where to where.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Dragged {
    /// Screen x, y of the press.
    pub from: [i32; 2],
    /// Screen x, y of the release.
    pub to: [i32; 2],
    /// The window the drag started in.
    pub window: Option<String>,
    /// Whether its app answered a ping sent after the drag.
    pub confirmed: bool,
}
