//! `shot`: a PNG of the screen, a rectangle of it, or one window's own pixels.

use desk_core::call::ShotArgs;
use desk_core::geometry::Rect;
use desk_core::results::Shot;

use crate::done::Picture;
use crate::error::DeskError;
use crate::guard::Desk;
use crate::image::RgbImage;

pub(super) fn shot(desk: &Desk, args: &ShotArgs) -> Result<(Shot, Picture), DeskError> {
    let screen = desk.screen()?;
    let crop = args.rect().map_err(DeskError::Invalid)?;
    let (image, placed) = if args.window.is_some() || args.pid.is_some() {
        let (image, origin, screen_origin, id) = window_shot(desk, args, crop, screen)?;
        (image, Some((origin, screen_origin, id)))
    } else {
        let area = crop.unwrap_or(screen);
        if !screen.contains_rect(&area) {
            return Err(DeskError::Unplaced(format!(
                "rectangle {area} is not within the screen ({}x{}); shoot a rectangle inside it, \
                 or pass window to shoot a window wherever it is",
                screen.w, screen.h
            )));
        }
        (desk.capture_screen(area)?, None)
    };
    let (image, scale) = match args.max_edge {
        Some(edge) => shrunk(image, edge),
        None => (image, None),
    };
    let png = image.to_png();
    let (origin, screen_origin, window) = match placed {
        Some((origin, screen_origin, id)) => (Some(origin), Some(screen_origin), Some(id)),
        None => (None, None, None),
    };
    if let Some(path) = &args.path {
        write_png(path, &png)?;
    }
    let shot = Shot {
        width: image.width,
        height: image.height,
        origin,
        screen_origin,
        window,
        path: args.path.clone(),
        scale,
    };
    Ok((shot, Picture::png(png)))
}

/// The named window's own pixels where it is on the screen (cropped to `crop`, in the window's
/// own pixels), the top left of that part within the whole window image and on the screen
/// (where node bounds are), and the window's id.
fn window_shot(
    desk: &Desk,
    args: &ShotArgs,
    crop: Option<Rect>,
    screen: Rect,
) -> Result<(RgbImage, [i64; 2], [i64; 2], String), DeskError> {
    let window = desk.pick(args.window.as_deref(), args.pid)?;
    let frame = desk.rect_of(&window)?;
    let whole = Rect::new(0, 0, frame.w, frame.h);
    let crop = crop.unwrap_or(whole);
    if !whole.contains_rect(&crop) {
        return Err(DeskError::Unplaced(format!(
            "crop {crop} is not within window {} {:?}, whose image is {}x{}",
            window.id, window.title, frame.w, frame.h
        )));
    }
    let wanted = Rect::new(frame.x + crop.x, frame.y + crop.y, crop.w, crop.h);
    let visible = screen
        .intersect(&wanted)
        .ok_or_else(|| DeskError::WindowHidden {
            id: window.id.clone(),
            title: window.title.clone(),
        })?;
    let area = Rect::new(
        visible.x - frame.x,
        visible.y - frame.y,
        visible.w,
        visible.h,
    );
    let image = desk.capture_window(&window, area)?;
    let origin = [i64::from(area.x), i64::from(area.y)];
    let screen_origin = [i64::from(visible.x), i64::from(visible.y)];
    Ok((image, origin, screen_origin, window.id))
}

/// `image` shrunk so its long edge is at most `edge` pixels (0: as it is), and the scale
/// (screen pixels per image pixel) its points are turned back with.
fn shrunk(image: RgbImage, edge: u32) -> (RgbImage, Option<f64>) {
    let long = image.width.max(image.height);
    if edge == 0 || long <= edge {
        return (image, Some(1.0));
    }
    let width = (u64::from(image.width) * u64::from(edge) / u64::from(long)).max(1) as u32;
    let small = crate::image::shrink(&image, width);
    let scale = f64::from(image.width) / f64::from(small.width);
    (small, Some((scale * 1000.0).round() / 1000.0))
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
