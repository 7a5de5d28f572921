//! `config.toml`: the daemon's settings, documented key by key in docs/config.md.
//!
//! The file is optional; a missing one means every default. The daemon reads it again whenever
//! it changes, so safety settings take effect on the next call. While the file fails to load,
//! every call but safety_stop and safety_resume is answered with the reason: an unreadable
//! allowlist must not fall back to allowing everything.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

pub use crate::platform::SeatKind;

/// Overrides the config file's path for every shuttle process.
pub const CONFIG_ENV: &str = "SHUTTLE_CONFIG";

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// How the daemon serves.
    pub daemon: DaemonConfig,
    /// What agents may do.
    pub safety: SafetyConfig,
    /// The record of calls.
    pub journal: JournalConfig,
    /// Scripts and plugins.
    pub tools: ToolsConfig,
    /// How the apps agents launch run: in a sandbox or as the person.
    pub apps: AppsConfig,
    /// The model calls: one endpoint, a model per role (`[models]`, see docs/models.md).
    pub models: models::Config,
    /// What `shuttle mcp` sessions follow.
    pub mcp: McpConfig,
}

/// `[mcp]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct McpConfig {
    /// The most bytes of text a tool result carries; what is over it is cut on a node, item or
    /// line boundary and kept for the session as a resource.
    pub reply_budget: usize,
}

impl Default for McpConfig {
    fn default() -> Self {
        Self {
            reply_budget: desk_core::status::DEFAULT_REPLY_BUDGET,
        }
    }
}

/// The budgets `reply_budget` may take: below, a snapshot's fields alone would not fit; above,
/// more than any MCP client takes in one result.
const REPLY_BUDGETS: std::ops::RangeInclusive<usize> = 2048..=1_048_576;

/// `[daemon]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DaemonConfig {
    /// A group whose members may use the socket too (mode 0660, owned by the group).
    pub socket_group: Option<String>,
    /// How long an action waits for the desk turn before it fails with `desk busy`.
    pub turn_wait_ms: u64,
    /// Which display the daemon drives (see [`DisplayMode`]); unset: the default.
    pub display: Option<DisplayMode>,
    /// Under `per-agent`: at most this many private displays at once.
    pub displays_max: usize,
    /// Under `per-agent`: a display no call used for this long is ended.
    pub display_idle_s: u64,
    /// What a private display is (`private` and `per-agent`): an X server or a headless sway.
    pub private_seat: SeatKind,
    /// How input reaches windows on the person's own display (`inherit`); a private display
    /// is the agent's alone, so input there always goes in the foreground.
    pub input: InputSetting,
}

/// How input reaches windows on the person's display (`[daemon] input`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InputSetting {
    /// On the person's pointer and keyboard, raising and focusing windows as needed.
    #[default]
    Foreground,
    /// From the agent's own pointer and keyboard, leaving the person's pointer, focus and
    /// stacking alone; what cannot go that way is refused.
    Background,
    /// In the background where it can, else in the foreground, and the result says so.
    Auto,
}

impl InputSetting {
    /// The setting's name as config.toml spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Foreground => "foreground",
            Self::Background => "background",
            Self::Auto => "auto",
        }
    }
}

impl From<InputSetting> for desk::guard::InputMode {
    fn from(setting: InputSetting) -> Self {
        match setting {
            InputSetting::Foreground => Self::Foreground,
            InputSetting::Background => Self::Background,
            InputSetting::Auto => Self::Auto,
        }
    }
}

/// Which display the daemon drives (`[daemon] display`, `shuttle serve --display`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum DisplayMode {
    /// The display the daemon's DISPLAY names: the person's own.
    Inherit,
    /// A virtual display of the daemon's own (X server, window manager, session and
    /// accessibility buses), started with it and ended with it.
    Private,
    /// A private display for each agent, started on its first call.
    PerAgent,
}

impl DisplayMode {
    /// The mode's name as config.toml spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Inherit => "inherit",
            Self::Private => "private",
            Self::PerAgent => "per-agent",
        }
    }
}

impl Default for DaemonConfig {
    fn default() -> Self {
        Self {
            socket_group: None,
            turn_wait_ms: 15_000,
            display: None,
            displays_max: 4,
            display_idle_s: 900,
            private_seat: SeatKind::default(),
            input: InputSetting::Foreground,
        }
    }
}

