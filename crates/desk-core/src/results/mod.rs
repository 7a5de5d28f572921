//! What each verb answers: one type per verb's result, rendered once into the reply and
//! described by its JSON schema (the MCP output schema, the runtime's TypeScript types).
//!
//! A verb that calls another (a vision action clicking, `press` falling back to a click) gets
//! the other's typed result back, never its JSON: a misspelt field does not compile.
//!
//! - [`input`]: key, type, click, scroll, drag.
//! - [`a11y`]: snapshot, find, read, at, press and act, unanswered.
//! - [`fields`]: set_value, select_option, insert_text, select_text.
//! - [`apps`]: focus, close, launch, open, quit and the window frame verbs.
//! - [`observe`]: screen, shot, wait, still, the clipboard.
//! - [`vision`]: the vision verbs' JSON answers.
//! - [`script`]: a run's report (`script_run`, the tool plugins).
//! - [`output`]: a result's schema, compact, as an MCP tool's output schema.

pub mod a11y;
pub mod apps;
pub mod fields;
pub mod input;
pub mod observe;
pub mod output;
pub mod script;
pub mod vision;

use schemars::JsonSchema;
use serde::Serialize;

use crate::window::Window;

pub use a11y::*;
pub use apps::*;
pub use fields::*;
pub use input::*;
pub use observe::*;
pub use vision::*;

/// A window as a result names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WindowRef {
    /// Its id, as `windows` lists it.
    pub id: String,
    /// Its title.
    pub title: String,
}

impl From<&Window> for WindowRef {
    fn from(window: &Window) -> Self {
        Self {
            id: window.id.clone(),
            title: window.title.clone(),
        }
    }
}

/// A window that opened, closed or came forward, as a change names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WindowBrief {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its role, such as `window` or `dialog`.
    pub role: String,
    /// How long after the caller's latest action it happened, in milliseconds, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_ms: Option<u64>,
}

impl From<&Window> for WindowBrief {
    fn from(window: &Window) -> Self {
        Self {
            id: window.id.clone(),
            title: window.title.clone(),
            role: window.role.clone(),
            after_ms: None,
        }
    }
}

/// A window that took a new title.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Retitled {
    /// Its id.
    pub id: String,
    /// Its title now.
    pub title: String,
    /// Its title before.
    pub was: String,
    /// How long after the caller's latest action it happened, in milliseconds, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_ms: Option<u64>,
}

/// What changed between two window lists (topmost first): the windows that opened, closed,
/// came to the front or took a new title. Each part is left out when empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WindowChanges {
    /// Windows that opened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opened: Vec<WindowBrief>,
    /// Windows that closed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub closed: Vec<WindowBrief>,
    /// A window that was there before and is now the front one (panels and desktops aside).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raised: Option<WindowBrief>,
    /// Windows that took a new title.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retitled: Vec<Retitled>,
    /// Changes left out of the lists above, which hold at most [`WindowChanges::LISTED`] each
    /// (an app that opens thousands of windows is summed up, not listed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more: Option<usize>,
}

