//! Results of the accessibility verbs: a window's nodes, one node, the node at a point, and
//! what pressing a node did.

use schemars::JsonSchema;
use serde::Serialize;

use super::WindowRef;
use crate::a11y::{NamedBy, Node, Truncated, View};

/// `snapshot`: a window's tree as nodes, or (with `text`) as an outline to read.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum SnapshotResult {
    /// The nodes.
    Tree(Snapshot),
    /// The outline, one node per line, indented by depth; ids in brackets.
    Outline(String),
}

/// A window's nodes.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Snapshot {
    /// The window.
    pub window: WindowRef,
    /// Which nodes: shown, interactive or all.
    pub view: View,
    /// Nodes read, before the view left some out.
    pub read: usize,
    /// The nodes, each after its parent; with `changes`, only those new or changed.
    pub nodes: Vec<Node>,
    /// With `changes`: what changed since the caller's previous snapshot of the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Box<TreeChanges>>,
    /// Why the walk stopped early, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncated>,
    /// What the tree lacks and how to get it (a Chromium app started without accessibility).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What changed in a window's tree since the caller's previous snapshot of it, in the same
/// view. Node ids are as before; `ref` and `parent` are places in the whole tree now, and
/// `parent_ids` names the parents the listed nodes point to.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct TreeChanges {
    /// Nodes there now that were not before (listed in `nodes`).
    pub added: usize,
    /// Nodes whose role, name, states, bounds, keys, value or parent changed (listed in
    /// `nodes`).
    pub changed: usize,
    /// Ids of the nodes gone.
    pub removed: Vec<String>,
    /// Nodes as they were, left out.
    pub unchanged: usize,
    /// The id of each parent that listed nodes name by `ref`.
    pub parent_ids: std::collections::BTreeMap<usize, String>,
    /// Set when there was nothing to compare with, and every node is listed: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub whole: Option<String>,
}

/// `find`: the window searched and the nodes whose name matches.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Found {
    /// The window.
    pub window: WindowRef,
    /// The matches, exact names first, with their bounds.
    pub nodes: Vec<Node>,
    /// Why the walk stopped early, when it did: a match may lie beyond.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncated>,
}

/// One node on its own (`read`, `at`): without the places that mean something only inside a
/// snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct NodeAlone {
    /// A handle for read, press and act.
    pub id: String,
    /// Its role.
    pub role: String,
    /// Its accessible name; may be empty.
    pub name: String,
    /// Set when the name was derived: from its description, or the box around it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub named_by: Option<NamedBy>,
    /// Notable states.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
    /// Where it is on the screen: x, y, width, height.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<[i32; 4]>,
    /// Its key binding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<String>,
    /// Its value (with `text`, a field's whole text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

impl From<Node> for NodeAlone {
    fn from(node: Node) -> Self {
        Self {
            id: node.id,
            role: node.role,
            name: node.name,
            named_by: node.named_by,
            states: node.states,
            bounds: node.bounds,
            keys: node.keys,
            value: node.value,
        }
    }
}

/// `at`: the node at a point, its ancestors, and what covers the point.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct At {
    /// The screen point read.
    pub at: [i32; 2],
    /// The window read.
    pub window: WindowRef,
    /// Its process.
    pub pid: Option<u32>,
    /// The deepest node there.
    pub node: NodeAlone,
    /// Its ancestors, nearest first.
    pub ancestors: Vec<NodeAlone>,
    /// Another window on top at the point, which input there would reach instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub covered: Option<Covered>,
}

/// A window over the point `at` read.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Covered {
    /// Its title; null for an app outside the allowlist.
    pub title: Option<String>,
    /// Its process; null for an app outside the allowlist.
    pub pid: Option<u32>,
    /// Why title and pid are null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// How `press` or `act` pressed a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PressHow {
    /// Selected through its parent's Selection (a tab, a row).
    Selected,
    /// Clicked at its centre.
    Clicked,
    /// Its action was run.
    Action,
    /// It was given the keyboard focus.
    Focused,
    /// An item of a combo box's list, picked through the combo box as `select_option` picks.
    Picked,
}

impl PressHow {
    /// Its name, as the result spells it.
    pub fn name(self) -> &'static str {
        match self {
            PressHow::Selected => "selected",
            PressHow::Clicked => "clicked",
            PressHow::Action => "action",
            PressHow::Focused => "focused",
            PressHow::Picked => "picked",
        }
    }
}

/// `press` and `act`: which node, and how.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Pressed {
    /// The node's id.
    pub pressed: String,
    /// How it was pressed.
    pub how: PressHow,
    /// With how: action, the action's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// With how: clicked, the screen point.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<[i32; 2]>,
    /// With how: clicked, what its app answered after the click.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_answer: Option<super::AppAnswer>,
    /// The closed menus opened on the way, outermost first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opened: Option<Vec<String>>,
    /// With how: picked, what the combo box shows after the pick.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holds: Option<String>,
    /// Why it was pressed another way than a click.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How the press went (background input only).
    #[serde(flatten)]
    pub route: super::Route,
}

impl Pressed {
    /// A press done `how`, with nothing more to say.
    pub fn new(node: &str, how: PressHow) -> Self {
        Self {
            pressed: node.to_string(),
            how,
            action: None,
            at: None,
            app_answer: None,
            opened: None,
            holds: None,
            note: None,
            route: super::Route::default(),
        }
    }
}

/// `unanswered`: the focused window whose app does not answer accessibility.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Unanswered {
    /// Always empty: the app lists no accessible window to give an id of.
    pub id: String,
    /// The window's title.
    pub title: String,
    /// Its process.
    pub pid: u32,
    /// Its role.
    pub role: String,
    /// Its app's name, when known.
    pub app: Option<String>,
}
