//! The journal: one NDJSON line per call, so a person can read afterwards exactly what agents
//! did and what the safety controls refused.
//!
//! Acting calls keep their arguments, except typed text, which is kept as its length and a
//! digest unless `[journal] record_text` says otherwise; observations are recorded as having
//! happened, never with what they saw. The file is 0600 in a 0700 directory and starts over
//! past `max_bytes`, keeping one previous generation as `<file>.1`.
//!
//! The journal records; it does not guard. When it cannot be written the call still runs and
//! the daemon's log says why, once.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use desk_core::call::{Kind, Verb};
use desk_core::outcome::Outcome;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::config::JournalConfig;

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Counts calls across daemon restarts.
    pub seq: u64,
    /// When the call ended, RFC 3339 in UTC.
    pub ts: String,
    /// The agent that made it ("" from the CLI).
    pub agent_id: String,
    /// The display its calls land on (under per-agent displays, the agent's own), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    /// The wire tool.
    pub tool: String,
    /// Act, observe or control.
    pub kind: Kind,
    /// The arguments, redacted.
    pub args: Value,
    /// How it ended: `outcome`, and for a call that did not complete `reason` and, when a
    /// safety control refused it, `by`.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// For an act that did not complete: whether input may have reached the desktop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent: Option<bool>,
    /// Whether dry run was on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    /// How long it took.
    pub ms: u64,
}

/// The open journal file.
struct Writer {
    path: PathBuf,
    file: File,
    size: u64,
}

/// The daemon's journal.
#[derive(Default)]
pub struct Journal {
    state: Mutex<JournalState>,
}

#[derive(Default)]
struct JournalState {
    writer: Option<Writer>,
    next_seq: Option<u64>,
    warned: bool,
}

impl Journal {
    /// Appends `entry` (its `seq` and `ts` filled in here) under `config`.
    pub fn record(&self, config: &JournalConfig, mut entry: Entry) {
        if !config.enabled {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let path = config.file();
        let result = (|| -> std::io::Result<()> {
            if state.writer.as_ref().is_none_or(|w| w.path != path) {
                state.writer = Some(open(&path)?);
                state.next_seq = None;
            }
            if state.next_seq.is_none() {
                state.next_seq = Some(last_seq(&path).map_or(1, |s| s + 1));
            }
            entry.seq = state.next_seq.unwrap_or(1);
            entry.ts = now();
            let mut line = serde_json::to_string(&entry)?;
            line.push('\n');
            let writer = state.writer.as_mut().expect("opened above");
            if config.max_bytes > 0
                && writer.size > 0
                && writer.size + line.len() as u64 > config.max_bytes
            {
                std::fs::rename(&path, generation(&path))?;
                *writer = open(&path)?;
            }
            writer.file.write_all(line.as_bytes())?;
            writer.size += line.len() as u64;
            Ok(())
        })();
        match result {
            Ok(()) => {
                state.next_seq = state.next_seq.map(|s| s + 1);
                state.warned = false;
            }
            Err(e) => {
                state.writer = None;
                if !state.warned {
                    state.warned = true;
                    tracing::warn!(path = %path.display(), error = %e, "cannot write the journal; calls go on unrecorded");
                }
            }
        }
    }
}

/// The previous generation of a journal file: `<file>.1`.
pub fn generation(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".1");
    PathBuf::from(name)
}

fn open(path: &Path) -> std::io::Result<Writer> {
    if let Some(dir) = path.parent() {
        DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    }
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    let size = file.metadata()?.len();
    Ok(Writer {
        path: path.into(),
        file,
        size,
    })
}

/// The sequence number of the file's last line (or its previous generation's).
fn last_seq(path: &Path) -> Option<u64> {
    let tail = |path: &Path| -> Option<u64> {
        let mut file = File::open(path).ok()?;
        let len = file.metadata().ok()?.len();
        file.seek(SeekFrom::Start(len.saturating_sub(64 * 1024)))
            .ok()?;
        let mut text = String::new();
        file.read_to_string(&mut text).ok()?;
        text.lines()
            .rev()
            .find_map(|line| serde_json::from_str::<Entry>(line).ok())
            .map(|e| e.seq)
    };
    tail(path).or_else(|| tail(&generation(path)))
}

