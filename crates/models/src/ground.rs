//! `ground`: where a target is on a screenshot, in desk coordinates.
//!
//! The model answers a point from 0 to 1000 across and down the image; the point is mapped onto
//! `area`, the desk rectangle the image shows, whatever the image's own size: 0 is the area's
//! first pixel and 1000 its last.

use serde::Serialize;
use serde_json::{Value, json};

use crate::completion::{self, Served, Usage};
use crate::config::Role;
use crate::endpoint::{Models, excerpt};
use crate::error::ModelError;

const SYSTEM: &str = "You point at things on a screenshot. Answer with the centre of the target \
as `x,y`, where x runs from 0 at the left edge to 1000 at the right edge of the image and y from 0 \
at the top to 1000 at the bottom, and write nothing else.";

/// A PNG's base64 always starts so (its 8-byte signature).
const PNG_BASE64: &str = "iVBORw0KGgo";

/// The desk rectangle a screenshot shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Area {
    /// Its left edge in desk pixels.
    pub left: i64,
    /// Its top edge in desk pixels.
    pub top: i64,
    /// Its width in desk pixels.
    pub width: i64,
    /// Its height in desk pixels.
    pub height: i64,
}

impl Area {
    /// The desk pixel a 0–1000 point stands for; `None` outside 0 to 1000.
    pub fn map(&self, x: f64, y: f64) -> Option<(i64, i64)> {
        let inside = |v: f64| (0.0..=1000.0).contains(&v);
        if !inside(x) || !inside(y) {
            return None;
        }
        let along = |v: f64, size: i64| (v / 1000.0 * (size - 1) as f64).round() as i64;
        Some((
            self.left + along(x, self.width),
            self.top + along(y, self.height),
        ))
    }
}

/// `ground`'s arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct GroundArgs {
    /// The screenshot, a base64 PNG.
    pub png_b64: String,
    /// What to find, in words.
    pub target: String,
    /// The desk rectangle the screenshot shows.
    pub area: Area,
    /// A cap on the configured timeout.
    pub timeout_ms: Option<u64>,
}

/// `ground`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroundReply {
    /// The desk x.
    pub x: i64,
    /// The desk y.
    pub y: i64,
    /// The point the model answered, 0 to 1000 each way.
    pub model_point: [f64; 2],
    /// Who answered.
    pub served: Served,
    /// What it cost.
    pub usage: Usage,
}

impl GroundArgs {
    /// Reads `model_ground`'s arguments: `png_b64`, `target`, `area`, `timeout_ms?`.
    pub fn parse(args: &Value) -> Result<Self, ModelError> {
        let bad = |reason: &str| ModelError::Args(format!("model_ground: {reason}"));
        let fields = args
            .as_object()
            .ok_or_else(|| bad("arguments must be an object with png_b64, target and area"))?;
        for key in fields.keys() {
            if !["png_b64", "target", "area", "timeout_ms"].contains(&key.as_str()) {
                return Err(bad(&format!(
                    "unknown argument {key:?}; it takes png_b64, target, area and timeout_ms"
                )));
            }
        }
        let png_b64 = fields
            .get("png_b64")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("png_b64 is missing: pass the screenshot as a base64 PNG"))?;
        if !png_b64.starts_with(PNG_BASE64) {
            return Err(bad("png_b64 is not a base64 PNG"));
        }
        let target = fields
            .get("target")
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
            .ok_or_else(|| bad("target is missing: say what to find"))?;
        let area = fields
            .get("area")
            .and_then(Value::as_object)
            .ok_or_else(|| bad("area is missing: pass {left, top, width, height}, the desk rectangle the PNG shows"))?;
        for key in area.keys() {
            if !["left", "top", "width", "height"].contains(&key.as_str()) {
                return Err(bad(&format!(
                    "area: unknown field {key:?}; it takes left, top, width and height"
                )));
            }
        }
        let number = |key: &str, default: Option<i64>| match area.get(key) {
            None | Some(Value::Null) => {
                default.ok_or_else(|| bad(&format!("area.{key} is missing")))
            }
            Some(v) => v
                .as_i64()
                .ok_or_else(|| bad(&format!("area.{key} must be a whole number"))),
        };
        let area = Area {
            left: number("left", Some(0))?,
            top: number("top", Some(0))?,
            width: number("width", None)?,
            height: number("height", None)?,
        };
        if area.width <= 0 || area.height <= 0 {
            return Err(bad("area.width and area.height must be positive"));
        }
        let timeout_ms = match fields.get("timeout_ms") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .filter(|ms| *ms > 0)
                    .ok_or_else(|| bad("timeout_ms must be a positive whole number"))?,
            ),
        };
        Ok(Self {
            png_b64: png_b64.to_string(),
            target: target.to_string(),
            area,
            timeout_ms,
        })
    }
}

