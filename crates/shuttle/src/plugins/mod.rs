//! Plugins: the `*.json` files of the plugin directory (`tools.d` beside config.toml, or
//! `[tools] plugins`), read in file-name order by the daemon when it starts and by the MCP
//! server when an agent starts it.
//!
//! - A *tool plugin* adds one `*_run` tool that runs scripts with `script_run`'s contract, with
//!   its own program in place of Node.
//! - A *service* (a file with a `service` key) is a long-lived program the daemon keeps
//!   running; each call of one of its tools is handed to it as a connection ([`crate::serve`]).
//!
//! A file that breaks a rule of [`schema`] is skipped with an error naming the file and the
//! rule; the others still load.

pub mod schema;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// A tool plugin: `name` runs `bin` as `script_run` runs Node.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolPlugin {
    /// The file it came from.
    pub file: PathBuf,
    /// Its tool, ending in `_run`.
    pub name: String,
    /// What the MCP server lists.
    pub description: String,
    /// The program run in place of Node.
    pub bin: PathBuf,
    /// Files the MCP server serves as resources.
    pub resources: Vec<Resource>,
}

/// A file a plugin offers an agent to read.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    /// The URI an agent reads it by.
    pub uri: String,
    /// The file.
    pub path: PathBuf,
    /// Its MIME type.
    pub mime: String,
    /// What it is.
    pub description: String,
}

impl Resource {
    /// The name resources/list gives it: its file name.
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.uri.clone())
    }
}

/// A service plugin: a program serving its own tools on the desk wire.
#[derive(Debug, Clone, PartialEq)]
pub struct Service {
    /// The file it came from.
    pub file: PathBuf,
    /// Its name, which names its socket.
    pub name: String,
    /// The program.
    pub bin: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its tools.
    pub tools: Vec<ServiceTool>,
}

/// One tool a service serves.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceTool {
    /// The wire tool name.
    pub name: String,
    /// What the MCP server lists.
    pub description: String,
    /// Its arguments' JSON schema (type object).
    pub input_schema: Map<String, Value>,
    /// Whether the MCP server lists it; a tool that streams packets is reached on the wire only.
    pub mcp: bool,
}

/// What the plugin directory holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plugins {
    /// The directory read.
    pub dir: PathBuf,
    /// Tool plugins, in file-name order.
    pub tools: Vec<ToolPlugin>,
    /// Services, in file-name order.
    pub services: Vec<Service>,
    /// One line per file skipped: the file and the rule it breaks.
    pub errors: Vec<String>,
}

