//! `settle`: how long an action may wait for the windows to settle before it answers.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// The longest `settle` an action takes, in milliseconds.
pub const SETTLE_MAX_MS: u64 = 5000;

/// How long an action waits for the windows to settle before it answers. Without it an action
/// waits only while windows are already moving; either way what comes later is in the next
/// reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settle {
    /// Up to this many milliseconds for a window to open, close or retitle and then hold still.
    Ms(u64),
    /// As for `Ms` at its default, then until the screen stops changing too.
    Still,
}

impl Settle {
    /// `value` as a settle: milliseconds from 0 to [`SETTLE_MAX_MS`], or `"still"`.
    pub fn from_value(value: &Value) -> Result<Self, String> {
        let expected = format!("settle takes milliseconds from 0 to {SETTLE_MAX_MS}, or \"still\"");
        match value {
            Value::Number(n) => match n.as_u64() {
                Some(ms) if ms <= SETTLE_MAX_MS => Ok(Settle::Ms(ms)),
                _ => Err(format!("{expected}; got {n}")),
            },
            Value::String(s) if s == "still" => Ok(Settle::Still),
            other => Err(format!("{expected}; got {other}")),
        }
    }
}

impl<'de> Deserialize<'de> for Settle {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Settle::from_value(&value).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Settle {
    fn schema_name() -> Cow<'static, str> {
        "Settle".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Milliseconds (0 to 5000) to wait for windows to settle, or \"still\".",
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": SETTLE_MAX_MS},
                {"type": "string", "const": "still"}
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settle_takes_milliseconds_in_range_or_still() {
        assert_eq!(Settle::from_value(&json!(0)), Ok(Settle::Ms(0)));
        assert_eq!(Settle::from_value(&json!(5000)), Ok(Settle::Ms(5000)));
        assert_eq!(Settle::from_value(&json!("still")), Ok(Settle::Still));
        for bad in [
            json!(-1),
            json!(5001),
            json!(1.5),
            json!("soon"),
            json!(null),
            json!(1e30),
        ] {
            let error = Settle::from_value(&bad).unwrap_err();
            assert!(
                error.starts_with("settle takes milliseconds from 0 to 5000, or \"still\"; got "),
                "{bad}: {error}"
            );
        }
    }
}
