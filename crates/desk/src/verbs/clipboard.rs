//! `clipboard_read` and `clipboard_write`.

use desk_core::call::{
    ClipFormat, ClipboardReadArgs, ClipboardWriteArgs, MAX_CLIPBOARD_PIXELS, MAX_CLIPBOARD_PNG,
};
use desk_core::results::{ClipboardRead, ClipboardWrote};
use sha2::{Digest, Sha256};

use crate::done::Picture;
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

pub(super) fn read(
    desk: &Desk,
    args: &ClipboardReadArgs,
) -> Result<(ClipboardRead, Option<Picture>), DeskError> {
    let format = match args.format {
        ClipFormat::Text => "text",
        ClipFormat::Image => "image",
        ClipFormat::Files => "files",
    };
    let nothing = ClipboardRead {
        present: false,
        format: format.into(),
        width: None,
        height: None,
        bytes: None,
        text: None,
        files: None,
        sha256_64: None,
    };
    let Some(clip) = desk.read_clipboard(args.format)? else {
        return Ok((nothing, None));
    };
    let held = ClipboardRead {
        present: true,
        ..nothing
    };
    Ok(match clip {
        Clip::Text(text) => (
            ClipboardRead {
                bytes: Some(text.len()),
                text: Some(text),
                ..held
            },
            None,
        ),
        Clip::Files(files) => (
            ClipboardRead {
                files: Some(files),
                ..held
            },
            None,
        ),
        Clip::Png(png) => {
            let (width, height) = png_size(&png)?;
            let read = ClipboardRead {
                width: Some(width),
                height: Some(height),
                bytes: Some(png.len()),
                sha256_64: Some(digest(&png)),
                ..held
            };
            (read, Some(Picture::png(png)))
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

/// A regular file's bytes, at most [`MAX_CLIPBOARD_PNG`] of them: never a device or a pipe,
/// which could hold the call (and the desk) for ever or fill the daemon's memory.
fn read_png_file(path: &str) -> Result<Vec<u8>, DeskError> {
    use std::io::Read;
    let refuse = |why: String| DeskError::Invalid(format!("{path}: {why}; nothing was written"));
    let meta = std::fs::metadata(path).map_err(|e| refuse(format!("cannot read it ({e})")))?;
    if !meta.is_file() {
        return Err(refuse("not a regular file".into()));
    }
    if meta.len() > MAX_CLIPBOARD_PNG as u64 {
        return Err(refuse(format!(
            "{} bytes, over the {MAX_CLIPBOARD_PNG} the clipboard takes",
            meta.len()
        )));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_CLIPBOARD_PNG as u64 + 1).read_to_end(&mut bytes))
        .map_err(|e| refuse(format!("cannot read it ({e})")))?;
    Ok(bytes)
}

pub(super) fn write(desk: &Desk, args: &ClipboardWriteArgs) -> Result<ClipboardWrote, DeskError> {
    desk.clipboard_allowed()?;
    let wrote = |what: &str| ClipboardWrote {
        wrote: what.into(),
        width: None,
        height: None,
        bytes: None,
        files: None,
        sha256_64: None,
    };
    let (clip, what, result) = if let Some(text) = &args.text {
        let result = ClipboardWrote {
            bytes: Some(text.len()),
            sha256_64: Some(digest(text.as_bytes())),
            ..wrote("text")
        };
        (
            Clip::Text(text.clone()),
            match text.chars().count() {
                1 => "put 1 character of text on the clipboard".to_string(),
                n => format!("put {n} characters of text on the clipboard"),
            },
            result,
        )
    } else if let Some(path) = &args.image {
        let png = read_png_file(path)?;
        let (width, height) = png_size(&png)
            .map_err(|e| DeskError::Invalid(format!("{path}: {e}; nothing was written")))?;
        let result = ClipboardWrote {
            width: Some(width),
            height: Some(height),
            bytes: Some(png.len()),
            ..wrote("image")
        };
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
        let result = ClipboardWrote {
            files: Some(files.len()),
            ..wrote("files")
        };
        (
            Clip::Files(files.clone()),
            format!("put {} files on the clipboard", files.len()),
            result,
        )
    };
    let admitted = desk.admit(Intent::new(what, Vec::new()))?;
    admitted.write_clipboard(clip)?;
    Ok(result)
}
