//! The daemon's state, as `status` answers it: what `shuttle status`, `shuttle watch`, doctor
//! and the MCP proxy read. One type, built by the daemon and read back by its clients, so a
//! renamed field does not compile rather than reads as missing.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The daemon's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// Always `running`: a daemon that answers runs.
    pub daemon: String,
    /// The daemon's process.
    pub pid: u32,
    /// Its version.
    pub version: String,
    /// How long it has run.
    pub uptime_s: u64,
    /// The socket it serves.
    pub socket: String,
    /// Its log file.
    pub log: String,
    /// The config file it reads.
    pub config: String,
    /// Whether the person stopped it.
    pub stopped: bool,
    /// The safety controls in force.
    pub safety: Safety,
    /// The journal file, when the journal is on.
    pub journal: Option<String>,
    /// The display it drives.
    pub display: Option<DisplayStatus>,
    /// How input reaches the person's own display: `foreground`, `background` or `auto`.
    pub input: String,
    /// The shared display's desk, or how many agents' displays there are.
    pub desk: Desk,
    /// Who holds the shared display's desk turn.
    pub turn: Option<String>,
    /// The agents' own displays (none when the display is shared).
    pub agents: Option<Agents>,
    /// Whether `script_run` and the tool plugins are served.
    pub scripts: bool,
    /// Where model calls go.
    pub models: Models,
    /// The plugins: their directory, tools, services and what MCP lists of them.
    pub plugins: Plugins,
    /// What `shuttle mcp` sessions follow.
    #[serde(default)]
    pub mcp: Mcp,
    /// Calls answered.
    pub calls: u64,
    /// Connections accepted.
    pub connections: u64,
}

/// The safety controls in force.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Safety {
    /// The app allowlist, when set.
    pub apps: Option<Vec<String>>,
    pub confirm: bool,
    pub read_only: bool,
    pub dry_run: bool,
    pub auth_guard: bool,
    pub indicator: bool,
    /// The kill hotkey.
    pub kill_hotkey: Hotkey,
    /// What the apps agents launch run in.
    pub sandbox: Sandboxes,
}

/// The kill hotkey: its keys, whether it is grabbed, and why not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hotkey {
    pub keys: String,
    pub grabbed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// The sandbox of launched apps on agents' displays and on the person's: `home` or `none`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sandboxes {
    pub private: String,
    pub person: String,
}

/// The display the daemon drives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DisplayStatus {
    /// `inherit`, `private` or `per-agent`.
    pub mode: String,
    /// The window system: `x11` or `wayland`.
    pub system: String,
    /// The kind of private seat, when the daemon starts them.
    pub seats: Option<String>,
    /// The display every agent shares.
    pub name: Option<String>,
    /// The person's display.
    pub person: Option<String>,
    /// The process group of the shared private display.
    pub group: Option<i32>,
    /// The file of the private displays' credential.
    pub xauthority: Option<String>,
}

/// The shared display's desk, as it describes itself; or that it is not connected; or how
/// many agents have displays of their own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Desk {
    Connected(DeskInfo),
    NotConnected { connected: bool },
    PerAgent { per_agent: usize },
}

/// What a connected display says of itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeskInfo {
    /// `x11` or `wayland`.
    pub system: String,
    /// The display it is connected to.
    pub display: String,
    /// How it captures the screen.
    pub capture: String,
    /// Whether a window's own pixels can be read under other windows.
    pub window_pixels: bool,
    /// Whether input results can say what the app answered (`app_answer` read or busy).
    pub confirms: bool,
    /// What it cannot do, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lacking: Vec<String>,
}

/// The agents' own displays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agents {
    /// At most this many at once.
    pub max: usize,
    /// A display no call used for this long is ended.
    pub idle_s: u64,
    pub agents: Vec<Agent>,
}

/// One agent's display.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agent {
    pub agent: String,
    pub display: Option<String>,
    pub server_pid: Option<i32>,
    pub idle_s: u64,
    pub turn: Option<String>,
}

/// What `shuttle mcp` sessions follow (`[mcp]` in config.toml).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mcp {
    /// The most bytes of text a tool result carries; the rest is a resource to read.
    pub reply_budget: usize,
}

impl Default for Mcp {
    fn default() -> Self {
        Self {
            reply_budget: DEFAULT_REPLY_BUDGET,
        }
    }
}

/// `[mcp] reply_budget` when config.toml says nothing.
pub const DEFAULT_REPLY_BUDGET: usize = 8192;

/// Where model calls go, and whether the key is set (never the key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Models {
    pub base_url: String,
    pub decisions_url: Option<String>,
    pub api_key_env: String,
    pub key_set: bool,
    pub roles: Roles,
}

/// The model per role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Roles {
    pub decide: Option<String>,
    pub verify: Option<String>,
    pub ground: Option<String>,
    pub ask: Option<String>,
}

/// The plugins.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Plugins {
    /// Their directory.
    pub dir: String,
    /// The tool plugins' names.
    pub tools: Vec<String>,
    /// The services, as they run.
    pub services: Vec<ServiceState>,
    /// The files skipped, and why.
    pub errors: Vec<String>,
    /// What an MCP client is offered of them.
    #[serde(default)]
    pub catalog: Catalog,
}

/// A service as it runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServiceState {
    pub service: String,
    pub pid: Option<u32>,
    pub starts: u32,
    pub last_exit: Option<String>,
}

/// What the plugins offer an MCP client: the tool plugins, with their resources, and the
/// services' tools.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Catalog {
    pub tools: Vec<PluginTool>,
    pub services: Vec<ServiceTools>,
}

/// A tool plugin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PluginTool {
    pub name: String,
    pub description: String,
    pub resources: Vec<Resource>,
}

/// A file a tool plugin offers as an MCP resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    pub uri: String,
    pub path: String,
    pub mime: String,
    pub description: String,
}

impl Resource {
    /// The name resources/list gives it: its file name.
    pub fn name(&self) -> String {
        std::path::Path::new(&self.path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.uri.clone())
    }
}

/// A service's tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServiceTools {
    pub name: String,
    pub tools: Vec<ServiceTool>,
}

/// A tool a service serves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServiceTool {
    pub name: String,
    pub description: String,
    pub input_schema: Map<String, Value>,
    /// Whether MCP lists it (a service may keep a tool for scripts alone).
    pub mcp: bool,
}

impl Catalog {
    /// The tool plugin `name`.
    pub fn tool(&self, name: &str) -> Option<&PluginTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The service that serves the tool `name`.
    pub fn service_of(&self, tool: &str) -> Option<&ServiceTools> {
        self.services
            .iter()
            .find(|s| s.tools.iter().any(|t| t.name == tool))
    }

    /// Every resource of every tool plugin.
    pub fn resources(&self) -> impl Iterator<Item = &Resource> {
        self.tools.iter().flat_map(|t| t.resources.iter())
    }
}
