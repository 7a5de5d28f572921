//! What an action is about to do, told to the safety controls before any input is sent.
//!
//! Every acting verb resolves its target first (the named window, the window at the point, the
//! focused window, the program to launch) and hands an [`Intent`] to [`Desk::admit`]; only
//! the [`Admitted`] it gets back can send input, and only to those targets. The allowlist, the
//! auth guard, confirm mode and dry run all judge the same description, and the person at the
//! desktop reads it in the confirm dialog.
//!
//! [`Desk::admit`]: crate::guard::Desk::admit
//! [`Admitted`]: crate::guard::Admitted

use desk_core::app_text::Quoted;
use std::fmt;

use desk_core::window::Window;

/// Where an action's input lands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A window, or the process of an accessibility node.
    Window {
        /// The window's id; empty when only the process is known.
        id: String,
        /// Its title.
        title: String,
        /// Its process.
        pid: Option<u32>,
        /// Its executable's name.
        app: Option<String>,
    },
    /// The desktop background, where no window is.
    Background,
    /// Whatever gets the keys when no window has the focus.
    NoFocus,
    /// A program about to be started, by the name the call gave.
    Program(String),
}

impl Target {
    /// The target a window is.
    pub fn window(window: &Window) -> Self {
        Target::Window {
            id: window.id.clone(),
            title: window.title.clone(),
            pid: window.pid,
            app: window.app.clone(),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Window {
                id,
                title,
                pid,
                app,
            } => {
                if id.is_empty() {
                    write!(f, "window {}", Quoted(title))?;
                } else {
                    write!(f, "window {id} {}", Quoted(title))?;
                }
                match (app, pid) {
                    (Some(app), _) => write!(f, " ({})", Quoted(app)),
                    (None, Some(pid)) => write!(f, " (pid {pid})"),
                    (None, None) => Ok(()),
                }
            }
            Target::Background => f.write_str("the desktop background"),
            Target::NoFocus => f.write_str("no window (nothing has the keyboard focus)"),
            Target::Program(program) => write!(f, "program {program:?}"),
        }
    }
}

/// An action about to be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Intent {
    /// What it does, in words, without any text it types: `click left at (120, 40)`.
    pub what: String,
    /// Where its input lands; every one must pass the allowlist.
    pub targets: Vec<Target>,
    /// The text it types, shown to the person asked to confirm (never journaled or logged).
    pub text: Option<String>,
    /// Whether the targets are what the action acts on (`focus window ...`) rather than where
    /// its input lands (`click ... in window ...`); it only changes the wording.
    pub on_target: bool,
}

impl Intent {
    /// An intent with these targets and no typed text.
    pub fn new(what: impl Into<String>, targets: Vec<Target>) -> Self {
        Self {
            what: what.into(),
            targets,
            text: None,
            on_target: false,
        }
    }

    /// An action on its targets themselves, such as focusing or closing a window.
    pub fn on(what: impl Into<String>, targets: Vec<Target>) -> Self {
        Self {
            on_target: true,
            ..Self::new(what, targets)
        }
    }

    /// `what` with its places: `click left at (120, 40) in window 0x1e00003 "Notes" (gedit)`.
    pub fn describe(&self) -> String {
        let places: Vec<String> = self
            .targets
            .iter()
            .filter(|t| !matches!(t, Target::Program(_)))
            .map(ToString::to_string)
            .collect();
        let joint = if self.on_target { " " } else { " in " };
        if places.is_empty() {
            self.what.clone()
        } else {
            format!("{}{joint}{}", self.what, places.join(" and "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_name_the_windows() {
        let target = Target::Window {
            id: "0x1e00003".into(),
            title: "Notes".into(),
            pid: Some(7),
            app: Some("gedit".into()),
        };
        let intent = Intent::new("click left at (120, 40)", vec![target]);
        assert_eq!(
            intent.describe(),
            "click left at (120, 40) in window 0x1e00003 ⟪\"Notes\"⟫ (⟪\"gedit\"⟫)"
        );
        let launch = Intent::new("launch gedit", vec![Target::Program("gedit".into())]);
        assert_eq!(launch.describe(), "launch gedit");
        let bare = Intent::new("press Return", vec![Target::NoFocus]);
        assert_eq!(
            bare.describe(),
            "press Return in no window (nothing has the keyboard focus)"
        );
        let background = Intent::new("click left at (1, 2)", vec![Target::Background]);
        assert_eq!(
            background.describe(),
            "click left at (1, 2) in the desktop background"
        );
        let close = Intent::on(
            "close",
            vec![Target::Window {
                id: "0x1".into(),
                title: "Notes".into(),
                pid: None,
                app: None,
            }],
        );
        assert_eq!(close.describe(), "close window 0x1 ⟪\"Notes\"⟫");
    }
}
