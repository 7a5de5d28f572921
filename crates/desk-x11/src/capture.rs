//! Reading pixels of the screen, or of any drawable: MIT-SHM where the server shares memory
//! with us, GetImage elsewhere.
//!
//! With MIT-SHM the server writes the pixels straight into a memory segment both processes map,
//! so a full-screen capture costs one small request instead of an 8 MB reply on the socket.

use std::fs::File;

use crate::patient::Conn;
use desk_core::geometry::Rect;
use memmap2::{Mmap, MmapOptions};
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::shm::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{
    ConnectionExt as _, Drawable, ImageFormat, ImageOrder, Visualid, Window as Xid,
};

use crate::errors::{lost, reply_error};
use desk::DeskError;
use desk::image::RgbImage;

/// How a pixel of a drawable's format is laid out.
#[derive(Debug, Clone, Copy)]
pub(super) struct PixelFormat {
    bytes_per_pixel: usize,
    little_endian: bool,
    red_mask: u32,
    green_mask: u32,
    blue_mask: u32,
}

/// A shared memory segment attached on both sides.
struct Segment {
    id: shm::Seg,
    map: Mmap,
}

/// Captures rectangles of the root window, or of other drawables.
pub(super) struct Capturer {
    /// The root window's pixel format.
    format: Result<PixelFormat, String>,
    shm: ShmState,
}

enum ShmState {
    /// Not tried yet.
    Untried,
    /// Working, with the current segment.
    Ready(Segment),
    /// Out of reach: remote display, no extension, or the server refused.
    Unavailable,
}

impl Capturer {
    pub(super) fn new(conn: &Conn, screen_num: usize, local: bool) -> Self {
        let shm = if local && has_shm(conn) {
            ShmState::Untried
        } else {
            ShmState::Unavailable
        };
        let screen = &conn.setup().roots[screen_num];
        Self {
            format: pixel_format(conn, screen.root_depth, screen.root_visual),
            shm,
        }
    }

    /// `mit-shm` or `getimage`: the method the next capture will use.
    pub(super) fn method(&self) -> &'static str {
        match self.shm {
            ShmState::Unavailable => "getimage",
            _ => "mit-shm",
        }
    }

    /// The pixels of `rect` of the root window, shrunk to `width` pixels wide when one is given.
    pub(super) fn capture(
        &mut self,
        conn: &Conn,
        root: Xid,
        rect: Rect,
        width: Option<u32>,
    ) -> Result<RgbImage, DeskError> {
        let format = self.format.clone().map_err(DeskError::Unsupported)?;
        self.capture_drawable(conn, root, rect, format, width)
    }

    /// The pixels of `rect` of `drawable`, whose pixels are laid out as `format`.
    pub(super) fn capture_drawable(
        &mut self,
        conn: &Conn,
        drawable: Drawable,
        rect: Rect,
        format: PixelFormat,
        width: Option<u32>,
    ) -> Result<RgbImage, DeskError> {
        let (x, y, w, h) = request_rect(rect)?;
        let size = w as usize * h as usize * format.bytes_per_pixel;
        if let Some(segment) = self.segment(conn, size)? {
            let reply = conn
                .shm_get_image(
                    drawable,
                    x,
                    y,
                    w,
                    h,
                    !0,
                    ImageFormat::Z_PIXMAP.into(),
                    segment.id,
                    0,
                )
                .map_err(lost)?
                .reply()
                .map_err(|e| reply_error("a shared-memory capture", e))?;
            let len = (reply.size as usize).min(size);
            return Ok(convert(&segment.map[..len], w, h, format, width));
        }
        let reply = conn
            .get_image(ImageFormat::Z_PIXMAP, drawable, x, y, w, h, !0)
            .map_err(lost)?
            .reply()
            .map_err(|e| reply_error("a GetImage capture", e))?;
        Ok(convert(&reply.data, w, h, format, width))
    }

    /// A segment of at least `size` bytes, or `None` when captures must use GetImage.
    fn segment(&mut self, conn: &Conn, size: usize) -> Result<Option<&Segment>, DeskError> {
        let fits = matches!(&self.shm, ShmState::Ready(s) if s.map.len() >= size);
        if !fits && !matches!(self.shm, ShmState::Unavailable) {
            if let ShmState::Ready(old) = std::mem::replace(&mut self.shm, ShmState::Untried) {
                // Best effort: a failed detach only leaks a segment until the connection closes.
                let _ = conn.shm_detach(old.id);
            }
            self.shm = match create_segment(conn, size) {
                Ok(segment) => ShmState::Ready(segment),
                Err(reason) => {
                    tracing::warn!(%reason, "MIT-SHM unavailable, capturing with GetImage");
                    ShmState::Unavailable
                }
            };
        }
        match &self.shm {
            ShmState::Ready(segment) => Ok(Some(segment)),
            _ => Ok(None),
        }
    }
}