impl Models {
    /// Finds `args.target` on the screenshot, with one request.
    pub fn ground(&self, args: &GroundArgs) -> Result<GroundReply, ModelError> {
        let model = self
            .config
            .model(Role::Ground)
            .ok_or(ModelError::NoModel {
                role: Role::Ground.name(),
            })?
            .to_string();
        let url = self.chat_url();
        let content = vec![
            json!({"type": "text", "text": format!("Target: {}", args.target)}),
            json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", args.png_b64)}}),
        ];
        let body = completion::request(&model, SYSTEM, content, false);
        let reply = self.post(&url, &body, self.deadline(args.timeout_ms))?;
        let completion = completion::read(&url, &model, &reply)?;
        let bad = |reason: String| ModelError::BadReply {
            url: url.clone(),
            reason,
        };
        let (x, y) = point(&completion.text).ok_or_else(|| {
            bad(format!(
                "the model gave no point x,y: {:?}",
                excerpt(&completion.text)
            ))
        })?;
        let (desk_x, desk_y) = args.area.map(x, y).ok_or_else(|| {
            bad(format!(
                "the model answered the point ({x}, {y}), outside 0 to 1000; nothing was mapped"
            ))
        })?;
        Ok(GroundReply {
            x: desk_x,
            y: desk_y,
            model_point: [x, y],
            served: completion.served,
            usage: completion.usage,
        })
    }
}

/// The first two numbers of `text`: `512,300`, `(512, 300)`, `{"x": 512, "y": 300}` alike.
fn point(text: &str) -> Option<(f64, f64)> {
    let mut numbers = Vec::new();
    let mut current = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() || c == '.' || (c == '-' && current.is_empty()) {
            current.push(c);
        } else if !current.is_empty() {
            if let Ok(n) = current.parse::<f64>() {
                numbers.push(n);
            }
            current.clear();
        }
    }
    match numbers[..] {
        [x, y, ..] => Some((x, y)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_maps_onto_an_area_off_the_origin_with_1000_on_its_last_pixel() {
        let area = Area {
            left: 100,
            top: 50,
            width: 201,
            height: 101,
        };
        assert_eq!(area.map(0.0, 0.0), Some((100, 50)));
        assert_eq!(area.map(1000.0, 1000.0), Some((300, 150)));
        assert_eq!(area.map(500.0, 500.0), Some((200, 100)));
        assert_eq!(area.map(1000.5, 0.0), None);
        assert_eq!(area.map(0.0, -1.0), None);
    }

    #[test]
    fn points_are_read_in_the_shapes_models_write() {
        assert_eq!(point("512,300"), Some((512.0, 300.0)));
        assert_eq!(point("(512, 300)"), Some((512.0, 300.0)));
        assert_eq!(point("{\"x\": 12.5, \"y\": 7}"), Some((12.5, 7.0)));
        assert_eq!(point("x=-3, y=1200"), Some((-3.0, 1200.0)));
        assert_eq!(point("I cannot see it"), None);
    }

    #[test]
    fn malformed_arguments_say_what_to_pass() {
        let png = "iVBORw0KGgoAAAA";
        let cases = [
            (
                json!({"target": "Save", "area": {"width": 10, "height": 10}}),
                "png_b64 is missing",
            ),
            (
                json!({"png_b64": "aGVsbG8=", "target": "Save", "area": {"width": 10, "height": 10}}),
                "not a base64 PNG",
            ),
            (
                json!({"png_b64": png, "area": {"width": 10, "height": 10}}),
                "target is missing",
            ),
            (json!({"png_b64": png, "target": "Save"}), "area is missing"),
            (
                json!({"png_b64": png, "target": "Save", "area": {"width": 0, "height": 10}}),
                "must be positive",
            ),
            (
                json!({"png_b64": png, "target": "Save", "area": {"width": 10}}),
                "area.height is missing",
            ),
        ];
        for (args, expected) in cases {
            let error = GroundArgs::parse(&args).unwrap_err().to_string();
            assert!(error.contains(expected), "{args}: {error}");
        }
        let ok = GroundArgs::parse(&json!({"png_b64": png, "target": "Save", "area": {"left": 5, "width": 10, "height": 10}})).unwrap();
        assert_eq!(
            ok.area,
            Area {
                left: 5,
                top: 0,
                width: 10,
                height: 10
            }
        );
    }
}
