//! `shuttle doctor`: checks every part shuttle relies on and says, for each, that it is fine or
//! what is wrong and the one command that fixes it.
//!
//! - [`desktop`]: the person's display, the accessibility bus, and whether toolkits join it.
//! - [`parts`]: what shuttle itself needs: private displays' programs, Node, the socket's
//!   directory, the daemon, config.toml, the model endpoint, the MCP clients.
//!
//! Doctor reads; it changes nothing unless asked with `--fix`, and then only the [`Repair`]s it
//! names. The slow checks run at once, each on a thread of its own with a deadline, so one
//! that hangs (a frozen X server, a bus that never answers) is reported, not waited on.

mod desktop;
mod parts;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::config::{self, Config, DisplayMode};

/// How long any one check may take.
const CHECK_LIMIT: Duration = Duration::from_secs(3);
/// How long one bus call or connection may take inside a check.
const CALL_LIMIT: Duration = Duration::from_millis(700);

/// A check's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Works.
    Ok,
    /// Works, with a limit worth knowing, or not needed by this configuration and not working.
    Warn,
    /// Needed by this configuration, and not working: doctor exits 1.
    Fail,
    /// Not needed here, or not present (no Java installed, a client not set up).
    Skip,
}

/// A change `--fix` makes itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repair {
    /// Closes the socket's directory to others (`chmod`), to this mode.
    CloseSocketDir(std::path::PathBuf, u32),
    /// Turns accessibility on for the session (`org.a11y.Status.IsEnabled`).
    EnableAccessibility,
}

impl Repair {
    /// What it does, in words.
    pub fn describe(&self) -> String {
        match self {
            Repair::CloseSocketDir(dir, mode) => format!("chmod {mode:o} {}", dir.display()),
            Repair::EnableAccessibility => {
                "turn accessibility on for the session (org.a11y.Status IsEnabled = true)".into()
            }
        }
    }

    fn apply(&self) -> Result<(), String> {
        use std::os::unix::fs::PermissionsExt;
        match self {
            Repair::CloseSocketDir(dir, mode) => {
                std::fs::set_permissions(dir, std::fs::Permissions::from_mode(*mode))
                    .map_err(|e| format!("cannot chmod {}: {e}", dir.display()))
            }
            Repair::EnableAccessibility => {
                crate::platform::probe::enable_accessibility(CALL_LIMIT).map_err(|e| e.to_string())
            }
        }
    }
}

/// One check's result.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// What was checked: `display`, `node`, `client codex`.
    pub name: String,
    /// The verdict.
    pub status: Status,
    /// What was found.
    pub detail: String,
    /// The one command (or edit) that fixes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// What `--fix` would do about it.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "described")]
    pub repair: Option<Repair>,
}

fn described<S: serde::Serializer>(repair: &Option<Repair>, s: S) -> Result<S::Ok, S::Error> {
    match repair {
        Some(r) => s.serialize_str(&r.describe()),
        None => s.serialize_none(),
    }
}

impl Check {
    fn new(name: impl Into<String>, status: Status, detail: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            status,
            detail: detail.into(),
            fix: None,
            repair: None,
        }
    }

    fn ok(name: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(name, Status::Ok, detail)
    }

    fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    fn repair(mut self, repair: Repair) -> Self {
        self.repair = Some(repair);
        self
    }
}

/// What the checks know before they start: the configuration, and the daemon if one runs.
pub(crate) struct Context {
    /// The config file's path.
    pub config_path: std::path::PathBuf,
    /// The configuration (the defaults when the file is missing or broken).
    pub config: Config,
    /// Why the file did not load, when it did not.
    pub config_error: Option<String>,
    /// The display mode in force: the running daemon's, else the config's.
    pub mode: DisplayMode,
    /// The running daemon's `status`, when one answers.
    pub daemon: Option<desk_core::status::Status>,
    /// Why a daemon whose socket is there did not answer.
    pub daemon_absent: Option<String>,
}

/// Every check's result, in a fixed order.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// This binary's version.
    pub version: &'static str,
    /// Whether all that this configuration needs is fine (no [`Status::Fail`]).
    pub ok: bool,
    /// The display mode the checks assumed.
    pub display_mode: &'static str,
    /// How long the checks took, in milliseconds.
    pub ms: u64,
    /// The checks.
    pub checks: Vec<Check>,
}

impl Report {
    /// The repairs `--fix` would make.
    pub fn repairs(&self) -> Vec<Repair> {
        let mut repairs: Vec<Repair> = Vec::new();
        for check in &self.checks {
            if let Some(r) = &check.repair
                && check.status != Status::Ok
                && !repairs.contains(r)
            {
                repairs.push(r.clone());
            }
        }
        repairs
    }

    /// The report for people: one line per check, and a fix under each that needs one.
    pub fn text(&self) -> String {
        let mut out = format!(
            "shuttle {} doctor: displays {}\n\n",
            self.version, self.display_mode
        );
        let width = self.checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
        for check in &self.checks {
            let status = match check.status {
                Status::Ok => "ok",
                Status::Warn => "warn",
                Status::Fail => "FAIL",
                Status::Skip => "-",
            };
            out += &format!("  {status:<5} {:<width$}  {}\n", check.name, check.detail);
            if let Some(fix) = &check.fix
                && check.status != Status::Ok
            {
                out += &format!("  {:<5} {:<width$}  fix: {fix}\n", "", "");
            }
        }
        let failed = self
            .checks
            .iter()
            .filter(|c| c.status == Status::Fail)
            .count();
        out += &if failed == 0 {
            format!(
                "\nAll that this configuration needs is in place ({} checks in {} ms).\n",
                self.checks.len(),
                self.ms
            )
        } else {
            format!(
                "\n{failed} problem{} to fix ({} checks in {} ms).\n",
                if failed == 1 { "" } else { "s" },
                self.checks.len(),
                self.ms
            )
        };
        let repairs = self.repairs();
        if !repairs.is_empty() {
            out += "shuttle doctor --fix would:\n";
            for r in repairs {
                out += &format!("  - {}\n", r.describe());
            }
        }
        out
    }
}

