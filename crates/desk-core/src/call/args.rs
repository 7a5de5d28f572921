//! The verb table and each verb's arguments, with the checks their values need.
//!
//! A verb is one row of the table below and one struct: its doc comment is the verb's help,
//! each field's doc comment the field's. [`Args`] says what the struct needs beyond decoding.

use schemars::JsonSchema;
use serde::Deserialize;

use super::vision::{
    ComputerActArgs, ComputerEndArgs, ComputerScaleArgs, ComputerStateArgs, LookArgs, TitleAtArgs,
};
use super::{Args, Settle, verbs};
use crate::geometry::Rect;
use crate::results as r;
use crate::window::Window;

// Each row: the variant, its arguments, its result (a type of `crate::results`, or text as
// `String`), its name and its kind.
verbs! {
    Windows(WindowsArgs) -> Vec<Window> = "windows", Observe;
    Screen(ScreenArgs) -> r::ScreenSize = "screen", Observe;
    Shot(ShotArgs) -> r::Shot = "shot", Observe;
    Unanswered(UnansweredArgs) -> Option<r::Unanswered> = "unanswered", Observe;
    Wait(WaitArgs) -> r::Waited = "wait", Observe;
    Still(StillArgs) -> r::Still = "still", Observe;
    Snapshot(SnapshotArgs) -> r::SnapshotResult = "snapshot", Observe;
    Find(FindArgs) -> r::Found = "find", Observe;
    Read(ReadArgs) -> r::NodeAlone = "read", Observe;
    At(AtArgs) -> r::At = "at", Observe;
    Key(KeyArgs) -> r::Keyed = "key", Act;
    Type(TypeArgs) -> r::Typed = "type", Act;
    Click(ClickArgs) -> r::Clicked = "click", Act;
    Scroll(ScrollArgs) -> r::Scrolled = "scroll", Act;
    Drag(DragArgs) -> r::Dragged = "drag", Act;
    Press(PressArgs) -> r::Pressed = "press", Act;
    Act(ActArgs) -> r::Pressed = "act", Act;
    SetValue(SetValueArgs) -> r::FieldHolds = "set_value", Act;
    SelectOption(SelectOptionArgs) -> r::OptionPicked = "select_option", Act;
    InsertText(InsertTextArgs) -> r::FieldHolds = "insert_text", Act;
    SelectText(SelectTextArgs) -> r::TextSelected = "select_text", Act;
    Focus(FocusArgs) -> r::Focused = "focus", Act;
    Close(CloseArgs) -> r::Closed = "close", Act;
    Launch(LaunchArgs) -> r::Started = "launch", Act;
    SetFrame(SetFrameArgs) -> r::Framed = "set_frame", Act;
    Minimize(MinimizeArgs) -> r::Framed = "minimize", Act;
    Maximize(MaximizeArgs) -> r::Framed = "maximize", Act;
    Restore(RestoreArgs) -> r::Framed = "restore", Act;
    Open(OpenArgs) -> r::Opened = "open", Act;
    Quit(QuitArgs) -> r::Quit = "quit", Act;
    ClipboardRead(ClipboardReadArgs) -> r::ClipboardRead = "clipboard_read", Observe;
    ClipboardWrite(ClipboardWriteArgs) -> r::ClipboardWrote = "clipboard_write", Act;
    ComputerState(ComputerStateArgs) -> String = "computer_state", Observe;
    ComputerAct(ComputerActArgs) -> String = "computer_act", Act;
    ComputerEnd(ComputerEndArgs) -> r::SessionEnded = "computer_end", Observe;
    ComputerScale(ComputerScaleArgs) -> r::Scale = "computer_scale", Observe;
    Look(LookArgs) -> String = "look", Observe;
    TitleAt(TitleAtArgs) -> r::TitleAt = "title_at", Observe;
}

/// Refuses a call that names no window.
fn named(window: &Option<String>, pid: Option<u32>) -> Result<(), String> {
    if window.is_none() && pid.is_none() {
        return Err("name the window: pass window (an id or title from windows) or pid".into());
    }
    Ok(())
}

