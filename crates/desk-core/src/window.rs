//! The window record of the `windows` verb.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One top-level window, as `windows` lists it. Optional fields are left out when unknown, so
/// readers written for fewer fields keep working.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Window {
    /// The window's id on this desk (on X11 the client window's XID as `0x…` hex).
    pub id: String,
    /// The title as the window manager shows it; may be empty.
    pub title: String,
    /// `window` for an ordinary window, else its kind: `dialog`, `dock`, `desktop`, `utility`, …
    pub role: String,
    /// The process that owns the window, when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Whether this is the focused window.
    #[serde(default)]
    pub active: bool,
    /// The owning process's executable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// True for a window of a process that owns a dock or desktop window (a panel, the desktop).
    #[serde(default, skip_serializing_if = "is_false")]
    pub shell: bool,
    /// For a transient window (a dialog), the id of the window it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// For a modal dialog the screen does not show, why not: `hidden`, `off the screen` or
    /// `behind "TITLE"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modal: Option<String>,
    /// With modal: the title of the window the dialog blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<String>,
}

/// The roles a window record's `role` takes, as every backend and verb spells them.
pub mod role {
    /// An ordinary window.
    pub const WINDOW: &str = "window";
    /// A dialog: a transient or modal window.
    pub const DIALOG: &str = "dialog";
    /// A panel (a dock).
    pub const DOCK: &str = "dock";
    /// The desktop itself.
    pub const DESKTOP: &str = "desktop";
    /// A splash screen an app shows while it starts.
    pub const SPLASH: &str = "splash";
    /// A window the window manager does not manage: a menu, a tooltip.
    pub const POPUP: &str = "popup";
    /// The roles of the desktop's own windows, which no app owns.
    pub const SHELL: [&str; 2] = [DOCK, DESKTOP];
}

fn is_false(b: &bool) -> bool {
    !b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_are_left_out() {
        let w = Window {
            id: "0x1".into(),
            title: "t".into(),
            role: "window".into(),
            pid: None,
            active: false,
            app: None,
            shell: false,
            owner: None,
            modal: None,
            blocks: None,
        };
        assert_eq!(
            serde_json::to_string(&w).unwrap(),
            r#"{"id":"0x1","title":"t","role":"window","active":false}"#
        );
    }
}