/// `[safety]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SafetyConfig {
    /// When set, agents see and touch only windows of these apps (executable or process names).
    pub apps: Option<Vec<String>>,
    /// Ask the person on the desktop before every action.
    pub confirm: bool,
    /// How long a confirm dialog waits for an answer before it counts as Deny.
    pub confirm_timeout_s: u64,
    /// Serve observation verbs only.
    pub read_only: bool,
    /// Check and describe actions, deliver none.
    pub dry_run: bool,
    /// Refuse typing into password fields and any input into authentication dialogs unless the
    /// call passes `allow_auth: true`.
    pub auth_guard: bool,
    /// The key combination that stops shuttle, grabbed on the desktop; empty for none.
    pub kill_hotkey: String,
    /// Show a marker on the screen while an agent acts.
    pub indicator: bool,
    /// Where the clipboard verbs are served.
    pub clipboard: ClipboardAccess,
}

/// Where `clipboard_read` and `clipboard_write` are served (`[safety] clipboard`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClipboardAccess {
    /// On an agent's private display only, whose clipboard holds only what its own apps
    /// copied; refused on the person's display, whose clipboard often holds their secrets.
    #[default]
    Private,
    /// Everywhere, the person's display too.
    On,
    /// Nowhere.
    Off,
}

impl Default for SafetyConfig {
    fn default() -> Self {
        Self {
            apps: None,
            confirm: false,
            confirm_timeout_s: 30,
            read_only: false,
            dry_run: false,
            auth_guard: true,
            // Not Super+Shift+Escape: GNOME 45 and later hold it (Mutter's
            // cancel-input-capture) and refuse it to anyone else.
            kill_hotkey: "super+alt+Escape".into(),
            indicator: true,
            clipboard: ClipboardAccess::default(),
        }
    }
}

impl From<&SafetyConfig> for desk::guard::Policy {
    fn from(safety: &SafetyConfig) -> Self {
        Self {
            apps: safety.apps.clone(),
            auth_guard: safety.auth_guard,
            confirm: safety
                .confirm
                .then(|| std::time::Duration::from_secs(safety.confirm_timeout_s)),
            dry_run: safety.dry_run,
            read_only: safety.read_only,
            indicator: safety.indicator,
            no_clipboard: match safety.clipboard {
                ClipboardAccess::On => None,
                // The daemon lifts this for calls on an agent's private display.
                ClipboardAccess::Private => Some(
                    "the clipboard verbs are served on an agent's private display only \
                     ([safety] clipboard = \"private\"), and this call is on the person's own \
                     display, whose clipboard may hold their secrets; the person can set \
                     clipboard = \"on\""
                        .into(),
                ),
                ClipboardAccess::Off => {
                    Some("the clipboard verbs are off ([safety] clipboard = \"off\")".into())
                }
            },
            // The daemon sets it for calls on the person's display.
            input: desk::guard::InputMode::Foreground,
            // The daemon sets it from [apps], by the display the call runs on.
            sandbox: None,
        }
    }
}

/// `[apps]`: how the apps agents launch run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AppsConfig {
    /// On agents' private displays; unset: `home` where bubblewrap can make a sandbox, else
    /// `none`.
    pub sandbox: Option<SandboxSetting>,
    /// On the person's own display (`display = "inherit"`).
    pub person_sandbox: SandboxSetting,
    /// A home for sandboxed apps that lasts (`~/` is the person's home); unset: one per
    /// display, made with it and removed with it.
    pub home: Option<PathBuf>,
    /// Parts of the person's home sandboxed apps see and may change.
    pub share: Vec<PathBuf>,
    /// Parts of the person's home sandboxed apps see and may not change.
    pub show: Vec<PathBuf>,
}

/// Whether apps run in a sandbox (`[apps] sandbox`, `person_sandbox`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxSetting {
    /// As the person, with everything the person may touch.
    #[default]
    None,
    /// Under bubblewrap, with a home of their own in place of the person's.
    Home,
}

impl SandboxSetting {
    /// The setting's name as config.toml spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Home => "home",
        }
    }
}

