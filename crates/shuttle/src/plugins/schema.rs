//! The rules a plugin file must keep. Each error names the rule, so the person can fix the file.
//!
//! A tool plugin: `{"name", "description", "bin", "resources"?: [{"uri", "path", "mime",
//! "description"}]}` and no other field; `name` matches `^[a-z][a-z0-9_]*_run$` and is no
//! built-in tool; `description` at most 2048 characters; `bin` and each resource `path`
//! absolute.
//!
//! A service: `{"service", "bin", "args"?, "tools": [{"name", "description", "input_schema",
//! "mcp"?}]}` and no other field, in the file or a tool; `service` matches `^[a-z][a-z0-9_]*$`,
//! at most 32 characters; `bin` absolute; at least one tool; each tool name matches
//! `^[a-z][a-z0-9_]*$`, at most 64 characters, is no built-in tool, starts with none of
//! `desk_`, `model_`, `safety_`, does not end in `_run` (plugins take those) and appears once;
//! `description` at most 2048 characters; `input_schema` an object whose `type` is `object`.
//!
//! Uniqueness across files is checked by [`super::Plugins`], which knows the earlier files.

use std::path::{Path, PathBuf};

use desk_core::call::script::BUILT_IN_TOOLS;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Resource, Service, ServiceTool, ToolPlugin};

const MAX_DESCRIPTION: usize = 2048;
const MAX_SERVICE_NAME: usize = 32;
const MAX_TOOL_NAME: usize = 64;
const RESERVED_PREFIXES: &[&str] = &["desk_", "model_", "safety_"];

/// One file, checked on its own.
#[derive(Debug)]
pub enum Parsed {
    /// A tool plugin.
    Tool(ToolPlugin),
    /// A service.
    Service(Service),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolFile {
    name: String,
    description: String,
    bin: String,
    #[serde(default)]
    resources: Vec<ResourceFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResourceFile {
    uri: String,
    path: String,
    mime: String,
    description: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServiceFile {
    service: String,
    bin: String,
    #[serde(default)]
    args: Vec<String>,
    tools: Vec<ServiceToolFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServiceToolFile {
    name: String,
    description: String,
    input_schema: Map<String, Value>,
    #[serde(default = "listed")]
    mcp: bool,
}

fn listed() -> bool {
    true
}

/// Checks one file's text; the error is the rule it breaks.
pub fn parse(file: &Path, text: &str) -> Result<Parsed, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(fields) = &value else {
        return Err("the file must hold one JSON object".into());
    };
    if fields.contains_key("service") {
        let service: ServiceFile = decode(value)?;
        check_service(file, service).map(Parsed::Service)
    } else {
        let tool: ToolFile = decode(value)?;
        check_tool(file, tool).map(Parsed::Tool)
    }
}

fn decode<T: for<'de> Deserialize<'de>>(value: Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            e.inner().to_string()
        } else {
            format!("{path}: {}", e.inner())
        }
    })
}

fn check_tool(file: &Path, tool: ToolFile) -> Result<ToolPlugin, String> {
    if !is_name(&tool.name) || !tool.name.ends_with("_run") {
        return Err(format!(
            "name {:?} must match ^[a-z][a-z0-9_]*_run$",
            tool.name
        ));
    }
    if BUILT_IN_TOOLS.contains(&tool.name.as_str()) {
        return Err(format!("name {:?} is a built-in tool", tool.name));
    }
    check_description(&tool.description, "description")?;
    let bin = absolute(&tool.bin, "bin")?;
    let resources = tool
        .resources
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            Ok(Resource {
                path: absolute(&r.path, &format!("resources[{i}].path"))?,
                uri: r.uri,
                mime: r.mime,
                description: r.description,
            })
        })
        .collect::<Result<_, String>>()?;
    Ok(ToolPlugin {
        file: file.to_path_buf(),
        name: tool.name,
        description: tool.description,
        bin,
        resources,
    })
}

fn check_service(file: &Path, service: ServiceFile) -> Result<Service, String> {
    if !is_name(&service.service) || service.service.len() > MAX_SERVICE_NAME {
        return Err(format!(
            "service {:?} must match ^[a-z][a-z0-9_]*$ and have at most {MAX_SERVICE_NAME} \
             characters",
            service.service
        ));
    }
    let bin = absolute(&service.bin, "bin")?;
    if service.tools.is_empty() {
        return Err("tools must hold at least one tool".into());
    }
    let mut tools: Vec<ServiceTool> = Vec::with_capacity(service.tools.len());
    for (i, tool) in service.tools.into_iter().enumerate() {
        let name = &tool.name;
        if !is_name(name) || name.len() > MAX_TOOL_NAME {
            return Err(format!(
                "tools[{i}].name {name:?} must match ^[a-z][a-z0-9_]*$ and have at most \
                 {MAX_TOOL_NAME} characters"
            ));
        }
        if BUILT_IN_TOOLS.contains(&name.as_str()) {
            return Err(format!("tools[{i}].name {name:?} is a built-in tool"));
        }
        if let Some(prefix) = RESERVED_PREFIXES.iter().find(|p| name.starts_with(*p)) {
            return Err(format!(
                "tools[{i}].name {name:?} starts with {prefix}, which shuttle keeps for itself"
            ));
        }
        if name.ends_with("_run") {
            return Err(format!(
                "tools[{i}].name {name:?} ends in _run, which tool plugins take"
            ));
        }
        if tools.iter().any(|t| &t.name == name) {
            return Err(format!(
                "tools[{i}].name {name:?} appears twice in this file"
            ));
        }
        check_description(&tool.description, &format!("tools[{i}].description"))?;
        if tool.input_schema.get("type") != Some(&Value::String("object".into())) {
            return Err(format!(
                "tools[{i}].input_schema must be a JSON Schema whose type is \"object\""
            ));
        }
        tools.push(ServiceTool {
            name: tool.name,
            description: tool.description,
            input_schema: tool.input_schema,
            mcp: tool.mcp,
        });
    }
    Ok(Service {
        file: file.to_path_buf(),
        name: service.service,
        bin,
        args: service.args,
        tools,
    })
}

