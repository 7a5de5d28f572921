//! The X11 read verbs against real windows, checked against independent readings (wmctrl,
//! xprop, xdpyinfo, ImageMagick) and the fixture's own report.

use crate::common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Daemon, Fixture, decode_png, pixel, require_desktop, run, wait_for};
use serde_json::{Value, json};

fn windows(daemon: &Daemon) -> Vec<Value> {
    daemon
        .call("desk_windows", json!({}))
        .json()
        .as_array()
        .unwrap()
        .clone()
}

fn by_id<'a>(list: &'a [Value], id: &str) -> &'a Value {
    list.iter()
        .find(|w| w["id"] == id)
        .unwrap_or_else(|| panic!("window {id} is not listed in {list:?}"))
}

#[test]
fn windows_agree_with_wmctrl_and_the_fixtures() {
    require_desktop();
    let daemon = Daemon::start();
    let plain = Fixture::start("read plain", &[]);
    let shelled = Fixture::start(
        "read shelled",
        &["--dock", "--dialog", "read shelled dialog"],
    );
    // The dialog and dock map after the main window's ready event.
    let list = wait_for(
        "the dialog and dock to be listed",
        Duration::from_secs(10),
        || {
            let list = windows(&daemon);
            let ours = list.iter().filter(|w| w["pid"] == shelled.pid()).count();
            (ours == 3).then_some(list)
        },
    );

    let main = by_id(&list, &plain.id());
    assert_eq!(main["title"], "read plain");
    assert_eq!(main["role"], "window");
    assert_eq!(main["pid"], plain.pid());
    assert!(
        main["app"].as_str().unwrap().starts_with("python3"),
        "{main}"
    );
    assert!(
        main.get("shell").is_none() && main.get("owner").is_none(),
        "{main}"
    );

    let shelled_main = by_id(&list, &shelled.id());
    assert_eq!(
        shelled_main["shell"], true,
        "a process with a dock window is part of the shell"
    );
    let dialog = list
        .iter()
        .find(|w| w["title"] == "read shelled dialog")
        .unwrap();
    assert_eq!(dialog["role"], "dialog");
    assert_eq!(dialog["owner"], shelled.id());
    assert_eq!(dialog["shell"], true);
    let dock = list
        .iter()
        .find(|w| w["title"] == "read shelled dock")
        .unwrap();
    assert_eq!(dock["role"], "dock");

    // Independent reading: every window wmctrl lists, with the same id, pid and title.
    let wmctrl = run("wmctrl", &["-l", "-p"]);
    for line in wmctrl.lines() {
        // id, desktop, pid, host, then the title (which may hold spaces).
        let mut rest = line;
        let mut fields = Vec::new();
        for _ in 0..4 {
            let (field, tail) = rest
                .trim_start()
                .split_once(char::is_whitespace)
                .unwrap_or((rest.trim(), ""));
            fields.push(field);
            rest = tail;
        }
        let id = format!(
            "0x{:x}",
            u32::from_str_radix(fields[0].trim_start_matches("0x"), 16).unwrap()
        );
        let ours = by_id(&list, &id);
        assert_eq!(
            ours["pid"].as_u64().unwrap().to_string(),
            fields[2],
            "{line}"
        );
        assert_eq!(rest.trim_start(), ours["title"].as_str().unwrap(), "{line}");
    }
    assert!(list.len() >= wmctrl.lines().count());

    // Exactly one window is active, the one the window manager names. Focus may still be
    // moving to the dialog that just mapped, so read both until they agree.
    wait_for(
        "the active window to match xprop's",
        Duration::from_secs(5),
        || {
            let active: Vec<String> = windows(&daemon)
                .iter()
                .filter(|w| w["active"] == true)
                .map(|w| w["id"].as_str().unwrap().to_string())
                .collect();
            let xprop = run("xprop", &["-root", "_NET_ACTIVE_WINDOW"]);
            let id = xprop
                .rsplit(' ')
                .next()
                .unwrap()
                .trim()
                .trim_start_matches("0x");
            let expected = format!("0x{:x}", u32::from_str_radix(id, 16).unwrap());
            (active == [expected]).then_some(())
        },
    );
}

