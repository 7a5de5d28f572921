//! The desk verbs and their arguments.
//!
//! Each verb's arguments are a struct that refuses unknown fields, so a misspelt argument is an
//! error rather than silently ignored. The structs' doc comments are the user-facing help: the
//! CLI's `--help` and the MCP tool description are generated from their JSON schemas, so the
//! documentation and the decoder cannot drift apart.

use schemars::{JsonSchema, Schema};
use serde::Deserialize;
use serde_json::Value;

use crate::geometry::Rect;
use crate::window::Window;

/// Whether a verb only observes the desk or acts on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerbKind {
    /// Reads run alongside everything else.
    Read,
    /// Actions take the desk turn: one at a time, so two agents never type at once.
    Action,
}

/// Why a call's arguments were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{tool}: {reason}")]
pub struct ArgsError {
    /// The wire tool, such as `desk_click`.
    pub tool: String,
    /// What is wrong and how to fix it.
    pub reason: String,
}

impl ArgsError {
    fn new(verb: Verb, reason: impl Into<String>) -> Self {
        Self {
            tool: verb.tool_name(),
            reason: reason.into(),
        }
    }
}

macro_rules! verbs {
    ($($variant:ident($args:ident) = $name:literal, $kind:ident;)*) => {
        /// A desk verb; on the wire it is the tool `desk_<name>`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Verb {
            $(#[doc = concat!("`", $name, "`")] $variant,)*
        }

        impl Verb {
            /// Every verb, in the order help lists them.
            pub const ALL: &'static [Verb] = &[$(Verb::$variant,)*];

            /// The verb's name, as `shuttle desk` and the MCP `desk` tool take it.
            pub fn name(self) -> &'static str {
                match self { $(Verb::$variant => $name,)* }
            }

            /// The verb a name stands for.
            pub fn from_name(name: &str) -> Option<Self> {
                match name { $($name => Some(Verb::$variant),)* _ => None }
            }

            /// Whether the verb reads or acts.
            pub fn kind(self) -> VerbKind {
                match self { $(Verb::$variant => VerbKind::$kind,)* }
            }

            /// The JSON schema of the verb's arguments.
            pub fn schema(self) -> Schema {
                match self { $(Verb::$variant => schemars::schema_for!($args),)* }
            }
        }

        /// A desk call: a verb with its decoded arguments.
        #[derive(Debug, Clone, PartialEq)]
        pub enum DeskCall {
            $(#[doc = concat!("`", $name, "`")] $variant($args),)*
        }

        impl DeskCall {
            /// Decodes `args` (an object, or null for none) for `verb`, then checks the values.
            pub fn parse(verb: Verb, args: Value) -> Result<Self, ArgsError> {
                let args = match args {
                    Value::Null => Value::Object(Default::default()),
                    other => other,
                };
                let call = match verb {
                    $(Verb::$variant => DeskCall::$variant(decode(verb, args)?),)*
                };
                call.check().map_err(|reason| ArgsError::new(verb, reason))?;
                Ok(call)
            }

            /// The call's verb.
            pub fn verb(&self) -> Verb {
                match self { $(DeskCall::$variant(_) => Verb::$variant,)* }
            }
        }
    };
}

verbs! {
    Windows(WindowsArgs) = "windows", Read;
    Screen(ScreenArgs) = "screen", Read;
    Shot(ShotArgs) = "shot", Read;
    Unanswered(UnansweredArgs) = "unanswered", Read;
    Wait(WaitArgs) = "wait", Read;
    Still(StillArgs) = "still", Read;
    Snapshot(SnapshotArgs) = "snapshot", Read;
    Find(FindArgs) = "find", Read;
    Read(ReadArgs) = "read", Read;
    At(AtArgs) = "at", Read;
    Key(KeyArgs) = "key", Action;
    Type(TypeArgs) = "type", Action;
    Click(ClickArgs) = "click", Action;
    Scroll(ScrollArgs) = "scroll", Action;
    Drag(DragArgs) = "drag", Action;
    Press(PressArgs) = "press", Action;
    Act(ActArgs) = "act", Action;
    Focus(FocusArgs) = "focus", Action;
    Close(CloseArgs) = "close", Action;
    Launch(LaunchArgs) = "launch", Action;
}