/// The longest `wait` and `still` may wait.
pub const MAX_WAIT_MS: u64 = 5000;
/// The most notches one scroll sends; more are cut to this.
pub const MAX_SCROLL: u32 = 50;

/// Top-level windows, topmost first (modal, blocks: a dialog the screen hides).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WindowsArgs {}

impl Args for WindowsArgs {}

/// Screen width and height in pixels.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScreenArgs {}

impl Args for ScreenArgs {}

/// A PNG of the screen, x,y,w,h, or one window's own pixels (x,y,w,h crop it; origin, screen_origin say where).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShotArgs {
    /// Left edge of the rectangle.
    pub x: Option<i32>,
    /// Top edge of the rectangle.
    pub y: Option<i32>,
    /// Width of the rectangle.
    pub w: Option<u32>,
    /// Height of the rectangle.
    pub h: Option<u32>,
    /// Also write the PNG to this file.
    pub path: Option<String>,
    /// Shoot this window alone: an id or title from `windows`.
    pub window: Option<String>,
    /// Shoot this process's window.
    pub pid: Option<u32>,
    /// Shrink the image so its long edge is at most this many pixels (default: full size);
    /// the reply's scale turns its pixels back into the screen's, for click and drag.
    pub max_edge: Option<u32>,
}

impl ShotArgs {
    /// The rectangle x, y, w, h, which go together or not at all.
    pub fn rect(&self) -> Result<Option<Rect>, String> {
        match (self.x, self.y, self.w, self.h) {
            (None, None, None, None) => Ok(None),
            (Some(x), Some(y), Some(w), Some(h)) if w > 0 && h > 0 => {
                Ok(Some(Rect::new(x, y, w, h)))
            }
            (Some(_), Some(_), Some(_), Some(_)) => Err("w and h must be at least 1".into()),
            _ => {
                Err("x, y, w and h go together: pass all four, or none for the whole image".into())
            }
        }
    }
}

impl Args for ShotArgs {
    fn check(&self) -> Result<(), String> {
        self.rect().map(|_| ())
    }
}

/// The focused window if its app stopped answering accessibility, else null.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnansweredArgs {}

impl Args for UnansweredArgs {}

/// Until the window list differs from since (a windows result), at most timeout_ms (5000 max); answers changed, windows.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// A result of `windows` to compare against.
    pub since: Vec<Window>,
    /// How long to wait (default 5000); a longer wait is cut to 5000 ms.
    pub timeout_ms: Option<u64>,
}

impl WaitArgs {
    /// How long to wait: 5000 ms unless given, and at most that.
    pub fn timeout(&self) -> u64 {
        self.timeout_ms.unwrap_or(MAX_WAIT_MS).min(MAX_WAIT_MS)
    }
}

impl Args for WaitArgs {}

/// Until the screen holds still for hold_ms (40), at most timeout_ms (600, max 5000); answers still.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StillArgs {
    /// Give up after this long (default 600); a longer wait is cut to 5000 ms.
    pub timeout_ms: Option<u64>,
    /// How long the screen must stay unchanged (default 40); a hold longer than the timeout
    /// answers still: false at the timeout.
    pub hold_ms: Option<u64>,
}

impl StillArgs {
    /// `(timeout_ms, hold_ms)`: 600 and 40 unless given, the timeout at most 5000.
    pub fn timing(&self) -> (u64, u64) {
        let timeout = self.timeout_ms.unwrap_or(600).min(MAX_WAIT_MS);
        (timeout, self.hold_ms.unwrap_or(40))
    }
}

impl Args for StillArgs {}

/// A window's accessibility tree as nodes, or with text an outline.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotArgs {
    /// The window: an id or title from `windows`.
    pub window: Option<String>,
    /// The window of this process.
    pub pid: Option<u32>,
    /// A window id from `windows`, in place of window.
    pub id: Option<String>,
    /// Include key bindings.
    #[serde(default)]
    pub keys: bool,
    /// Include the app's menu bar (macOS only; accepted and ignored elsewhere, so it is left
    /// out of the help).
    #[serde(default)]
    #[schemars(skip)]
    pub menus: bool,
    /// Include screen bounds.
    #[serde(default)]
    pub bounds: bool,
    /// Answer an indented outline instead of JSON nodes.
    #[serde(default)]
    pub text: bool,
    /// Cut the outline at this many characters.
    pub max_chars: Option<u32>,
    /// shown (default: what is on the screen), interactive (only controls, fields and text) or all (hidden menus and pages too).
    pub view: Option<crate::a11y::View>,
    /// The most nodes to read (default 5000); a container with more children is not walked, and truncated says so.
    pub max_nodes: Option<u32>,
    /// Only what changed since your previous snapshot of the window in this view.
    #[serde(default)]
    pub changes: bool,
}

