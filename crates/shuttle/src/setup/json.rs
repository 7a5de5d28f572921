//! shuttle's entry in a JSON client config, edited on the file's concrete syntax tree so the
//! rest of the file (order, layout, comments where the client allows them) stays as it was.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};

use super::{Change, Entry, Problem, SERVER_NAME};

/// Strict JSON for clients that read nothing else; JSON with comments and trailing commas for
/// those that do (VS Code, Cursor, Gemini CLI).
fn options(comments: bool) -> ParseOptions {
    ParseOptions {
        allow_comments: comments,
        allow_trailing_commas: comments,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

fn parse(text: &str, comments: bool) -> Result<(CstRootNode, CstObject), Problem> {
    // The syntax tree keeps comments whatever the options say, so strict JSON is checked
    // on its own first.
    if !comments {
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|e| Problem::Syntax {
            line: e.line(),
            column: e.column(),
            reason: strip_position(&e.to_string()),
        })?;
    }
    let root = CstRootNode::parse(text, &options(comments)).map_err(|e| Problem::Syntax {
        line: e.line_display(),
        column: e.column_display(),
        reason: e.kind().to_string(),
    })?;
    let object = match root.value() {
        None => root.object_value_or_set(),
        Some(_) => root.object_value().ok_or_else(|| {
            Problem::Shape("the file holds a JSON value that is not an object".into())
        })?,
    };
    Ok((root, object))
}

/// serde_json's message without the " at line L column C" it ends with, which the error
/// names on its own.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(cut) => message[..cut].to_string(),
        None => message.to_string(),
    }
}

/// The server map, when the file has one.
fn servers_of(object: &CstObject, servers: &str) -> Result<Option<CstObject>, Problem> {
    if object.get(servers).is_none() {
        return Ok(None);
    }
    object
        .object_value(servers)
        .map(Some)
        .ok_or_else(|| Problem::Shape(format!("\"{servers}\" is not an object")))
}

/// shuttle's entry, when the file has one.
pub(super) fn read(text: &str, servers: &str, comments: bool) -> Result<Option<Entry>, Problem> {
    let (_, object) = parse(text, comments)?;
    let Some(map) = servers_of(&object, servers)? else {
        return Ok(None);
    };
    let Some(prop) = map.get(SERVER_NAME) else {
        return Ok(None);
    };
    let value = prop
        .value()
        .and_then(|v| v.to_serde_value())
        .unwrap_or_default();
    let command = value
        .get("command")
        .and_then(|c| c.as_str())
        .unwrap_or_default()
        .to_string();
    let args = value
        .get("args")
        .and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok(Some(Entry { command, args }))
}

/// The file with shuttle's entry in it: a new entry is appended to the server map (made if
/// missing); an existing one has its command and arguments set and keeps its other fields
/// (`env`, timeouts).
pub(super) fn add(
    text: Option<&str>,
    servers: &str,
    comments: bool,
    typed: bool,
    entry: &Entry,
) -> Result<(String, Change), Problem> {
    let (root, object) = parse(text.unwrap_or("{}\n"), comments)?;
    let existing = read(&root.to_string(), servers, comments)?;
    if existing.as_ref() == Some(entry) {
        return Ok((root.to_string(), Change::Unchanged));
    }
    let command = CstInputValue::String(entry.command.clone());
    let args = CstInputValue::Array(
        entry
            .args
            .iter()
            .map(|a| CstInputValue::String(a.clone()))
            .collect(),
    );
    let map = match servers_of(&object, servers)? {
        Some(map) => map,
        None => object.object_value_or_set(servers),
    };
    match (map.get(SERVER_NAME), existing) {
        (Some(prop), Some(was)) => {
            let fields = prop.value().and_then(|v| v.as_object()).ok_or_else(|| {
                Problem::Shape(format!("\"{servers}\".{SERVER_NAME} is not an object"))
            })?;
            for (key, value) in [("command", command), ("args", args)] {
                match fields.get(key) {
                    Some(field) => field.set_value(value),
                    None => {
                        fields.append(key, value);
                    }
                }
            }
            Ok((root.to_string(), Change::Replaced { was }))
        }
        _ => {
            let mut fields = Vec::new();
            if typed {
                fields.push(("type".to_string(), CstInputValue::String("stdio".into())));
            }
            fields.push(("command".to_string(), command));
            fields.push(("args".to_string(), args));
            map.append(SERVER_NAME, CstInputValue::Object(fields));
            Ok((root.to_string(), Change::Added))
        }
    }
}