impl Verb {
    /// The wire tool that runs this verb: `desk_<name>`.
    pub fn tool_name(self) -> String {
        format!("desk_{}", self.name())
    }

    /// The verb a wire tool name (`desk_<name>`) runs.
    pub fn from_tool(tool: &str) -> Option<Self> {
        tool.strip_prefix("desk_").and_then(Self::from_name)
    }

    /// The one-line description from the arguments' doc comment.
    pub fn about(self) -> String {
        self.schema()
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    }

    /// The verb's arguments, in declaration order.
    pub fn fields(self) -> Vec<Field> {
        let schema = self.schema();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return Vec::new();
        };
        props
            .iter()
            .map(|(name, prop)| Field {
                name: name.clone(),
                required: required.contains(&name.as_str()),
                kind: FieldKind::of(prop, schema.as_value()),
                choices: choices(prop, schema.as_value()),
                about: prop
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            })
            .collect()
    }

    /// `click x y button?(left|right|middle) count? window? pid?`: a compact signature for
    /// help texts.
    pub fn signature(self) -> String {
        let mut out = self.name().to_string();
        for f in self.fields() {
            out.push(' ');
            out.push_str(&f.name);
            if !f.required {
                out.push('?');
            }
            if !f.choices.is_empty() {
                out.push_str(&format!("({})", f.choices.join("|")));
            }
        }
        out
    }
}

/// The values an enum argument accepts, in declaration order; empty for other arguments.
fn choices(prop: &Value, root: &Value) -> Vec<String> {
    let resolve = |v: &Value| -> Option<Value> {
        let target = v.get("$ref")?.as_str()?.strip_prefix("#/$defs/")?;
        root.get("$defs")?.get(target).cloned()
    };
    let mut values = Vec::new();
    let mut pending = vec![resolve(prop).unwrap_or_else(|| prop.clone())];
    while let Some(node) = pending.pop() {
        if let Some(value) = node.get("const").and_then(Value::as_str) {
            values.push(value.to_string());
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(alternatives)) = node.get(key) {
                for alt in alternatives.iter().rev() {
                    pending.push(resolve(alt).unwrap_or_else(|| alt.clone()));
                }
            }
        }
    }
    values
}

/// One argument of a verb, read from its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The argument's name.
    pub name: String,
    /// Whether the call must pass it.
    pub required: bool,
    /// What kind of JSON value it takes.
    pub kind: FieldKind,
    /// For an enum, the values it accepts.
    pub choices: Vec<String>,
    /// Its description.
    pub about: String,
}

/// The JSON kind an argument takes, so a shell's `key=value` can be turned into the right value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A string (text, titles, names, enum choices).
    String,
    /// A whole number.
    Integer,
    /// true or false.
    Boolean,
    /// Anything else: passed as JSON.
    Json,
}

impl FieldKind {
    fn of(prop: &Value, root: &Value) -> Self {
        if let Some(target) = prop.get("$ref").and_then(Value::as_str) {
            return target
                .strip_prefix("#/$defs/")
                .and_then(|name| root.get("$defs")?.get(name))
                .map_or(Self::Json, |def| Self::of(def, root));
        }
        let alternatives = prop.get("anyOf").or_else(|| prop.get("oneOf"));
        if let Some(Value::Array(alternatives)) = alternatives {
            let mut kinds = alternatives
                .iter()
                .filter(|alt| alt.get("type").and_then(Value::as_str) != Some("null"))
                .map(|alt| Self::of(alt, root));
            let first = kinds.next().unwrap_or(Self::Json);
            return if kinds.all(|k| k == first) {
                first
            } else {
                Self::Json
            };
        }
        let types: Vec<&str> = match prop.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        match types
            .into_iter()
            .filter(|t| *t != "null")
            .collect::<Vec<_>>()
            .as_slice()
        {
            ["string"] => Self::String,
            ["integer"] => Self::Integer,
            ["boolean"] => Self::Boolean,
            _ => Self::Json,
        }
    }
}

