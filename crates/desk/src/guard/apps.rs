//! Naming the app behind a process, for the allowlist and the auth guard.

use std::path::Path;

/// Interpreters whose scripts are the apps people mean: `fixture.py`, not `python3`.
const INTERPRETERS: [&str; 8] = [
    "python", "python3", "perl", "ruby", "node", "gjs", "bash", "sh",
];

/// The names process `pid` goes by: its executable's file name, its process name (`comm`) and,
/// for an interpreter running a script, the script's file name. Empty when the process is gone.
pub fn names_of(pid: u32) -> Vec<String> {
    let mut names = Vec::new();
    let mut push = |name: String| {
        if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    };
    if let Ok(exe) = std::fs::read_link(format!("/proc/{pid}/exe"))
        && let Some(name) = exe.file_name()
    {
        push(
            name.to_string_lossy()
                .trim_end_matches(" (deleted)")
                .to_string(),
        );
    }
    if let Ok(comm) = std::fs::read_to_string(format!("/proc/{pid}/comm")) {
        push(comm.trim_end().to_string());
    }
    if let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) {
        let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
        let base = |arg: &[u8]| {
            Path::new(&*String::from_utf8_lossy(arg))
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        if let [first, rest @ ..] = args.as_slice() {
            let program = base(first);
            let interpreted = INTERPRETERS
                .iter()
                .any(|i| program == *i || program.starts_with(&format!("{i}.")));
            if interpreted && let Some(script) = rest.iter().find(|a| !a.is_empty() && a[0] != b'-')
            {
                push(base(script));
            }
        }
    }
    names
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
    fn a_script_is_named_after_its_file() {
        let me = names_of(std::process::id());
        assert!(!me.is_empty());
        assert!(names_of(u32::MAX).is_empty());
    }

    #[test]
    fn auth_prompts_are_recognised() {
        assert!(is_auth_prompt(&names(&["polkit-gnome-au"]), "x"));
        assert!(is_auth_prompt(&names(&["pinentry-gnome3"]), ""));
        assert!(is_auth_prompt(
            &names(&["python3"]),
            "Authentication Required"
        ));
        assert!(!is_auth_prompt(
            &names(&["firefox-esr"]),
            "Two-factor authentication - GitHub"
        ));
    }
}
