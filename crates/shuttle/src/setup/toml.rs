//! shuttle's entry in Codex's `config.toml` (`[mcp_servers.shuttle]`), edited with toml_edit
//! so the rest of the file (comments, order, layout) stays as it was.

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike, Value, value};

use super::{Change, Entry, Problem, SERVER_NAME, line_column};

const SERVERS: &str = "mcp_servers";

fn parse(text: &str) -> Result<DocumentMut, Problem> {
    text.parse::<DocumentMut>().map_err(|e| {
        let (line, column) = e.span().map_or((1, 1), |s| line_column(text, s.start));
        Problem::Syntax {
            line,
            column,
            reason: e.message().trim().to_string(),
        }
    })
}

fn not_a_table(what: &str) -> Problem {
    Problem::Shape(format!("{what} is not a table"))
}

fn servers_of(doc: &DocumentMut) -> Result<Option<&dyn TableLike>, Problem> {
    doc.get(SERVERS)
        .map(|item| item.as_table_like().ok_or_else(|| not_a_table(SERVERS)))
        .transpose()
}

fn entry_of(doc: &DocumentMut) -> Result<Option<Entry>, Problem> {
    let Some(servers) = servers_of(doc)? else {
        return Ok(None);
    };
    let Some(item) = servers.get(SERVER_NAME) else {
        return Ok(None);
    };
    let fields = item
        .as_table_like()
        .ok_or_else(|| not_a_table(&format!("{SERVERS}.{SERVER_NAME}")))?;
    let command = fields
        .get("command")
        .and_then(Item::as_str)
        .unwrap_or_default()
        .to_string();
    let args = fields
        .get("args")
        .and_then(Item::as_array)
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok(Some(Entry { command, args }))
}

/// shuttle's entry, when the file has one.
pub(super) fn read(text: &str) -> Result<Option<Entry>, Problem> {
    entry_of(&parse(text)?)
}

/// The file with shuttle's entry in it; an existing entry has its command and arguments set
/// and keeps its other keys (`env`, timeouts).
pub(super) fn add(text: Option<&str>, entry: &Entry) -> Result<(String, Change), Problem> {
    let mut doc = parse(text.unwrap_or(""))?;
    let existing = entry_of(&doc)?;
    if existing.as_ref() == Some(entry) {
        return Ok((doc.to_string(), Change::Unchanged));
    }
    let command = value(entry.command.as_str());
    let args = value(entry.args.iter().map(String::as_str).collect::<Array>());
    if doc.get(SERVERS).is_none() {
        let mut servers = Table::new();
        servers.set_implicit(true);
        doc.insert(SERVERS, Item::Table(servers));
    }
    let servers = doc.get_mut(SERVERS).ok_or_else(|| not_a_table(SERVERS))?;
    if let Some(was) = existing {
        let fields = servers
            .get_mut(SERVER_NAME)
            .and_then(Item::as_table_like_mut)
            .ok_or_else(|| not_a_table(&format!("{SERVERS}.{SERVER_NAME}")))?;
        fields.insert("command", command);
        fields.insert("args", args);
        return Ok((doc.to_string(), Change::Replaced { was }));
    }
    match servers {
        Item::Table(table) => {
            let mut fields = Table::new();
            fields.insert("command", command);
            fields.insert("args", args);
            table.insert(SERVER_NAME, Item::Table(fields));
        }
        Item::Value(Value::InlineTable(table)) => {
            let mut fields = InlineTable::new();
            fields.insert("command", entry.command.as_str().into());
            fields.insert(
                "args",
                Value::Array(entry.args.iter().map(String::as_str).collect()),
            );
            table.insert(SERVER_NAME, Value::InlineTable(fields));
        }
        _ => return Err(not_a_table(SERVERS)),
    }
    Ok((doc.to_string(), Change::Added))
}

/// The file without shuttle's entry (`None` when nothing else is left in it); an
/// `mcp_servers` table left empty goes too.
pub(super) fn remove(text: &str) -> Result<(Option<String>, Change), Problem> {
    let mut doc = parse(text)?;
    if entry_of(&doc)?.is_none() {
        return Ok((Some(text.to_string()), Change::Absent));
    }
    if let Some(servers) = doc.get_mut(SERVERS).and_then(Item::as_table_like_mut) {
        servers.remove(SERVER_NAME);
        if servers.is_empty() {
            doc.remove(SERVERS);
        }
    }
    let left = doc.to_string();
    let left = (!left.trim().is_empty()).then_some(left);
    Ok((left, Change::Removed))
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

    const CODEX: &str = r#"# my Codex settings
model = "o3"

[mcp_servers.other]
command = "other-mcp"   # the other one
args = ["--fast"]

[profiles.work]
model = "o4"
"#;

    #[test]
    fn an_entry_joins_codex_settings_and_leaves_them_as_they_were() {
        let (after, change) = add(Some(CODEX), &entry("/usr/bin/shuttle")).unwrap();
        assert_eq!(change, Change::Added);
        // The new table goes beside its sibling, the rest stays as it was.
        let expected = CODEX.replace(
            "\n[profiles.work]",
            "\n[mcp_servers.shuttle]\ncommand = \"/usr/bin/shuttle\"\nargs = [\"mcp\"]\n\n[profiles.work]",
        );
        assert_eq!(after, expected);
        assert_eq!(read(&after).unwrap(), Some(entry("/usr/bin/shuttle")));
        assert_eq!(
            add(Some(&after), &entry("/usr/bin/shuttle")).unwrap(),
            (after.clone(), Change::Unchanged)
        );
        let (removed, change) = remove(&after).unwrap();
        assert_eq!((removed.as_deref(), change), (Some(CODEX), Change::Removed));
    }

    #[test]
    fn a_changed_entry_keeps_its_other_keys() {
        let before = "[mcp_servers.shuttle]\ncommand = \"/old\"\nargs = [\"mcp\"]\nstartup_timeout_sec = 20\n";
        let (after, change) = add(Some(before), &entry("/new")).unwrap();
        assert_eq!(change, Change::Replaced { was: entry("/old") });
        assert!(after.contains("startup_timeout_sec = 20"), "{after}");
        assert_eq!(read(&after).unwrap(), Some(entry("/new")));
    }

    #[test]
    fn an_inline_server_table_takes_an_inline_entry() {
        let before = "mcp_servers = { other = { command = \"o\" } }\n";
        let (after, _) = add(Some(before), &entry("/s")).unwrap();
        assert_eq!(read(&after).unwrap(), Some(entry("/s")));
        assert!(after.contains("other = { command = \"o\" }"), "{after}");
    }

    #[test]
    fn a_file_made_for_shuttle_alone_goes_away_with_it() {
        let (made, _) = add(None, &entry("/s")).unwrap();
        assert_eq!(remove(&made).unwrap(), (None, Change::Removed));
    }

    #[test]
    fn a_broken_file_is_named_by_line_and_column() {
        let text = "model = \"o3\"\n[mcp_servers\ncommand = 1\n";
        match add(Some(text), &entry("x")) {
            Err(Problem::Syntax { line, .. }) => assert_eq!(line, 2),
            other => panic!("{other:?}"),
        }
        assert!(matches!(read("mcp_servers = 3\n"), Err(Problem::Shape(_))));
    }
}
