//! `shuttle setup CLIENT`: puts shuttle in an MCP client's config, prints the entry, or takes
//! it out again, leaving everything else in the file as it was (comments and layout included).
//!
//! Each client keeps its servers in a file of its own ([`Client::file`]): JSON for most (VS
//! Code, Cursor and Gemini CLI read comments too), TOML for Codex. The entry is always named
//! `shuttle` and runs this binary with `mcp`. A file that does not parse is never written: the
//! error names the file, line and column.

mod json;
mod toml;

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The name of shuttle's entry in every client's server list.
pub const SERVER_NAME: &str = "shuttle";

/// The MCP clients `shuttle setup` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// Claude Code (user scope, ~/.claude.json)
    ClaudeCode,
    /// Codex CLI (~/.codex/config.toml)
    Codex,
    /// Cursor (~/.cursor/mcp.json)
    Cursor,
    /// VS Code (the user profile's mcp.json)
    Vscode,
    /// Gemini CLI (~/.gemini/settings.json)
    Gemini,
    /// Claude Desktop (~/.config/Claude/claude_desktop_config.json)
    ClaudeDesktop,
}

/// What `shuttle setup` sets up: an MCP client, GNOME (shuttle's Shell extension), or KDE
/// (the desktop file that has KWin grant shuttle its interfaces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Client(Client),
    Gnome,
    Kde,
}

impl clap::ValueEnum for Target {
    fn value_variants<'a>() -> &'a [Self] {
        const ALL: [Target; 8] = [
            Target::Client(Client::ClaudeCode),
            Target::Client(Client::Codex),
            Target::Client(Client::Cursor),
            Target::Client(Client::Vscode),
            Target::Client(Client::Gemini),
            Target::Client(Client::ClaudeDesktop),
            Target::Gnome,
            Target::Kde,
        ];
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        match self {
            Target::Client(client) => client.to_possible_value(),
            Target::Gnome => Some(
                clap::builder::PossibleValue::new("gnome")
                    .help("GNOME Shell on Wayland: shuttle's extension, for the GNOME desk"),
            ),
            Target::Kde => Some(clap::builder::PossibleValue::new("kde").help(
                "KDE Plasma on Wayland: the desktop file that has KWin grant shuttle input \
                     and screenshots, for the KDE desk",
            )),
        }
    }
}

/// How a client's file holds its servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json {
        /// The top-level key of the server map.
        servers: &'static str,
        /// Whether the client reads comments and trailing commas.
        comments: bool,
        /// Whether an entry names its transport (`"type": "stdio"`).
        typed: bool,
    },
    /// Codex: `[mcp_servers.NAME]` tables.
    Toml,
}

impl Client {
    /// Every client, in the order `shuttle setup` and `shuttle doctor` list them.
    pub const ALL: [Client; 6] = [
        Client::ClaudeCode,
        Client::Codex,
        Client::Cursor,
        Client::Vscode,
        Client::Gemini,
        Client::ClaudeDesktop,
    ];

    /// The name on the command line: `claude-code`.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Codex => "codex",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
            Client::Gemini => "gemini",
            Client::ClaudeDesktop => "claude-desktop",
        }
    }

    /// The name people know it by: `Claude Code`.
    pub fn title(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::Codex => "Codex CLI",
            Client::Cursor => "Cursor",
            Client::Vscode => "VS Code",
            Client::Gemini => "Gemini CLI",
            Client::ClaudeDesktop => "Claude Desktop",
        }
    }

    fn format(self) -> Format {
        let json = |servers, comments, typed| Format::Json {
            servers,
            comments,
            typed,
        };
        match self {
            Client::ClaudeCode => json("mcpServers", false, true),
            Client::Codex => Format::Toml,
            Client::Cursor => json("mcpServers", true, false),
            Client::Vscode => json("servers", true, true),
            Client::Gemini => json("mcpServers", true, false),
            Client::ClaudeDesktop => json("mcpServers", false, false),
        }
    }

    /// The file the client reads its user-wide servers from, following the variables each
    /// client honours (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_CONFIG_HOME`).
    pub fn file(self) -> Result<PathBuf, SetupError> {
        let home = || env_dir("HOME").ok_or(SetupError::NoHome);
        let config = || {
            env_dir("XDG_CONFIG_HOME")
                .map(Ok)
                .unwrap_or_else(|| home().map(|h| h.join(".config")))
        };
        Ok(match self {
            Client::ClaudeCode => match env_dir("CLAUDE_CONFIG_DIR") {
                Some(dir) => dir.join(".claude.json"),
                None => home()?.join(".claude.json"),
            },
            Client::Codex => env_dir("CODEX_HOME")
                .map(Ok)
                .unwrap_or_else(|| home().map(|h| h.join(".codex")))?
                .join("config.toml"),
            Client::Cursor => home()?.join(".cursor/mcp.json"),
            Client::Vscode => config()?.join("Code/User/mcp.json"),
            Client::Gemini => home()?.join(".gemini/settings.json"),
            Client::ClaudeDesktop => config()?.join("Claude/claude_desktop_config.json"),
        })
    }

    /// Where in the file the entry goes, in words: `mcpServers` or `[mcp_servers.shuttle]`.
    pub fn place(self) -> String {
        match self.format() {
            Format::Json { servers, .. } => format!("\"{servers}\""),
            Format::Toml => format!("[mcp_servers.{SERVER_NAME}]"),
        }
    }
}

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// What an entry runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
}

