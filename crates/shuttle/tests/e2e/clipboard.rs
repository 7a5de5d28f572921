//! End to end: `clipboard_read` and `clipboard_write` over the X CLIPBOARD selection, with a
//! real GTK app on the other side (its entry copies and pastes), judged by the fixture's log,
//! the selection's owner on the person's display, and the journal.

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::json;
use x11rb::protocol::xproto::ConnectionExt;

const ON: &str = "[safety]\nclipboard = \"on\"\n";

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
    {
        let file = std::fs::File::create(&png).unwrap();
        let mut encoder = png::Encoder::new(file, 300, 200);
        encoder.set_color(png::ColorType::Rgb);
        let pixels: Vec<u8> = (0..300 * 200 * 3).map(|i| (i % 251) as u8).collect();
        encoder
            .write_header()
            .unwrap()
            .write_image_data(&pixels)
            .unwrap();
    }
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

fn pss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("Pss:"))?;
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .unwrap_or(0.0)
        / 1024.0
}

fn xclip_in(text: &str) {
    use std::io::Write as _;
    let mut child = std::process::Command::new("xclip")
        .args(["-selection", "clipboard", "-i"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
}

fn xclip_out() -> String {
    run("xclip", &["-selection", "clipboard", "-o"])
}

fn median_ms(mut f: impl FnMut(), runs: usize) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let started = std::time::Instant::now();
            f();
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Issue 15's numbers: `cargo test -p shuttle --release --test clipboard clipboard_costs --
/// --ignored --nocapture` on the virtual desktop (scripts/bench.sh runs it).
#[test]
#[ignore]
fn clipboard_costs() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(ON), &[]);
    let mut wire = Wire::connect(&daemon.socket);
    let mut ours = |text: &str| {
        assert!(
            !wire
                .call("desk_clipboard_write", json!({"text": text}))
                .is_error
        );
        let back = wire.call("desk_clipboard_read", json!({})).json();
        assert_eq!(back["bytes"], text.len());
    };
    let short = "a line of text ✓";
    let mega: String = "0123456789abcdef".repeat(65_536);
    let runs = 15;
    let ours_short = median_ms(|| ours(short), runs);
    let theirs_short = median_ms(
        || {
            xclip_in(short);
            assert_eq!(xclip_out(), short);
        },
        runs,
    );
    let ours_mega = median_ms(|| ours(&mega), runs);
    let theirs_mega = median_ms(
        || {
            xclip_in(&mega);
            assert_eq!(xclip_out().len(), mega.len());
        },
        runs,
    );
    println!("#### Clipboard: write then read back, shuttle against xclip ({runs} runs, median)\n");
    println!("| what | shuttle ms | xclip ms | ratio |");
    println!("|---|---|---|---|");
    println!(
        "| a short line | {ours_short:.1} | {theirs_short:.1} | {:.2}x |",
        theirs_short / ours_short
    );
    println!(
        "| 1 MiB of text | {ours_mega:.1} | {theirs_mega:.1} | {:.2}x |",
        theirs_mega / ours_mega
    );
    println!();

    let pid = daemon.child.id();
    let before = pss_mib(pid);
    let ten: String = "x".repeat(10 << 20);
    assert!(
        !wire
            .call("desk_clipboard_write", json!({"text": ten}))
            .is_error
    );
    let serving = pss_mib(pid);
    // Another client takes the clipboard: shuttle stops serving and lets the text go.
    xclip_in("taken");
    wait_for(
        "shuttle to let the clipboard go",
        Duration::from_secs(5),
        || (xclip_out() == "taken").then_some(()),
    );
    std::thread::sleep(Duration::from_millis(300));
    let after = pss_mib(pid);
    println!("#### The daemon's memory (PSS) around serving a 10 MiB selection\n");
    println!("| before | while serving | after another app took the clipboard |");
    println!("|---|---|---|");
    println!("| {before:.1} MiB | {serving:.1} MiB | {after:.1} MiB |");
    println!();
}

#[test]
fn an_image_written_is_pasted_into_a_gtk_app() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(ON), &[]);
    let scratch = Scratch::new("clipboard-image");
    let png = scratch.path("picture.png");
    {
        let file = std::fs::File::create(&png).unwrap();
        let mut encoder = png::Encoder::new(file, 120, 80);
        encoder.set_color(png::ColorType::Rgb);
        let pixels: Vec<u8> = (0..120 * 80 * 3).map(|i| (i % 251) as u8).collect();
        encoder
            .write_header()
            .unwrap()
            .write_image_data(&pixels)
            .unwrap();
    }
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
