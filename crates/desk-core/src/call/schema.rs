//! A verb's arguments read back from its JSON schema: names, kinds, choices and descriptions,
//! for the CLI's `key=value` parsing and the help texts of the CLI and the MCP tool.

use serde_json::Value;

use super::Verb;

impl Verb {
    /// The one-line description from the arguments' doc comment.
    pub fn about(self) -> String {
        self.schema()
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    }

    /// The verb's arguments, in declaration order.
    pub fn fields(self) -> Vec<Field> {
        let schema = self.schema();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return Vec::new();
        };
        props
            .iter()
            .map(|(name, prop)| Field {
                name: name.clone(),
                required: required.contains(&name.as_str()),
                kind: FieldKind::of(prop, schema.as_value()),
                choices: choices(prop, schema.as_value()),
                about: prop
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            })
            .collect()
    }

    /// `click x y button?(left|right|middle) count? window? pid?`: a compact signature for
    /// help texts.
    pub fn signature(self) -> String {
        let mut out = self.name().to_string();
        for f in self.fields() {
            out.push(' ');
            out.push_str(&f.name);
            if !f.required {
                out.push('?');
            }
            if !f.choices.is_empty() {
                out.push_str(&format!("({})", f.choices.join("|")));
            }
        }
        out
    }
}

/// The values an enum argument accepts, in declaration order; empty for other arguments.
fn choices(prop: &Value, root: &Value) -> Vec<String> {
    let resolve = |v: &Value| -> Option<Value> {
        let target = v.get("$ref")?.as_str()?.strip_prefix("#/$defs/")?;
        root.get("$defs")?.get(target).cloned()
    };
    let mut values = Vec::new();
    let mut pending = vec![resolve(prop).unwrap_or_else(|| prop.clone())];
    while let Some(node) = pending.pop() {
        if let Some(value) = node.get("const").and_then(Value::as_str) {
            values.push(value.to_string());
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(alternatives)) = node.get(key) {
                for alt in alternatives.iter().rev() {
                    pending.push(resolve(alt).unwrap_or_else(|| alt.clone()));
                }
            }
        }
    }
    values
}

/// One argument of a verb, read from its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The argument's name.
    pub name: String,
    /// Whether the call must pass it.
    pub required: bool,
    /// What kind of JSON value it takes.
    pub kind: FieldKind,
    /// For an enum, the values it accepts.
    pub choices: Vec<String>,
    /// Its description.
    pub about: String,
}

/// The JSON kind an argument takes, so a shell's `key=value` can be turned into the right value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A string (text, titles, names, enum choices).
    String,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// true or false.
    Boolean,
    /// A number, or else a string (a field's new value).
    NumberOrText,
    /// Anything else: passed as JSON.
    Json,
}

impl FieldKind {
    fn of(prop: &Value, root: &Value) -> Self {
        if let Some(target) = prop.get("$ref").and_then(Value::as_str) {
            return target
                .strip_prefix("#/$defs/")
                .and_then(|name| root.get("$defs")?.get(name))
                .map_or(Self::Json, |def| Self::of(def, root));
        }
        let alternatives = prop.get("anyOf").or_else(|| prop.get("oneOf"));
        if let Some(Value::Array(alternatives)) = alternatives {
            let kinds = alternatives
                .iter()
                .filter(|alt| alt.get("type").and_then(Value::as_str) != Some("null"))
                .map(|alt| Self::of(alt, root));
            let mut kinds: Vec<Self> = kinds.collect();
            kinds.dedup();
            return match kinds.as_slice() {
                [one] => *one,
                [Self::Number | Self::Integer, Self::String]
                | [Self::String, Self::Number | Self::Integer] => Self::NumberOrText,
                _ => Self::Json,
            };
        }
        let types: Vec<&str> = match prop.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        match types
            .into_iter()
            .filter(|t| *t != "null")
            .collect::<Vec<_>>()
            .as_slice()
        {
            ["string"] => Self::String,
            ["integer"] => Self::Integer,
            ["number"] => Self::Number,
            ["boolean"] => Self::Boolean,
            _ => Self::Json,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_come_from_the_structs() {
        let fields = Verb::Click.fields();
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "x",
                "y",
                "button",
                "count",
                "window",
                "pid",
                "scale",
                "allow_auth",
                "settle"
            ]
        );
        assert_eq!(fields[8].kind, FieldKind::NumberOrText);
        assert_eq!(fields[7].kind, FieldKind::Boolean);
        assert!(!fields[7].required);
        assert!(fields[0].required && !fields[2].required);
        assert_eq!(fields[0].kind, FieldKind::Integer);
        assert_eq!(fields[2].kind, FieldKind::String);
        assert_eq!(fields[4].kind, FieldKind::String);
        assert_eq!(Verb::Wait.fields()[0].kind, FieldKind::Json);
        assert_eq!(Verb::Snapshot.fields()[3].kind, FieldKind::Boolean);
        assert_eq!(
            Verb::Click.signature(),
            "click x y button?(left|right|middle) count? window? pid? scale? allow_auth? settle?(still)"
        );
        assert_eq!(
            Verb::Scroll.signature(),
            "scroll direction(up|down|left|right) amount? x? y? window? pid? allow_auth?"
        );
        assert_eq!(fields[2].choices, ["left", "right", "middle"]);
        assert_eq!(Verb::Windows.signature(), "windows");
    }
}