impl Args for SnapshotArgs {
    fn check(&self) -> Result<(), String> {
        if self.changes && self.text {
            return Err("changes answers JSON nodes; leave text off".into());
        }
        if self.max_chars == Some(0) {
            return Err("max_chars must be at least 1".into());
        }
        match self.max_nodes {
            Some(n) if !(1..=100_000).contains(&n) => {
                Err(format!("max_nodes must be 1 to 100000, got {n}"))
            }
            _ => Ok(()),
        }
    }
}

/// Nodes whose name matches (exact first), with their window.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindArgs {
    /// The name to look for: exact first, then case-insensitive substring.
    pub name: String,
    /// Only nodes of this role.
    pub role: Option<String>,
    /// Search this window.
    pub window: Option<String>,
    /// Search this process's window.
    pub pid: Option<u32>,
}

impl Args for FindArgs {}

/// One node with its value (and text).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// A node id from snapshot or find.
    pub id: String,
    /// Include the node's text.
    #[serde(default)]
    pub text: bool,
}

impl Args for ReadArgs {}

/// The node at a point, its ancestors and pid; covered: a window on top there.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AtArgs {
    /// x in screen pixels (with window: in the window's shot).
    pub x: i32,
    /// y in screen pixels (with window: in the window's shot).
    pub y: i32,
    /// x and y are pixels of this window's shot; read in it even where another covers it.
    pub window: Option<String>,
    /// Read in this process's window.
    pub pid: Option<u32>,
}

impl Args for AtArgs {}

/// Press keys, such as ctrl+s or alt+F4.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyArgs {
    /// The combination: modifiers and one key joined by +.
    pub keys: String,
    /// Focus this window first; with background input, the window the keys go to (required).
    pub window: Option<String>,
    /// Focus this process's window first.
    pub pid: Option<u32>,
    /// Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
    /// Wait up to this many ms (0 to 5000) for windows to open, close or retitle, or "still".
    pub settle: Option<Settle>,
}

impl Args for KeyArgs {
    fn check(&self) -> Result<(), String> {
        if self.keys.trim().is_empty() {
            return Err("keys is empty; pass a combination such as ctrl+s or Return".into());
        }
        Ok(())
    }

    fn allow_auth(&self) -> bool {
        self.allow_auth
    }

    fn settle(&self) -> Option<Settle> {
        self.settle
    }
}

/// Type text exactly, any Unicode.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeArgs {
    /// The text to type.
    pub text: String,
    /// Focus this window first; with background input, the window the text goes to (required).
    pub window: Option<String>,
    /// Focus this process's window first.
    pub pid: Option<u32>,
    /// Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
}

impl Args for TypeArgs {
    fn check(&self) -> Result<(), String> {
        if self.text.is_empty() {
            return Err("text is empty; nothing to type".into());
        }
        Ok(())
    }

    fn allow_auth(&self) -> bool {
        self.allow_auth
    }

    fn secret_fields() -> &'static [&'static str] {
        &["text"]
    }
}

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Button {
    /// The primary button.
    Left,
    /// The context-menu button.
    Right,
    /// The wheel button.
    Middle,
}

impl Button {
    /// The button's name, as the call gives it.
    pub fn name(self) -> &'static str {
        match self {
            Button::Left => "left",
            Button::Right => "right",
            Button::Middle => "middle",
        }
    }
}