#[test]
fn screen_matches_xdpyinfo() {
    require_desktop();
    let daemon = Daemon::start();
    let screen = daemon.call("desk_screen", json!({})).json();
    let info = run("xdpyinfo", &[]);
    let dims = info
        .lines()
        .find(|l| l.trim_start().starts_with("dimensions:"))
        .unwrap();
    let size = dims.split_whitespace().nth(1).unwrap();
    assert_eq!(format!("{}x{}", screen["width"], screen["height"]), size);
}

/// Share of pixels that differ between two same-sized images, and the box around them.
fn differing(a: &(u32, u32, Vec<u8>), b: &(u32, u32, Vec<u8>)) -> (f64, [u32; 4]) {
    assert_eq!((a.0, a.1), (b.0, b.1));
    let mut count = 0u32;
    let mut bounds = [u32::MAX, u32::MAX, 0, 0];
    for (i, (p, q)) in a.2.chunks_exact(3).zip(b.2.chunks_exact(3)).enumerate() {
        if p != q {
            let (x, y) = (i as u32 % a.0, i as u32 / a.0);
            count += 1;
            bounds = [
                bounds[0].min(x),
                bounds[1].min(y),
                bounds[2].max(x),
                bounds[3].max(y),
            ];
        }
    }
    (f64::from(count) / f64::from(a.0 * a.1), bounds)
}

#[test]
fn a_full_screen_shot_matches_imagemagick() {
    require_desktop();
    let daemon = Daemon::start();
    let _window = Fixture::start("read shot screen", &["--color", "#20c040"]);
    let theirs_path = daemon.scratch.path("import.png");
    let capture_both = || {
        let reply = daemon.call("desk_shot", json!({}));
        let meta = reply.json();
        let ours = decode_png(reply.image.as_ref().unwrap());
        assert_eq!(
            (
                meta["width"].as_u64().unwrap(),
                meta["height"].as_u64().unwrap()
            ),
            (u64::from(ours.0), u64::from(ours.1))
        );
        run(
            "import",
            &["-window", "root", theirs_path.to_str().unwrap()],
        );
        differing(&ours, &decode_png(&std::fs::read(&theirs_path).unwrap()))
    };
    // A caret may blink, or the window manager repaint, between the two captures: retry until
    // they agree, and report the last difference if they never do.
    let mut last = (1.0, [0; 4]);
    let agreed = (0..10).any(|_| {
        last = capture_both();
        last.0 < 0.001
    });
    assert!(
        agreed,
        "{:.4}% of pixels differ from ImageMagick's capture, within {:?}",
        last.0 * 100.0,
        last.1
    );
}

#[test]
fn a_window_shot_is_that_window_and_crops_within_it() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start(
        "read shot window",
        &["--color", "#ff0000", "--size", "400x300"],
    );
    let id = fixture.id();
    let path = daemon.scratch.path("window.png");
    let reply = daemon.call("desk_shot", json!({"window": id, "path": path}));
    let meta = reply.json();
    let png = reply.image.unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        png,
        "path holds the same PNG"
    );
    assert_eq!(meta["path"], path.display().to_string());
    assert_eq!(meta["origin"], json!([0, 0]));
    // Where the image sits on the screen, read independently from the fixture.
    assert_eq!(
        meta["screen_origin"],
        json!([fixture.ready["x"], fixture.ready["y"]])
    );
    assert_eq!(meta["window"], id);
    let whole = decode_png(&png);
    assert_eq!(
        (whole.0, whole.1),
        (400, 300),
        "the fixture's client area is 400x300"
    );
    // The canvas fills the bottom of the window with the fixture's colour.
    assert_eq!(pixel(&whole, 200, 280), [255, 0, 0]);

    let crop = daemon.call(
        "desk_shot",
        json!({"window": "read shot window", "x": 10, "y": 150, "w": 50, "h": 40}),
    );
    assert_eq!(crop.json()["origin"], json!([10, 150]));
    let part = decode_png(crop.image.as_ref().unwrap());
    assert_eq!((part.0, part.1), (50, 40));
    for (x, y) in [(0, 0), (49, 39), (25, 20)] {
        assert_eq!(pixel(&part, x, y), pixel(&whole, 10 + x, 150 + y));
    }

    let outside = daemon.call(
        "desk_shot",
        json!({"window": id, "x": 390, "y": 0, "w": 20, "h": 20}),
    );
    assert!(
        outside.error().contains("is not within window"),
        "{}",
        outside.text
    );
}

