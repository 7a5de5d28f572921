//! What every clipboard backend shares: how files travel (a `text/uri-list`), the limits a
//! read is held to, and the refusal when a clipboard holds more than they allow.

use crate::error::DeskError;
use crate::system::Clip;
use desk_core::call::{ClipFormat, MAX_CLIPBOARD_FILES, MAX_CLIPBOARD_PNG, MAX_CLIPBOARD_TEXT};

/// The MIME type of an image on the clipboard.
pub const PNG: &str = "image/png";
/// The MIME type of a file list: a URI per line.
pub const URI_LIST: &str = "text/uri-list";
/// GNOME's file list: `copy` or `cut`, then a URI per line.
pub const GNOME_FILES: &str = "x-special/gnome-copied-files";
/// The text types, preferred first; `STRING` is Latin-1, the others UTF-8.
pub const TEXT_TYPES: [&str; 5] = [
    "text/plain;charset=utf-8",
    "UTF8_STRING",
    "text/plain",
    "TEXT",
    "STRING",
];

/// The MIME types a read in `format` takes, preferred first.
pub fn types(format: ClipFormat) -> &'static [&'static str] {
    match format {
        ClipFormat::Text => &TEXT_TYPES,
        ClipFormat::Image => &[PNG],
        ClipFormat::Files => &[URI_LIST, GNOME_FILES],
    }
}

/// UTF-8 text as Latin-1 (X11's `STRING`), what Latin-1 cannot say as `?`.
pub fn latin1(utf8: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(utf8)
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect()
}

/// What `bytes`, read in `format`, hold; `latin1` when they are text in Latin-1 (X11's
/// `STRING`) rather than UTF-8.
pub fn decode(format: ClipFormat, latin1: bool, bytes: Vec<u8>) -> Clip {
    match format {
        ClipFormat::Text if latin1 => Clip::Text(bytes.iter().map(|&b| char::from(b)).collect()),
        ClipFormat::Text => Clip::Text(String::from_utf8_lossy(&bytes).into_owned()),
        ClipFormat::Image => Clip::Png(bytes),
        ClipFormat::Files => Clip::Files(paths_of_uris(&String::from_utf8_lossy(&bytes))),
    }
}

/// The most bytes a read in `format` takes.
pub fn limit(format: ClipFormat) -> usize {
    match format {
        ClipFormat::Text => MAX_CLIPBOARD_TEXT,
        ClipFormat::Image => MAX_CLIPBOARD_PNG,
        // A path is at most PATH_MAX bytes.
        ClipFormat::Files => MAX_CLIPBOARD_FILES * 4096,
    }
}

/// The refusal of a clipboard that holds `len` bytes or more, over `limit`.
pub fn too_big(len: usize, limit: usize) -> DeskError {
    DeskError::Invalid(format!(
        "the clipboard holds {len} bytes or more, over the {limit} the clipboard verbs take"
    ))
}

/// The local paths of a `text/uri-list` (or GNOME's list, whose first line says copy or cut).
pub fn paths_of_uris(list: &str) -> Vec<String> {
    list.lines()
        .map(str::trim)
        .filter_map(|line| line.strip_prefix("file://"))
        .map(|rest| rest.strip_prefix("localhost").unwrap_or(rest))
        .map(percent_decode)
        .collect()
}

fn percent_decode(text: &str) -> String {
    let hex = |b: u8| char::from(b).to_digit(16).map(|d| d as u8);
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%' && i + 2 < bytes.len())
            .then(|| Some(hex(bytes[i + 1])? * 16 + hex(bytes[i + 2])?))
            .flatten();
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `file://` URI of an absolute path, with everything but unreserved characters and `/`
/// percent-encoded.
pub fn uri_of(path: &str) -> String {
    let mut uri = String::from("file://");
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// `files` as a `text/uri-list` (each URI ends in CRLF) and as GNOME's copied-files list.
pub fn file_lists(files: &[String]) -> (String, String) {
    let uris: Vec<String> = files.iter().map(|f| uri_of(f)).collect();
    let list = uris.iter().map(|u| format!("{u}\r\n")).collect::<String>();
    let gnome = format!("copy\n{}", uris.join("\n"));
    (list, gnome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_round_trip_with_odd_characters() {
        let path = "/tmp/a b/ünï%cödé#1.txt";
        let uri = uri_of(path);
        assert!(uri.starts_with("file:///tmp/a%20b/"), "{uri}");
        assert!(!uri.contains(' ') && !uri.contains('#'));
        assert_eq!(paths_of_uris(&format!("{uri}\r\n")), [path]);
        assert_eq!(
            paths_of_uris("copy\nfile:///x/y\nfile://localhost/z\n# comment\nhttp://no"),
            ["/x/y", "/z"]
        );
    }

    #[test]
    fn latin1_and_utf8_text_decode_alike() {
        assert_eq!(
            decode(ClipFormat::Text, true, vec![0x63, 0x61, 0x66, 0xE9]),
            decode(ClipFormat::Text, false, "café".into())
        );
        assert_eq!(latin1("café ✓".as_bytes()), b"caf\xe9 ?");
    }

    #[test]
    fn both_file_lists_name_every_file() {
        let (list, gnome) = file_lists(&["/a b".into(), "/c".into()]);
        assert_eq!(list, "file:///a%20b\r\nfile:///c\r\n");
        assert_eq!(gnome, "copy\nfile:///a%20b\nfile:///c");
        assert_eq!(paths_of_uris(&gnome), ["/a b", "/c"]);
    }
}