/// Click at x,y.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClickArgs {
    /// x in screen pixels (with window: in the window's shot).
    pub x: i32,
    /// y in screen pixels (with window: in the window's shot).
    pub y: i32,
    /// left (default), right or middle.
    pub button: Option<Button>,
    /// 1 to 3 clicks (default 1).
    pub count: Option<u8>,
    /// x and y are pixels of this window's shot.
    pub window: Option<String>,
    /// With window: the process that owns it.
    pub pid: Option<u32>,
    /// x and y are pixels of a shot shrunk by this scale (its reply's scale: screen pixels per
    /// image pixel).
    pub scale: Option<f64>,
    /// Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
    /// Wait up to this many ms (0 to 5000) for windows to open, close or retitle, or "still".
    pub settle: Option<Settle>,
}

impl ClickArgs {
    /// The point in full-size pixels (of the screen, or with window of its shot).
    pub fn point(&self) -> (i32, i32) {
        (unscaled(self.x, self.scale), unscaled(self.y, self.scale))
    }
}

/// A coordinate of an image shrunk by `scale` (screen pixels per image pixel) in full-size
/// pixels.
fn unscaled(v: i32, scale: Option<f64>) -> i32 {
    match scale {
        Some(scale) => (f64::from(v) * scale).round() as i32,
        None => v,
    }
}

/// The scale of a shrunk image a point may be given in: a shot's reply says it, at least 1
/// (shots only shrink).
fn check_scale(scale: Option<f64>) -> Result<(), String> {
    match scale {
        Some(scale) if !(scale.is_finite() && (1.0..=64.0).contains(&scale)) => Err(format!(
            "scale must be from 1 to 64 (screen pixels per image pixel, as a shot with max_edge \
             answers it), got {scale}"
        )),
        _ => Ok(()),
    }
}

impl Args for ClickArgs {
    fn check(&self) -> Result<(), String> {
        check_scale(self.scale)?;
        match self.count {
            Some(count) if !(1..=3).contains(&count) => {
                Err(format!("count must be 1, 2 or 3, got {count}"))
            }
            _ => Ok(()),
        }
    }

    fn allow_auth(&self) -> bool {
        self.allow_auth
    }

    fn settle(&self) -> Option<Settle> {
        self.settle
    }
}

/// A scroll direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Towards the top.
    Up,
    /// Towards the bottom.
    Down,
    /// Towards the left.
    Left,
    /// Towards the right.
    Right,
}

impl Direction {
    /// The direction's name, as the call gives it.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::Left => "left",
            Direction::Right => "right",
        }
    }
}

/// Wheel notches at x,y, else at the focused window's centre.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollArgs {
    /// up, down, left or right.
    pub direction: Direction,
    /// Notches (default 3); more than 50 scroll 50.
    pub amount: Option<u32>,
    /// Screen x (with window: in the window's shot).
    pub x: Option<i32>,
    /// Screen y (with window: in the window's shot).
    pub y: Option<i32>,
    /// x and y are pixels of this window's shot.
    pub window: Option<String>,
    /// With window: the process that owns it.
    pub pid: Option<u32>,
    /// Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
}

impl ScrollArgs {
    /// Notches to scroll: 3 unless given, and at most [`MAX_SCROLL`].
    pub fn amount(&self) -> Result<u32, String> {
        match self.amount.unwrap_or(3) {
            0 => Err("amount must be at least 1 notch".into()),
            amount => Ok(amount.min(MAX_SCROLL)),
        }
    }

    /// The point to scroll at, if any; x and y go together.
    pub fn point(&self) -> Result<Option<(i32, i32)>, String> {
        match (self.x, self.y) {
            (Some(x), Some(y)) => Ok(Some((x, y))),
            (None, None) => Ok(None),
            _ => Err(
                "x and y go together: pass both, or neither to scroll the focused window".into(),
            ),
        }
    }
}

impl Args for ScrollArgs {
    fn check(&self) -> Result<(), String> {
        self.point()?;
        self.amount().map(|_| ())
    }

    fn allow_auth(&self) -> bool {
        self.allow_auth
    }
}

/// Press at x,y, move and release at to_x,to_y.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DragArgs {
    /// Start x.
    pub x: i32,
    /// Start y.
    pub y: i32,
    /// End x.
    pub to_x: i32,
    /// End y.
    pub to_y: i32,
    /// The points are pixels of this window's shot.
    pub window: Option<String>,
    /// With window: the process that owns it.
    pub pid: Option<u32>,
    /// The points are pixels of a shot shrunk by this scale (its reply's scale).
    pub scale: Option<f64>,
    /// Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
}