fn now() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// A call's arguments as the journal keeps them: the fields a verb marks secret (typed text)
/// become their length and a digest unless `record_text`; a `since` window list becomes its
/// length. A service's arguments mean what the service says, so unless `record_text` they are
/// kept whole as the length and digest of their JSON text.
pub fn redact(verb: Option<Verb>, kind: Kind, args: &Value, record_text: bool) -> Value {
    if kind == Kind::Service {
        return match (record_text, args) {
            (true, _) | (false, Value::Null) => args.clone(),
            (false, other) => digest(&other.to_string()),
        };
    }
    let mut args = args.clone();
    let Some(fields) = args.as_object_mut() else {
        return args;
    };
    // A run's code, params and plan may hold what it types, as a typed text would; a model
    // call's state, prompt and screenshots may show what is on the screen.
    let (run, model) = (kind == Kind::Run, kind == Kind::Model);
    let secret = match verb {
        Some(verb) => verb.secret_fields(),
        None if run => &["code", "params", "steps", "record"][..],
        None if model => &["state", "prompt", "images", "png_b64"][..],
        None => &[],
    };
    // What goes on the clipboard is kept by length and digest only, whatever record_text says:
    // the person may paste a secret from it.
    let clipboard = verb == Some(Verb::ClipboardWrite);
    if !record_text || clipboard {
        // Structured secrets are kept as the digest of their JSON text.
        if run || model || clipboard {
            for field in secret {
                if let Some(value) = fields
                    .get(*field)
                    .filter(|v| !v.is_null() && !v.is_string())
                {
                    let text = Value::String(value.to_string());
                    fields.insert((*field).into(), text);
                }
            }
        }
        hide(fields, secret);
        // A computer_act list carries each step's fields, typed text among them.
        if let Some(Value::Array(steps)) = fields.get_mut("actions") {
            for step in steps.iter_mut().filter_map(Value::as_object_mut) {
                hide(step, secret);
            }
        }
    }
    if let Some(Value::Array(since)) = fields.get("since") {
        let count = since.len();
        fields.insert("since".into(), json!({"windows": count}));
    }
    args
}

/// Replaces each of `secret`'s string fields in `fields` with its length and a digest.
fn hide(fields: &mut serde_json::Map<String, Value>, secret: &[&str]) {
    for field in secret {
        if let Some(Value::String(text)) = fields.get(*field) {
            let redacted = digest(text);
            fields.insert((*field).into(), redacted);
        }
    }
}

