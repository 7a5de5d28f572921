//! A daemon killed outright (SIGKILL) in the middle of a call: the next daemon must leave no key
//! or button down, the keymap as it was before, and no marker or dialog window behind.

use crate::common;

use std::process::Command;
use std::time::Duration;

use common::{Daemon, Fixture, Wire, require_desktop, run, wait_for};
use serde_json::json;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt, KeyButMask};

/// What the X server says is down: the keycodes, and the pointer's button mask.
fn input_down() -> (Vec<u8>, KeyButMask) {
    let (conn, screen) = x11rb::connect(None).unwrap();
    let root = conn.setup().roots[screen].root;
    let keys = conn.query_keymap().unwrap().reply().unwrap().keys;
    let codes = (8..=255u8)
        .filter(|&code| keys[usize::from(code / 8)] & (1 << (code % 8)) != 0)
        .collect();
    let mask = conn.query_pointer(root).unwrap().reply().unwrap().mask;
    (codes, mask)
}

/// Windows of the daemon's own (the marker, the confirm dialog) that are on the screen.
fn shuttle_windows() -> Vec<String> {
    let out = Command::new("xdotool")
        .args(["search", "--onlyvisible", "--name", "^shuttle: "])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
}

fn kill(daemon: &mut Daemon) {
    daemon.kill();
}

/// Starts `tool` on a connection of its own and leaves it running; the reply, if any, is
/// never read.
fn start_call(daemon: &Daemon, tool: &str, args: serde_json::Value) -> Wire {
    let mut wire = Wire::connect(&daemon.socket);
    wire.send(tool, args);
    wire
}

#[test]
fn a_daemon_killed_mid_drag_leaves_the_button_down_and_the_next_releases_it() {
    require_desktop();
    let fixture = Fixture::start("crash drag", &["--size", "500x400"]);
    // A drag holds the button for about a tenth of a second: kill as soon as the press lands,
    // and try again in the rare case the drag finished first.
    for _ in 0..5 {
        let mut daemon = Daemon::start();
        let presses = fixture.events_of("press").len();
        let releases = fixture.events_of("release").len();
        let args = json!({"x": 50, "y": 150, "to_x": 400, "to_y": 350, "window": fixture.id()});
        let _drag = start_call(&daemon, "desk_drag", args);
        fixture.await_events("press", presses + 1);
        kill(&mut daemon);
        if !input_down().1.contains(KeyButMask::BUTTON1) {
            continue;
        }
        assert_eq!(fixture.events_of("release").len(), releases);
        let next = Daemon::start();
        next.call("desk_screen", json!({})).json();
        assert!(
            !input_down().1.contains(KeyButMask::BUTTON1),
            "the next daemon left the button down"
        );
        fixture.await_events("release", releases + 1);
        return;
    }
    panic!("the drag finished before the kill in 5 tries out of 5");
}

#[test]
fn a_daemon_killed_while_typing_lent_keys_leaves_the_keymap_as_it_was() {
    require_desktop();
    let cleaner = Daemon::start();
    cleaner.call("desk_screen", json!({})).json();
    drop(cleaner);
    let keymap_before = run("xmodmap", &["-pke"]);
    let fixture = Fixture::start("crash typing", &[]);
    let mut daemon = Daemon::start();
    // Characters the layout lacks, so keycodes are lent while it types.
    let text = "ŝĉĥĵŭ".repeat(400);
    let _typing = start_call(
        &daemon,
        "desk_type",
        json!({"text": text, "window": fixture.id()}),
    );
    wait_for("some of the text to land", Duration::from_secs(10), || {
        let typed = fixture.events_of("text").pop()?;
        (typed["text"].as_str()?.chars().count() >= 10).then_some(())
    });
    kill(&mut daemon);
    let landed = fixture.events_of("text").pop().unwrap()["text"]
        .as_str()
        .unwrap()
        .chars()
        .count();
    assert!(landed < 2000, "the typing finished before the kill");
    assert_ne!(
        run("xmodmap", &["-pke"]),
        keymap_before,
        "a killed daemon cannot give its loans back"
    );

    // The next daemon gives them back as it connects, before any call acts.
    let next = Daemon::start();
    next.call("desk_screen", json!({})).json();
    assert_eq!(run("xmodmap", &["-pke"]), keymap_before);
    assert_eq!(input_down().0, Vec::<u8>::new(), "a key stayed down");
    assert!(shuttle_windows().is_empty(), "{:?}", shuttle_windows());
}

#[test]
fn a_daemon_killed_while_its_confirm_dialog_shows_leaves_no_window_behind() {
    require_desktop();
    let config = "[safety]\nconfirm = true\nconfirm_timeout_s = 30\n";
    let mut daemon = Daemon::start_configured(Some(config), &[]);
    let fixture = Fixture::start("crash confirm", &[]);
    let _asking = start_call(
        &daemon,
        "desk_type",
        json!({"text": "x", "window": fixture.id()}),
    );
    wait_for("the confirm dialog", Duration::from_secs(5), || {
        (!shuttle_windows().is_empty()).then_some(())
    });
    kill(&mut daemon);
    wait_for(
        "the dialog and marker to go",
        Duration::from_secs(5),
        || shuttle_windows().is_empty().then_some(()),
    );
    let next = Daemon::start_configured(Some(config), &[]);
    assert_eq!(next.call("status", json!({})).json()["daemon"], "running");
    assert!(shuttle_windows().is_empty(), "{:?}", shuttle_windows());
    assert_eq!(input_down().0, Vec::<u8>::new(), "a key stayed down");
    fixture.assert_untouched();
}
