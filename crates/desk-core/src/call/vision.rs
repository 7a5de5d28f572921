//! The vision verbs' arguments: a screenshot-driven agent's view of the desk, by screenshot
//! pixels and element indexes instead of window ids and node ids.
//!
//! Coordinates here are pixels of the screenshot the agent was shown; the desk maps them to
//! the screen by the session's scale. Everything a list of actions could get wrong is checked
//! before its first step runs.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::Args;
use super::args::{Button, Direction};

/// The most elements `computer_state` lists.
pub const MAX_ELEMENTS: usize = 300;
/// The long edge of a screenshot unless the call says otherwise.
pub const DEFAULT_MAX_EDGE: u32 = 1024;
/// The smallest long edge a scaled screenshot may have (0 asks for full size).
pub const MIN_MAX_EDGE: u32 = 64;
/// The longest `wait` step, in seconds.
pub const MAX_WAIT_S: f64 = 10.0;
/// The most steps one `computer_act` list may hold.
pub const MAX_STEPS: usize = 50;

fn check_max_edge(max_edge: Option<u32>) -> Result<(), String> {
    match max_edge {
        Some(edge) if edge != 0 && edge < MIN_MAX_EDGE => Err(format!(
            "max_edge must be 0 (full size) or at least {MIN_MAX_EDGE}, got {edge}"
        )),
        _ => Ok(()),
    }
}

fn check_session(session: &Option<String>) -> Result<(), String> {
    match session {
        Some(name) if name.trim().is_empty() => {
            Err("session must name a session; leave it out to use your default one".into())
        }
        _ => Ok(()),
    }
}

/// Windows frontmost first, modal dialogs the screen hides, the front app's (or pid's, window_id's) elements as [index] with centres, a JPEG of max_edge (1024; 0: full size).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComputerStateArgs {
    /// Whose elements and scale to keep (default: your own session).
    pub session: Option<String>,
    /// List the elements of this process's frontmost window.
    pub pid: Option<u32>,
    /// List the elements of this window (an id from windows).
    pub window_id: Option<String>,
    /// Keep only elements whose role, name or value contains this (any case).
    pub query: Option<String>,
    /// Long edge of the screenshot in pixels (default 1024; 0 = full size).
    pub max_edge: Option<u32>,
    /// List only windows shown on the current workspace.
    #[serde(default)]
    pub workspace_only: bool,
}

impl Args for ComputerStateArgs {
    fn check(&self) -> Result<(), String> {
        check_session(&self.session)?;
        check_max_edge(self.max_edge)
    }
}

/// What one `computer_act` step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// A left click (the same as left_click).
    Click,
    /// A left click.
    LeftClick,
    /// Two left clicks.
    DoubleClick,
    /// A right click.
    RightClick,
    /// Three left clicks (selects a line).
    TripleClick,
    /// Types text (after a click on element or x,y when given).
    Type,
    /// Presses one key or combination, such as Return or ctrl+s.
    Key,
    /// Presses keys together, such as ["ctrl", "shift", "t"].
    Hotkey,
    /// Turns the wheel at element or x,y (default: the focused window's centre).
    Scroll,
    /// Drags from element or x,y to to_x,to_y.
    Drag,
    /// Waits for seconds, then for the screen to be still.
    Wait,
    /// Starts an app by name or path.
    LaunchApp,
}

