//! Pixels through KWin's `org.kde.KWin.ScreenShot2`: an area of the screen or one window's
//! own pixels, written raw into a pipe the daemon hands over. KWin serves it to the programs a
//! desktop file authorises (`X-KDE-DBUS-Restricted-Interfaces`).

use std::collections::HashMap;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};

use desk::image::RgbImage;
use desk_core::geometry::Rect;
use zbus::blocking::Connection;
use zbus::zvariant::{Fd, OwnedValue, Value};

use crate::kwin::{KWIN, KdeError};

const OBJECT: &str = "/org/kde/KWin/ScreenShot2";
pub const INTERFACE: &str = "org.kde.KWin.ScreenShot2";

/// QImage's formats that KWin writes: 32 bits a pixel, `0xAARRGGBB` in the machine's order.
const FORMAT_RGB32: u32 = 4;
const FORMAT_ARGB32: u32 = 5;
const FORMAT_ARGB32_PREMULTIPLIED: u32 = 6;
/// Bytes in order R, G, B, A.
const FORMAT_RGBA8888: u32 = 17;
const FORMAT_RGBX8888: u32 = 16;
const FORMAT_RGBA8888_PREMULTIPLIED: u32 = 18;

/// Whether KWin serves ScreenShot2 on its bus (a question it answers to anyone).
pub fn served(connection: &Connection) -> bool {
    let answer = connection.call_method(
        Some(KWIN),
        OBJECT,
        Some("org.freedesktop.DBus.Introspectable"),
        "Introspect",
        &(),
    );
    answer
        .ok()
        .and_then(|reply| reply.body().deserialize::<String>().ok())
        .is_some_and(|xml| xml.contains(INTERFACE))
}

/// The screen's pixels in `rect`, at the screen's own size (a scaled output is not enlarged).
pub fn area(connection: &Connection, rect: Rect) -> Result<RgbImage, KdeError> {
    let options: HashMap<&str, Value> = HashMap::from([
        ("include-cursor", Value::from(false)),
        ("native-resolution", Value::from(false)),
    ]);
    capture("CaptureArea", |pipe| {
        connection.call_method(
            Some(KWIN),
            OBJECT,
            Some(INTERFACE),
            "CaptureArea",
            &(rect.x, rect.y, rect.w, rect.h, &options, pipe),
        )
    })
}

/// Window `id`'s own pixels, without its decoration or shadow.
pub fn window(connection: &Connection, id: &str) -> Result<RgbImage, KdeError> {
    let options: HashMap<&str, Value> = HashMap::from([
        ("include-cursor", Value::from(false)),
        ("include-decoration", Value::from(false)),
        ("include-shadow", Value::from(false)),
        ("native-resolution", Value::from(false)),
    ]);
    let handle = format!("{{{id}}}");
    capture("CaptureWindow", |pipe| {
        connection.call_method(
            Some(KWIN),
            OBJECT,
            Some(INTERFACE),
            "CaptureWindow",
            &(handle.as_str(), &options, pipe),
        )
    })
}

/// Calls `method` with a pipe's write end and reads the image KWin writes into it.
fn capture(
    method: &str,
    call: impl FnOnce(Fd<'_>) -> zbus::Result<zbus::message::Message>,
) -> Result<RgbImage, KdeError> {
    let (read, write) = pipe()?;
    // KWin may write before it answers: the pipe is drained meanwhile.
    let reader = std::thread::Builder::new()
        .name("kwin-screenshot".into())
        .spawn(move || {
            let mut bytes = Vec::new();
            std::fs::File::from(read)
                .read_to_end(&mut bytes)
                .map(|_| bytes)
        })
        .map_err(|e| KdeError::Broken(format!("cannot start a thread: {e}")))?;
    let reply = call(Fd::from(&write));
    // KWin holds its own copy; the reader sees the end once KWin closes it.
    drop(write);
    let reply = reply.map_err(|e| refusal(method, &e))?;
    let bytes = reader
        .join()
        .map_err(|_| KdeError::Broken("the screenshot reader panicked".into()))?
        .map_err(|e| KdeError::Broken(format!("reading KWin's {method}: {e}")))?;
    let results: HashMap<String, OwnedValue> = reply
        .body()
        .deserialize()
        .map_err(|e| KdeError::Broken(format!("{method} answered {e}")))?;
    let number = |key: &str| -> Result<u32, KdeError> {
        results
            .get(key)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| KdeError::Broken(format!("{method} answered no {key}")))
    };
    let raw = Raw {
        width: number("width")?,
        height: number("height")?,
        stride: number("stride")?,
        format: number("format")?,
    };
    raw.decode(&bytes)
        .map_err(|reason| KdeError::Broken(format!("KWin's {method}: {reason}")))
}

