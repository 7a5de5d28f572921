//! `shuttle journal`: the journal, readably.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use super::EXIT_FAILED;
use crate::config::{self, JournalConfig};
use desk_core::call::Kind;
use desk_core::outcome::{Control, Outcome};

use crate::journal::{self, Entry};

/// What to show.
pub struct Filter {
    /// Acting calls only.
    pub acts: bool,
    /// Calls a safety control refused only.
    pub refused: bool,
    /// The last this many (after the other filters).
    pub last: Option<usize>,
    /// Raw NDJSON lines instead of the readable form.
    pub json: bool,
    /// Another journal file.
    pub file: Option<PathBuf>,
}

/// Prints the journal (its previous generation first), filtered.
pub fn show(filter: &Filter) -> anyhow::Result<ExitCode> {
    let path = filter.file.clone().unwrap_or_else(|| {
        config::load(&config::config_path())
            .map(|c| c.journal.file())
            .unwrap_or_else(|_| JournalConfig::default().file())
    });
    if !path.exists() {
        eprintln!(
            "{}: no journal yet (it is written as agents make calls; [journal] in config.toml \
             turns it off or moves it)",
            path.display()
        );
        return Ok(ExitCode::from(EXIT_FAILED));
    }
    let mut entries = Vec::new();
    for file in [journal::generation(&path), path.clone()] {
        read_into(&file, &mut entries)?;
    }
    let totals = Totals::of(&entries);
    let mut shown: Vec<&(Entry, String)> = entries
        .iter()
        .filter(|(e, _)| !filter.acts || e.kind == Kind::Act)
        .filter(|(e, _)| !filter.refused || e.outcome.by().is_some())
        .collect();
    if let Some(last) = filter.last {
        shown.drain(..shown.len().saturating_sub(last));
    }
    let mut out = String::new();
    for (entry, line) in shown {
        if filter.json {
            out.push_str(line);
            out.push('\n');
        } else {
            out.push_str(&render(entry));
        }
    }
    if !filter.json {
        out.push_str(&totals.to_string());
    }
    super::print_result(out.trim_end())?;
    Ok(ExitCode::SUCCESS)
}

fn read_into(path: &Path, entries: &mut Vec<(Entry, String)>) -> anyhow::Result<()> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => anyhow::bail!("cannot read the journal {}: {e}", path.display()),
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Entry>(line) {
            Ok(entry) => entries.push((entry, line.to_string())),
            Err(e) => eprintln!(
                "{}: skipping a line that does not read: {e}",
                path.display()
            ),
        }
    }
    Ok(())
}

/// One entry: `  14 16:40:01 act     desk_type  "claude" text=<5 chars> window=Fixture  completed 12 ms`,
/// with the reason on a line of its own.
fn render(entry: &Entry) -> String {
    let time = entry.ts.get(11..19).unwrap_or(&entry.ts);
    let kind = match entry.kind {
        Kind::Act => "act",
        Kind::Observe => "observe",
        Kind::Control => "control",
        Kind::Run => "run",
        Kind::Model => "model",
        Kind::Service => "service",
    };
    let agent = if entry.agent_id.is_empty() {
        "(cli)".to_string()
    } else {
        format!("{:?}", entry.agent_id)
    };
    let outcome = match &entry.outcome {
        Outcome::Completed => "completed",
        Outcome::Refused {
            by: Some(Control::DryRun),
            ..
        } => "DRY RUN",
        Outcome::Refused { by: Some(_), .. } => "REFUSED",
        Outcome::Refused { by: None, .. } => "not done (nothing sent)",
        Outcome::Unknown { .. } => "FAILED (input may have landed)",
        Outcome::Failed { .. } => "FAILED",
    };
    let mut text = format!(
        "{:>5} {time} {kind:<7} {:<14} {agent} {}  {outcome} {} ms\n",
        entry.seq,
        entry.tool,
        arguments(&entry.args),
        entry.ms
    );
    if let Some(reason) = entry.outcome.reason() {
        let by = entry
            .outcome
            .by()
            .map_or(String::new(), |c| format!(" [{}]", c.name()));
        text.push_str(&format!("      {reason}{by}\n"));
    }
    text
}

fn arguments(args: &Value) -> String {
    let Some(fields) = args.as_object() else {
        return String::new();
    };
    fields
        .iter()
        .map(|(key, value)| {
            let shown = match value {
                Value::String(s) if s.contains(' ') || s.is_empty() => format!("{s:?}"),
                Value::String(s) => s.clone(),
                Value::Object(o) if o.contains_key("chars") => {
                    format!("<{} chars>", o["chars"])
                }
                Value::Object(o) if o.contains_key("windows") => {
                    format!("<{} windows>", o["windows"])
                }
                other => other.to_string(),
            };
            format!("{key}={shown}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The whole journal in numbers.
struct Totals {
    acts: usize,
    dry: usize,
    observations: usize,
    refused: usize,
    others: usize,
}

impl Totals {
    fn of(entries: &[(Entry, String)]) -> Self {
        let count = |f: &dyn Fn(&Entry) -> bool| entries.iter().filter(|(e, _)| f(e)).count();
        Self {
            acts: count(&|e| e.kind == Kind::Act),
            dry: count(&|e| e.dry_run && e.kind == Kind::Act),
            observations: count(&|e| e.kind == Kind::Observe),
            refused: count(&|e| e.outcome.by().is_some_and(|by| by != Control::DryRun)),
            others: count(&|e| e.outcome.by().is_none() && e.outcome != Outcome::Completed),
        }
    }
}

impl std::fmt::Display for Totals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = |n: usize, word: &str| {
            if n == 1 {
                format!("{n} {word}")
            } else {
                format!("{n} {word}s")
            }
        };
        write!(
            f,
            "{} ({} dry run), {}, {} refused by a safety control, {} that did not complete \
             otherwise",
            plural(self.acts, "action"),
            self.dry,
            plural(self.observations, "observation"),
            self.refused,
            self.others
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_read_as_one_line_and_a_reason() {
        let entry = Entry {
            seq: 14,
            ts: "2026-12-02T16:40:01.5Z".into(),
            display: None,
            agent_id: "claude".into(),
            tool: "desk_type".into(),
            kind: Kind::Act,
            args: json!({"text": {"chars": 5, "sha256": "ab"}, "window": "My Notes"}),
            outcome: Outcome::refused_by(Control::Allowlist, "refused: not in the allowlist"),
            sent: Some(false),
            dry_run: false,
            ms: 12,
        };
        let text = render(&entry);
        assert!(
            text.starts_with("   14 16:40:01 act     desk_type"),
            "{text}"
        );
        assert!(
            text.contains("text=<5 chars> window=\"My Notes\"  REFUSED 12 ms"),
            "{text}"
        );
        assert!(
            text.ends_with("      refused: not in the allowlist [allowlist]\n"),
            "{text}"
        );
    }
}