/// The file without shuttle's entry (`None` when nothing else is left in it); a server map left
/// empty goes too.
pub(super) fn remove(
    text: &str,
    servers: &str,
    comments: bool,
) -> Result<(Option<String>, Change), Problem> {
    let (root, object) = parse(text, comments)?;
    let Some(map) = servers_of(&object, servers)? else {
        return Ok((Some(text.to_string()), Change::Absent));
    };
    let Some(prop) = map.get(SERVER_NAME) else {
        return Ok((Some(text.to_string()), Change::Absent));
    };
    prop.remove();
    // An empty server map stays (the client may have made it); a file holding nothing else
    // goes, as it was most likely made for shuttle.
    let left = root.to_string();
    let bare: String = left.chars().filter(|c| !c.is_whitespace()).collect();
    let nothing_else = bare == "{}" || bare == format!("{{\"{servers}\":{{}}}}");
    Ok((
        if nothing_else { None } else { Some(left) },
        Change::Removed,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(command: &str) -> Entry {
        Entry {
            command: command.into(),
            args: vec!["mcp".into()],
        }
    }

    #[test]
    fn an_entry_joins_a_file_and_leaves_the_rest_as_it_was() {
        let before = r#"{
  "theme": "dark",
  "mcpServers": {
    "other": { "command": "other-mcp" }
  },
  "projects": {"a": [1, 2]}
}
"#;
        let (after, change) = add(
            Some(before),
            "mcpServers",
            false,
            true,
            &entry("/usr/bin/shuttle"),
        )
        .unwrap();
        assert_eq!(change, Change::Added);
        assert!(after.starts_with("{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"other\": { \"command\": \"other-mcp\" },"), "{after}");
        assert!(
            after.ends_with("  \"projects\": {\"a\": [1, 2]}\n}\n"),
            "{after}"
        );
        let value: serde_json::Value = serde_json::from_str(&after).unwrap();
        assert_eq!(
            value["mcpServers"]["shuttle"]["command"],
            "/usr/bin/shuttle"
        );
        assert_eq!(value["mcpServers"]["shuttle"]["type"], "stdio");
        assert_eq!(value["mcpServers"]["other"]["command"], "other-mcp");

        let (again, change) = add(
            Some(&after),
            "mcpServers",
            false,
            true,
            &entry("/usr/bin/shuttle"),
        )
        .unwrap();
        assert_eq!(
            (again.as_str(), change),
            (after.as_str(), Change::Unchanged)
        );

        let (removed, change) = remove(&after, "mcpServers", false).unwrap();
        assert_eq!(change, Change::Removed);
        let removed: serde_json::Value = serde_json::from_str(&removed.unwrap()).unwrap();
        let original: serde_json::Value = serde_json::from_str(before).unwrap();
        assert_eq!(removed, original);
        assert!(after.ends_with('\n'));
    }

    #[test]
    fn comments_stay_where_the_client_reads_them() {
        let before = "{\n  // my servers\n  \"servers\": {\n    \"a\": {\"command\": \"x\"}, // keep\n  },\n}\n";
        let (after, _) = add(Some(before), "servers", true, true, &entry("/opt/shuttle")).unwrap();
        assert!(
            after.contains("// my servers") && after.contains("// keep"),
            "{after}"
        );
        assert_eq!(
            read(&after, "servers", true).unwrap(),
            Some(entry("/opt/shuttle"))
        );
        let (removed, _) = remove(&after, "servers", true).unwrap();
        assert!(removed.unwrap().contains("// keep"));
    }

    #[test]
    fn a_changed_entry_keeps_its_other_fields() {
        let before = r#"{"mcpServers": {"shuttle": {"command": "/old/shuttle", "args": ["mcp"], "env": {"A": "1"}}}}"#;
        let (after, change) = add(
            Some(before),
            "mcpServers",
            false,
            false,
            &entry("/new/shuttle"),
        )
        .unwrap();
        assert_eq!(
            change,
            Change::Replaced {
                was: entry("/old/shuttle")
            }
        );
        let value: serde_json::Value = serde_json::from_str(&after).unwrap();
        assert_eq!(value["mcpServers"]["shuttle"]["command"], "/new/shuttle");
        assert_eq!(value["mcpServers"]["shuttle"]["env"]["A"], "1");
    }

    #[test]
    fn a_server_map_the_client_made_stays() {
        let before = "{\n  \"numStartups\": 3,\n  \"mcpServers\": {}\n}\n";
        let (after, _) = add(Some(before), "mcpServers", false, true, &entry("/s")).unwrap();
        let (left, _) = remove(&after, "mcpServers", false).unwrap();
        let left: serde_json::Value = serde_json::from_str(&left.unwrap()).unwrap();
        assert_eq!(
            left,
            serde_json::json!({"numStartups": 3, "mcpServers": {}})
        );
    }

    #[test]
    fn a_file_made_for_shuttle_alone_goes_away_with_it() {
        let (made, _) = add(None, "mcpServers", false, false, &entry("/usr/bin/shuttle")).unwrap();
        let (left, change) = remove(&made, "mcpServers", false).unwrap();
        assert_eq!((left, change), (None, Change::Removed));
    }

    #[test]
    fn a_broken_file_is_named_by_line_and_column() {
        let text = "{\n  \"a\": 1,\n  \"b\": ,\n}\n";
        match add(Some(text), "mcpServers", false, false, &entry("x")) {
            Err(Problem::Syntax { line, column, .. }) => assert_eq!((line, column), (3, 8)),
            other => panic!("{other:?}"),
        }
        // A comment is fine for VS Code, not for Claude Desktop.
        let commented = "{ // c\n}";
        assert!(read(commented, "servers", true).is_ok());
        assert!(matches!(
            read(commented, "mcpServers", false),
            Err(Problem::Syntax { line: 1, .. })
        ));
    }

    #[test]
    fn a_file_of_another_shape_is_refused() {
        assert!(matches!(
            read("[1, 2]", "mcpServers", false),
            Err(Problem::Shape(_))
        ));
        assert!(matches!(
            add(
                Some(r#"{"mcpServers": 3}"#),
                "mcpServers",
                false,
                false,
                &entry("x")
            ),
            Err(Problem::Shape(_))
        ));
    }

    #[test]
    fn removing_from_a_file_without_the_entry_changes_nothing() {
        let text = r#"{"mcpServers": {"other": {"command": "o"}}}"#;
        assert_eq!(
            remove(text, "mcpServers", false).unwrap(),
            (Some(text.to_string()), Change::Absent)
        );
    }
}
