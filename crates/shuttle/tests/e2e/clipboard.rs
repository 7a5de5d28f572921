//! End to end: `clipboard_read` and `clipboard_write` over the X CLIPBOARD selection, with a
//! real GTK app on the other side (its entry copies and pastes), judged by the fixture's log,
//! the selection's owner on the person's display, and the journal; and [`both_ways`], which
//! the Wayland desks' tests run on their own apps.

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::json;
use x11rb::protocol::xproto::ConnectionExt;

pub(crate) const ON: &str = "[safety]\nclipboard = \"on\"\n";

/// The clipboard both ways through the `desk` tool: what the app copies from its entry, which
/// holds `held` and saves its text to `saved`, is read back, and what the agent writes is what
/// the app pastes.
pub(crate) fn both_ways(mcp: &mut Mcp, window: &str, saved: &std::path::Path, held: &str) {
    use crate::gnome::desk;
    for keys in ["ctrl+a", "ctrl+c"] {
        desk(mcp, json!({"verb": "key", "window": window, "keys": keys}));
    }
    wait_for(
        "the app's copy on the clipboard",
        Duration::from_secs(5),
        || {
            let read = desk(mcp, json!({"verb": "clipboard_read"}));
            (read["text"] == held).then_some(())
        },
    );
    let written = "clipped ✓ Zoë 東京";
    desk(mcp, json!({"verb": "clipboard_write", "text": written}));
    for keys in ["ctrl+a", "ctrl+v"] {
        desk(mcp, json!({"verb": "key", "window": window, "keys": keys}));
    }
    wait_for(
        "the app to paste what was written",
        Duration::from_secs(5),
        || (std::fs::read_to_string(saved).unwrap_or_default() == written).then_some(()),
    );

    // An image and files: what the app pastes (the fixture writes it on ctrl+i and ctrl+u),
    // and what the clipboard reads back.
    let dir = saved.parent().unwrap();
    let pasted = std::path::PathBuf::from(format!("{}.clip", saved.display()));
    let png = dir.join("clip.png");
    write_png(&png, 120, 80);
    desk(mcp, json!({"verb": "clipboard_write", "image": png}));
    desk(
        mcp,
        json!({"verb": "key", "window": window, "keys": "ctrl+i"}),
    );
    wait_for("the app to paste the image", Duration::from_secs(5), || {
        (std::fs::read_to_string(&pasted).unwrap_or_default() == "image 120x80 [0, 1, 2]")
            .then_some(())
    });
    let shown = mcp.call("desk", json!({"verb": "clipboard_read", "format": "image"}));
    let (width, height, pixels) = result_png(&shown);
    assert_eq!((width, height), (120, 80));
    assert_eq!(pixels, decode_png(&std::fs::read(&png).unwrap()).2);
    let (a, b) = (dir.join("a clip.txt"), dir.join("ünï #2.txt"));
    std::fs::write(&a, "a").unwrap();
    std::fs::write(&b, "b").unwrap();
    let files = json!([a, b]);
    desk(mcp, json!({"verb": "clipboard_write", "files": files}));
    desk(
        mcp,
        json!({"verb": "key", "window": window, "keys": "ctrl+u"}),
    );
    let paths = format!("files {}", serde_json::to_string(&files).unwrap());
    wait_for("the app to paste the files", Duration::from_secs(5), || {
        (std::fs::read_to_string(&pasted).unwrap_or_default() == paths).then_some(())
    });
    let back = desk(mcp, json!({"verb": "clipboard_read", "format": "files"}));
    assert_eq!(back["files"], files, "{back}");

    // 48 MiB of text, over the text limit, copied by the app on ctrl+b: the read is refused,
    // and the desk took in no more than a byte over the largest limit (a file list's), not the
    // whole of it.
    desk(
        mcp,
        json!({"verb": "key", "window": window, "keys": "ctrl+b"}),
    );
    let copied = format!("copied {}", 48 << 20);
    wait_for("the app to copy 48 MiB", Duration::from_secs(10), || {
        (std::fs::read_to_string(&pasted).unwrap_or_default() == copied).then_some(())
    });
    let refused = wait_for("the read to be refused", Duration::from_secs(10), || {
        crate::common::desk_tool(mcp, json!({"verb": "clipboard_read"})).err()
    });
    let limit = desk_core::call::MAX_CLIPBOARD_TEXT;
    assert!(refused.contains(&format!("over the {limit} ")), "{refused}");
    let held: usize = refused
        .split("holds ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no size in {refused}"));
    assert!(
        held <= 10_000 * 4096 + 1,
        "the desk read {held} bytes of the 48 MiB: {refused}"
    );
}

