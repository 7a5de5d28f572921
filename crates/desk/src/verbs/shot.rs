//! `shot`: a PNG of the screen, a rectangle of it, or one window.

use desk_core::call::ShotArgs;
use desk_core::geometry::Rect;
use serde_json::json;

use super::Outcome;
use super::target;
use crate::backend::Backend;
use crate::error::DeskError;

pub(super) fn shot(backend: &dyn Backend, args: &ShotArgs) -> Result<Outcome, DeskError> {
    let screen = backend.screen()?;
    let crop = args.rect().map_err(DeskError::Invalid)?;
    let (area, window) = if args.window.is_some() || args.pid.is_some() {
        let (area, origin, id) = window_area(backend, args, crop, screen)?;
        (area, Some((origin, id)))
    } else {
        if target::restricted(backend) {
            return Err(DeskError::Refused(
                "a shot of the screen or a rectangle of it is refused under the app allowlist \
                 ([safety] apps), since it would show other apps; pass window to shoot a window \
                 of an allowed app"
                    .into(),
            ));
        }
        let area = crop.unwrap_or(screen);
        if !screen.contains_rect(&area) {
            return Err(DeskError::Invalid(format!(
                "rectangle {area} is not within the screen ({}x{}); shoot a rectangle inside it, \
                 or pass window to shoot a window wherever it is",
                screen.w, screen.h
            )));
        }
        (area, None)
    };
    let image = backend.capture(area)?;
    let png = image.to_png();
    let mut result = json!({"width": image.width, "height": image.height});
    if let Some((origin, id)) = window {
        result["origin"] = json!(origin);
        result["window"] = json!(id);
    }
    if let Some(path) = &args.path {
        write_png(path, &png)?;
        result["path"] = json!(path);
    }
    Ok(Outcome {
        text: result.to_string(),
        png: Some(png),
    })
}

/// The on-screen part of the named window (cropped to `crop`, in the window's own pixels), the
/// top left of that part within the whole window image, and the window's id.
fn window_area(
    backend: &dyn Backend,
    args: &ShotArgs,
    crop: Option<Rect>,
    screen: Rect,
) -> Result<(Rect, [i64; 2], String), DeskError> {
    let window = &target::pick(backend, args.window.as_deref(), args.pid)?;
    let hidden = || DeskError::WindowHidden {
        id: window.id.clone(),
        title: window.title.clone(),
    };
    let frame = backend.window_rect(&window.id)?.ok_or_else(hidden)?;
    let whole = Rect::new(0, 0, frame.w, frame.h);
    let crop = crop.unwrap_or(whole);
    if !whole.contains_rect(&crop) {
        return Err(DeskError::Invalid(format!(
            "crop {crop} is not within window {} {:?}, whose image is {}x{}",
            window.id, window.title, frame.w, frame.h
        )));
    }
    let wanted = Rect::new(frame.x + crop.x, frame.y + crop.y, crop.w, crop.h);
    let visible = screen.intersect(&wanted).ok_or_else(hidden)?;
    let origin = [
        i64::from(visible.x) - i64::from(frame.x),
        i64::from(visible.y) - i64::from(frame.y),
    ];
    Ok((visible, origin, window.id.clone()))
}

fn write_png(path: &str, png: &[u8]) -> Result<(), DeskError> {
    if !std::path::Path::new(path).is_absolute() {
        return Err(DeskError::Invalid(format!(
            "path {path:?} is relative; pass an absolute path (the daemon's working directory is not yours)"
        )));
    }
    std::fs::write(path, png).map_err(|e| DeskError::Write {
        path: path.into(),
        reason: e.to_string(),
    })
}
