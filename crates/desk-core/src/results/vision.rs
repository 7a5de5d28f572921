//! Results of the vision verbs that answer JSON. `computer_state`, `computer_act` and `look`
//! answer text to read beside their screenshot.

use schemars::JsonSchema;
use serde::Serialize;

/// `computer_end`: the session ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SessionEnded {
    /// Its name.
    pub ended: String,
    /// Whether it held elements or a screenshot scale.
    pub held: bool,
}

/// `computer_scale`: the session's latest screenshot scale.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Scale {
    /// The session.
    pub session: String,
    /// Screen pixels per screenshot pixel.
    pub scale: f64,
    /// The screenshot's width.
    pub width: u32,
    /// The screenshot's height.
    pub height: u32,
}

/// `title_at`: whether the point shows a window title.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TitleAt {
    /// Whether it does.
    pub title: bool,
    /// `title bar` or `panel`.
    #[serde(rename = "where", skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    /// The window (or panel) at the point.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// The title shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// In a panel: the window whose title it shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub of: Option<String>,
}
