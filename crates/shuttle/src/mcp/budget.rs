//! A reply's text within the session's budget (`[mcp] reply_budget`): cut where a reader can
//! pick it up again, never inside a node, an item or a line. What was cut stays whole in the
//! session's [`Kept`] replies, which the agent reads as an MCP resource.

use std::collections::VecDeque;

use serde_json::Value;

/// The default budget of a reply's text, in bytes.
pub const DEFAULT_BUDGET: usize = desk_core::status::DEFAULT_REPLY_BUDGET;

/// How many cut replies a session keeps for reading back; the oldest goes first.
const KEPT: usize = 64;
/// The most bytes a session keeps: a few dozen screenshots.
const KEPT_BYTES: usize = 128 << 20;

/// Where kept replies live, as resource URIs.
pub const REPLY_URI: &str = "shuttle://reply/";

/// What a cut left out: `shown` of `of` units (items of a list, or lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    pub shown: usize,
    pub of: usize,
    /// What the units are: `items of nodes`, `items`, `lines of value`, `lines`.
    pub units: String,
}

/// `data` (a JSON result without shuttle's own fields) within `budget` bytes as JSON: the
/// first items of its longest list (the list itself, or a field's: a tree's `nodes`, a
/// script's `logs`), else the first lines of its longest text; `None` when it fits, or
/// nothing in it can be cut so that it does.
pub fn cut_json(data: &Value, budget: usize) -> Option<(Value, Cut)> {
    let size = |v: &Value| v.to_string().len();
    if size(data) <= budget {
        return None;
    }
    // The longest list, as a path: None for the value itself, Some(key) for a field.
    let lists: Vec<(Option<&str>, &Vec<Value>)> = match data {
        Value::Array(items) => vec![(None, items)],
        Value::Object(fields) => fields
            .iter()
            .filter_map(|(k, v)| Some((Some(k.as_str()), v.as_array()?)))
            .collect(),
        _ => Vec::new(),
    };
    if let Some((key, items)) = lists
        .into_iter()
        .max_by_key(|(_, items)| size(&Value::Array(items.to_vec())))
    {
        let with = |n: usize| -> Value {
            let kept = Value::Array(items[..n].to_vec());
            match (key, data) {
                (Some(key), Value::Object(fields)) => {
                    let mut fields = fields.clone();
                    fields.insert(key.to_string(), kept);
                    Value::Object(fields)
                }
                _ => kept,
            }
        };
        // The most items that fit: sizes grow with n, so a binary search finds it.
        let (mut fits, mut over) = (0, items.len());
        while fits + 1 < over {
            let mid = (fits + over) / 2;
            if size(&with(mid)) <= budget {
                fits = mid;
            } else {
                over = mid;
            }
        }
        if size(&with(fits)) <= budget {
            let units = key.map_or("items".to_string(), |k| format!("items of {k}"));
            return Some((
                with(fits),
                Cut {
                    shown: fits,
                    of: items.len(),
                    units,
                },
            ));
        }
    }
    // No list to cut, or the rest alone is over: the longest text, by lines.
    let Value::Object(fields) = data else {
        return None;
    };
    let (key, text) = fields
        .iter()
        .filter_map(|(k, v)| Some((k, v.as_str()?)))
        .max_by_key(|(_, text)| text.len())?;
    let rest = size(data) - size(&Value::String(text.to_string()));
    let (kept, cut) = cut_lines(text, budget.checked_sub(rest + 2)?)?;
    let mut fields = fields.clone();
    fields.insert(key.clone(), Value::String(kept));
    Some((
        Value::Object(fields),
        Cut {
            units: format!("lines of {key}"),
            ..cut
        },
    ))
}

/// The first whole lines of `text` within `budget` bytes (as JSON text, escapes counted);
/// `None` when it fits whole.
pub fn cut_lines(text: &str, budget: usize) -> Option<(String, Cut)> {
    let size = |t: &str| Value::String(t.to_string()).to_string().len();
    if size(text) <= budget {
        return None;
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut kept = String::new();
    let mut shown = 0;
    for line in &lines {
        if size(&kept) + size(line) - 2 > budget {
            break;
        }
        kept.push_str(line);
        shown += 1;
    }
    Some((
        kept,
        Cut {
            shown,
            of: lines.len(),
            units: "lines".into(),
        },
    ))
}

/// How many bytes the base64 text `b64` stands for.
pub fn decoded_len(b64: &str) -> usize {
    let padding = b64.bytes().rev().take_while(|&b| b == b'=').count();
    (b64.len() / 4 * 3).saturating_sub(padding)
}

/// How a kept reply is read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Text, as it is.
    Text,
    /// Bytes, base64-encoded (an image).
    Blob,
}

/// One reply kept whole.
#[derive(Debug)]
struct Whole {
    uri: String,
    body: String,
    mime: String,
    form: Form,
}

/// The replies a session cut, whole, and the images it linked, by URI.
#[derive(Debug)]
pub struct Kept {
    replies: VecDeque<Whole>,
    next: u64,
    /// The most bytes kept in all; the oldest go first.
    most_bytes: usize,
}