fn decode<T: for<'de> Deserialize<'de>>(verb: Verb, args: Value) -> Result<T, ArgsError> {
    serde_path_to_error::deserialize(args)
        .map_err(|e| ArgsError::new(verb, crate::wire::message::describe_path_error(&e)))
}

impl DeskCall {
    /// Whether the call lets input reach a password field or an authentication dialog.
    pub fn allow_auth(&self) -> bool {
        match self {
            DeskCall::Key(a) => a.allow_auth,
            DeskCall::Type(a) => a.allow_auth,
            DeskCall::Click(a) => a.allow_auth,
            DeskCall::Scroll(a) => a.allow_auth,
            DeskCall::Drag(a) => a.allow_auth,
            DeskCall::Press(a) => a.allow_auth,
            DeskCall::Act(a) => a.allow_auth,
            _ => false,
        }
    }
}

impl DeskCall {
    /// Checks values that the types alone do not rule out.
    fn check(&self) -> Result<(), String> {
        match self {
            DeskCall::Shot(a) => a.rect().map(|_| ()),
            DeskCall::Key(a) if a.keys.trim().is_empty() => {
                Err("keys is empty; pass a combination such as ctrl+s or Return".into())
            }
            DeskCall::Type(a) if a.text.is_empty() => Err("text is empty; nothing to type".into()),
            DeskCall::Click(a) => match a.count {
                Some(count) if !(1..=3).contains(&count) => {
                    Err(format!("count must be 1, 2 or 3, got {count}"))
                }
                _ => Ok(()),
            },
            DeskCall::Scroll(a) => a.point().map(|_| ()).and_then(|()| a.amount().map(|_| ())),
            DeskCall::Wait(a) => a.timeout().map(|_| ()),
            DeskCall::Still(a) => a.timing().map(|_| ()),
            DeskCall::Focus(FocusArgs { window, pid })
            | DeskCall::Close(CloseArgs { window, pid })
                if window.is_none() && pid.is_none() =>
            {
                Err("name the window: pass window (an id or title from windows) or pid".into())
            }
            DeskCall::Launch(a) if a.app.trim().is_empty() => {
                Err("app is empty; pass a program name or path".into())
            }
            DeskCall::Snapshot(SnapshotArgs {
                max_chars: Some(0), ..
            }) => Err("max_chars must be at least 1".into()),
            _ => Ok(()),
        }
    }
}

/// The longest `wait` and `still` may wait.
pub const MAX_WAIT_MS: u64 = 5000;

/// List the top-level windows, topmost first: id, title, role, pid, active, app.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WindowsArgs {}

/// The screen's width and height in pixels.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScreenArgs {}

/// A PNG of the screen, of a rectangle x,y,w,h of it, or of one window (then x,y,w,h crop the window's image and origin gives the crop's top left in it).
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

/// The window that has the focus while its app no longer answers accessibility (busy or blocked), or null.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnansweredArgs {}

/// Wait until the window list differs from `since`, or timeout_ms passes; answers changed and windows.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// A result of `windows` to compare against.
    pub since: Vec<Window>,
    /// How long to wait, at most 5000 ms.
    pub timeout_ms: Option<u64>,
}

impl WaitArgs {
    /// How long to wait: 5000 ms unless given, and at most that.
    pub fn timeout(&self) -> Result<u64, String> {
        match self.timeout_ms.unwrap_or(MAX_WAIT_MS) {
            ms @ 0..=MAX_WAIT_MS => Ok(ms),
            other => Err(format!(
                "timeout_ms must be at most {MAX_WAIT_MS}, got {other}"
            )),
        }
    }
}

/// Wait until the screen stops changing for hold_ms, or timeout_ms passes; answers still, changed, ms, volatile.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StillArgs {
    /// Give up after this long (default 600, at most 5000).
    pub timeout_ms: Option<u64>,
    /// How long the screen must stay unchanged (default 40).
    pub hold_ms: Option<u64>,
}

