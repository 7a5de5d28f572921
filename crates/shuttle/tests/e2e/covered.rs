//! Admission holds to the end when another app's window covers the target: a press or an
//! accessibility click lands only where the admitted window is on top (raised if it can be,
//! refused naming the covering window if not), and a window shot shows the window's own pixels,
//! none of the covering window's. Judged by the fixtures' own logs and by ImageMagick's reading
//! of the screen.

use crate::common;

use std::time::Duration;

use common::{Daemon, Fixture, decode_png, geometry, pixel, require_desktop, run, wait_for};
use serde_json::{Value, json};

/// The allowlist the tests run under: the target's app is allowed, the cover's is not.
const ALLOW_A: &str = "[safety]\napps = [\"fixture-a\"]\n";

fn contains(rect: [i64; 4], (x, y): (i64, i64)) -> bool {
    x >= rect[0] && y >= rect[1] && x < rect[0] + rect[2] && y < rect[1] + rect[3]
}

/// Moves `cover` so that its canvas (which logs every press) holds the desk point, and raises
/// it.
fn cover_point(cover: &Fixture, point: (i64, i64), keep_above: bool) {
    let (x, y) = (point.0 - 150, point.1 - 180);
    run(
        "wmctrl",
        &["-i", "-r", &cover.id(), "-e", &format!("0,{x},{y},300,240")],
    );
    if keep_above {
        run("wmctrl", &["-i", "-r", &cover.id(), "-b", "add,above"]);
    }
    run("xdotool", &["windowactivate", "--sync", &cover.id()]);
    wait_for(
        "the cover to lie over the point",
        Duration::from_secs(5),
        || contains(geometry(&cover.id()), point).then_some(()),
    );
}

/// The window that has the focus, by xdotool's reading.
fn active_window() -> String {
    let decimal: u64 = run("xdotool", &["getactivewindow"]).trim().parse().unwrap();
    format!("0x{decimal:x}")
}

/// The "Press me" button of a fixture, with its centre on the screen.
fn button(daemon: &Daemon, fixture: &Fixture) -> (Value, (i64, i64)) {
    let found = daemon
        .call(
            "desk_find",
            json!({"name": "Press me", "role": "button", "window": fixture.id()}),
        )
        .json();
    let node = found["nodes"][0].clone();
    assert!(node["bounds"].is_array(), "{found}");
    let at = |i: usize| node["bounds"][i].as_i64().unwrap();
    let centre = (at(0) + at(2) / 2, at(1) + at(3) / 2);
    (node, centre)
}

#[test]
fn a_press_on_a_covered_node_raises_its_window_and_never_reaches_the_cover() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(ALLOW_A), &[]);
    let target = Fixture::start("Covered A", &["--comm", "fixture-a"]);
    let cover = Fixture::start("Cover B", &["--comm", "fixture-b", "--size", "300x240"]);
    let (node, centre) = button(&daemon, &target);
    cover_point(&cover, centre, false);

    let reply = daemon.call("desk_press", json!({"id": node["id"]})).json();
    assert_eq!(reply["outcome"], "completed", "{reply}");
    assert_eq!(reply["how"], "clicked", "{reply}");
    assert_eq!(target.await_events("clicked", 1).len(), 1);
    cover.assert_untouched();
    assert!(
        contains(geometry(&target.id()), centre),
        "the target was raised where the click went"
    );
}

#[test]
fn a_node_under_a_window_kept_above_is_pressed_by_its_action_and_never_clicked_through() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(ALLOW_A), &[]);
    let target = Fixture::start("Covered A", &["--comm", "fixture-a"]);
    let cover = Fixture::start("Cover B", &["--comm", "fixture-b", "--size", "300x240"]);
    let (node, centre) = button(&daemon, &target);
    cover_point(&cover, centre, true);

    // An explicit click is refused, naming what covers the point.
    let click = daemon.call("desk_act", json!({"id": node["id"], "action": "click"}));
    let error = click.error();
    assert!(error.contains("is covered at"), "{error}");
    assert!(error.contains("\"Cover B\""), "{error}");
    assert!(error.contains("outcome: refused"), "{error}");
    assert!(
        target.events_of("clicked").is_empty(),
        "the button was not clicked"
    );

    // A press falls back on the button's own action, and says why.
    let pressed = daemon.call("desk_press", json!({"id": node["id"]})).json();
    assert_eq!(pressed["how"], "action", "{pressed}");
    let note = pressed["note"].as_str().unwrap();
    assert!(
        note.contains("\"Cover B\"") && note.contains("pressed by its action"),
        "{note}"
    );
    assert_eq!(target.await_events("clicked", 1).len(), 1);
    cover.assert_untouched();
}