impl Plugins {
    /// Reads `dir`; a directory that does not exist holds no plugins.
    pub fn load(dir: &Path) -> Self {
        let mut plugins = Plugins {
            dir: dir.to_path_buf(),
            ..Plugins::default()
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return plugins,
            Err(e) => {
                plugins.errors.push(format!(
                    "{}: cannot read the plugin directory: {e}",
                    dir.display()
                ));
                return plugins;
            }
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        files.sort();
        for file in files {
            let text = match std::fs::read_to_string(&file) {
                Ok(text) => text,
                Err(e) => {
                    plugins
                        .errors
                        .push(format!("{}: skipped: cannot read it: {e}", file.display()));
                    continue;
                }
            };
            if let Err(rule) = plugins.add(&file, &text) {
                plugins
                    .errors
                    .push(format!("{}: skipped: {rule}", file.display()));
            }
        }
        plugins
    }

    /// Checks one file against the rules and against the files before it, and keeps it.
    fn add(&mut self, file: &Path, text: &str) -> Result<(), String> {
        match schema::parse(file, text)? {
            schema::Parsed::Tool(tool) => {
                if self.tools.iter().any(|t| t.name == tool.name) {
                    return Err(format!(
                        "name {:?} is already taken by an earlier file",
                        tool.name
                    ));
                }
                self.tools.push(tool);
            }
            schema::Parsed::Service(service) => {
                if self.services.iter().any(|s| s.name == service.name) {
                    return Err(format!(
                        "service {:?} is already taken by an earlier file",
                        service.name
                    ));
                }
                for tool in &service.tools {
                    if let Some(other) = self.service_of(&tool.name) {
                        return Err(format!(
                            "tool {:?} is already a tool of service {:?}",
                            tool.name, other.name
                        ));
                    }
                }
                self.services.push(service);
            }
        }
        Ok(())
    }

    /// The tool plugin named `name`.
    pub fn tool(&self, name: &str) -> Option<&ToolPlugin> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The service that serves the tool `name`.
    pub fn service_of(&self, tool: &str) -> Option<&Service> {
        self.services
            .iter()
            .find(|s| s.tools.iter().any(|t| t.name == tool))
    }

    /// Every resource of every tool plugin.
    pub fn resources(&self) -> impl Iterator<Item = &Resource> {
        self.tools.iter().flat_map(|t| t.resources.iter())
    }

    /// What an MCP client is offered of them, as `status` carries it to the MCP proxy.
    pub fn catalog(&self) -> desk_core::status::Catalog {
        use desk_core::status as offered;
        offered::Catalog {
            tools: self
                .tools
                .iter()
                .map(|tool| offered::PluginTool {
                    name: tool.name.clone(),
                    description: tool.description.clone(),
                    resources: tool
                        .resources
                        .iter()
                        .map(|r| offered::Resource {
                            uri: r.uri.clone(),
                            path: r.path.display().to_string(),
                            mime: r.mime.clone(),
                            description: r.description.clone(),
                        })
                        .collect(),
                })
                .collect(),
            services: self
                .services
                .iter()
                .map(|service| offered::ServiceTools {
                    name: service.name.clone(),
                    tools: service
                        .tools
                        .iter()
                        .map(|t| offered::ServiceTool {
                            name: t.name.clone(),
                            description: t.description.clone(),
                            input_schema: t.input_schema.clone(),
                            mcp: t.mcp,
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir_with(files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "shuttle-plugins-{}-{}",
            std::process::id(),
            files.len() * 1000 + files.first().map_or(0, |f| f.1.len())
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        dir
    }

    #[test]
    fn files_load_in_name_order_and_broken_ones_are_skipped_by_name() {
        let dir = dir_with(&[
            (
                "b.json",
                r#"{"name": "demo_run", "description": "second", "bin": "/bin/true"}"#,
            ),
            (
                "a.json",
                r#"{"name": "demo_run", "description": "first", "bin": "/bin/true"}"#,
            ),
            (
                "c.json",
                r#"{"name": "Bad", "description": "", "bin": "/bin/true"}"#,
            ),
            ("d.json", "{not json"),
            ("notes.txt", "ignored"),
            (
                "e.json",
                r#"{"service": "notes", "bin": "/bin/cat", "tools": [{"name": "notes_read", "description": "Read.", "input_schema": {"type": "object"}}]}"#,
            ),
            (
                "f.json",
                r#"{"service": "other", "bin": "/bin/cat", "tools": [{"name": "notes_read", "description": "Read.", "input_schema": {"type": "object"}}]}"#,
            ),
        ]);
        let plugins = Plugins::load(&dir);
        assert_eq!(plugins.tools.len(), 1);
        assert_eq!(plugins.tools[0].description, "first");
        assert_eq!(plugins.services.len(), 1);
        assert_eq!(plugins.service_of("notes_read").unwrap().name, "notes");
        let errors = plugins.errors.join("\n");
        assert_eq!(plugins.errors.len(), 4, "{errors}");
        assert!(
            errors.contains("b.json: skipped: name \"demo_run\" is already taken"),
            "{errors}"
        );
        assert!(
            errors.contains("c.json: skipped: name \"Bad\" must match"),
            "{errors}"
        );
        assert!(errors.contains("d.json: skipped: not JSON"), "{errors}");
        assert!(
            errors.contains(
                "f.json: skipped: tool \"notes_read\" is already a tool of service \"notes\""
            ),
            "{errors}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_missing_directory_holds_nothing() {
        let plugins = Plugins::load(Path::new("/nonexistent/tools.d"));
        assert!(plugins.tools.is_empty() && plugins.errors.is_empty());
    }
}