impl Action {
    /// The action's name, as the call gives it.
    pub fn name(self) -> &'static str {
        match self {
            Action::Click => "click",
            Action::LeftClick => "left_click",
            Action::DoubleClick => "double_click",
            Action::RightClick => "right_click",
            Action::TripleClick => "triple_click",
            Action::Type => "type",
            Action::Key => "key",
            Action::Hotkey => "hotkey",
            Action::Scroll => "scroll",
            Action::Drag => "drag",
            Action::Wait => "wait",
            Action::LaunchApp => "launch_app",
        }
    }

    /// For a click, its button and count.
    pub fn click(self) -> Option<(Button, u8)> {
        match self {
            Action::Click | Action::LeftClick => Some((Button::Left, 1)),
            Action::DoubleClick => Some((Button::Left, 2)),
            Action::TripleClick => Some((Button::Left, 3)),
            Action::RightClick => Some((Button::Right, 1)),
            _ => None,
        }
    }

    /// The fields the action reads besides `action`; `button` only for `click`.
    fn fields(self) -> &'static [&'static str] {
        match self {
            Action::Click => &["element", "x", "y", "button", "foreground"],
            Action::LeftClick | Action::DoubleClick | Action::RightClick | Action::TripleClick => {
                &["element", "x", "y", "foreground"]
            }
            Action::Type => &["text", "element", "x", "y", "foreground"],
            Action::Key => &["key"],
            Action::Hotkey => &["keys"],
            Action::Scroll => &["direction", "amount", "element", "x", "y", "foreground"],
            Action::Drag => &["element", "x", "y", "to_x", "to_y", "foreground"],
            Action::Wait => &["seconds"],
            Action::LaunchApp => &["app"],
        }
    }
}

/// Where a step aims: an element of the session's latest state, or a screenshot pixel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Aim {
    /// Element `[index]`.
    Element(u32),
    /// A pixel of the screenshot.
    Point {
        /// x in screenshot pixels.
        x: f64,
        /// y in screenshot pixels.
        y: f64,
    },
}

/// One `computer_act` step, checked once: each kind holds exactly what it needs, so a step
/// that reaches the desk cannot be malformed.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A click of some kind.
    Click {
        /// Which click action it was.
        action: Action,
        /// The button.
        button: Button,
        /// 1, 2 or 3 clicks.
        count: u8,
        /// Where.
        aim: Aim,
    },
    /// Text typed, after a click at `aim` when given.
    Type {
        /// The characters, never empty.
        text: String,
        /// Where to click first.
        aim: Option<Aim>,
    },
    /// A key or hotkey step as one combination such as `ctrl+s`.
    Key {
        /// key or hotkey.
        action: Action,
        /// The combination.
        keys: String,
    },
    /// Wheel notches at `aim`, else at the focused window's centre.
    Scroll {
        /// Which way.
        direction: Direction,
        /// Notches, at least 1.
        amount: u32,
        /// Where.
        aim: Option<Aim>,
    },
    /// A drag from `from` to the screenshot pixel `to`.
    Drag {
        /// Where it starts.
        from: Aim,
        /// Where it ends, in screenshot pixels.
        to: (f64, f64),
    },
    /// A pause.
    Wait {
        /// How long, in seconds: above 0, at most [`MAX_WAIT_S`].
        seconds: f64,
    },
    /// An app started by name or path.
    LaunchApp {
        /// The app.
        app: String,
    },
}

impl Step {
    /// The action the step came from.
    pub fn action(&self) -> Action {
        match self {
            Step::Click { action, .. } | Step::Key { action, .. } => *action,
            Step::Type { .. } => Action::Type,
            Step::Scroll { .. } => Action::Scroll,
            Step::Drag { .. } => Action::Drag,
            Step::Wait { .. } => Action::Wait,
            Step::LaunchApp { .. } => Action::LaunchApp,
        }
    }

    /// Where the step aims first, when it aims.
    pub fn aim(&self) -> Option<Aim> {
        match self {
            Step::Click { aim, .. } | Step::Drag { from: aim, .. } => Some(*aim),
            Step::Type { aim, .. } | Step::Scroll { aim, .. } => *aim,
            Step::Key { .. } | Step::Wait { .. } | Step::LaunchApp { .. } => None,
        }
    }
}