impl Entry {
    /// `shuttle mcp`, naming this binary by the path a person would type: the `shuttle` on
    /// PATH when that is this binary (`/usr/bin/shuttle`, which outlives upgrades), else the
    /// binary's own path.
    pub fn this_binary() -> Result<Self, SetupError> {
        let exe = crate::client::shuttle_binary().map_err(SetupError::NoBinary)?;
        let real = std::fs::canonicalize(&exe).unwrap_or_else(|_| exe.clone());
        let on_path = std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("shuttle"))
                .find(|candidate| std::fs::canonicalize(candidate).is_ok_and(|c| c == real))
        });
        Ok(Self {
            command: on_path.unwrap_or(exe).display().to_string(),
            args: vec!["mcp".into()],
        })
    }

    /// The command line, for people: `/usr/bin/shuttle mcp`.
    pub fn shown(&self) -> String {
        std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// What `shuttle setup` did to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The entry was added.
    Added,
    /// An entry named shuttle ran something else; it runs this binary now.
    Replaced {
        /// What it ran.
        was: Entry,
    },
    /// The entry was there already, as it should be.
    Unchanged,
    /// The entry was taken out.
    Removed,
    /// There was no entry to take out.
    Absent,
}

/// Why `shuttle setup` changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The client's file does not parse.
    #[error(
        "{}:{line}:{column}: not valid {format} ({reason}); nothing was changed: fix the file, or \
         move it aside and run shuttle setup again",
        file.display()
    )]
    Invalid {
        file: PathBuf,
        format: &'static str,
        line: usize,
        column: usize,
        reason: String,
    },
    /// The file parses but does not hold what a config of this client holds.
    #[error("{}: {what}; nothing was changed: fix the file and run shuttle setup again", file.display())]
    Shape { file: PathBuf, what: String },
    /// The file could not be read or written.
    #[error("cannot {action} {}: {source}", file.display())]
    Io {
        action: &'static str,
        file: PathBuf,
        source: std::io::Error,
    },
    /// Neither HOME nor the client's own variable says where its config is.
    #[error("HOME is not set, so the client's config file cannot be found; set HOME")]
    NoHome,
    /// The running binary's path is unknown.
    #[error("cannot tell where this shuttle binary is ({0}); run it by its full path")]
    NoBinary(std::io::Error),
}

/// A problem found in a file's text, before the file is known.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Problem {
    Syntax {
        line: usize,
        column: usize,
        reason: String,
    },
    Shape(String),
}

impl Problem {
    fn in_file(self, file: &Path, format: Format) -> SetupError {
        match self {
            Problem::Syntax {
                line,
                column,
                reason,
            } => SetupError::Invalid {
                file: file.to_path_buf(),
                format: match format {
                    Format::Json { .. } => "JSON",
                    Format::Toml => "TOML",
                },
                line,
                column,
                reason,
            },
            Problem::Shape(what) => SetupError::Shape {
                file: file.to_path_buf(),
                what,
            },
        }
    }
}

/// What a client's file says about shuttle.
#[derive(Debug)]
pub enum State {
    /// The file does not exist.
    NoFile,
    /// The file has no shuttle entry.
    NotSetUp,
    /// The file has one, running this.
    SetUp(Entry),
}

/// What `client`'s file says about shuttle.
pub fn state(client: Client) -> Result<(PathBuf, State), SetupError> {
    let file = client.file()?;
    let Some(text) = read(&file)? else {
        return Ok((file, State::NoFile));
    };
    let format = client.format();
    let entry = match format {
        Format::Json {
            servers, comments, ..
        } => json::read(&text, servers, comments),
        Format::Toml => toml::read(&text),
    }
    .map_err(|p| p.in_file(&file, format))?;
    Ok((file, entry.map_or(State::NotSetUp, State::SetUp)))
}