impl DragArgs {
    /// The start and end in full-size pixels (of the screen, or with window of its shot).
    pub fn points(&self) -> ((i32, i32), (i32, i32)) {
        let at = |v| unscaled(v, self.scale);
        ((at(self.x), at(self.y)), (at(self.to_x), at(self.to_y)))
    }
}

impl Args for DragArgs {
    fn check(&self) -> Result<(), String> {
        check_scale(self.scale)
    }

    fn allow_auth(&self) -> bool {
        self.allow_auth
    }
}

/// Press a node: select a tab, row or item, run a menu item, else click; how says which.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PressArgs {
    /// A node id from snapshot or find.
    pub id: String,
    /// Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
    /// Wait up to this many ms (0 to 5000) for windows to open, close or retitle, or "still".
    pub settle: Option<Settle>,
}

impl Args for PressArgs {
    fn allow_auth(&self) -> bool {
        self.allow_auth
    }

    fn settle(&self) -> Option<Settle> {
        self.settle
    }
}

/// One action on a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NodeAction {
    /// Click the node's centre.
    Click,
    /// Run its default action.
    Action,
    /// Select it.
    Select,
    /// Give it the keyboard focus.
    Focus,
}

/// One action on a node.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActArgs {
    /// A node id from snapshot or find.
    pub id: String,
    /// click, action, select or focus.
    pub action: NodeAction,
    /// Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
    /// Wait up to this many ms (0 to 5000) for windows to open, close or retitle, or "still".
    pub settle: Option<Settle>,
}

impl Args for ActArgs {
    fn allow_auth(&self) -> bool {
        self.allow_auth
    }

    fn settle(&self) -> Option<Settle> {
        self.settle
    }
}

/// What `set_value` puts in a node: text for a field, a number for a slider or spin button.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FieldValue {
    /// A number, for a node with a value (slider, spin button).
    Number(f64),
    /// Text, for an editable field.
    Text(String),
}

/// Replace a field's text or a slider's number; answers holds, as_asked, how.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetValueArgs {
    /// A node id from snapshot or find.
    pub id: String,
    /// The text, or a number.
    pub value: FieldValue,
    /// Let it reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
}

impl Args for SetValueArgs {
    fn check(&self) -> Result<(), String> {
        match self.value {
            FieldValue::Number(n) if !n.is_finite() => {
                Err(format!("value must be a finite number, got {n}"))
            }
            _ => Ok(()),
        }
    }

    fn allow_auth(&self) -> bool {
        self.allow_auth
    }

    fn secret_fields() -> &'static [&'static str] {
        &["value"]
    }
}

/// Pick a combo box's or list's item by name; answers holds, as_asked, how.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectOptionArgs {
    /// The combo box or list: a node id from snapshot or find.
    pub id: String,
    /// The item's name, exactly (any case).
    pub option: String,
}

impl Args for SelectOptionArgs {}

/// Insert text at a character position (default: end); answers holds, as_asked, how.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertTextArgs {
    /// A node id from snapshot or find.
    pub id: String,
    /// The text to insert.
    pub text: String,
    /// Characters before the insertion point (0 is the start); the end if left out.
    pub position: Option<u32>,
    /// Let it reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
}

impl Args for InsertTextArgs {
    fn check(&self) -> Result<(), String> {
        if self.text.is_empty() {
            return Err("text is empty; nothing to insert".into());
        }
        Ok(())
    }

    fn allow_auth(&self) -> bool {
        self.allow_auth
    }

    fn secret_fields() -> &'static [&'static str] {
        &["text"]
    }
}

/// Select characters start..end (end excluded); answers what the app selected.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectTextArgs {
    /// A node id from snapshot or find.
    pub id: String,
    /// The first character selected (0 is the start).
    pub start: u32,
    /// The character after the last one selected.
    pub end: u32,
}

impl Args for SelectTextArgs {
    fn check(&self) -> Result<(), String> {
        if self.start > self.end {
            return Err(format!(
                "start ({}) is after end ({}); pass start <= end",
                self.start, self.end
            ));
        }
        Ok(())
    }
}