/// `text` as its length and the start of its SHA-256.
fn digest(text: &str) -> Value {
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    json!({"chars": text.chars().count(), "sha256": hex})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(tool: &str) -> Entry {
        Entry {
            seq: 0,
            ts: String::new(),
            display: None,
            agent_id: "a1".into(),
            tool: tool.into(),
            kind: Kind::Act,
            args: json!({}),
            outcome: Outcome::Completed,
            sent: None,
            dry_run: false,
            ms: 1,
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("shuttle-journal-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn typed_text_is_kept_as_length_and_digest() {
        let args = json!({"text": "hunter2", "window": "Login"});
        let redacted = redact(Some(Verb::Type), Kind::Act, &args, false);
        assert_eq!(redacted["text"]["chars"], 7);
        assert_eq!(redacted["text"]["sha256"].as_str().unwrap().len(), 12);
        assert_eq!(redacted["window"], "Login");
        assert!(!redacted.to_string().contains("hunter2"));
        assert_eq!(redact(Some(Verb::Type), Kind::Act, &args, true), args);
        // Each step of a computer_act list too.
        let args = json!({"actions": [
            {"action": "click", "element": 3},
            {"action": "type", "text": "hunter2"}
        ], "text": "s3cret"});
        let redacted = redact(Some(Verb::ComputerAct), Kind::Act, &args, false);
        assert_eq!(redacted["actions"][1]["text"]["chars"], 7);
        assert_eq!(redacted["actions"][0]["element"], 3);
        assert!(!redacted.to_string().contains("hunter2"));
        assert!(!redacted.to_string().contains("s3cret"));
        // A run's code and params, for script_run and plugin tools alike (both of kind run).
        let args = json!({"code": "desk.type({text: 'hunter2'})", "params": {"pw": "s3cret"}});
        let redacted = redact(None, Kind::Run, &args, false);
        assert!(redacted["code"]["chars"].as_u64().unwrap() > 0);
        assert!(redacted["params"]["sha256"].is_string());
        assert!(!redacted.to_string().contains("hunter2"), "{redacted}");
        assert!(!redacted.to_string().contains("s3cret"), "{redacted}");
        // A plan's steps, and a model call's prompt and screenshot.
        let plan = json!({"steps": [{"do": "type", "text": "hunter2"}], "flow": null});
        assert!(
            !redact(None, Kind::Run, &plan, false)
                .to_string()
                .contains("hunter2")
        );
        let ask = json!({"prompt": "is hunter2 shown?", "images": ["iVBOR"]});
        let redacted = redact(None, Kind::Model, &ask, false);
        assert!(!redacted.to_string().contains("hunter2"), "{redacted}");
        assert!(redacted["images"]["sha256"].is_string(), "{redacted}");
        let ground =
            json!({"png_b64": "iVBOR", "target": "Save", "area": {"width": 4, "height": 4}});
        let redacted = redact(None, Kind::Model, &ground, false);
        assert_eq!(redacted["target"], "Save");
        assert!(redacted["png_b64"]["chars"].is_u64(), "{redacted}");
    }

    #[test]
    fn a_service_calls_arguments_are_kept_whole_as_a_digest_unless_text_is_recorded() {
        let args = json!({"note": "hunter2", "n": 3});
        let redacted = redact(None, Kind::Service, &args, false);
        assert!(!redacted.to_string().contains("hunter2"), "{redacted}");
        assert_eq!(redacted["chars"], args.to_string().chars().count());
        assert_eq!(redact(None, Kind::Service, &args, true), args);
    }

    #[test]
    fn lines_are_numbered_private_and_rotated() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("rotate");
        let config = JournalConfig {
            path: Some(dir.join("j/journal.ndjson")),
            max_bytes: 600,
            ..JournalConfig::default()
        };
        let journal = Journal::default();
        for _ in 0..8 {
            journal.record(&config, entry("desk_click"));
        }
        let file = config.file();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(file.parent().unwrap()), 0o700);
        assert!(generation(&file).exists(), "rotated past max_bytes");
        assert!(std::fs::metadata(&file).unwrap().len() <= 600);
        // A new daemon goes on counting where the file ends.
        Journal::default().record(&config, entry("desk_key"));
        let text = std::fs::read_to_string(&file).unwrap();
        let last: Entry = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(last.seq, 9);
        assert_eq!(last.tool, "desk_key");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_line_says_how_the_call_ended_in_the_shared_words() {
        let entry = Entry {
            outcome: Outcome::refused_by(
                desk_core::outcome::Control::Allowlist,
                "not in the app allowlist",
            ),
            sent: Some(false),
            ..entry("desk_click")
        };
        let line = serde_json::to_value(&entry).unwrap();
        assert_eq!(line["outcome"], "refused");
        assert_eq!(line["by"], "allowlist");
        assert_eq!(line["reason"], "not in the app allowlist");
        assert_eq!(line["sent"], false);
        assert_eq!(line["kind"], "act");
        let back: Entry = serde_json::from_value(line).unwrap();
        assert_eq!(back, entry);
        let completed = serde_json::to_value(entry_completed()).unwrap();
        assert!(completed.get("reason").is_none() && completed.get("by").is_none());
    }

    fn entry_completed() -> Entry {
        entry("desk_key")
    }
}