impl Default for Kept {
    fn default() -> Self {
        Self {
            replies: VecDeque::new(),
            next: 0,
            most_bytes: KEPT_BYTES,
        }
    }
}

impl Kept {
    /// Keeps `body` (of MIME type `mime`, read back as `form`); answers its URI.
    pub fn keep(&mut self, body: String, mime: &str, form: Form) -> String {
        self.next += 1;
        let uri = format!("{REPLY_URI}{}", self.next);
        let mut held: usize = self.replies.iter().map(|w| w.body.len()).sum();
        while let Some(oldest) = self.replies.front()
            && (self.replies.len() >= KEPT || held + body.len() > self.most_bytes)
        {
            held -= oldest.body.len();
            self.replies.pop_front();
        }
        self.replies.push_back(Whole {
            uri: uri.clone(),
            body,
            mime: mime.to_string(),
            form,
        });
        uri
    }

    /// The reply kept at `uri`, with its MIME type and form.
    pub fn get(&self, uri: &str) -> Option<(&str, &str, Form)> {
        self.replies
            .iter()
            .find(|w| w.uri == uri)
            .map(|w| (w.body.as_str(), w.mime.as_str(), w.form))
    }

    /// Every reply kept, oldest first: URI, size in bytes, MIME type and form.
    pub fn list(&self) -> impl Iterator<Item = (&str, usize, &str, Form)> {
        self.replies.iter().map(|w| {
            let size = match w.form {
                Form::Text => w.body.len(),
                Form::Blob => decoded_len(&w.body),
            };
            (w.uri.as_str(), size, w.mime.as_str(), w.form)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn nodes(n: usize) -> Value {
        let nodes: Vec<Value> = (0..n)
            .map(|i| json!({"ref": i, "role": "button", "name": format!("Button {i}")}))
            .collect();
        json!({"window": {"id": "0x1", "title": "T"}, "nodes": nodes})
    }

    #[test]
    fn a_tree_keeps_its_first_whole_nodes_and_its_other_fields() {
        let tree = nodes(500);
        let (kept, cut) = cut_json(&tree, 4000).unwrap();
        assert!(kept.to_string().len() <= 4000);
        assert_eq!(kept["window"], tree["window"]);
        let shown = kept["nodes"].as_array().unwrap();
        assert_eq!(shown.len(), cut.shown);
        assert_eq!(shown[..], tree["nodes"].as_array().unwrap()[..cut.shown]);
        assert_eq!((cut.of, cut.units.as_str()), (500, "items of nodes"));
        // One more node would not have fitted.
        let mut more = kept.clone();
        more["nodes"]
            .as_array_mut()
            .unwrap()
            .push(tree["nodes"][cut.shown].clone());
        assert!(more.to_string().len() > 4000);
        assert_eq!(cut_json(&nodes(3), 4000), None, "a small tree is whole");
    }

    #[test]
    fn a_list_is_cut_by_items_and_a_long_text_by_lines() {
        let windows = Value::Array((0..300).map(|i| json!({"id": i})).collect());
        let (kept, cut) = cut_json(&windows, 1000).unwrap();
        assert_eq!(kept.as_array().unwrap().len(), cut.shown);
        assert_eq!(cut.units, "items");
        let text: String = (0..400).map(|i| format!("line {i} \"quoted\"\n")).collect();
        let read = json!({"id": "a:1", "value": text});
        let (kept, cut) = cut_json(&read, 2000).unwrap();
        assert!(kept.to_string().len() <= 2000, "{}", kept.to_string().len());
        let value = kept["value"].as_str().unwrap();
        assert!(value.ends_with('\n') && text.starts_with(value));
        assert_eq!(value.lines().count(), cut.shown);
        assert_eq!((cut.of, cut.units.as_str()), (400, "lines of value"));
    }

    #[test]
    fn kept_replies_are_found_by_uri_and_the_oldest_go_first() {
        let mut kept = Kept::default();
        let first = kept.keep("one".into(), "text/plain", Form::Text);
        assert_eq!(first, "shuttle://reply/1");
        assert_eq!(kept.get(&first), Some(("one", "text/plain", Form::Text)));
        for i in 0..KEPT {
            kept.keep(format!("{i}"), "application/json", Form::Text);
        }
        assert_eq!(kept.get(&first), None);
        assert_eq!(kept.list().count(), KEPT);
        assert_eq!(kept.get("shuttle://reply/999"), None);
    }

    #[test]
    fn kept_replies_stay_within_their_bytes_the_oldest_going_first() {
        let mut kept = Kept {
            most_bytes: 10,
            ..Kept::default()
        };
        let old = kept.keep("AAAA".into(), "image/png", Form::Blob);
        let new = kept.keep("BBBBBBBB".into(), "image/png", Form::Blob);
        assert_eq!(kept.get(&old), None);
        assert_eq!(kept.get(&new), Some(("BBBBBBBB", "image/png", Form::Blob)));
        // One alone over the cap is still kept: the reply that links it must be readable.
        let big = kept.keep("C".repeat(40), "image/png", Form::Blob);
        assert_eq!(kept.list().map(|(uri, ..)| uri).collect::<Vec<_>>(), [big]);
    }
}