/// Focus a window.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FocusArgs {
    /// An id or title from `windows`.
    pub window: Option<String>,
    /// This process's window.
    pub pid: Option<u32>,
}

impl Args for FocusArgs {
    fn check(&self) -> Result<(), String> {
        named(&self.window, self.pid)
    }
}

/// Close a window; says whether it went.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseArgs {
    /// An id or title from `windows`.
    pub window: Option<String>,
    /// This process's window.
    pub pid: Option<u32>,
}

impl Args for CloseArgs {
    fn check(&self) -> Result<(), String> {
        named(&self.window, self.pid)
    }
}

/// Move/resize a window's outer frame; answers what it got.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetFrameArgs {
    /// An id or title from `windows`.
    pub window: Option<String>,
    /// This process's window.
    pub pid: Option<u32>,
    /// New left edge.
    pub x: Option<i32>,
    /// New top edge.
    pub y: Option<i32>,
    /// New width.
    pub width: Option<u32>,
    /// New height.
    pub height: Option<u32>,
}

impl Args for SetFrameArgs {
    fn check(&self) -> Result<(), String> {
        named(&self.window, self.pid)?;
        if self.x.is_none() && self.y.is_none() && self.width.is_none() && self.height.is_none() {
            return Err("pass x and y to move the window, width and height to resize it".into());
        }
        if self.width == Some(0) || self.height == Some(0) {
            return Err("width and height must be at least 1".into());
        }
        Ok(())
    }
}

/// Minimize a window.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MinimizeArgs {
    /// An id or title from `windows`.
    pub window: Option<String>,
    /// This process's window.
    pub pid: Option<u32>,
}

impl Args for MinimizeArgs {
    fn check(&self) -> Result<(), String> {
        named(&self.window, self.pid)
    }
}

/// Maximize a window.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MaximizeArgs {
    /// An id or title from `windows`.
    pub window: Option<String>,
    /// This process's window.
    pub pid: Option<u32>,
}

impl Args for MaximizeArgs {
    fn check(&self) -> Result<(), String> {
        named(&self.window, self.pid)
    }
}

/// Undo minimize and maximize, raised.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RestoreArgs {
    /// An id or title from `windows`.
    pub window: Option<String>,
    /// This process's window.
    pub pid: Option<u32>,
}

impl Args for RestoreArgs {
    fn check(&self) -> Result<(), String> {
        named(&self.window, self.pid)
    }
}

/// Open a file or URL in its default app; answers app, pid, window.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenArgs {
    /// An absolute path or a URL.
    pub target: String,
}

impl Args for OpenArgs {
    fn check(&self) -> Result<(), String> {
        let target = self.target.trim();
        if target.is_empty() {
            return Err("target is empty; pass an absolute file path or a URL".into());
        }
        if !target.starts_with('/') && !target.contains(':') {
            return Err(format!(
                "{target:?} is neither an absolute path nor a URL; pass /path/to/file or \
                 scheme://..."
            ));
        }
        Ok(())
    }
}

/// Quit an app: close its windows, SIGTERM after grace_s, then SIGKILL; one asking (save?) stays unless force.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuitArgs {
    /// An id or title from `windows`.
    pub window: Option<String>,
    /// The app's process.
    pub pid: Option<u32>,
    /// Seconds before SIGTERM (default 5, at most 30).
    pub grace_s: Option<u64>,
    /// SIGTERM even if the app asked a question (such as whether to save) instead of closing.
    #[serde(default)]
    pub force: bool,
}

/// The longest `quit` waits for an app to close its windows.
pub const MAX_QUIT_GRACE_S: u64 = 30;

impl Args for QuitArgs {
    fn check(&self) -> Result<(), String> {
        named(&self.window, self.pid)?;
        if self.grace_s.is_some_and(|g| g > MAX_QUIT_GRACE_S) {
            return Err(format!("grace_s is at most {MAX_QUIT_GRACE_S}"));
        }
        Ok(())
    }
}