/// `^[a-z][a-z0-9_]*$`
fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn check_description(description: &str, field: &str) -> Result<(), String> {
    let chars = description.chars().count();
    if chars > MAX_DESCRIPTION {
        return Err(format!(
            "{field} has {chars} characters; at most {MAX_DESCRIPTION} are allowed"
        ));
    }
    Ok(())
}

fn absolute(path: &str, field: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(path);
    if path.is_absolute() {
        Ok(path)
    } else {
        Err(format!(
            "{field} {} must be an absolute path",
            path.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> String {
        parse(Path::new("/t/x.json"), text).unwrap_err()
    }

    fn service(tool: &str) -> String {
        format!(r#"{{"service": "svc", "bin": "/bin/cat", "tools": [{tool}]}}"#)
    }

    #[test]
    fn tool_plugins_keep_every_rule() {
        let ok = r#"{"name": "demo_run", "description": "Run a demo.", "bin": "/usr/bin/demo",
            "resources": [{"uri": "demo://GUIDE.md", "path": "/usr/share/demo/GUIDE.md",
            "mime": "text/markdown", "description": "The guide"}]}"#;
        let Parsed::Tool(tool) = parse(Path::new("/t/demo.json"), ok).unwrap() else {
            panic!("a tool plugin")
        };
        assert_eq!(tool.resources[0].name(), "GUIDE.md");
        assert!(rule(r#"{"name": "demo", "description": "", "bin": "/b"}"#).contains("_run$"));
        assert!(
            rule(r#"{"name": "9_run", "description": "", "bin": "/b"}"#).contains("must match")
        );
        assert!(
            rule(r#"{"name": "script_run", "description": "", "bin": "/b"}"#)
                .contains("is a built-in tool")
        );
        assert!(
            rule(r#"{"name": "a_run", "description": "", "bin": "b"}"#)
                .contains("bin b must be an absolute path")
        );
        let long = format!(
            r#"{{"name": "a_run", "description": "{}", "bin": "/b"}}"#,
            "x".repeat(2049)
        );
        assert!(rule(&long).contains("2049 characters"));
        assert!(
            rule(r#"{"name": "a_run", "description": "", "bin": "/b", "env": {}}"#)
                .contains("unknown field `env`")
        );
        assert!(rule(r#"{"name": "a_run", "bin": "/b"}"#).contains("missing field `description`"));
        assert!(
            rule(r#"{"name": "a_run", "description": "", "bin": "/b", "resources": [{"uri": "u", "path": "rel", "mime": "m", "description": "d"}]}"#)
                .contains("resources[0].path rel must be an absolute path")
        );
        assert!(rule("[1]").contains("one JSON object"));
    }

    #[test]
    fn services_keep_every_rule() {
        let ok = service(
            r#"{"name": "notes_watch", "description": "d", "input_schema": {"type": "object"}, "mcp": false}"#,
        );
        let Parsed::Service(svc) = parse(Path::new("/t/s.json"), &ok).unwrap() else {
            panic!("a service")
        };
        assert!(!svc.tools[0].mcp);
        let tool = |name: &str| {
            service(&format!(
                r#"{{"name": "{name}", "description": "d", "input_schema": {{"type": "object"}}}}"#
            ))
        };
        assert!(rule(&tool("desk_x")).contains("starts with desk_"));
        assert!(rule(&tool("model_x")).contains("starts with model_"));
        assert!(rule(&tool("safety_x")).contains("starts with safety_"));
        assert!(rule(&tool("x_run")).contains("ends in _run"));
        assert!(rule(&tool("status")).contains("built-in"));
        assert!(rule(&tool("Notes")).contains("must match"));
        assert!(rule(&tool(&"a".repeat(65))).contains("at most 64"));
        assert!(
            rule(r#"{"service": "Svc", "bin": "/b", "tools": []}"#)
                .contains("service \"Svc\" must match")
        );
        assert!(
            rule(&format!(
                r#"{{"service": "{}", "bin": "/b", "tools": []}}"#,
                "s".repeat(33)
            ))
            .contains("at most 32")
        );
        assert!(
            rule(r#"{"service": "s", "bin": "/b", "tools": []}"#).contains("at least one tool")
        );
        assert!(rule(r#"{"service": "s", "bin": "b", "tools": []}"#).contains("absolute"));
        assert!(
            rule(&service(
                r#"{"name": "a", "description": "d", "input_schema": {"type": "string"}}"#
            ))
            .contains("type is \"object\"")
        );
        let e = rule(&service(
            r#"{"name": "a", "description": "d", "input_schema": {"type": "object"}, "x": 1}"#,
        ));
        assert!(
            e.contains("tools[0]") && e.contains("unknown field `x`"),
            "{e}"
        );
        let twice = r#"{"name": "a", "description": "d", "input_schema": {"type": "object"}}"#;
        assert!(rule(&service(&format!("{twice}, {twice}"))).contains("appears twice"));
    }
}
