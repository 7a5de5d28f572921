//! The safety settings of one call and their verdicts: pure functions of names and titles,
//! with no OS behind them, so every rule can be tested on its own.

use std::time::Duration;

use desk_core::app_text::Quoted;
use desk_core::outcome::Control;

use crate::error::DeskError;
use crate::system::Sandbox;

/// The safety settings one call runs under.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// When set, the apps whose windows agents may see and touch.
    pub apps: Option<Vec<String>>,
    /// Refuse typing into password fields and any input into authentication dialogs.
    pub auth_guard: bool,
    /// Ask the person at the desktop before each action, waiting this long for an answer.
    pub confirm: Option<Duration>,
    /// Check and describe actions, deliver none.
    pub dry_run: bool,
    /// Serve observations only.
    pub read_only: bool,
    /// Show the person a marker while an action runs.
    pub indicator: bool,
    /// When set, why the clipboard verbs are refused here (`[safety] clipboard`).
    pub no_clipboard: Option<String>,
    /// How input reaches windows on the person's display (`[daemon] input`).
    pub input: InputMode,
    /// The sandbox the apps agents launch run in (`[apps]`); `None`: they run as the person.
    pub sandbox: Option<Sandbox>,
}

/// How input reaches windows (`[daemon] input`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum InputMode {
    /// On the person's pointer and keyboard, raising and focusing windows as needed.
    #[default]
    Foreground,
    /// From the agent's own devices, leaving the person's pointer, focus and stacking alone;
    /// what cannot go that way is refused.
    Background,
    /// In the background where it can, else in the foreground, saying so in the result.
    Auto,
}

impl Policy {
    /// The allowlist as the config wrote it, for messages.
    pub fn allowlist(&self) -> String {
        self.apps
            .as_ref()
            .map(|apps| apps.join(", "))
            .unwrap_or_default()
    }

    /// The allowlist's verdict on a process that goes by `names` (none known: `None`); the
    /// error says why not, for a message that names the window first.
    pub fn allows_app(&self, names: Option<&[String]>) -> Result<(), String> {
        let Some(list) = &self.apps else {
            return Ok(());
        };
        let Some(names) = names else {
            return Err(format!(
                "its process is unknown, so it cannot be matched to an allowed app ([safety] \
                 apps: {})",
                self.allowlist()
            ));
        };
        if list.iter().any(|entry| listed(entry, names)) {
            Ok(())
        } else {
            Err(format!(
                "its app (named {}) is not in the app allowlist ([safety] apps: {})",
                names.join(", "),
                self.allowlist()
            ))
        }
    }

    /// The allowlist's verdict on starting `program` (a name or a path).
    pub fn allows_program(&self, program: &str) -> Result<(), DeskError> {
        let Some(list) = &self.apps else {
            return Ok(());
        };
        let name = std::path::Path::new(program)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| program.to_string());
        if list
            .iter()
            .any(|entry| listed(entry, std::slice::from_ref(&name)))
        {
            Ok(())
        } else {
            Err(DeskError::refused(
                Control::Allowlist,
                format!(
                    "{} is not in the app allowlist ([safety] apps: {})",
                    Quoted(&name),
                    self.allowlist()
                ),
            ))
        }
    }

    /// Whether the auth guard applies to a call that passed `allow_auth`.
    pub fn guards_auth(&self, allow_auth: bool) -> bool {
        self.auth_guard && !allow_auth
    }
}

/// The refusal of an action under read-only, in the one wording every check of it uses: the
/// daemon's early one (before the desk turn) and admission's.
pub fn read_only_refusal(action: &str) -> String {
    format!(
        "shuttle is read-only ([safety] read_only): only observations are served, and {action} \
         acts on the desktop"
    )
}

/// Whether an allowlist entry names one of `names`. Case does not matter, and an entry of 15
/// characters or more also matches a process name the kernel cut to 15.
pub fn listed(entry: &str, names: &[String]) -> bool {
    let entry = entry.trim().to_lowercase();
    names.iter().any(|name| {
        let name = name.to_lowercase();
        name == entry || (name.chars().count() == 15 && entry.starts_with(&name))
    })
}