impl AppsConfig {
    /// The sandbox in force on a private display (`private`) or the person's, where a sandbox
    /// can (`can`) or cannot be made here; `None`: apps run as the person. A sandbox asked for
    /// by name is kept where it cannot be made, so that a launch is refused rather than run
    /// without it.
    pub fn sandbox(&self, private: bool, can: bool) -> Option<desk::Sandbox> {
        let setting = match (private, self.sandbox) {
            (true, Some(setting)) => setting,
            (true, None) if can => SandboxSetting::Home,
            (true, None) => SandboxSetting::None,
            (false, _) => self.person_sandbox,
        };
        (setting == SandboxSetting::Home).then(|| desk::Sandbox {
            persons_home: persons_home(),
            home: self.home.as_deref().map(expand),
            share: self.share.iter().map(|p| expand(p)).collect(),
            show: self.show.iter().map(|p| expand(p)).collect(),
        })
    }

    /// What is wrong with the paths, naming the key: each must be absolute or start with
    /// `~/`, those shared and shown must lie inside the person's home (outside it a sandboxed
    /// app sees as much as anyone), and no path may be both shared and shown.
    fn check(&self) -> Result<(), (&'static str, String)> {
        let home = persons_home();
        let named = |key: &'static str, path: &Path| -> Result<PathBuf, (&'static str, String)> {
            let text = path.display().to_string();
            let bad = |why: &str| (key, format!("{text:?} {why}"));
            if !(text.starts_with('/') || text.starts_with("~/")) {
                return Err(bad("is neither absolute nor in ~/"));
            }
            if path
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
            {
                return Err(bad("goes up with `..`; name the directory itself"));
            }
            Ok(expand(path))
        };
        if let Some(path) = &self.home {
            named("home", path)?;
        }
        let mut seen: Vec<(PathBuf, &'static str)> = Vec::new();
        for (key, paths) in [("share", &self.share), ("show", &self.show)] {
            for path in paths {
                let full = named(key, path)?;
                if !full.starts_with(&home) || full == home {
                    return Err((
                        key,
                        format!(
                            "{:?} is not inside the person's home ({}): outside it a sandboxed app \
                             sees what anyone may, and the whole home is sandbox = \"none\"",
                            path.display(),
                            home.display()
                        ),
                    ));
                }
                if let Some((_, other)) = seen.iter().find(|(p, _)| *p == full) {
                    return Err((
                        key,
                        format!(
                            "{:?} is named by both share and show; keep it in one ({other} \
                             names it too)",
                            path.display()
                        ),
                    ));
                }
                seen.push((full, key));
            }
        }
        Ok(())
    }
}

/// The person's home: the daemon's HOME.
fn persons_home() -> PathBuf {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map_or_else(|| PathBuf::from("/"), PathBuf::from)
}

/// `path` with a leading `~/` taken as the person's home.
fn expand(path: &Path) -> PathBuf {
    match path.strip_prefix("~") {
        Ok(rest) => persons_home().join(rest),
        Err(_) => path.to_path_buf(),
    }
}

/// `[journal]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct JournalConfig {
    /// Write one line per call.
    pub enabled: bool,
    /// The journal file; default `$XDG_STATE_HOME/loomhand/shuttle/journal.ndjson`.
    pub path: Option<PathBuf>,
    /// Record typed text as it is, instead of its length and a digest.
    pub record_text: bool,
    /// Start a new file past this size, keeping one previous generation (`.1`); 0 never.
    pub max_bytes: u64,
}

impl Default for JournalConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            path: None,
            record_text: false,
            max_bytes: 8 * 1024 * 1024,
        }
    }
}

impl JournalConfig {
    /// The journal file.
    pub fn file(&self) -> PathBuf {
        self.path
            .clone()
            .unwrap_or_else(|| crate::logging::state_dir().join("journal.ndjson"))
    }
}

/// `[tools]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ToolsConfig {
    /// Serve `script_run` and the tool plugins; `false` turns both off (services stay).
    pub script_run: bool,
    /// The plugin directory; default `tools.d` beside config.toml. A relative path is taken
    /// from config.toml's directory.
    pub plugins: Option<PathBuf>,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        Self {
            script_run: true,
            plugins: None,
        }
    }
}

impl ToolsConfig {
    /// The plugin directory, for the config file at `config_path`.
    pub fn plugin_dir(&self, config_path: &Path) -> PathBuf {
        let beside = config_path.parent().unwrap_or(Path::new("/"));
        match &self.plugins {
            Some(dir) => beside.join(dir),
            None => beside.join("tools.d"),
        }
    }
}

