//! Results of the input verbs: where the input went, and what the app there answered after it
//! ([`AppAnswer`]).

use schemars::JsonSchema;
use serde::Serialize;

/// How the input went: on the person's own pointer and keyboard, or on the agent's own pair, which
/// leaves the person's pointer, focus and stacking as they were (`[daemon] input`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InputWay {
    /// The person's pointer and keyboard: windows were raised and focused as needed.
    Foreground,
    /// The agent's own pointer and keyboard, behind the person's back.
    Background,
}

/// What the app that got the input answered after it. `busy` is not a failure: the input is
/// queued in the app, whose effect is not known yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AppAnswer {
    /// It answered a ping sent after the input and then another at once: it has read the input
    /// and is idle again, so what the input started (a dialog it opened) is in this reply.
    Read,
    /// It had not answered within about 1.5 s, or was still working: the input is queued or
    /// being handled, and its effect may show later. Look (windows, snapshot) before sending it
    /// again.
    Busy,
    /// It cannot be asked: its window takes no pings, or the desktop has no way to ask
    /// (Wayland). Judge the effect by what the app shows.
    Unknown,
}

/// Input that went out but whose effect was not read back: it may or may not have landed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Unverified {
    /// What was sent, and where.
    pub effect: String,
    /// What to do before relying on it.
    pub note: String,
    /// What to try when it did not land.
    pub escalation: String,
}

/// Where an action's input went when the daemon may send it in the background; empty (and
/// left out of the reply) under foreground input.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Route {
    /// How the input went; present when `[daemon] input` is background or auto.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<InputWay>,
    /// Present when the input was sent in the background and its effect was not read back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// `key`: the combination pressed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Keyed {
    /// The combination, as given.
    pub keys: String,
    /// The window the keys went to; null when no window had the focus.
    pub window: Option<String>,
    /// What its app answered after the keys; absent when no window got them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_answer: Option<AppAnswer>,
    /// How the input went (background input only).
    #[serde(flatten)]
    pub route: Route,
}

/// `type`: the text typed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Typed {
    /// Characters that went out, all of them when the call completed.
    pub typed: usize,
    /// The window the text went to; null when no window had the focus.
    pub window: Option<String>,
    /// What its app answered after the text; absent when no window got them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_answer: Option<AppAnswer>,
    /// How the input went (background input only).
    #[serde(flatten)]
    pub route: Route,
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
    /// What its app answered after the click; absent when no window got them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_answer: Option<AppAnswer>,
    /// How the input went (background input only).
    #[serde(flatten)]
    pub route: Route,
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
    /// What its app answered after the notches; absent when no window got them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_answer: Option<AppAnswer>,
    /// Why fewer notches went than asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How the input went (background input only).
    #[serde(flatten)]
    pub route: Route,
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
    /// What its app answered after the drag; absent when no window got them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_answer: Option<AppAnswer>,
    /// How the input went (background input only).
    #[serde(flatten)]
    pub route: Route,
}