/// Programs that ask for passwords to grant privileges or unlock secrets.
const AUTH_PROGRAMS: [&str; 14] = [
    "polkit-gnome-authentication-agent-1",
    "polkit-kde-authentication-agent-1",
    "polkit-mate-authentication-agent-1",
    "lxpolkit",
    "lxqt-policykit-agent",
    "xfce-polkit",
    "gcr-prompter",
    "gnome-keyring-daemon",
    "kwalletd5",
    "kwalletd6",
    "ksshaskpass",
    "ssh-askpass",
    "x11-ssh-askpass",
    "gnome-ssh-askpass",
];

/// Titles that authentication dialogs carry.
const AUTH_TITLES: [&str; 5] = [
    "authenticate",
    "authentication required",
    "unlock keyring",
    "unlock login keyring",
    "unlock private key",
];

/// Whether a window of an app with `names` and this title is an authentication dialog: a
/// polkit agent, a keyring or wallet prompt, pinentry, an ssh askpass.
pub fn is_auth_prompt(names: &[String], title: &str) -> bool {
    let by_program = AUTH_PROGRAMS.iter().any(|p| listed(p, names))
        || names.iter().any(|n| {
            let n = n.to_lowercase();
            n.starts_with("pinentry") || n.starts_with("polkit-") || n.ends_with("askpass")
        });
    let title = title.trim().to_lowercase();
    by_program || AUTH_TITLES.contains(&title.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn entries_match_names_whole_and_without_case() {
        let gedit = names(&["gedit"]);
        assert!(listed("gedit", &gedit));
        assert!(listed("GEdit ", &gedit));
        assert!(!listed("edit", &gedit));
        assert!(!listed("gedit-plugins", &gedit));
        let cut = names(&["polkit-gnome-au"]);
        assert!(listed("polkit-gnome-authentication-agent-1", &cut));
    }

    #[test]
    fn auth_prompts_are_recognised() {
        assert!(is_auth_prompt(&names(&["polkit-gnome-au"]), "x"));
        assert!(is_auth_prompt(&names(&["pinentry-gnome3"]), ""));
        assert!(is_auth_prompt(&names(&["polkit-agent-helper"]), ""));
        assert!(is_auth_prompt(&names(&["lxqt-openssh-askpass"]), ""));
        assert!(is_auth_prompt(&names(&["xterm", "ksshaskpass"]), "x"));
        assert!(!is_auth_prompt(
            &names(&["askpass-viewer", "mypolkit-"]),
            "x"
        ));
        assert!(is_auth_prompt(
            &names(&["python3"]),
            "Authentication Required"
        ));
        assert!(!is_auth_prompt(
            &names(&["firefox-esr"]),
            "Two-factor authentication - GitHub"
        ));
    }

    #[test]
    fn the_allowlist_judges_names_and_programs() {
        let open = Policy::default();
        assert!(open.allows_app(None).is_ok());
        assert!(open.allows_program("anything").is_ok());
        let policy = Policy {
            apps: Some(vec!["gedit".into(), "fixture-a".into()]),
            ..Policy::default()
        };
        assert!(policy.allows_app(Some(&names(&["gedit"]))).is_ok());
        let why = policy
            .allows_app(Some(&names(&["xterm", "bash"])))
            .unwrap_err();
        assert!(why.contains("named xterm, bash"), "{why}");
        assert!(why.contains("[safety] apps: gedit, fixture-a"), "{why}");
        let why = policy.allows_app(None).unwrap_err();
        assert!(why.contains("its process is unknown"), "{why}");
        assert!(policy.allows_program("/usr/bin/gedit").is_ok());
        let refused = policy.allows_program("/usr/bin/xterm").unwrap_err();
        assert_eq!(refused.control(), Some(Control::Allowlist));
        assert!(
            refused
                .to_string()
                .contains("⟪\"xterm\"⟫ is not in the app allowlist")
        );
    }

    #[test]
    fn allow_auth_lifts_the_auth_guard_only_when_it_is_on() {
        let guarded = Policy {
            auth_guard: true,
            ..Policy::default()
        };
        assert!(guarded.guards_auth(false));
        assert!(!guarded.guards_auth(true));
        assert!(!Policy::default().guards_auth(false));
    }
}
