//! How a call ended, in one vocabulary shared by the verb, the reply and the journal.
//!
//! The fact that matters most to an agent is whether its input may have reached the desktop.
//! So an action that did not complete is either [`Outcome::Refused`] (nothing was sent: look,
//! fix, and try again) or [`Outcome::Unknown`] (something may have landed: look before sending it
//! again). Only the input gate knows which; it decides, and the words below render it.

use serde::{Deserialize, Serialize};

/// The safety control that said no.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Control {
    /// The config file does not load; nothing but stop and resume is served until it does.
    Config,
    /// The person stopped shuttle (`shuttle stop` or the kill hotkey).
    Stop,
    /// `[safety] read_only`: observations only.
    ReadOnly,
    /// `[safety] dry_run`: checked and described, never delivered.
    DryRun,
    /// `[safety] apps`: the app allowlist.
    Allowlist,
    /// `[safety] auth_guard`: no input into passwords or authentication dialogs.
    AuthGuard,
    /// Confirm mode: the person at the desktop denied it, closed the dialog or did not answer.
    Person,
    /// Stop and resume answer only the daemon's own user.
    Owner,
    /// `[safety] clipboard`: the clipboard verbs are off for this display.
    Clipboard,
}

impl Control {
    /// The control's name as the journal writes it: `allowlist`, `dry_run`, ...
    pub fn name(self) -> &'static str {
        match self {
            Control::Config => "config",
            Control::Stop => "stop",
            Control::ReadOnly => "read_only",
            Control::DryRun => "dry_run",
            Control::Allowlist => "allowlist",
            Control::AuthGuard => "auth_guard",
            Control::Person => "person",
            Control::Owner => "owner",
            Control::Clipboard => "clipboard",
        }
    }
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Outcome {
    /// It did what it was asked.
    Completed,
    /// It did not happen and nothing reached the desktop: a safety control said no (`by`), or
    /// the call could not go ahead (bad arguments, a window that is gone, the desk busy).
    Refused {
        /// The safety control that refused it, if one did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<Control>,
        /// Why, and what to do.
        reason: String,
    },
    /// An action failed after its input may have reached the desktop.
    Unknown {
        /// What failed, and what is known to have been sent.
        reason: String,
    },
    /// An observation or a control failed; no input was involved.
    #[serde(alias = "error")]
    Failed {
        /// What failed, and what to do.
        #[serde(default)]
        reason: String,
    },
}

/// What a refused action's reply ends with.
pub const NOTHING_SENT: &str = "(outcome: refused: nothing was sent)";
/// What an action's reply ends with when its input may have landed.
pub const MAYBE_SENT: &str =
    "(outcome: unknown: input may have landed; look before sending it again)";

impl Outcome {
    /// A refusal by a safety control.
    pub fn refused_by(by: Control, reason: impl Into<String>) -> Self {
        Outcome::Refused {
            by: Some(by),
            reason: reason.into(),
        }
    }

    /// An action that failed, judged by whether any of its input went out.
    pub fn action_failed(sent: bool, by: Option<Control>, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        if sent {
            Outcome::Unknown { reason }
        } else {
            Outcome::Refused { by, reason }
        }
    }

    /// `completed`, `refused`, `unknown` or `failed`.
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Refused { .. } => "refused",
            Outcome::Unknown { .. } => "unknown",
            Outcome::Failed { .. } => "failed",
        }
    }

    /// Why it did not complete.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Outcome::Completed => None,
            Outcome::Refused { reason, .. }
            | Outcome::Unknown { reason }
            | Outcome::Failed { reason } => Some(reason),
        }
    }

    /// The safety control that refused it.
    pub fn by(&self) -> Option<Control> {
        match self {
            Outcome::Refused { by, .. } => *by,
            _ => None,
        }
    }

    /// For an action that did not complete: whether input may have reached the desktop.
    pub fn sent(&self) -> Option<bool> {
        match self {
            Outcome::Refused { .. } => Some(false),
            Outcome::Unknown { .. } => Some(true),
            Outcome::Completed | Outcome::Failed { .. } => None,
        }
    }

    /// The words an action's error reply ends with, saying whether anything was sent.
    pub fn delivery(&self) -> Option<&'static str> {
        match self {
            Outcome::Refused { .. } => Some(NOTHING_SENT),
            Outcome::Unknown { .. } => Some(MAYBE_SENT),
            Outcome::Completed | Outcome::Failed { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_failed_action_is_judged_by_what_was_sent() {
        let refused = Outcome::action_failed(false, Some(Control::Allowlist), "no");
        assert_eq!(refused.sent(), Some(false));
        assert_eq!(refused.reason(), Some("no"));
        assert_eq!(refused.by(), Some(Control::Allowlist));
        assert_eq!(refused.delivery(), Some(NOTHING_SENT));
        let unknown = Outcome::action_failed(true, Some(Control::Stop), "stopped");
        assert_eq!(unknown.name(), "unknown");
        assert_eq!(
            unknown.by(),
            None,
            "input went out, so no control kept it back"
        );
        assert_eq!(unknown.delivery(), Some(MAYBE_SENT));
        assert_eq!(unknown.sent(), Some(true));
        assert_eq!(unknown.reason(), Some("stopped"));
        let failed = Outcome::Failed {
            reason: "gone".into(),
        };
        assert_eq!((failed.sent(), failed.delivery()), (None, None));
        assert_eq!(failed.reason(), Some("gone"));
        assert_eq!(Outcome::Completed.delivery(), None);
        assert_eq!(Outcome::Completed.reason(), None);
        assert_eq!(Outcome::Completed.sent(), None);
    }

    #[test]
    fn journal_fields_read_and_write_alike() {
        let outcome = Outcome::refused_by(Control::DryRun, "would click");
        let value = serde_json::to_value(&outcome).unwrap();
        assert_eq!(
            value,
            json!({"outcome": "refused", "by": "dry_run", "reason": "would click"})
        );
        assert_eq!(serde_json::from_value::<Outcome>(value).unwrap(), outcome);
        assert_eq!(
            serde_json::to_value(Outcome::Completed).unwrap(),
            json!({"outcome": "completed"})
        );
        let old: Outcome =
            serde_json::from_value(json!({"outcome": "error", "reason": "gone"})).unwrap();
        assert_eq!(old.name(), "failed");
        for control in [Control::Config, Control::ReadOnly, Control::AuthGuard] {
            assert_eq!(
                serde_json::to_value(control).unwrap(),
                json!(control.name())
            );
        }
    }
}