impl WindowChanges {
    /// What differs from `before` to `after`; `None` when nothing does.
    pub fn between(before: &[Window], after: &[Window]) -> Option<Self> {
        // An id the display handed to another process's window since is a new window: X11
        // reuses the ids of a client that went.
        let same = |a: &Window, b: &Window| a.id == b.id && a.pid == b.pid;
        let opened = after
            .iter()
            .filter(|w| !before.iter().any(|b| same(b, w)))
            .map(WindowBrief::from)
            .collect();
        let closed = before
            .iter()
            .filter(|b| !after.iter().any(|w| same(b, w)))
            .map(WindowBrief::from)
            .collect();
        let front = |list: &[Window]| list.iter().find(|w| !w.shell).cloned();
        let raised = front(after)
            .filter(|top| front(before).is_none_or(|was| !same(&was, top)))
            .filter(|top| before.iter().any(|b| same(b, top)))
            .map(|top| WindowBrief::from(&top));
        let retitled = after
            .iter()
            .filter_map(|w| {
                let was = before.iter().find(|b| same(b, w) && b.title != w.title)?;
                Some(Retitled {
                    id: w.id.clone(),
                    title: w.title.clone(),
                    was: was.title.clone(),
                    after_ms: None,
                })
            })
            .collect();
        let mut changes = Self {
            opened,
            closed,
            raised,
            retitled,
            more: None,
        };
        let mut cut = 0;
        for len in [
            changes.opened.len(),
            changes.closed.len(),
            changes.retitled.len(),
        ] {
            cut += len.saturating_sub(Self::LISTED);
        }
        changes.opened.truncate(Self::LISTED);
        changes.closed.truncate(Self::LISTED);
        changes.retitled.truncate(Self::LISTED);
        changes.more = (cut > 0).then_some(cut);
        (changes != Self::default()).then_some(changes)
    }

    /// The most windows each list names.
    pub const LISTED: usize = 50;

    /// The changes as one line of words: `opened 0x3 "Save as"; closed 0x2 "Mail"`.
    pub fn words(&self) -> String {
        let named = |w: &WindowBrief| format!("{} {:?}", w.id, w.title);
        let list =
            |windows: &[WindowBrief]| windows.iter().map(named).collect::<Vec<_>>().join(", ");
        let mut parts = Vec::new();
        if !self.opened.is_empty() {
            parts.push(format!("opened {}", list(&self.opened)));
        }
        if !self.closed.is_empty() {
            parts.push(format!("closed {}", list(&self.closed)));
        }
        if let Some(raised) = &self.raised {
            parts.push(format!("raised {}", named(raised)));
        }
        for r in &self.retitled {
            parts.push(format!("retitled {} {:?} from {:?}", r.id, r.title, r.was));
        }
        if let Some(more) = self.more {
            parts.push(format!("and {more} more changes"));
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(id: &str, title: &str) -> Window {
        Window {
            id: id.into(),
            title: title.into(),
            role: "window".into(),
            pid: Some(1),
            active: false,
            app: None,
            shell: false,
            owner: None,
            modal: None,
            blocks: None,
        }
    }

    #[test]
    fn changes_say_what_opened_closed_came_forward_and_took_a_new_title() {
        let before = [window("0x1", "Notes"), window("0x2", "Mail")];
        let after = [window("0x3", "Save as"), window("0x1", "Notes *")];
        let changes = WindowChanges::between(&before, &after).unwrap();
        assert_eq!(
            serde_json::to_value(&changes).unwrap(),
            serde_json::json!({
                "opened": [{"id": "0x3", "title": "Save as", "role": "window"}],
                "closed": [{"id": "0x2", "title": "Mail", "role": "window"}],
                "retitled": [{"id": "0x1", "title": "Notes *", "was": "Notes"}],
            })
        );
        assert_eq!(
            changes.words(),
            "opened 0x3 \"Save as\"; closed 0x2 \"Mail\"; retitled 0x1 \"Notes *\" from \"Notes\""
        );
        assert_eq!(WindowChanges::between(&before, &before), None);
        // Mail comes to the front: raised, though nothing opened or closed.
        let restacked = [window("0x2", "Mail"), window("0x1", "Notes")];
        let raised = WindowChanges::between(&before, &restacked).unwrap();
        assert_eq!(raised.raised.unwrap().id, "0x2");
    }

    #[test]
    fn an_id_another_process_took_over_is_a_window_closed_and_one_opened() {
        let before = [window("0x1", "Untitled 1 - Calc")];
        let mut reused = window("0x1", "Untitled 1 - Calc");
        reused.pid = Some(2);
        let changes = WindowChanges::between(&before, &[reused]).unwrap();
        assert_eq!(changes.opened.len(), 1);
        assert_eq!(changes.closed.len(), 1);
        assert_eq!((changes.raised, changes.retitled.len()), (None, 0));
    }
}
