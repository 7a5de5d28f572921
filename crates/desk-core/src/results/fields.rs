//! Results of the field verbs: what the field holds after the call, read back from the app.

use schemars::JsonSchema;
use serde::Serialize;

/// How a field verb changed the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FieldHow {
    /// Through the field's own interface (EditableText or Value).
    Set,
    /// Inserted through EditableText at a position.
    Inserted,
    /// Typed over, as keyboard input, where the field ignores the direct call.
    Typed,
}

/// `set_value` and `insert_text`: what the field holds now.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct FieldHolds {
    /// The field's id.
    pub id: String,
    /// Its text or number as read back; null when it could not be read.
    pub holds: Option<String>,
    /// How it was changed.
    pub how: FieldHow,
    /// Whether it holds what was asked; left out when too long to compare.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_asked: Option<bool>,
    /// When it does not hold what was asked: what that means and what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// How `select_option` picked the item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub enum PickHow {
    /// Through the container's Selection.
    #[serde(rename = "selection")]
    Selection,
    /// Opened with its own action and stepped with the arrow keys (a Qt combo box).
    #[serde(rename = "keys")]
    Keys,
    /// It was selected already.
    #[serde(rename = "already")]
    Already,
    /// The item's own action.
    #[serde(rename = "item action")]
    ItemAction,
}

/// `select_option`: the item picked and what the control shows now.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct OptionPicked {
    /// The control's id.
    pub id: String,
    /// The item's name.
    pub picked: String,
    /// What the control shows, or the item's name when it is selected; null when not.
    pub holds: Option<String>,
    /// How it was picked.
    pub how: PickHow,
    /// Whether the control shows the item asked for.
    pub as_asked: bool,
}

/// `select_text`: the selection the app reports.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct TextSelected {
    /// The field's id.
    pub id: String,
    /// First selected character.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<usize>,
    /// One past the last selected character.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<usize>,
    /// The selected text; null when nothing is selected.
    pub selected: Option<String>,
    /// Whether the selection is the one asked for.
    pub as_asked: bool,
}
