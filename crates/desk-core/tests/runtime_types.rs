//! The runtime's verb types, generated from the verb table's JSON schemas: every verb's
//! arguments and result as TypeScript, in `runtime/lib/verbs.gen.mts`, which `desk.mts`
//! imports. This test fails when the file differs from what the schemas give; run it with
//! `SHUTTLE_UPDATE_RUNTIME_TYPES=1` to write the file anew:
//!
//! ```sh
//! SHUTTLE_UPDATE_RUNTIME_TYPES=1 cargo test -p shuttle-desk-core --test runtime_types
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use desk_core::call::Verb;
use serde_json::{Map, Value};

const UPDATE: &str = "SHUTTLE_UPDATE_RUNTIME_TYPES";

fn generated_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../runtime/lib/verbs.gen.mts")
}

#[test]
fn the_runtime_types_match_the_verb_table() {
    let generated = generate();
    let path = generated_path();
    if std::env::var_os(UPDATE).is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == generated,
        "{} differs from the verb table's schemas: run `{UPDATE}=1 cargo test -p \
         shuttle-desk-core --test runtime_types` and commit the result",
        path.display()
    );
}

/// Named types met along the way: name → TypeScript declaration.
#[derive(Default)]
struct Named {
    declared: BTreeMap<String, String>,
}

impl Named {
    /// Declares `name` from `schema` (a root or one of its `$defs`) unless it is declared, and
    /// checks that one name never stands for two shapes.
    fn declare(&mut self, name: &str, schema: &Value) {
        let declaration = declaration(name, schema);
        if let Some(earlier) = self.declared.get(name) {
            assert_eq!(
                earlier, &declaration,
                "two schemas name different types {name}"
            );
            return;
        }
        self.declared.insert(name.to_string(), declaration);
    }

    /// Declares every `$defs` entry of a root schema.
    fn declare_defs(&mut self, root: &Value) {
        if let Some(defs) = root.get("$defs").and_then(Value::as_object) {
            for (name, schema) in defs {
                self.declare(name, schema);
            }
        }
    }
}

fn generate() -> String {
    let mut named = Named::default();
    let mut args = String::new();
    let mut results = String::new();
    for verb in Verb::ALL {
        let schema = serde_json::to_value(verb.schema()).unwrap();
        named.declare_defs(&schema);
        let title = schema["title"].as_str().unwrap();
        named.declare(title, &schema);
        writeln!(args, "  {}: {title};", verb.name()).unwrap();

        let result = serde_json::to_value(verb.result_schema()).unwrap();
        named.declare_defs(&result);
        let shape = match result.get("title").and_then(Value::as_str) {
            // A wrapper's made-up name (Nullable_X, Array_of_X) stays inline.
            Some(title)
                if !title.contains('_')
                    && (is_object(&result) || result.get("anyOf").is_some()) =>
            {
                named.declare(title, &result);
                title.to_string()
            }
            _ => ts(&result),
        };
        writeln!(results, "  {}: {shape};", verb.name()).unwrap();
    }
    // Every reply of an object may carry the window news; desk.mts adds it to each answer.
    let news =
        serde_json::to_value(schemars::schema_for!(desk_core::results::WindowChanges)).unwrap();
    named.declare_defs(&news);
    named.declare("WindowChanges", &news);
    let names: Vec<String> = Verb::ALL
        .iter()
        .map(|v| format!("  \"{}\",", v.name()))
        .collect();
    let mut out = String::from(
        "// Generated from the verb table's JSON schemas by crates/desk-core/tests/runtime_types.rs:\n\
         // do not edit. Regenerate with\n\
         //   SHUTTLE_UPDATE_RUNTIME_TYPES=1 cargo test -p shuttle-desk-core --test runtime_types\n\n",
    );
    writeln!(
        out,
        "/** The verbs, in the order of the daemon's verb table. */\nexport const VERBS = [\n{}\n] as const;\n",
        names.join("\n")
    )
    .unwrap();
    writeln!(
        out,
        "/** Each verb's arguments. */\nexport interface VerbArgs {{\n{args}}}\n"
    )
    .unwrap();
    writeln!(
        out,
        "/** Each verb's result: its JSON, or a string for a verb that answers text to read. */\nexport interface VerbResults {{\n{results}}}"
    )
    .unwrap();
    for declaration in named.declared.values() {
        out.push('\n');
        out.push_str(declaration);
    }
    out
}