/// Where flows (named plans, for `SHUTTLE_FLOWS`) are kept: `flows` beside config.toml.
pub fn flows_dir(config_path: &Path) -> PathBuf {
    config_path.parent().unwrap_or(Path::new("/")).join("flows")
}

/// `$SHUTTLE_CONFIG`, else `$XDG_CONFIG_HOME/loomhand/shuttle/config.toml`, else
/// `~/.config/loomhand/shuttle/config.toml`.
pub fn config_path() -> PathBuf {
    if let Some(path) = std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()) {
        return PathBuf::from(path);
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/".into())).join(".config")
        });
    base.join("loomhand/shuttle/config.toml")
}

/// Reads and checks a config file; a missing file is the default config.
pub fn load(path: &Path) -> Result<Config, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(e) => return Err(format!("cannot read config {}: {e}", path.display())),
    };
    parse(&text).map_err(|e| format!("config {}: {e}", path.display()))
}

/// Parses and checks config text.
pub fn parse(text: &str) -> Result<Config, String> {
    let config: Config = toml::from_str(text).map_err(|e| describe(text, &e))?;
    let hotkey = &config.safety.kill_hotkey;
    if !hotkey.is_empty()
        && let Err(e) = desk::keys::parse_combo(hotkey)
    {
        return Err(format!(
            "{}, key `kill_hotkey`: {e}",
            line_of(text, "kill_hotkey")
        ));
    }
    if config
        .safety
        .apps
        .as_ref()
        .is_some_and(|apps| apps.iter().any(|a| a.trim().is_empty()))
    {
        return Err(format!(
            "{}, key `apps`: an entry is empty; name an app",
            line_of(text, "apps")
        ));
    }
    if let Err((key, why)) = config.apps.check() {
        return Err(format!("{}, key `{key}`: {why}", line_of(text, key)));
    }
    if !REPLY_BUDGETS.contains(&config.mcp.reply_budget) {
        return Err(format!(
            "{}, key `reply_budget`: {} bytes is out of range; give {} to {} (default {})",
            line_of(text, "reply_budget"),
            config.mcp.reply_budget,
            REPLY_BUDGETS.start(),
            REPLY_BUDGETS.end(),
            desk_core::status::DEFAULT_REPLY_BUDGET
        ));
    }
    Ok(config)
}

/// A TOML error on one line: `line 2, key `confirm`: invalid type: ...`.
fn describe(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim_end();
    let Some(span) = error.span() else {
        return message.to_string();
    };
    let start = span.start.min(text.len());
    let line = text[..start].matches('\n').count() + 1;
    let line_text = text.lines().nth(line - 1).unwrap_or_default();
    match line_text.split_once('=') {
        Some((key, _)) => format!("line {line}, key `{}`: {message}", key.trim()),
        None => format!("line {line} ({}): {message}", line_text.trim()),
    }
}

/// "line N" of the first line that sets `key`, for errors found after parsing.
fn line_of(text: &str, key: &str) -> String {
    text.lines()
        .position(|line| line.trim_start().starts_with(key))
        .map_or_else(|| "config".into(), |i| format!("line {}", i + 1))
}

/// The config as the daemon sees it: read again whenever the file changes.
pub struct ConfigSource {
    path: PathBuf,
    state: Mutex<Loaded>,
}

/// What reading the file last gave.
struct Loaded {
    /// The file's stamp when it was read.
    stamp: Option<Stamp>,
    /// The config, or why it does not load.
    result: Result<Arc<Config>, String>,
    /// The last config that loaded, for what must go on while the file is broken (the journal
    /// keeps its place).
    last_good: Option<Arc<Config>>,
}