#[test]
fn a_press_under_another_windows_title_bar_reaches_its_own_window() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(ALLOW_A), &[]);
    let target = Fixture::start("Framed A", &["--comm", "fixture-a"]);
    let cover = Fixture::start("Frame B", &["--comm", "fixture-b", "--size", "300x240"]);
    let (node, centre) = button(&daemon, &target);
    // Put the cover's client area just below the point, so only its frame (the title bar the
    // window manager draws) lies over it.
    run(
        "wmctrl",
        &[
            "-i",
            "-r",
            &cover.id(),
            "-e",
            &format!("0,{},{},300,240", centre.0 - 150, centre.1 - 10),
        ],
    );
    run("xdotool", &["windowactivate", "--sync", &cover.id()]);
    wait_for(
        "the cover's client area to start just below the point",
        Duration::from_secs(5),
        || {
            let [x, y, w, _] = geometry(&cover.id());
            (y > centre.1 && y < centre.1 + 40 && x < centre.0 && x + w > centre.0).then_some(())
        },
    );
    let shot = daemon.call("desk_shot", json!({"window": cover.id()}));
    assert!(
        shot.error().contains("refused"),
        "the cover stays hidden from reads"
    );

    let pressed = daemon.call("desk_press", json!({"id": node["id"]})).json();
    assert_eq!(pressed["how"], "clicked", "{pressed}");
    assert_eq!(target.await_events("clicked", 1).len(), 1);
    assert_eq!(
        active_window(),
        target.id(),
        "the click went to the target, not the frame"
    );
    cover.assert_untouched();
}

/// How many pixels of `image` are close to `colour`.
fn count_colour(image: &(u32, u32, Vec<u8>), colour: [u8; 3]) -> usize {
    image
        .2
        .chunks_exact(3)
        .filter(|p| p.iter().zip(colour).all(|(a, b)| a.abs_diff(b) < 16))
        .count()
}

#[test]
fn a_shot_of_a_covered_window_shows_its_own_pixels_only() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(ALLOW_A), &[]);
    let target = Fixture::start(
        "Shot A",
        &[
            "--comm",
            "fixture-a",
            "--color",
            "#ff0000",
            "--size",
            "400x300",
        ],
    );
    let cover = Fixture::start(
        "Shot B",
        &[
            "--comm",
            "fixture-b",
            "--color",
            "#00ff00",
            "--size",
            "300x240",
        ],
    );
    // Cover the bottom of the target, where its canvas shows its red.
    let [x, y, w, h] = geometry(&target.id());
    let inside = (x + w / 2, y + h - 60);
    cover_point(&cover, inside, false);

    // ImageMagick sees the cover's green over the target.
    let screen_path = daemon.scratch.path("screen.png");
    run(
        "import",
        &["-window", "root", screen_path.to_str().unwrap()],
    );
    let screen = decode_png(&std::fs::read(&screen_path).unwrap());
    assert_eq!(
        pixel(&screen, inside.0 as u32, inside.1 as u32),
        [0, 255, 0]
    );

    let reply = daemon.call("desk_shot", json!({"window": target.id()}));
    let shot = decode_png(reply.image.as_ref().expect("a window shot"));
    assert_eq!((i64::from(shot.0), i64::from(shot.1)), (w, h));
    assert_eq!(count_colour(&shot, [0, 255, 0]), 0, "no pixel of the cover");
    let (px, py) = ((inside.0 - x) as u32, (inside.1 - y) as u32);
    assert_eq!(
        pixel(&shot, px, py),
        [255, 0, 0],
        "the target's own red there"
    );
    cover.assert_untouched();
}