#[test]
fn a_window_partly_off_the_screen_is_shot_where_it_shows() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("read shot offscreen", &["--size", "400x300"]);
    let id = fixture.id();
    run("xdotool", &["windowmove", &id, "-150", "100"]);
    let reply = wait_for(
        "the window to move off the left edge",
        Duration::from_secs(5),
        || {
            let reply = daemon.call("desk_shot", json!({"window": id}));
            (reply.json()["origin"][0].as_i64().unwrap() > 0).then_some(reply)
        },
    );
    let meta = reply.json();
    let shown = decode_png(reply.image.as_ref().unwrap());
    let origin_x = meta["origin"][0].as_u64().unwrap() as u32;
    assert_eq!(
        shown.0 + origin_x,
        400,
        "visible width plus the hidden part is the window width"
    );
    assert_eq!(shown.1, 300);
}

#[test]
fn shots_off_the_screen_or_of_missing_windows_are_refused() {
    require_desktop();
    let daemon = Daemon::start();
    let off = daemon.call("desk_shot", json!({"x": 1900, "y": 0, "w": 100, "h": 10}));
    assert!(
        off.error().contains("is not within the screen") && off.text.contains("pass window"),
        "{}",
        off.text
    );
    let gone = daemon.call("desk_shot", json!({"window": "0x7fffffe"}));
    assert!(
        gone.error().contains("window 0x7fffffe does not exist"),
        "{}",
        gone.text
    );
    let nobody = daemon.call("desk_shot", json!({"pid": 999_999_999u32}));
    assert!(
        nobody.error().contains("process 999999999 has no window"),
        "{}",
        nobody.text
    );
}

/// A second X server without MIT-SHM, to exercise the GetImage fallback.
struct BareXvfb {
    child: std::process::Child,
    display: String,
}

impl BareXvfb {
    fn start() -> Self {
        let n = (150..400)
            .find(|n| !std::path::Path::new(&format!("/tmp/.X{n}-lock")).exists())
            .unwrap();
        Self::start_on(format!(":{n}"))
    }