impl ConfigSource {
    /// Reads `path` now.
    pub fn new(path: PathBuf) -> Self {
        let stamp = modified(&path);
        let result = load(&path).map(Arc::new);
        let last_good = result.as_ref().ok().cloned();
        Self {
            path,
            state: Mutex::new(Loaded {
                stamp,
                result,
                last_good,
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Loaded> {
        let stamp = modified(&self.path);
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.stamp != stamp {
            let result = load(&self.path).map(Arc::new);
            match &result {
                Ok(config) => {
                    tracing::info!(path = %self.path.display(), "config loaded");
                    // An empty file is the defaults, and also what a read between an editor's
                    // truncate and its write sees: it does not move the journal a broken
                    // file then leaves in place.
                    if stamp.is_some_and(|(_, len, _)| len > 0) || state.last_good.is_none() {
                        state.last_good = Some(config.clone());
                    }
                }
                Err(e) => tracing::warn!(error = %e, "config does not load"),
            }
            state.stamp = stamp;
            state.result = result;
        }
        state
    }

    /// The current config, or why it does not load.
    pub fn current(&self) -> Result<Arc<Config>, String> {
        self.state().result.clone()
    }

    /// The current config, else the last one that loaded, else the defaults.
    pub fn last_good(&self) -> Arc<Config> {
        let state = self.state();
        match &state.result {
            Ok(config) => config.clone(),
            Err(_) => state.last_good.clone().unwrap_or_default(),
        }
    }

    /// The file it reads.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// What tells one version of the file from another: its modification time alone does not, as
/// the kernel stamps it with a clock that ticks every few milliseconds, so a read between an
/// editor's truncate and its write could stamp the empty file as the new one.
type Stamp = (SystemTime, u64, u64);

fn modified(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len(), meta.ino()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_budget_out_of_range_is_refused_naming_the_range() {
        let refused = parse("[mcp]\nreply_budget = 0\n").unwrap_err();
        assert!(refused.contains("line 2, key `reply_budget`"), "{refused}");
        assert!(
            refused.contains("give 2048 to 1048576 (default 8192)"),
            "{refused}"
        );
        let config = parse("[mcp]\nreply_budget = 4096\n").unwrap();
        assert_eq!(config.mcp.reply_budget, 4096);
        assert_eq!(parse("").unwrap().mcp.reply_budget, 8192);
    }

    #[test]
    fn the_sandbox_is_home_on_private_displays_where_it_can_be_and_as_named_elsewhere() {
        let home = persons_home();
        let default = AppsConfig::default();
        let on_private = default.sandbox(true, true).unwrap();
        assert_eq!(on_private.persons_home, home);
        assert_eq!(on_private.home, None);
        assert_eq!(
            default.sandbox(true, false),
            None,
            "no bubblewrap: none by default"
        );
        assert_eq!(
            default.sandbox(false, true),
            None,
            "the person's display: none"
        );
        let named = parse(
            "[apps]\nsandbox = \"home\"\nperson_sandbox = \"home\"\nhome = \"~/agents\"\n\
             share = [\"~/work\"]\nshow = [\"~/ref\"]\n",
        )
        .unwrap()
        .apps;
        let kept = named.sandbox(true, false).unwrap();
        assert_eq!(kept.home, Some(home.join("agents")));
        assert_eq!(kept.share, [home.join("work")]);
        assert_eq!(kept.show, [home.join("ref")]);
        assert!(named.sandbox(false, true).is_some());
        let none = parse("[apps]\nsandbox = \"none\"\n").unwrap().apps;
        assert_eq!(none.sandbox(true, true), None);
    }

    #[test]
    fn sandbox_paths_that_would_not_do_what_they_say_are_refused_by_name() {
        for (text, want) in [
            (
                "[apps]\nshare = [\"/etc\"]\n",
                "line 2, key `share`: \"/etc\" is not inside the person's home",
            ),
            (
                "[apps]\nshow = [\"~\"]\n",
                "key `show`: \"~\" is neither absolute",
            ),
            (
                "[apps]\nshow = [\"~/\"]\n",
                "is not inside the person's home",
            ),
            (
                "[apps]\nshare = [\"work\"]\n",
                "\"work\" is neither absolute nor in ~/",
            ),
            ("[apps]\nshare = [\"~/a/../..\"]\n", "goes up with `..`"),
            (
                "[apps]\nshare = [\"~/w\"]\nshow = [\"~/w\"]\n",
                "line 3, key `show`: \"~/w\" is named by both share and show",
            ),
            ("[apps]\nsandbox = \"strict\"\n", "unknown variant `strict`"),
        ] {
            let error = parse(text).unwrap_err();
            assert!(error.contains(want), "{text:?}: {error}");
        }
    }

    #[test]
    fn empty_text_is_the_default() {
        assert_eq!(parse("").unwrap(), Config::default());
        assert!(Config::default().safety.auth_guard);
    }

    #[test]
    fn every_key_round_trips() {
        let text = toml::to_string(&Config::default()).unwrap();
        assert_eq!(parse(&text).unwrap(), Config::default());
    }

    #[test]
    fn settings_are_read() {
        let config = parse(
            "[safety]\napps = [\"gedit\", \"firefox-esr\"]\nconfirm = true\n\n[journal]\nmax_bytes = 0\n",
        )
        .unwrap();
        assert_eq!(config.safety.apps.unwrap(), ["gedit", "firefox-esr"]);
        assert!(config.safety.confirm);
        assert_eq!(config.journal.max_bytes, 0);
    }

    #[test]
    fn errors_name_the_key_and_line() {
        let cases = [
            (
                "[safety]\ncolour = 1\n",
                "line 2, key `colour`",
                "unknown field `colour`",
            ),
            (
                "[safety]\nconfirm = \"yes\"\n",
                "line 2, key `confirm`",
                "invalid type: string \"yes\", expected a boolean",
            ),
            (
                "[safety]\napps = [\"gedit\", 5]\n",
                "line 2, key `apps`",
                "invalid type: integer `5`, expected a string",
            ),
            ("[deamon]\n", "line 1 ([deamon])", "unknown field `deamon`"),
            (
                "[safety]\nkill_hotkey = \"ctrl+Retrun\"\n",
                "line 2, key `kill_hotkey`",
                "unknown key \"Retrun\"",
            ),
            (
                "[safety]\napps = [\"\"]\n",
                "line 2, key `apps`",
                "an entry is empty",
            ),
        ];
        for (text, line, want) in cases {
            let err = parse(text).unwrap_err();
            assert!(err.contains(line) && err.contains(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn a_broken_file_keeps_the_last_good_config_for_what_must_go_on() {
        let dir = std::env::temp_dir().join(format!("shuttle-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("config.toml");
        let write = |text: &str, age_s: u64| {
            std::fs::write(&path, text).unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            let when = SystemTime::now() - std::time::Duration::from_secs(age_s);
            file.set_modified(when).unwrap();
        };
        write("[journal]\nmax_bytes = 7\n", 10);
        let source = ConfigSource::new(path.clone());
        assert_eq!(source.current().unwrap().journal.max_bytes, 7);
        write("[journal]\nmax_bytes = \"x\"\n", 5);
        assert!(source.current().is_err());
        assert_eq!(source.last_good().journal.max_bytes, 7);
        std::fs::remove_dir_all(dir).unwrap();
        let missing = ConfigSource::new(std::path::PathBuf::from("/nonexistent/shuttle.toml"));
        assert_eq!(*missing.last_good(), Config::default());
    }

    #[test]
    fn a_file_rewritten_within_one_clock_tick_is_read_again() {
        let dir = std::env::temp_dir().join(format!("shuttle-config-tick-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("config.toml");
        let when = SystemTime::now() - std::time::Duration::from_secs(60);
        let write = |text: &str| {
            std::fs::write(&path, text).unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(when).unwrap();
        };
        // Read between an editor's truncate and its write: empty, the defaults.
        write("");
        let source = ConfigSource::new(path.clone());
        assert_eq!(*source.current().unwrap(), Config::default());
        write("[safety]\nconfirm = \"yes\"\n");
        assert!(source.current().is_err(), "the same time, another file");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_broken_file_keeps_the_journal_where_the_last_written_config_put_it() {
        let dir = std::env::temp_dir().join(format!("shuttle-config-good-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("config.toml");
        std::fs::write(&path, "[journal]\npath = \"/tmp/kept.ndjson\"\n").unwrap();
        let source = ConfigSource::new(path.clone());
        // An editor truncates, the daemon reads, the editor writes a broken file.
        std::fs::write(&path, "").unwrap();
        assert_eq!(*source.current().unwrap(), Config::default());
        std::fs::write(&path, "[safety]\nconfirm = \"yes\"\n").unwrap();
        assert!(source.current().is_err());
        assert_eq!(
            source.last_good().journal.file(),
            std::path::PathBuf::from("/tmp/kept.ndjson")
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