/// One action of `computer_act`, by element index or screenshot pixels.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
pub struct ActStep {
    /// What to do.
    pub action: Option<Action>,
    /// An element [index] from the session's latest computer_state.
    pub element: Option<u32>,
    /// x in screenshot pixels.
    pub x: Option<f64>,
    /// y in screenshot pixels.
    pub y: Option<f64>,
    /// drag's end x in screenshot pixels.
    pub to_x: Option<f64>,
    /// drag's end y in screenshot pixels.
    pub to_y: Option<f64>,
    /// type's text.
    pub text: Option<String>,
    /// key's key or combination, such as Return or ctrl+s.
    pub key: Option<String>,
    /// hotkey's keys, pressed together.
    pub keys: Option<Vec<String>>,
    /// scroll's direction.
    pub direction: Option<Direction>,
    /// scroll's notches (default 3).
    pub amount: Option<u32>,
    /// launch_app's app: a name on PATH or an absolute path.
    pub app: Option<String>,
    /// click's button (default left).
    pub button: Option<Button>,
    /// wait's seconds (up to 10).
    pub seconds: Option<f64>,
    /// Accepted for other desks; on Linux input at a point always goes in the foreground.
    pub foreground: Option<bool>,
    /// Fields no action takes, kept to refuse them by name.
    #[serde(flatten)]
    #[schemars(skip)]
    pub unknown: BTreeMap<String, Value>,
}

impl ActStep {
    /// The step's screenshot point, when it names one.
    pub fn point(&self) -> Option<(f64, f64)> {
        self.x.zip(self.y)
    }

    /// Checks the step on its own and resolves it into the [`Step`] it stands for; the error
    /// says what to pass.
    pub fn resolve(&self) -> Result<Step, String> {
        if let Some(field) = self.unknown.keys().next() {
            return Err(format!("unknown field `{field}`"));
        }
        let action = self.action.ok_or(
            "pass action: click, left_click, double_click, right_click, triple_click, type, key, \
             hotkey, scroll, drag, wait or launch_app",
        )?;
        let name = action.name();
        for (field, given) in self.given() {
            if given && !action.fields().contains(&field) {
                return Err(format!("{name} takes no {field}"));
            }
        }
        if self.x.is_some() != self.y.is_some() {
            return Err(format!("{name}: pass x and y together"));
        }
        if self.element.is_some() && self.x.is_some() {
            return Err(format!("{name}: pass element or x,y, not both"));
        }
        for (field, value) in [
            ("x", self.x),
            ("y", self.y),
            ("to_x", self.to_x),
            ("to_y", self.to_y),
        ] {
            if let Some(v) = value
                && !(v.is_finite() && v >= 0.0)
            {
                return Err(format!(
                    "{field} must be a pixel of the screenshot (0 or more), got {v}"
                ));
            }
        }
        let aim = match (self.element, self.point()) {
            (Some(index), _) => Some(Aim::Element(index)),
            (None, Some((x, y))) => Some(Aim::Point { x, y }),
            (None, None) => None,
        };
        let present = |text: &Option<String>| text.clone().filter(|t| !t.trim().is_empty());
        Ok(match action {
            Action::Click
            | Action::LeftClick
            | Action::DoubleClick
            | Action::RightClick
            | Action::TripleClick => {
                let (button, count) = action.click().unwrap_or((Button::Left, 1));
                Step::Click {
                    action,
                    button: self.button.unwrap_or(button),
                    count,
                    aim: aim.ok_or_else(|| format!("{name}: pass element, or x and y"))?,
                }
            }
            Action::Type => Step::Type {
                text: self
                    .text
                    .clone()
                    .filter(|t| !t.is_empty())
                    .ok_or("type: pass text, the characters to type")?,
                aim,
            },
            Action::Key => Step::Key {
                action,
                keys: present(&self.key).ok_or("key: pass key, such as Return or ctrl+s")?,
            },
            Action::Hotkey => Step::Key {
                action,
                keys: self
                    .keys
                    .as_ref()
                    .filter(|keys| !keys.is_empty())
                    .map(|keys| keys.join("+"))
                    .ok_or("hotkey: pass keys, such as [\"ctrl\", \"s\"]")?,
            },
            Action::Scroll => Step::Scroll {
                direction: self
                    .direction
                    .ok_or("scroll: pass direction: up, down, left or right")?,
                amount: match self.amount {
                    Some(0) => return Err("scroll: amount must be at least 1".into()),
                    amount => amount.unwrap_or(3),
                },
                aim,
            },
            Action::Drag => match (aim, self.to_x.zip(self.to_y)) {
                (Some(from), Some(to)) => Step::Drag { from, to },
                _ => return Err("drag: pass element or x,y to start and to_x, to_y to end".into()),
            },
            Action::Wait => match self.seconds {
                None => return Err("wait: pass seconds".into()),
                Some(s) if !(s.is_finite() && s > 0.0 && s <= MAX_WAIT_S) => {
                    return Err(format!(
                        "wait: seconds must be above 0 and at most {MAX_WAIT_S}, got {s}"
                    ));
                }
                Some(seconds) => Step::Wait { seconds },
            },
            Action::LaunchApp => Step::LaunchApp {
                app: present(&self.app).ok_or("launch_app: pass app, such as gnome-calculator")?,
            },
        })
    }

