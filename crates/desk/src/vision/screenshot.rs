//! The screenshot a vision verb shows: the screen scaled to a long edge, as a JPEG.

use desk_core::geometry::Rect;

use super::sessions::Shot;
use crate::done::Picture;
use crate::error::DeskError;
use crate::guard::ScreenSource;
use crate::image::RgbImage;

/// JPEG quality: small enough to be cheap to send, sharp enough to read a UI's text.
const QUALITY: u8 = 80;

/// A captured screenshot and how it maps onto the screen.
#[derive(Debug, Clone)]
pub struct Screenshot {
    /// The encoded image.
    pub picture: Picture,
    /// Its size and scale.
    pub shot: Shot,
}

impl Screenshot {
    /// The whole screen with a long edge of `max_edge` (0: full size, as is a screen already
    /// that small).
    pub fn capture(source: &ScreenSource, screen: Rect, max_edge: u32) -> Result<Self, DeskError> {
        let width = scaled_width(screen, max_edge);
        let image = source.capture_scaled(screen, width)?;
        Ok(Self::of(
            &image,
            Self::scale_for(screen, max_edge),
            max_edge,
        ))
    }

    /// Screen pixels per pixel of a screenshot of `screen` with a long edge of `max_edge`.
    pub fn scale_for(screen: Rect, max_edge: u32) -> f64 {
        f64::from(screen.w) / f64::from(scaled_width(screen, max_edge).max(1))
    }

    /// `image` as a JPEG, shown at `scale` screen pixels per pixel.
    pub fn of(image: &RgbImage, scale: f64, max_edge: u32) -> Self {
        Self {
            picture: Picture::jpeg(jpeg(image)),
            shot: Shot {
                width: image.width,
                height: image.height,
                scale,
                max_edge,
            },
        }
    }

    /// `1024x576 JPEG, 61 KB, about 787 input tokens`.
    pub fn describe(&self) -> String {
        format!(
            "{}x{} JPEG, {} KB, about {} input tokens",
            self.shot.width,
            self.shot.height,
            self.picture.bytes.len().div_ceil(1024),
            token_estimate(self.shot.width, self.shot.height)
        )
    }
}

/// The width of a screenshot of `screen` whose long edge is at most `max_edge`.
fn scaled_width(screen: Rect, max_edge: u32) -> u32 {
    let long = screen.w.max(screen.h);
    if max_edge == 0 || long <= max_edge {
        return screen.w;
    }
    ((u64::from(screen.w) * u64::from(max_edge)).div_ceil(u64::from(long)) as u32).max(1)
}

/// Input tokens a model is likely to count for an image (width × height / 750, the rule
/// Anthropic documents; other vendors count within a small factor of it).
pub fn token_estimate(width: u32, height: u32) -> u64 {
    (u64::from(width) * u64::from(height)).div_ceil(750)
}

fn jpeg(image: &RgbImage) -> Vec<u8> {
    let mut out = Vec::with_capacity(image.pixels.len() / 10);
    let encoder = jpeg_encoder::Encoder::new(&mut out, QUALITY);
    encoder
        .encode(
            &image.pixels,
            image.width as u16,
            image.height as u16,
            jpeg_encoder::ColorType::Rgb,
        )
        .expect("an RGB buffer of its declared size encodes to memory");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_edge_is_scaled_to_max_edge() {
        let screen = Rect::new(0, 0, 1920, 1080);
        assert_eq!(scaled_width(screen, 1024), 1024);
        assert_eq!(scaled_width(screen, 0), 1920);
        assert_eq!(scaled_width(screen, 4000), 1920);
        assert_eq!(scaled_width(Rect::new(0, 0, 1080, 1920), 1024), 576);
        assert_eq!(token_estimate(1024, 576), 787);
    }

    #[test]
    fn a_frame_is_a_jpeg_of_the_image() {
        let image = RgbImage {
            width: 16,
            height: 8,
            pixels: vec![200; 16 * 8 * 3],
        };
        let screenshot = Screenshot::of(&image, 2.0, 1024);
        assert_eq!(&screenshot.picture.bytes[..2], &[0xFF, 0xD8]);
        assert_eq!(screenshot.picture.mime, "image/jpeg");
        assert_eq!((screenshot.shot.width, screenshot.shot.height), (16, 8));
    }
}
