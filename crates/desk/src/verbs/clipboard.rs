//! `clipboard_read` and `clipboard_write`.

use desk_core::call::{
    ClipFormat, ClipboardReadArgs, ClipboardWriteArgs, MAX_CLIPBOARD_PIXELS, MAX_CLIPBOARD_PNG,
};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::done::{Done, Picture};
use crate::error::DeskError;
use crate::guard::Desk;
use crate::intent::Intent;
use crate::system::Clip;

/// A short fingerprint of clipboard contents, so an agent can tell two copies apart without
/// the journal or the reply keeping more than it must.
fn digest(bytes: &[u8]) -> String {
    let sum = Sha256::digest(bytes);
    sum[..8].iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn read(desk: &Desk, args: &ClipboardReadArgs) -> Result<Done, DeskError> {
    let format = match args.format {
        ClipFormat::Text => "text",
        ClipFormat::Image => "image",
        ClipFormat::Files => "files",
    };
    let Some(clip) = desk.read_clipboard(args.format)? else {
        return Ok(Done::json(json!({"present": false, "format": format})));
    };
    Ok(match clip {
        Clip::Text(text) => Done::json(json!({
            "present": true, "format": format, "bytes": text.len(), "text": text,
        })),
        Clip::Files(files) => Done::json(json!({
            "present": true, "format": format, "files": files,
        })),
        Clip::Png(png) => {
            let (width, height) = png_size(&png)?;
            let mut done = Done::json(json!({
                "present": true, "format": format, "width": width, "height": height,
                "bytes": png.len(), "sha256_64": digest(&png),
            }));
            done.image = Some(Picture::png(png));
            done
        }
    })
}

/// A PNG's width and height from its header, refusing what is no PNG or is too big.
fn png_size(bytes: &[u8]) -> Result<(u32, u32), DeskError> {
    if bytes.len() > MAX_CLIPBOARD_PNG {
        return Err(DeskError::Invalid(format!(
            "the image is {} bytes; the clipboard verbs take PNGs of at most {MAX_CLIPBOARD_PNG}",
            bytes.len()
        )));
    }
    let reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .map_err(|e| DeskError::Invalid(format!("not a PNG image: {e}")))?;
    let info = reader.info();
    if u64::from(info.width) * u64::from(info.height) > MAX_CLIPBOARD_PIXELS {
        return Err(DeskError::Invalid(format!(
            "the image is {}x{}; the clipboard verbs take at most {MAX_CLIPBOARD_PIXELS} pixels",
            info.width, info.height
        )));
    }
    Ok((info.width, info.height))
}

pub(super) fn write(desk: &Desk, args: &ClipboardWriteArgs) -> Result<Done, DeskError> {
    desk.clipboard_allowed()?;
    let (clip, what, result) = if let Some(text) = &args.text {
        let result =
            json!({"wrote": "text", "bytes": text.len(), "sha256_64": digest(text.as_bytes())});
        (
            Clip::Text(text.clone()),
            match text.chars().count() {
                1 => "put 1 character of text on the clipboard".to_string(),
                n => format!("put {n} characters of text on the clipboard"),
            },
            result,
        )
    } else if let Some(path) = &args.image {
        let png = std::fs::read(path).map_err(|e| {
            DeskError::Invalid(format!(
                "cannot read the image {path}: {e}; nothing was written"
            ))
        })?;
        let (width, height) = png_size(&png)
            .map_err(|e| DeskError::Invalid(format!("{path}: {e}; nothing was written")))?;
        let result =
            json!({"wrote": "image", "width": width, "height": height, "bytes": png.len()});
        (
            Clip::Png(png),
            format!("put a {width}x{height} image on the clipboard"),
            result,
        )
    } else {
        let files = args.files.clone().unwrap_or_default();
        if let Some(missing) = files.iter().find(|f| !std::path::Path::new(f).exists()) {
            return Err(DeskError::Invalid(format!(
                "there is no file at {missing}; nothing was written"
            )));
        }
        let result = json!({"wrote": "files", "files": files.len()});
        (
            Clip::Files(files.clone()),
            format!("put {} files on the clipboard", files.len()),
            result,
        )
    };
    let admitted = desk.admit(Intent::new(what, Vec::new()))?;
    admitted.write_clipboard(clip)?;
    Ok(Done::json(result))
}