fn has_shm(conn: &Conn) -> bool {
    matches!(
        conn.extension_information(shm::X11_EXTENSION_NAME),
        Ok(Some(_))
    ) && conn
        .shm_query_version()
        .ok()
        .and_then(|c| c.reply().ok())
        // CreateSegment, which hands us the memory as a file descriptor, is MIT-SHM 1.2.
        .is_some_and(|v| (v.major_version, v.minor_version) >= (1, 2))
}

fn create_segment(conn: &Conn, size: usize) -> Result<Segment, String> {
    let id = conn.generate_id().map_err(|e| e.to_string())?;
    let size32 =
        u32::try_from(size).map_err(|_| format!("segment of {size} bytes is too large"))?;
    let reply = conn
        .shm_create_segment(id, size32, false)
        .map_err(|e| e.to_string())?
        .reply()
        .map_err(|e| e.to_string())?;
    let file = File::from(reply.shm_fd);
    // SAFETY: the mapping is only read, between requests that complete before we read it; the
    // server writes into it only while handling our own GetImage, which we wait for.
    let map = unsafe { MmapOptions::new().len(size).map(&file) }.map_err(|e| e.to_string())?;
    Ok(Segment { id, map })
}

/// The layout of pixels of `depth` drawn with `visual`.
pub(super) fn pixel_format(
    conn: &Conn,
    depth: u8,
    visual: Visualid,
) -> Result<PixelFormat, String> {
    let setup = conn.setup();
    let bits = setup
        .pixmap_formats
        .iter()
        .find(|f| f.depth == depth)
        .map(|f| f.bits_per_pixel)
        .ok_or_else(|| format!("the X server lists no pixmap format for depth {depth}"))?;
    let visual = setup
        .roots
        .iter()
        .flat_map(|screen| &screen.allowed_depths)
        .flat_map(|d| &d.visuals)
        .find(|v| v.visual_id == visual)
        .ok_or_else(|| format!("the X server lists no visual 0x{visual:x}"))?;
    if bits != 32 && bits != 24 {
        return Err(format!(
            "the screen uses {bits} bits per pixel; shuttle captures 24- and 32-bit screens only"
        ));
    }
    Ok(PixelFormat {
        bytes_per_pixel: usize::from(bits / 8),
        little_endian: setup.image_byte_order == ImageOrder::LSB_FIRST,
        red_mask: visual.red_mask,
        green_mask: visual.green_mask,
        blue_mask: visual.blue_mask,
    })
}

fn request_rect(rect: Rect) -> Result<(i16, i16, u16, u16), DeskError> {
    let too_big =
        || DeskError::Invalid(format!("rectangle {rect} is outside what X11 can address"));
    Ok((
        i16::try_from(rect.x).map_err(|_| too_big())?,
        i16::try_from(rect.y).map_err(|_| too_big())?,
        u16::try_from(rect.w).map_err(|_| too_big())?,
        u16::try_from(rect.h).map_err(|_| too_big())?,
    ))
}

/// Z-pixmap rows as packed RGB, shrunk to `width` when one is given.
fn convert(data: &[u8], w: u16, h: u16, format: PixelFormat, width: Option<u32>) -> RgbImage {
    match width {
        Some(width) if u32::from(w) > width && is_bgrx(format) => shrink_bgrx(data, w, h, width),
        Some(width) => desk::image::shrink(&to_rgb(data, w, h, format), width),
        None => to_rgb(data, w, h, format),
    }
}