    /// Each optional field and whether the step gives it.
    fn given(&self) -> [(&'static str, bool); 14] {
        [
            ("element", self.element.is_some()),
            ("x", self.x.is_some()),
            ("y", self.y.is_some()),
            ("to_x", self.to_x.is_some()),
            ("to_y", self.to_y.is_some()),
            ("text", self.text.is_some()),
            ("key", self.key.is_some()),
            ("keys", self.keys.is_some()),
            ("direction", self.direction.is_some()),
            ("amount", self.amount.is_some()),
            ("app", self.app.is_some()),
            ("button", self.button.is_some()),
            ("seconds", self.seconds.is_some()),
            ("foreground", self.foreground.is_some()),
        ]
    }

    fn is_empty(&self) -> bool {
        self.action.is_none() && self.given().iter().all(|(_, given)| !given)
    }
}

/// One action, or actions run in order to the first failure (a bad list runs none), each waited out until the screen is still; answers what each did, changed windows, a screenshot.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
pub struct ComputerActRequest {
    /// Whose elements and scale to use (default: your own session).
    pub session: Option<String>,
    /// Instead of one action: a list of them (up to 50), each an object of the same fields.
    pub actions: Option<Vec<ActStep>>,
    /// Long edge of the screenshot that follows (default: as the latest; 0 = full size).
    pub max_edge: Option<u32>,
    /// Screen pixels per screenshot pixel of the image you read x,y on (default: the latest).
    pub scale: Option<f64>,
    /// The one action, when there is no list.
    #[serde(flatten)]
    pub step: ActStep,
}

/// `computer_act`'s arguments once checked: the request's steps resolved, once, into
/// [`Step`]s. It decodes from a [`ComputerActRequest`], and its schema is the request's.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "ComputerActRequest")]
pub struct ComputerActArgs {
    /// Whose elements and scale to use.
    pub session: Option<String>,
    /// The steps, in order: at least one.
    pub steps: Vec<Step>,
    /// Long edge of the screenshot that follows.
    pub max_edge: Option<u32>,
    /// Screen pixels per screenshot pixel of the image x,y were read on.
    pub scale: Option<f64>,
}

impl TryFrom<ComputerActRequest> for ComputerActArgs {
    type Error = String;