fn refusal(method: &str, e: &zbus::Error) -> KdeError {
    let text = e.to_string();
    if text.contains("UnknownObject") || text.contains("UnknownInterface") {
        KdeError::NoScreenshots
    } else if text.contains("NoAuthorized")
        || text.contains("NotAuthorized")
        || text.contains("not authorized")
    {
        KdeError::Unauthorised {
            what: format!("its screenshots ({INTERFACE})"),
            exe: crate::own_exe().unwrap_or_else(|| "shuttle's path".into()),
        }
    } else {
        KdeError::Failed {
            what: format!("KWin's {method}"),
            reason: text,
        }
    }
}

fn pipe() -> Result<(OwnedFd, OwnedFd), KdeError> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(KdeError::Broken(format!(
            "cannot make a pipe: {}",
            std::io::Error::last_os_error()
        )));
    }
    // SAFETY: both are new descriptors this function alone owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// A raw image as KWin describes it.
#[derive(Debug, Clone, Copy)]
struct Raw {
    width: u32,
    height: u32,
    stride: u32,
    format: u32,
}

impl Raw {
    fn decode(&self, bytes: &[u8]) -> Result<RgbImage, String> {
        let (w, h, stride) = (
            self.width as usize,
            self.height as usize,
            self.stride as usize,
        );
        if stride < w * 4 {
            return Err(format!("a stride of {stride} is short of {w} pixels"));
        }
        if bytes.len() < stride * h {
            return Err(format!(
                "{} bytes are short of a {w}x{h} image with a stride of {stride}",
                bytes.len()
            ));
        }
        let order: [usize; 3] = match self.format {
            // 0xAARRGGBB as a native u32: B, G, R, A in memory here.
            FORMAT_RGB32 | FORMAT_ARGB32 | FORMAT_ARGB32_PREMULTIPLIED => {
                if cfg!(target_endian = "little") {
                    [2, 1, 0]
                } else {
                    [1, 2, 3]
                }
            }
            FORMAT_RGBX8888 | FORMAT_RGBA8888 | FORMAT_RGBA8888_PREMULTIPLIED => [0, 1, 2],
            other => return Err(format!("its image format {other} is not one shuttle reads")),
        };
        let mut pixels = Vec::with_capacity(w * h * 3);
        for row in bytes.chunks(stride).take(h) {
            for px in row[..w * 4].chunks_exact(4) {
                pixels.extend(order.map(|i| px[i]));
            }
        }
        Ok(RgbImage {
            width: self.width,
            height: self.height,
            pixels,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kwins_pixels_are_read_in_their_format_past_the_row_padding() {
        // Two red pixels a row, padded to 12 bytes.
        let rows = |px: [u8; 4]| {
            let mut b = Vec::new();
            for _ in 0..2 {
                b.extend(px);
                b.extend(px);
                b.extend([9, 9, 9, 9]);
            }
            b
        };
        let argb = Raw {
            width: 2,
            height: 2,
            stride: 12,
            format: FORMAT_ARGB32,
        };
        let red = 0xffff_0000u32.to_ne_bytes();
        assert_eq!(
            argb.decode(&rows(red)).unwrap().pixels,
            [255, 0, 0].repeat(4)
        );
        let rgba = Raw {
            format: FORMAT_RGBA8888,
            ..argb
        };
        assert_eq!(
            rgba.decode(&rows([255, 0, 0, 255])).unwrap().pixels,
            [255, 0, 0].repeat(4)
        );
        assert!(Raw { format: 3, ..argb }.decode(&rows(red)).is_err());
        assert!(Raw { stride: 4, ..argb }.decode(&rows(red)).is_err());
        assert!(argb.decode(&[0; 10]).is_err());
    }
}