/// The most text `clipboard_write` takes and `clipboard_read` answers, in bytes of UTF-8.
pub const MAX_CLIPBOARD_TEXT: usize = 16 << 20;
/// The largest PNG the clipboard verbs take or answer, in bytes.
pub const MAX_CLIPBOARD_PNG: usize = 32 << 20;
/// The most pixels a clipboard image may have.
pub const MAX_CLIPBOARD_PIXELS: u64 = 64 << 20;
/// The most files a clipboard file list may name.
pub const MAX_CLIPBOARD_FILES: usize = 10_000;

/// What `clipboard_read` asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ClipFormat {
    /// Text (UTF-8).
    #[default]
    Text,
    /// An image, as PNG.
    Image,
    /// A list of files (paths).
    Files,
}

/// Read the clipboard; present false when empty.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClipboardReadArgs {
    /// text (default), image or files.
    #[serde(default)]
    pub format: ClipFormat,
}

impl Args for ClipboardReadArgs {}

/// Put text, a PNG file or file paths on the clipboard.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClipboardWriteArgs {
    /// Text.
    pub text: Option<String>,
    /// A PNG file's absolute path.
    pub image: Option<String>,
    /// Absolute paths of files.
    pub files: Option<Vec<String>>,
}

impl Args for ClipboardWriteArgs {
    fn secret_fields() -> &'static [&'static str] {
        &["text", "files"]
    }

    fn check(&self) -> Result<(), String> {
        let given = [
            self.text.is_some(),
            self.image.is_some(),
            self.files.is_some(),
        ];
        if given.iter().filter(|g| **g).count() != 1 {
            return Err("pass exactly one of text, image (a PNG file) or files (paths)".into());
        }
        if let Some(text) = &self.text
            && text.len() > MAX_CLIPBOARD_TEXT
        {
            return Err(format!(
                "text is {} bytes; the clipboard takes at most {MAX_CLIPBOARD_TEXT}",
                text.len()
            ));
        }
        if let Some(files) = &self.files {
            if files.is_empty() || files.len() > MAX_CLIPBOARD_FILES {
                return Err(format!("files takes 1 to {MAX_CLIPBOARD_FILES} paths"));
            }
            if let Some(relative) = files.iter().find(|f| !f.starts_with('/')) {
                return Err(format!("{relative:?} is not an absolute path"));
            }
        }
        if self.image.as_ref().is_some_and(|i| !i.starts_with('/')) {
            return Err("image is the absolute path of a PNG file".into());
        }
        Ok(())
    }
}

/// Start an app; answers pid, main window (null after 15 s), its dialogs, or an early exit's output.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LaunchArgs {
    /// The program to start: a name on PATH or an absolute path.
    pub app: String,
    /// Arguments to pass it.
    #[serde(default)]
    pub args: Vec<String>,
}