/// A `width` x `height` PNG of varied pixels at `path`.
fn write_png(path: &std::path::Path, width: u32, height: u32) {
    let file = std::fs::File::create(path).unwrap();
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Rgb);
    let pixels: Vec<u8> = (0..width * height * 3).map(|i| (i % 251) as u8).collect();
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&pixels)
        .unwrap();
}

/// Presses `keys` in `window`, failing the test if the call failed.
fn press(daemon: &Daemon, window: &str, keys: &str) {
    let reply = daemon.call("desk_key", json!({"window": window, "keys": keys}));
    assert!(!reply.is_error, "{keys}: {}", reply.text);
}

/// Who owns CLIPBOARD on the person's display.
fn clipboard_owner() -> u32 {
    let (conn, _) = x11rb::connect(None).unwrap();
    let atom = conn
        .intern_atom(false, b"CLIPBOARD")
        .unwrap()
        .reply()
        .unwrap()
        .atom;
    conn.get_selection_owner(atom)
        .unwrap()
        .reply()
        .unwrap()
        .owner
}

#[test]
fn text_round_trips_with_a_gtk_app_both_ways() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(ON), &[]);
    let fixture = Fixture::start("Clipboard App", &[]);
    let window = fixture.id();

    // Copied in the app, read by shuttle.
    let copied = "copied in GTK ✓ ünï";
    assert!(
        !daemon
            .call("desk_type", json!({"window": window, "text": copied}))
            .is_error
    );
    fixture.await_events("text", 1);
    press(&daemon, &window, "ctrl+a");
    press(&daemon, &window, "ctrl+c");
    let read = wait_for("the app's copy", Duration::from_secs(5), || {
        let read = daemon.call("desk_clipboard_read", json!({})).json();
        (read["text"] == copied).then_some(read)
    });
    assert_eq!(read["present"], true);

    // Written by shuttle, pasted in the app.
    let written = "written by shuttle → pasted";
    let write = daemon.call("desk_clipboard_write", json!({"text": written}));
    assert!(!write.is_error, "{}", write.text);
    press(&daemon, &window, "ctrl+a");
    press(&daemon, &window, "ctrl+v");
    wait_for("the paste", Duration::from_secs(5), || {
        (fixture.entry_text() == written).then_some(())
    });

    // 60 KB (a GTK entry holds at most 65535 characters): more than one 32 KiB chunk, so the
    // app receives it by INCR.
    let long: String = "0123456789".repeat(6_000);
    assert!(
        !daemon
            .call("desk_clipboard_write", json!({"text": long}))
            .is_error
    );
    press(&daemon, &window, "ctrl+a");
    press(&daemon, &window, "ctrl+v");
    wait_for("the long paste", Duration::from_secs(10), || {
        (fixture.entry_text() == long).then_some(())
    });

    // The journal keeps its length and digest, never the text.
    let line = daemon
        .journal()
        .into_iter()
        .find(|l| l["tool"] == "desk_clipboard_write")
        .unwrap();
    assert!(!line.to_string().contains("pasted"), "{line}");
    assert_eq!(line["args"]["text"]["chars"], written.chars().count());
}