    fn try_from(request: ComputerActRequest) -> Result<Self, String> {
        check_session(&request.session)?;
        check_max_edge(request.max_edge)?;
        if let Some(field) = request.step.unknown.keys().next() {
            return Err(format!("unknown field `{field}`"));
        }
        if let Some(scale) = request.scale
            && !(scale.is_finite() && scale > 0.0)
        {
            return Err(format!(
                "scale must be a positive number (screen pixels per screenshot pixel), got {scale}"
            ));
        }
        let steps = match &request.actions {
            Some(list) => {
                if !request.step.is_empty() {
                    return Err(
                        "pass either actions (a list) or one action's fields, not both".into(),
                    );
                }
                if list.is_empty() {
                    return Err("actions is empty; pass at least one action".into());
                }
                if list.len() > MAX_STEPS {
                    return Err(format!(
                        "actions holds {} steps; at most {MAX_STEPS} run in one call",
                        list.len()
                    ));
                }
                list.iter()
                    .enumerate()
                    .map(|(i, step)| {
                        step.resolve().map_err(|e| {
                            format!("step {} of {}: {e}; no step was run", i + 1, list.len())
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?
            }
            None => vec![request.step.resolve()?],
        };
        Ok(Self {
            session: request.session,
            steps,
            max_edge: request.max_edge,
            scale: request.scale,
        })
    }
}

impl JsonSchema for ComputerActArgs {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        ComputerActRequest::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        ComputerActRequest::json_schema(generator)
    }
}

impl Args for ComputerActArgs {
    fn secret_fields() -> &'static [&'static str] {
        &["text"]
    }
}

/// End a session, forgetting its elements and scale.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComputerEndArgs {
    /// The session to end.
    pub session: String,
}

impl Args for ComputerEndArgs {
    fn check(&self) -> Result<(), String> {
        check_session(&Some(self.session.clone()))
    }
}

/// Screen pixels per pixel of the session's latest screenshot.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComputerScaleArgs {
    /// Whose scale (default: your own session).
    pub session: Option<String>,
}

impl Args for ComputerScaleArgs {
    fn check(&self) -> Result<(), String> {
        check_session(&self.session)
    }
}

/// A rectangle of the latest screenshot, in its pixels.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Region {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

/// A screenshot of max_edge, or region {x,y,w,h} of the latest at full size, with how its pixels map to x,y.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LookArgs {
    /// Whose scale to read region by and to update (default: your own session).
    pub session: Option<String>,
    /// Long edge of a whole-screen image (default 1024; 0 = full size).
    pub max_edge: Option<u32>,
    /// Accepted for other desks: the screen shows only the current workspace.
    #[serde(default)]
    pub workspace_only: bool,
    /// {x, y, w, h} in pixels of the session's latest screenshot: that part at full resolution.
    pub region: Option<Region>,
}

impl Args for LookArgs {
    fn check(&self) -> Result<(), String> {
        check_session(&self.session)?;
        check_max_edge(self.max_edge)?;
        if let Some(r) = self.region {
            let finite = [r.x, r.y, r.w, r.h].iter().all(|v| v.is_finite());
            if !finite || r.x < 0.0 || r.y < 0.0 || r.w < 1.0 || r.h < 1.0 {
                return Err(format!(
                    "region must have x, y of 0 or more and w, h of at least 1, got {{x: {}, y: \
                     {}, w: {}, h: {}}}",
                    r.x, r.y, r.w, r.h
                ));
            }
        }
        Ok(())
    }
}

/// Whether a point shows a window title (title bar, panel).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TitleAtArgs {
    /// x in screen pixels.
    pub x: i32,
    /// y in screen pixels.
    pub y: i32,
}

impl Args for TitleAtArgs {}

#[cfg(test)]
mod tests {
    use super::super::{DeskCall, Verb};
    use serde_json::json;

    fn refused(verb: Verb, args: serde_json::Value) -> String {
        DeskCall::parse(verb, args).unwrap_err().to_string()
    }