/// B, G, R, unused: the layout of nearly every X server today.
fn is_bgrx(f: PixelFormat) -> bool {
    f.bytes_per_pixel == 4
        && f.little_endian
        && (f.red_mask, f.green_mask, f.blue_mask) == (0xff0000, 0xff00, 0xff)
}

/// Averages boxes of BGRX pixels straight into a small RGB image, reading each source pixel
/// once and building no full-size copy.
fn shrink_bgrx(data: &[u8], w: u16, h: u16, width: u32) -> RgbImage {
    let (src_w, src_h) = (u32::from(w), u32::from(h));
    let height = (u64::from(src_h) * u64::from(width) / u64::from(src_w)).max(1) as u32;
    let columns: Vec<(u32, u32)> = (0..width)
        .map(|x| desk::image::span(x, width, src_w))
        .collect();
    let mut pixels = Vec::with_capacity((width * height * 3) as usize);
    let mut sums = vec![[0u32; 3]; width as usize];
    for y in 0..height {
        let (y0, y1) = desk::image::span(y, height, src_h);
        sums.iter_mut().for_each(|s| *s = [0; 3]);
        for sy in y0..y1 {
            let row = &data[(sy * src_w * 4) as usize..((sy + 1) * src_w * 4) as usize];
            for (sum, &(x0, x1)) in sums.iter_mut().zip(&columns) {
                for px in row[(x0 * 4) as usize..(x1 * 4) as usize].chunks_exact(4) {
                    sum[0] += u32::from(px[2]);
                    sum[1] += u32::from(px[1]);
                    sum[2] += u32::from(px[0]);
                }
            }
        }
        for (sum, &(x0, x1)) in sums.iter().zip(&columns) {
            let n = (x1 - x0) * (y1 - y0);
            pixels.extend(sum.map(|s| (s / n) as u8));
        }
    }
    RgbImage {
        width,
        height,
        pixels,
    }
}

/// Converts Z-pixmap rows to packed RGB.
fn to_rgb(data: &[u8], w: u16, h: u16, f: PixelFormat) -> RgbImage {
    let (width, height) = (u32::from(w), u32::from(h));
    let mut pixels = Vec::with_capacity(width as usize * height as usize * 3);
    if is_bgrx(f) {
        // B, G, R, unused: the layout of nearly every X server today.
        for px in data.chunks_exact(4) {
            pixels.extend_from_slice(&[px[2], px[1], px[0]]);
        }
    } else {
        let channel = |value: u32, mask: u32| ((value & mask) >> mask.trailing_zeros()) as u8;
        for px in data.chunks_exact(f.bytes_per_pixel) {
            let mut word = [0u8; 4];
            word[..px.len()].copy_from_slice(px);
            let value = if f.little_endian {
                u32::from_le_bytes(word)
            } else {
                u32::from_be_bytes(word) >> (8 * (4 - px.len()))
            };
            pixels.extend_from_slice(&[
                channel(value, f.red_mask),
                channel(value, f.green_mask),
                channel(value, f.blue_mask),
            ]);
        }
    }
    pixels.resize(width as usize * height as usize * 3, 0);
    RgbImage {
        width,
        height,
        pixels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bgrx_and_generic_layouts_agree() {
        let bgrx = [0x10, 0x20, 0x30, 0xff, 0x01, 0x02, 0x03, 0x00];
        let format = PixelFormat {
            bytes_per_pixel: 4,
            little_endian: true,
            red_mask: 0xff0000,
            green_mask: 0xff00,
            blue_mask: 0xff,
        };
        let fast = to_rgb(&bgrx, 2, 1, format);
        assert_eq!(fast.pixels, [0x30, 0x20, 0x10, 0x03, 0x02, 0x01]);
        let packed_big_endian = PixelFormat {
            bytes_per_pixel: 3,
            little_endian: false,
            red_mask: 0xff0000,
            green_mask: 0xff00,
            blue_mask: 0xff,
        };
        let generic = to_rgb(
            &[0x30, 0x20, 0x10, 0x03, 0x02, 0x01],
            2,
            1,
            packed_big_endian,
        );
        assert_eq!(generic.pixels, fast.pixels);
    }
}