#[test]
fn large_text_files_and_images_round_trip_and_bad_input_changes_nothing() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(ON), &[]);
    let scratch = Scratch::new("clipboard");

    // 1 MB: more than one request, so both sides go by INCR.
    let big: String = (0..1_000_000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    assert!(
        !daemon
            .call("desk_clipboard_write", json!({"text": big}))
            .is_error
    );
    let back = daemon
        .call("desk_clipboard_read", json!({"format": "text"}))
        .json();
    assert_eq!(back["bytes"], 1_000_000);
    assert!(back["text"] == big.as_str(), "the text came back changed");
    let none = daemon
        .call("desk_clipboard_read", json!({"format": "image"}))
        .json();
    assert_eq!(none["present"], false, "{none}");

    let a = scratch.path("a file.txt");
    let b = scratch.path("ünï #2.txt");
    std::fs::write(&a, "a").unwrap();
    std::fs::write(&b, "b").unwrap();
    let files = json!([a, b]);
    assert!(
        !daemon
            .call("desk_clipboard_write", json!({"files": files}))
            .is_error
    );
    let back = daemon
        .call("desk_clipboard_read", json!({"format": "files"}))
        .json();
    assert_eq!(back["files"], files, "{back}");

    let png = scratch.path("picture.png");
    write_png(&png, 300, 200);
    let wrote = daemon.call("desk_clipboard_write", json!({"image": png}));
    assert!(!wrote.is_error, "{}", wrote.text);
    let back = daemon.call("desk_clipboard_read", json!({"format": "image"}));
    assert_eq!(back.json()["width"], 300);
    assert_eq!(back.image.unwrap(), std::fs::read(&png).unwrap());

    // Bad input: an error, and the clipboard still holds the image.
    let not_png = daemon.call("desk_clipboard_write", json!({"image": a}));
    assert!(
        not_png.is_error && not_png.text.contains("not a PNG"),
        "{}",
        not_png.text
    );
    let missing = daemon.call("desk_clipboard_write", json!({"files": ["/no/such/file"]}));
    assert!(
        missing.is_error && missing.text.contains("no file at"),
        "{}",
        missing.text
    );
    let two = daemon.call("desk_clipboard_write", json!({"text": "x", "files": [a]}));
    assert!(
        two.is_error && two.text.contains("exactly one"),
        "{}",
        two.text
    );
    let still = daemon
        .call("desk_clipboard_read", json!({"format": "image"}))
        .json();
    assert_eq!(still["present"], true);
}

#[test]
fn the_persons_clipboard_is_off_by_default_and_an_agents_own_is_on() {
    require_desktop();
    let person = Daemon::start();
    let refused = person.call("desk_clipboard_read", json!({}));
    assert!(refused.is_error);
    assert!(
        refused.text.contains("private display only"),
        "{}",
        refused.text
    );
    let refused = person.call("desk_clipboard_write", json!({"text": "x"}));
    assert!(refused.is_error, "{}", refused.text);
    drop(person);

    let owner = clipboard_owner();
    let daemon = Daemon::start_configured(Some("[daemon]\ndisplay = \"per-agent\"\n"), &[]);
    let mut wire = Wire::connect_as(&daemon.socket, "copier");
    let wrote = wire.call("desk_clipboard_write", json!({"text": "the agent's own"}));
    assert!(!wrote.is_error, "{}", wrote.text);
    let read = wire.call("desk_clipboard_read", json!({})).json();
    assert_eq!(read["text"], "the agent's own");
    assert_eq!(
        clipboard_owner(),
        owner,
        "the person's clipboard changed hands"
    );
}

#[test]
fn an_image_written_is_pasted_into_a_gtk_app() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(ON), &[]);
    let scratch = Scratch::new("clipboard-image");
    let png = scratch.path("picture.png");
    write_png(&png, 120, 80);
    let fixture = Fixture::start("Image Taker", &["--paste-image"]);
    let wrote = daemon.call("desk_clipboard_write", json!({"image": png}));
    assert!(!wrote.is_error, "{}", wrote.text);
    let key = daemon.call(
        "desk_key",
        json!({"window": fixture.id(), "keys": "ctrl+i"}),
    );
    assert!(!key.is_error, "{}", key.text);
    let image = fixture.await_events("image", 1)[0].clone();
    assert_eq!(image["present"], true, "{image}");
    assert_eq!(
        (image["width"].clone(), image["height"].clone()),
        (json!(120), json!(80))
    );
    assert_eq!(image["first"], json!([0, 1, 2]), "the app got other pixels");
}