    #[test]
    fn one_action_or_a_list() {
        let one =
            DeskCall::parse(Verb::ComputerAct, json!({"action": "click", "element": 3})).unwrap();
        let DeskCall::ComputerAct(args) = one else {
            panic!()
        };
        assert_eq!(args.steps.len(), 1);
        assert_eq!(args.steps[0].aim(), Some(super::Aim::Element(3)));
        let list = DeskCall::parse(
            Verb::ComputerAct,
            json!({"actions": [
                {"action": "type", "text": "hi"},
                {"action": "key", "key": "Return"},
                {"action": "scroll", "direction": "down", "x": 10, "y": 20.5}
            ], "scale": 1.875}),
        )
        .unwrap();
        let DeskCall::ComputerAct(args) = list else {
            panic!()
        };
        assert_eq!(args.steps.len(), 3);
        assert_eq!(
            args.steps[2],
            super::Step::Scroll {
                direction: super::Direction::Down,
                amount: 3,
                aim: Some(super::Aim::Point { x: 10.0, y: 20.5 })
            }
        );
    }

    #[test]
    fn a_bad_step_refuses_the_whole_list_naming_it() {
        let e = refused(
            Verb::ComputerAct,
            json!({"actions": [{"action": "click", "x": 1, "y": 2}, {"action": "fly"}]}),
        );
        assert!(e.contains("actions[1].action") || e.contains("fly"), "{e}");
        let e = refused(
            Verb::ComputerAct,
            json!({"actions": [{"action": "key", "key": "a"}, {"action": "type"}]}),
        );
        assert!(e.contains("step 2 of 2: type: pass text"), "{e}");
        assert!(e.contains("no step was run"), "{e}");
        let e = refused(
            Verb::ComputerAct,
            json!({"actions": [{"action": "click", "element": 1, "colour": "red"}]}),
        );
        assert!(e.contains("step 1 of 1: unknown field `colour`"), "{e}");
    }

    #[test]
    fn bad_values_are_named() {
        let cases = [
            (json!({"action": "click"}), "pass element, or x and y"),
            (json!({"action": "click", "x": 3}), "x and y together"),
            (
                json!({"action": "click", "x": -3, "y": 1}),
                "x must be a pixel",
            ),
            (
                json!({"action": "click", "element": 1, "x": 1, "y": 1}),
                "not both",
            ),
            (
                json!({"action": "key", "text": "a", "key": "a"}),
                "key takes no text",
            ),
            (
                json!({"action": "left_click", "element": 1, "button": "right"}),
                "takes no button",
            ),
            (json!({"action": "wait", "seconds": 60}), "at most 10"),
            (json!({"action": "drag", "x": 1, "y": 1}), "to_x"),
            (
                json!({"action": "click", "element": 1, "scale": 0}),
                "scale must be a positive",
            ),
            (
                json!({"action": "click", "element": 1, "scale": -2}),
                "scale must be a positive",
            ),
            (json!({"x": 1, "y": 1}), "pass action"),
            (json!({"actions": []}), "actions is empty"),
            (
                json!({"action": "click", "element": 1, "actions": [{"action": "key", "key": "a"}]}),
                "not both",
            ),
            (
                json!({"action": "click", "element": 1, "max_edge": 10}),
                "max_edge must be 0",
            ),
            (
                json!({"action": "click", "element": 1, "session": " "}),
                "session must name",
            ),
            (
                json!({"action": "click", "element": 1, "nonsense": 1}),
                "unknown field `nonsense`",
            ),
        ];
        for (args, expected) in cases {
            let e = refused(Verb::ComputerAct, args.clone());
            assert!(e.contains(expected), "{args}: {e}");
        }
        let e = refused(
            Verb::Look,
            json!({"region": {"x": 0, "y": 0, "w": 0, "h": 5}}),
        );
        assert!(e.contains("region must have"), "{e}");
        let e = refused(Verb::ComputerEnd, json!({}));
        assert!(e.contains("session"), "{e}");
        let e = refused(Verb::ComputerState, json!({"max_edge": 5}));
        assert!(e.contains("max_edge"), "{e}");
    }
}