impl StillArgs {
    /// `(timeout_ms, hold_ms)`: 600 and 40 unless given; the timeout at most 5000, the hold
    /// shorter than the timeout.
    pub fn timing(&self) -> Result<(u64, u64), String> {
        let timeout = self.timeout_ms.unwrap_or(600);
        let hold = self.hold_ms.unwrap_or(40);
        if timeout > MAX_WAIT_MS {
            return Err(format!(
                "timeout_ms must be at most {MAX_WAIT_MS}, got {timeout}"
            ));
        }
        if hold == 0 || hold >= timeout {
            return Err(format!(
                "hold_ms must be at least 1 and less than timeout_ms ({timeout}), got {hold}"
            ));
        }
        Ok((timeout, hold))
    }
}

/// A window's accessibility tree as nodes, or as an indented outline with text.
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
}

/// The window and the accessibility nodes whose name matches.
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

/// One accessibility node with its value and text.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// A node id from snapshot or find.
    pub id: String,
    /// Include the node's text.
    #[serde(default)]
    pub text: bool,
}

/// The accessibility node at a screen point, its ancestors and its process.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AtArgs {
    /// Screen x.
    pub x: i32,
    /// Screen y.
    pub y: i32,
    /// Read in this window.
    pub window: Option<String>,
    /// Read in this process's window.
    pub pid: Option<u32>,
}

/// Press a key combination, such as ctrl+s or alt+F4.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyArgs {
    /// The combination: modifiers and one key joined by +.
    pub keys: String,
    /// Focus this window first.
    pub window: Option<String>,
    /// Focus this process's window first.
    pub pid: Option<u32>,
    /// Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
}

/// Type text exactly, any Unicode.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeArgs {
    /// The text to type.
    pub text: String,
    /// Focus this window first.
    pub window: Option<String>,
    /// Focus this process's window first.
    pub pid: Option<u32>,
    /// Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
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

/// Click at a screen point, or with window at a pixel of that window's shot.
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
    /// Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
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

/// Scroll wheel notches at a point, or at the centre of the focused app's window.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollArgs {
    /// up, down, left or right.
    pub direction: Direction,
    /// Notches (default 3, at most 50).
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
    /// Notches to scroll: 3 unless given, and 1 to 50.
    pub fn amount(&self) -> Result<u32, String> {
        match self.amount.unwrap_or(3) {
            amount @ 1..=50 => Ok(amount),
            other => Err(format!("amount must be 1 to 50 notches, got {other}")),
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
    /// Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
}

/// Press an accessibility node: select a tab or row, run a menu item, else click it.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PressArgs {
    /// A node id from snapshot or find.
    pub id: String,
    /// Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise.
    #[serde(default)]
    pub allow_auth: bool,
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

/// One action on an accessibility node: click, action, select or focus.
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

/// Close a window and report whether it went away.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseArgs {
    /// An id or title from `windows`.
    pub window: Option<String>,
    /// This process's window.
    pub pid: Option<u32>,
}

/// Start an app detached; answers its pid and, once mapped, its window.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LaunchArgs {
    /// The program to start: a name on PATH or an absolute path.
    pub app: String,
    /// Arguments to pass it.
    #[serde(default)]
    pub args: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    fn fields_come_from_the_structs() {
        let fields = Verb::Click.fields();
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["x", "y", "button", "count", "window", "pid", "allow_auth"]
        );
        assert_eq!(fields[6].kind, FieldKind::Boolean);
        assert!(!fields[6].required);
        assert!(fields[0].required && !fields[2].required);
        assert_eq!(fields[0].kind, FieldKind::Integer);
        assert_eq!(fields[2].kind, FieldKind::String);
        assert_eq!(fields[4].kind, FieldKind::String);
        assert_eq!(Verb::Wait.fields()[0].kind, FieldKind::Json);
        assert_eq!(Verb::Snapshot.fields()[3].kind, FieldKind::Boolean);
        assert_eq!(
            Verb::Click.signature(),
            "click x y button?(left|right|middle) count? window? pid? allow_auth?"
        );
        assert_eq!(
            Verb::Scroll.signature(),
            "scroll direction(up|down|left|right) amount? x? y? window? pid? allow_auth?"
        );
        assert_eq!(fields[2].choices, ["left", "right", "middle"]);
        assert_eq!(Verb::Windows.signature(), "windows");
    }
}