    fn start_on(display: String) -> Self {
        let child = Command::new("Xvfb")
            .args([
                &display,
                "-screen",
                "0",
                "320x200x24",
                "-nolisten",
                "tcp",
                "-extension",
                "MIT-SHM",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for("the second Xvfb", Duration::from_secs(10), || {
            Command::new("xdpyinfo")
                .args(["-display", &display])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .ok()
                .filter(|s| s.success())
        });
        Self { child, display }
    }
}

impl Drop for BareXvfb {
    fn drop(&mut self) {
        common::stop_child(&mut self.child);
    }
}

#[test]
fn without_mit_shm_captures_fall_back_to_getimage() {
    require_desktop();
    let x = BareXvfb::start();
    let daemon = Daemon::start_with(&[("DISPLAY", &x.display)]);
    let reply = daemon.call("desk_shot", json!({}));
    let ours = decode_png(reply.image.as_ref().unwrap());
    assert_eq!((ours.0, ours.1), (320, 200));
    let status = daemon.call("status", json!({})).json();
    assert_eq!(status["desk"]["capture"], "getimage", "{status}");
    let theirs_path = daemon.scratch.path("import.png");
    run(
        "import",
        &[
            "-display",
            &x.display,
            "-window",
            "root",
            theirs_path.to_str().unwrap(),
        ],
    );
    let theirs = decode_png(&std::fs::read(theirs_path).unwrap());
    assert_eq!(differing(&ours, &theirs).0, 0.0);
}

#[test]
fn reads_reconnect_after_the_x_server_restarts() {
    require_desktop();
    let first = BareXvfb::start();
    let display = first.display.clone();
    let daemon = Daemon::start_with(&[("DISPLAY", &display)]);
    assert_eq!(daemon.call("desk_screen", json!({})).json()["width"], 320);
    drop(first);
    wait_for("the display to be free", Duration::from_secs(5), || {
        let lock = format!("/tmp/.X{}-lock", display.trim_start_matches(':'));
        (!std::path::Path::new(&lock).exists()).then_some(())
    });
    let _second = BareXvfb::start_on(display);
    // The daemon's connection broke with the first server; the read reconnects on its own.
    assert_eq!(daemon.call("desk_screen", json!({})).json()["width"], 320);
}

#[test]
fn a_stopped_x_server_fails_a_call_in_bounded_time_and_the_daemon_recovers() {
    require_desktop();
    let x = BareXvfb::start();
    let daemon = Daemon::start_with(&[("DISPLAY", &x.display)]);
    assert_eq!(daemon.call("desk_screen", json!({})).json()["width"], 320);
    let pid = x.child.id() as i32;
    // SAFETY: signals to our own child, which has not been reaped.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let started = std::time::Instant::now();
    let pending = std::thread::spawn({
        let socket = daemon.socket.clone();
        move || common::Wire::connect(&socket).call("desk_shot", json!({}))
    });
    // Meanwhile the daemon keeps answering what needs no display, however often it is asked.
    let mut answered = 0;
    while !pending.is_finished() {
        let asked = std::time::Instant::now();
        assert_eq!(daemon.call("status", json!({})).json()["daemon"], "running");
        assert!(
            asked.elapsed() < Duration::from_secs(1),
            "status waited {:?}",
            asked.elapsed()
        );
        answered += 1;
    }
    assert!(answered > 0, "the stuck call ended before status was asked");
    let reply = pending.join().unwrap();
    let waited = started.elapsed();
    eprintln!("fault: X server stopped: the call ended after {waited:?}");
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    assert!(
        reply.error().contains("did not answer within 5 s"),
        "{}",
        reply.text
    );
    assert!(waited < Duration::from_secs(8), "the call took {waited:?}");
    // Once the server runs again, the next call connects afresh, without a restart.
    wait_for(
        "the daemon to read the screen again",
        Duration::from_secs(10),
        || {
            let reply = daemon.call("desk_screen", json!({}));
            (!reply.is_error).then_some(())
        },
    );
}

#[test]
fn a_server_grab_held_by_another_client_fails_a_call_in_bounded_time() {
    use x11rb::protocol::xproto::ConnectionExt;
    use x11rb::wrapper::ConnectionExt as _;
    require_desktop();
    let x = BareXvfb::start();
    let daemon = Daemon::start_with(&[("DISPLAY", &x.display)]);
    assert_eq!(daemon.call("desk_screen", json!({})).json()["width"], 320);
    let (grabber, _) = x11rb::connect(Some(&x.display)).unwrap();
    grabber.grab_server().unwrap();
    grabber.sync().unwrap();
    let started = std::time::Instant::now();
    let reply = daemon.call("desk_shot", json!({}));
    let waited = started.elapsed();
    eprintln!("fault: server grabbed by another client: the call ended after {waited:?}");
    assert!(
        reply.error().contains("did not answer within 5 s"),
        "{}",
        reply.text
    );
    assert!(waited < Duration::from_secs(8), "the call took {waited:?}");
    grabber.ungrab_server().unwrap();
    grabber.sync().unwrap();
    let reply = daemon.call("desk_shot", json!({}));
    assert!(!reply.is_error, "{}", reply.text);
}