fn is_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// `export interface NAME {...}` for an object schema, else `export type NAME = ...;`.
fn declaration(name: &str, schema: &Value) -> String {
    let mut out = doc(schema, "");
    if is_object(schema) && schema.get("properties").is_some() {
        writeln!(out, "export interface {name} {{").unwrap();
        out.push_str(&fields(schema, "  "));
        out.push_str("}\n");
    } else {
        writeln!(out, "export type {name} = {};", ts(schema)).unwrap();
    }
    out
}

/// A JSDoc comment of the schema's description, at `indent`.
fn doc(schema: &Value, indent: &str) -> String {
    match schema.get("description").and_then(Value::as_str) {
        Some(text) => {
            let text = text.replace("*/", "* /").replace('\n', " ");
            format!("{indent}/** {text} */\n")
        }
        None => String::new(),
    }
}

/// An object's properties, one per line, optional ones marked.
fn fields(schema: &Value, indent: &str) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut out = String::new();
    for (name, prop) in props {
        out.push_str(&doc(prop, indent));
        let mark = if required.contains(&name.as_str()) {
            ""
        } else {
            "?"
        };
        writeln!(out, "{indent}{name}{mark}: {};", ts(prop)).unwrap();
    }
    out
}

/// The TypeScript type a schema describes.
fn ts(schema: &Value) -> String {
    let Some(fields) = schema.as_object() else {
        return "unknown".into();
    };
    if let Some(target) = fields.get("$ref").and_then(Value::as_str) {
        return target.trim_start_matches("#/$defs/").to_string();
    }
    if let Some(constant) = fields.get("const") {
        return constant.to_string();
    }
    if let Some(values) = fields.get("enum").and_then(Value::as_array) {
        return union(values.iter().map(Value::to_string));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = fields.get(key).and_then(Value::as_array) {
            return union(options.iter().map(ts));
        }
    }
    match fields.get("type") {
        Some(Value::Array(kinds)) => union(kinds.iter().filter_map(Value::as_str).map(|kind| {
            let mut one = fields.clone();
            one.insert("type".into(), Value::String(kind.into()));
            ts(&Value::Object(one))
        })),
        Some(Value::String(kind)) => match kind.as_str() {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => {
                let item = fields.get("items").map_or("unknown".into(), ts);
                let size = |key: &str| fields.get(key).and_then(Value::as_u64);
                match (size("minItems"), size("maxItems")) {
                    (Some(min), Some(max)) if min == max && max <= 4 => {
                        format!("[{}]", vec![item; max as usize].join(", "))
                    }
                    _ if item.contains(' ') => format!("({item})[]"),
                    _ => format!("{item}[]"),
                }
            }
            "object" if fields.contains_key("properties") => {
                let inner = fields_inline(schema);
                format!("{{ {inner} }}")
            }
            "object" => match fields.get("additionalProperties") {
                Some(Value::Bool(false)) => "Record<string, never>".into(),
                Some(extra @ Value::Object(_)) => format!("Record<string, {}>", ts(extra)),
                _ => "Record<string, unknown>".into(),
            },
            _ => "unknown".into(),
        },
        _ => "unknown".into(),
    }
}

/// An object's properties on one line, for a type inside another.
fn fields_inline(schema: &Value) -> String {
    fields(schema, "")
        .lines()
        .filter(|line| !line.starts_with("/**"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `a | b`, each alternative once, in order.
fn union(options: impl Iterator<Item = String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for option in options {
        if !seen.contains(&option) {
            seen.push(option);
        }
    }
    seen.join(" | ")
}