/// Adds (or corrects) shuttle's entry in `client`'s file; answers the file and what changed.
pub fn add(client: Client, entry: &Entry) -> Result<(PathBuf, Change), SetupError> {
    let file = client.file()?;
    let text = read(&file)?;
    let format = client.format();
    let (new, change) = match format {
        Format::Json {
            servers,
            comments,
            typed,
        } => json::add(text.as_deref(), servers, comments, typed, entry),
        Format::Toml => toml::add(text.as_deref(), entry),
    }
    .map_err(|p| p.in_file(&file, format))?;
    if change != Change::Unchanged {
        write(&file, Some(&new))?;
    }
    Ok((file, change))
}

/// Takes shuttle's entry out of `client`'s file; a file left with nothing in it is removed.
pub fn remove(client: Client) -> Result<(PathBuf, Change), SetupError> {
    let file = client.file()?;
    let Some(text) = read(&file)? else {
        return Ok((file, Change::Absent));
    };
    let format = client.format();
    let (new, change) = match format {
        Format::Json {
            servers, comments, ..
        } => json::remove(&text, servers, comments),
        Format::Toml => toml::remove(&text),
    }
    .map_err(|p| p.in_file(&file, format))?;
    if change == Change::Removed {
        write(&file, new.as_deref())?;
    }
    Ok((file, change))
}

/// The entry as it would stand in `client`'s file, for `--print`.
pub fn snippet(client: Client, entry: &Entry) -> String {
    match client.format() {
        Format::Json {
            servers,
            comments,
            typed,
        } => json::add(None, servers, comments, typed, entry),
        Format::Toml => toml::add(None, entry),
    }
    .map(|(text, _)| text)
    .expect("an entry goes into an empty file")
}

/// The file's text; `None` when it does not exist or holds only blanks.
fn read(file: &Path) -> Result<Option<String>, SetupError> {
    match std::fs::read_to_string(file) {
        Ok(text) if text.trim().is_empty() => Ok(None),
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(SetupError::Io {
            action: "read",
            file: file.to_path_buf(),
            source,
        }),
    }
}

/// Replaces `file` with `text` (or removes it, for `None`) in one rename, so the client never
/// reads half a file. A symlinked file (a dotfile manager's) is written where the link points;
/// the file keeps its mode, and a new one is private (0600), since clients keep keys there.
fn write(file: &Path, text: Option<&str>) -> Result<(), SetupError> {
    let io = |action, source| SetupError::Io {
        action,
        file: file.to_path_buf(),
        source,
    };
    let target = match std::fs::symlink_metadata(file) {
        Ok(meta) if meta.file_type().is_symlink() => {
            std::fs::canonicalize(file).map_err(|e| io("follow the link", e))?
        }
        _ => file.to_path_buf(),
    };
    let Some(text) = text else {
        return std::fs::remove_file(&target).map_err(|e| io("remove", e));
    };
    let dir = target.parent().unwrap_or(Path::new("."));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| io("create the directory of", e))?;
    let mode = std::fs::metadata(&target).map_or(0o600, |m| m.permissions().mode() & 0o7777);
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let staging = dir.join(format!(".{name}.shuttle-{}", std::process::id()));
    let written = (|| {
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .open(&staging)?;
        out.set_permissions(std::fs::Permissions::from_mode(mode))?;
        out.write_all(text.as_bytes())?;
        out.sync_all()?;
        std::fs::rename(&staging, &target)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&staging);
        return Err(io("write", e));
    }
    Ok(())
}

/// Line and column (both from 1) of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_is_counted_in_lines_and_characters() {
        assert_eq!(line_column("ab\ncd", 0), (1, 1));
        assert_eq!(line_column("ab\ncd", 4), (2, 2));
        assert_eq!(line_column("é\nx", 3), (2, 1));
        assert_eq!(line_column("ab", 99), (1, 3));
    }

    #[test]
    fn every_client_has_a_file_and_a_distinct_name() {
        let names: std::collections::BTreeSet<_> = Client::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), Client::ALL.len());
        for client in Client::ALL {
            let parsed = <Client as clap::ValueEnum>::from_str(client.name(), false).unwrap();
            assert_eq!(parsed, client);
        }
    }

    #[test]
    fn a_snippet_for_every_client_reads_back_as_the_entry() {
        let entry = Entry {
            command: "/usr/bin/shuttle".into(),
            args: vec!["mcp".into()],
        };
        for client in Client::ALL {
            let text = snippet(client, &entry);
            let back = match client.format() {
                Format::Json {
                    servers, comments, ..
                } => json::read(&text, servers, comments),
                Format::Toml => toml::read(&text),
            };
            assert_eq!(back, Ok(Some(entry.clone())), "{client:?}:\n{text}");
        }
    }
}