impl Args for LaunchArgs {
    fn check(&self) -> Result<(), String> {
        if self.app.trim().is_empty() {
            return Err("app is empty; pass a program name or path".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn a_snapshot_of_changes_is_json_only() {
        let args = SnapshotArgs {
            changes: true,
            text: true,
            ..SnapshotArgs::default()
        };
        assert_eq!(
            args.check().unwrap_err(),
            "changes answers JSON nodes; leave text off"
        );
    }

    #[test]
    fn waits_longer_than_five_seconds_are_cut_to_five_and_any_hold_is_taken() {
        let wait = |ms| WaitArgs {
            since: vec![],
            timeout_ms: ms,
        };
        assert_eq!(wait(Some(9000)).timeout(), MAX_WAIT_MS);
        assert_eq!(wait(None).timeout(), MAX_WAIT_MS);
        assert_eq!(wait(Some(40)).timeout(), 40);
        let still = |timeout_ms, hold_ms| StillArgs {
            timeout_ms,
            hold_ms,
        };
        assert_eq!(still(None, None).timing(), (600, 40));
        assert_eq!(still(Some(40), None).timing(), (40, 40));
        assert_eq!(still(Some(60_000), Some(700)).timing(), (MAX_WAIT_MS, 700));
        assert!(parse("desk_still", json!({"timeout_ms": 40})).is_ok());
        assert!(parse("desk_wait", json!({"since": [], "timeout_ms": 9000})).is_ok());
    }

    fn parse(tool: &str, args: Value) -> Result<DeskCall, String> {
        let verb = Verb::from_tool(tool).ok_or("unknown tool")?;
        DeskCall::parse(verb, args).map_err(|e| e.to_string())
    }

    #[test]
    fn names_round_trip() {
        for verb in Verb::ALL {
            assert_eq!(Verb::from_tool(&verb.tool_name()), Some(*verb));
            assert!(
                !verb.about().is_empty(),
                "{} has no description",
                verb.name()
            );
        }
        assert_eq!(Verb::from_tool("desk_nope"), None);
        assert_eq!(Verb::from_tool("windows"), None);
    }

    #[test]
    fn null_args_mean_none() {
        assert_eq!(
            parse("desk_windows", Value::Null).unwrap(),
            DeskCall::Windows(WindowsArgs {})
        );
    }

    #[test]
    fn argument_errors_name_the_field() {
        let cases = [
            (
                "desk_click",
                json!({"x": 1}),
                "desk_click: missing field `y`",
            ),
            (
                "desk_click",
                json!({"x": "1", "y": 2}),
                "desk_click: `x`: invalid type: string \"1\", expected i32",
            ),
            (
                "desk_click",
                json!({"x": 1, "y": 2, "button": "left2"}),
                "`button`: unknown variant `left2`",
            ),
            (
                "desk_windows",
                json!({"all": true}),
                "unknown field `all`, there are no fields",
            ),
            (
                "desk_wait",
                json!({"since": [{"title": "x"}]}),
                "desk_wait: `since[0]`: missing field `id`",
            ),
            (
                "desk_shot",
                json!({"x": 0, "y": 0}),
                "desk_shot: x, y, w and h go together",
            ),
            (
                "desk_shot",
                json!({"x": 0, "y": 0, "w": 0, "h": 5}),
                "w and h must be at least 1",
            ),
        ];
        for (tool, args, want) in cases {
            let err = parse(tool, args.clone()).unwrap_err();
            assert!(err.contains(want), "{tool} {args}: {err}");
        }
    }

    #[test]
    fn each_struct_says_what_it_allows_and_hides() {
        let typed = parse("desk_type", json!({"text": "pin", "allow_auth": true})).unwrap();
        assert!(typed.allow_auth());
        assert_eq!(Verb::Type.secret_fields(), ["text"]);
        assert!(Verb::Key.secret_fields().is_empty());
        let click = parse("desk_click", json!({"x": 1, "y": 2})).unwrap();
        assert!(!click.allow_auth());
        let launch = parse("desk_launch", json!({"app": "gedit"})).unwrap();
        assert!(!launch.allow_auth(), "launch has no allow_auth to pass");
        for (tool, args, want) in [
            ("desk_key", json!({"keys": " "}), "keys is empty"),
            ("desk_type", json!({"text": ""}), "text is empty"),
            (
                "desk_click",
                json!({"x": 1, "y": 2, "count": 4}),
                "count must be 1, 2 or 3",
            ),
            (
                "desk_scroll",
                json!({"direction": "up", "x": 1}),
                "x and y go together",
            ),
            (
                "desk_scroll",
                json!({"direction": "up", "amount": 0}),
                "amount must be at least 1",
            ),
            ("desk_focus", json!({}), "name the window"),
            ("desk_close", json!({}), "name the window"),
            ("desk_launch", json!({"app": " "}), "app is empty"),
            (
                "desk_snapshot",
                json!({"max_chars": 0}),
                "max_chars must be at least 1",
            ),
        ] {
            let err = parse(tool, args.clone()).unwrap_err();
            assert!(err.contains(want), "{tool} {args}: {err}");
        }
    }

    #[test]
    fn enum_names_are_what_calls_pass() {
        for (name, button) in [
            ("left", Button::Left),
            ("right", Button::Right),
            ("middle", Button::Middle),
        ] {
            assert_eq!(button.name(), name);
            assert_eq!(
                serde_json::from_value::<Button>(json!(name)).unwrap(),
                button
            );
        }
        for direction in [
            Direction::Up,
            Direction::Down,
            Direction::Left,
            Direction::Right,
        ] {
            assert_eq!(
                serde_json::from_value::<Direction>(json!(direction.name())).unwrap(),
                direction
            );
        }
    }
}
