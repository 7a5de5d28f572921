//! The boundary between the accessibility verbs and an operating system's accessibility API
//! (AT-SPI on Linux; AX on macOS and UI Automation on Windows would be other implementations).

use desk_core::a11y::Node;
pub use desk_core::a11y::Truncated;

use crate::error::DeskError;

/// The most nodes a tree read takes unless told otherwise.
pub const DEFAULT_MAX_NODES: usize = 5000;

/// What to read besides role, name and states, and how much.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Want {
    /// Screen bounds.
    pub bounds: bool,
    /// Key bindings.
    pub keys: bool,
    /// A node's whole text, not just an editable field's value.
    pub text: bool,
    /// The most nodes a tree read takes (default [`DEFAULT_MAX_NODES`]); a container that
    /// reports more children than this is not walked child by child.
    pub max_nodes: Option<usize>,
    /// Only what shows: a node that does not show is read, but nothing under it.
    pub shown_only: bool,
}

impl Want {
    /// The node budget of a tree read.
    pub fn budget(&self) -> usize {
        self.max_nodes.unwrap_or(DEFAULT_MAX_NODES)
    }
}

/// A tree as read: its nodes, root first in document order, and why it stops short of the
/// whole tree when it does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    /// The nodes read.
    pub nodes: Vec<Node>,
    /// Set when parts were left out.
    pub truncated: Option<Truncated>,
    /// Set when the toolkit does not say what is on the screen (GTK 4 marks only its windows
    /// `showing`), so what shows was judged by what it keeps visible: a bar it hides or a page
    /// it does not show may be counted as shown.
    pub shown_guessed: bool,
}

/// A top-level accessible window of an app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppWindow {
    /// Its node id.
    pub id: String,
    /// Its accessible name, normally the window title.
    pub name: String,
    /// Whether the app says it is the active window.
    pub active: bool,
}

/// An accessibility API. Every call has a deadline: an app that does not answer makes it fail
/// with [`DeskError::NotAnswering`].
pub trait Accessibility: Send + Sync {
    /// The accessible top-level windows of process `pid`, or `None` when the process is not on
    /// the accessibility bus at all.
    fn windows_of(&self, pid: u32) -> Result<Option<Vec<AppWindow>>, DeskError>;

    /// The tree under node `root`, root first, in document order, within `want`'s node budget
    /// and the implementation's time limit.
    fn tree(&self, root: &str, want: Want) -> Result<Tree, DeskError>;

    /// One node.
    fn node(&self, id: &str, want: Want) -> Result<Node, DeskError>;

    /// A node's ancestors, nearest first, up to its top-level window.
    fn ancestors(&self, id: &str) -> Result<Vec<Node>, DeskError>;

    /// The deepest node under `root` at the desk point (x, y), if any.
    fn at_point(&self, root: &str, x: i32, y: i32) -> Result<Option<String>, DeskError>;

    /// The names of a node's actions, in order.
    fn actions(&self, id: &str) -> Result<Vec<String>, DeskError>;

    /// Runs a node's action `index`; false when the app refused.
    fn do_action(&self, id: &str, index: usize) -> Result<bool, DeskError>;

    /// Selects a node within its parent (a tab, a row); false when the app refused.
    fn select(&self, id: &str) -> Result<bool, DeskError>;

    /// Gives a node the keyboard focus; false when the app refused.
    fn grab_focus(&self, id: &str) -> Result<bool, DeskError>;

    /// Selects the `index`th child within node `container` (a combo box picks its item so);
    /// false when the app refused.
    fn select_child(&self, container: &str, index: usize) -> Result<bool, DeskError>;

    /// Replaces an editable node's whole text; false when the app refused. An error of kind
    /// [`DeskError::Invalid`] when the node has no editable text.
    fn set_text(&self, id: &str, text: &str) -> Result<bool, DeskError>;

    /// Sets a value node's number (a slider, a spin button); false when the app refused. An
    /// error of kind [`DeskError::Invalid`] when the node has no value.
    fn set_number(&self, id: &str, value: f64) -> Result<bool, DeskError>;

    /// Inserts `text` into an editable node before character `position` (its end when
    /// `None`); false when the app refused.
    fn insert_text(&self, id: &str, position: Option<usize>, text: &str)
    -> Result<bool, DeskError>;

    /// Selects characters `start` to `end` (excluded) of a text node; false when the app
    /// refused.
    fn select_text(&self, id: &str, start: usize, end: usize) -> Result<bool, DeskError>;

    /// Puts a text node's caret before character `offset`; false when the app refused.
    fn set_caret(&self, id: &str, offset: usize) -> Result<bool, DeskError>;

    /// Where a text node's caret is, as the app reports it (`None` when it has none).
    fn caret(&self, id: &str) -> Result<Option<usize>, DeskError>;

    /// A text node's first selection as the app reports it: start, end and the text, or
    /// `None` when nothing is selected.
    fn selection(&self, id: &str) -> Result<Option<(usize, usize, String)>, DeskError>;

    /// The process a node belongs to.
    fn pid_of(&self, id: &str) -> Result<u32, DeskError>;

    /// The node that has the keyboard focus among process `pid`'s windows, if the process is on
    /// the accessibility bus and one has it.
    fn focused_in(&self, pid: u32) -> Result<Option<Node>, DeskError>;
}
