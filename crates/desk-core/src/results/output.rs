//! A result type's JSON schema as an MCP tool's `outputSchema`. Every tool list an agent's
//! client fetches carries it, within the list's 8 KB, so it keeps what every result has: the
//! fields a result never leaves out, with their types and enums. Optional fields, the words
//! (descriptions, titles) and the formats and bounds of numbers are left out, and every `$ref`
//! is written out in place. A client checking a result against it checks those fields; the
//! others pass, as the schema allows fields it does not name.

use schemars::JsonSchema;
use serde_json::{Map, Value};

/// Keys that only describe: a client checks nothing against them.
const WORDS: &[&str] = &[
    "$schema",
    "$defs",
    "title",
    "description",
    "format",
    "minimum",
    "maximum",
    "default",
    "examples",
];

/// How deep a schema is written out; below, an object is only said to be one.
const DEPTH: usize = 6;

/// `T`'s output schema, compact.
pub fn output_schema<T: JsonSchema>() -> Map<String, Value> {
    let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    match compact(&schema, &defs, 0) {
        Value::Object(map) => map,
        _ => Map::from_iter([("type".to_string(), Value::from("object"))]),
    }
}

fn compact(schema: &Value, defs: &Map<String, Value>, depth: usize) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    if let Some(Value::String(reference)) = map.get("$ref") {
        let name = reference.trim_start_matches("#/$defs/");
        return match defs.get(name) {
            Some(def) => compact(def, defs, depth),
            None => Value::Object(Map::new()),
        };
    }
    if depth >= DEPTH {
        return match map.get("type") {
            Some(kind) => Value::Object(Map::from_iter([("type".to_string(), kind.clone())])),
            None => Value::Object(Map::new()),
        };
    }
    if let Some(values) = one_of_constants(map) {
        return serde_json::json!({"type": "string", "enum": values});
    }
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    for (key, value) in map {
        if WORDS.contains(&key.as_str()) {
            continue;
        }
        let value = match (key.as_str(), value) {
            // Field names are kept whatever they are ("title", "description"), if required.
            ("properties", Value::Object(fields)) => Value::Object(
                fields
                    .iter()
                    .filter(|(name, _)| required.contains(&name.as_str()))
                    .map(|(name, field)| (name.clone(), compact(field, defs, depth + 1)))
                    .collect(),
            ),
            (_, Value::Array(items)) => Value::Array(
                items
                    .iter()
                    .map(|item| compact(item, defs, depth + 1))
                    .collect(),
            ),
            (_, Value::Object(_)) => compact(value, defs, depth + 1),
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    Value::Object(out)
}

/// The strings of a `oneOf` that only lists string constants (a documented enum).
fn one_of_constants(map: &Map<String, Value>) -> Option<Vec<Value>> {
    let Value::Array(options) = map.get("oneOf")? else {
        return None;
    };
    options
        .iter()
        .map(|option| match option.get("const") {
            Some(Value::String(value)) if option.get("type") == Some(&"string".into()) => {
                Some(Value::from(value.as_str()))
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::script::Report;
    use serde_json::json;

    #[test]
    fn a_report_schema_keeps_types_fields_and_kinds_and_drops_the_words() {
        let schema = Value::Object(output_schema::<Report>());
        assert_eq!(schema["type"], "object");
        assert_eq!(
            schema["required"],
            json!(["result", "logs", "stderr", "duration_ms"])
        );
        assert_eq!(schema["properties"]["logs"], json!({"type": "string"}));
        assert_eq!(schema["properties"]["result"], json!({}), "any JSON");
        assert_eq!(schema["properties"].get("error"), None, "optional");
        let text = schema.to_string();
        assert!(
            !text.contains("description") && !text.contains("$ref"),
            "{text}"
        );
    }

    #[test]
    fn a_documented_enum_is_an_enum_and_refs_are_written_out() {
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Failed {
            /// Which.
            error: crate::results::script::RunError,
        }
        let schema = Value::Object(output_schema::<Failed>());
        assert_eq!(
            schema["properties"]["error"]["properties"]["kind"],
            json!({"type": "string", "enum": ["import", "no_main", "exception", "timeout", "stopped", "exit"]})
        );
    }
}