/// Runs every check.
pub fn run() -> Report {
    let started = Instant::now();
    let context = std::sync::Arc::new(context());
    let on_thread = |check: fn(&Context) -> Vec<Check>| {
        let (tx, rx) = mpsc::channel();
        let context = context.clone();
        std::thread::spawn(move || {
            let _ = tx.send(check(&context));
        });
        rx
    };
    let display = on_thread(|c| vec![desktop::display(c)]);
    let wayland = on_thread(|c| desktop::wayland(c).into_iter().collect());
    let accessibility = on_thread(desktop::accessibility);
    let node = on_thread(|c| vec![parts::node(c)]);
    let models = on_thread(|c| vec![parts::models(c)]);
    let sandbox = on_thread(|c| vec![parts::sandbox(c)]);
    let quick = [
        parts::private_displays(&context),
        parts::socket(&context),
        parts::daemon(&context),
        parts::config(&context),
    ];
    let clients = parts::clients();
    let deadline = started + CHECK_LIMIT;
    let wait = |name: &str, rx: mpsc::Receiver<Vec<Check>>| {
        let left = deadline.saturating_duration_since(Instant::now());
        rx.recv_timeout(left).unwrap_or_else(|_| {
            vec![Check::new(
                name,
                Status::Warn,
                format!("did not finish within {} s", CHECK_LIMIT.as_secs()),
            )]
        })
    };
    let [private_displays, socket, daemon, config] = quick;
    let mut checks = wait("display", display);
    checks.extend(wait("wayland", wayland));
    checks.push(private_displays);
    checks.extend(wait("sandbox", sandbox));
    checks.extend(wait("accessibility bus", accessibility));
    checks.extend(wait("node", node));
    checks.extend([socket, daemon, config]);
    checks.extend(wait("models", models));
    checks.extend(clients);
    Report {
        version: env!("CARGO_PKG_VERSION"),
        ok: checks.iter().all(|c| c.status != Status::Fail),
        display_mode: context.mode.name(),
        ms: started.elapsed().as_millis() as u64,
        checks,
    }
}

/// Makes each repair in `repairs`; answers what happened to each, in words.
pub fn repair(repairs: &[Repair]) -> Vec<(String, Result<(), String>)> {
    repairs.iter().map(|r| (r.describe(), r.apply())).collect()
}

fn context() -> Context {
    let config_path = config::config_path();
    let (config, config_error) = if config_path.exists() {
        match config::load(&config_path) {
            Ok(config) => (config, None),
            Err(e) => (Config::default(), Some(e)),
        }
    } else {
        (Config::default(), None)
    };
    let (daemon, daemon_absent) = match parts::daemon_status() {
        Ok(status) => (status, None),
        Err(why) => (None, Some(why)),
    };
    let running_mode = daemon
        .as_ref()
        .and_then(|s| s.display.as_ref())
        .and_then(|d| serde_json::from_value::<DisplayMode>(d.mode.clone().into()).ok());
    let mode = running_mode
        .or(config.daemon.display)
        .unwrap_or(DisplayMode::PerAgent);
    Context {
        config_path,
        config,
        config_error,
        mode,
        daemon,
        daemon_absent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(checks: Vec<Check>) -> Report {
        Report {
            version: "0.0.0",
            ok: checks.iter().all(|c| c.status != Status::Fail),
            display_mode: "inherit",
            ms: 5,
            checks,
        }
    }

    #[test]
    fn a_failure_shows_its_fix_and_a_repair_is_offered_once() {
        let report = report(vec![
            Check::ok("display", "X11 :0").fix("never shown for ok"),
            Check::new("accessibility bus", Status::Warn, "off")
                .fix("busctl ...")
                .repair(Repair::EnableAccessibility),
            Check::new("qt", Status::Warn, "off").repair(Repair::EnableAccessibility),
            Check::new("socket", Status::Fail, "open").fix("chmod 700 /s"),
        ]);
        assert!(!report.ok);
        assert_eq!(report.repairs(), vec![Repair::EnableAccessibility]);
        let text = report.text();
        assert!(!text.contains("never shown"), "{text}");
        assert!(text.contains("  FAIL  socket             open\n"), "{text}");
        assert!(text.contains("fix: chmod 700 /s\n"), "{text}");
        assert!(
            text.contains("1 problem to fix (4 checks in 5 ms)"),
            "{text}"
        );
        assert!(text.contains("shuttle doctor --fix would:\n  - turn accessibility on"));
    }

    #[test]
    fn a_repair_already_made_is_not_offered() {
        let done = report(vec![
            Check::ok("socket", "private").repair(Repair::EnableAccessibility),
        ]);
        assert!(done.ok);
        assert!(done.repairs().is_empty());
        assert!(
            done.text()
                .contains("All that this configuration needs is in place")
        );
    }
}
