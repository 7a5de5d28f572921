//! Input verbs against the fixture app, judged by what the app received (its event log), with a
//! bystander window that must receive nothing.

use crate::common;

use std::time::Duration;

use common::{Daemon, Fixture, require_desktop, run, wait_for};
use serde_json::{Value, json};

/// The entry's text after the last change the fixture logged.
fn last_text(fixture: &Fixture) -> Option<String> {
    fixture
        .events_of("text")
        .last()
        .map(|e| e["text"].as_str().unwrap().to_string())
}

/// Waits until the fixture's entry holds `text`, failing with what it holds instead.
fn await_text(fixture: &Fixture, text: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while last_text(fixture).unwrap_or_default() != text {
        assert!(
            std::time::Instant::now() < deadline,
            "the entry holds {:?}, not {text:?}",
            last_text(fixture)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Clears the fixture's entry through the desk.
fn clear_entry(daemon: &Daemon, fixture: &Fixture) {
    daemon
        .call(
            "desk_key",
            json!({"keys": "ctrl+a", "window": fixture.id()}),
        )
        .json();
    daemon
        .call(
            "desk_key",
            json!({"keys": "BackSpace", "window": fixture.id()}),
        )
        .json();
    if !fixture.events_of("text").is_empty() {
        await_text(fixture, "");
    }
}

#[test]
fn typed_text_arrives_exactly() {
    require_desktop();
    let daemon = Daemon::start();
    let bystander = Fixture::start("input bystander", &["--size", "300x200"]);
    let fixture = Fixture::start("input typing", &[]);
    let keymap_before = run("xmodmap", &["-pke"]);
    // Two batches' worth of characters the layout lacks (more than the spare keycodes), so
    // keycodes are lent, given back and lent again within one call.
    let many_cjk: String = ('一'..='龥').step_by(397).take(45).collect();
    for text in [
        "Hello, World! 0123456789 ~`!@#$%^&*()_+-=[]{}|;':\",./<>?",
        "déjà vu, naïve façade, Ærøskøbing, ñandú",
        "漢字かなカナ한국어",
        "emoji: 😀🎉🚀 ok",
        many_cjk.as_str(),
    ] {
        clear_entry(&daemon, &fixture);
        let reply = daemon
            .call("desk_type", json!({"text": text, "window": "input typing"}))
            .json();
        assert_eq!(reply["typed"], text.chars().count(), "{reply}");
        assert_eq!(reply["window"], fixture.id());
        assert_eq!(
            reply["app_answer"], "read",
            "the app read the keys and is idle: {reply}"
        );
        await_text(&fixture, text);
    }
    // Over and over: more distinct characters than spare keycodes, so keycodes are lent to
    // new characters in every call, and each call must still land exactly.
    let mixed = "Hello déjà vu naïve façade Ærøskøbing ñandú 漢字かなカナ한국어 😀🎉🚀 end";
    for _ in 0..4 {
        clear_entry(&daemon, &fixture);
        daemon
            .call("desk_type", json!({"text": mixed, "window": fixture.id()}))
            .json();
        await_text(&fixture, mixed);
    }
    bystander.assert_untouched();
    // With Caps Lock on, letters keep their case, and Caps Lock stays on.
    clear_entry(&daemon, &fixture);
    run("xdotool", &["key", "Caps_Lock"]);
    let reply = daemon
        .call("desk_type", json!({"text": "aBc", "window": fixture.id()}))
        .json();
    assert_eq!(reply["typed"], 3);
    await_text(&fixture, "aBc");
    assert!(
        run("xset", &["q"]).contains("Caps Lock:   on"),
        "Caps Lock was left off"
    );
    run("xdotool", &["key", "Caps_Lock"]);
    // Every lent keycode is given back once typing has been idle for a second.
    wait_for(
        "the lent keycodes to be given back",
        Duration::from_secs(5),
        || (run("xmodmap", &["-pke"]) == keymap_before).then_some(()),
    );
}

#[test]
fn key_combinations_arrive_once_with_their_modifiers() {
    require_desktop();
    let daemon = Daemon::start();
    let bystander = Fixture::start("keys bystander", &["--size", "300x200"]);
    let fixture = Fixture::start("keys target", &[]);
    let cases: &[(&str, &str, &[&str])] = &[
        ("ctrl+a", "a", &["ctrl"]),
        ("ctrl+shift+t", "T", &["ctrl", "shift"]),
        ("alt+x", "x", &["alt"]),
        ("super+e", "e", &["super"]),
        ("F5", "F5", &[]),
        ("Return", "Return", &[]),
        ("esc", "Escape", &[]),
        ("pgdn", "Page_Down", &[]),
        ("shift+Tab", "ISO_Left_Tab", &["shift"]),
    ];
    for (combo, _, _) in cases {
        let reply = daemon
            .call("desk_key", json!({"keys": combo, "window": fixture.id()}))
            .json();
        assert_eq!(reply["app_answer"], "read", "{reply}");
    }
    // A plain key last: once it is logged, everything before it is too, and it shows that every
    // modifier went back up.
    daemon
        .call("desk_type", json!({"text": "z", "window": fixture.id()}))
        .json();
    wait_for("the closing z", Duration::from_secs(5), || {
        fixture
            .events_of("key")
            .iter()
            .any(|e| e["key"] == "z")
            .then_some(())
    });
    let keys = fixture.events_of("key");
    for (combo, key, mods) in cases {
        let main: Vec<&Value> = keys.iter().filter(|e| e["key"] == *key).collect();
        assert_eq!(
            main.len(),
            1,
            "{combo}: expected one {key} press in {keys:?}"
        );
        assert_eq!(main[0]["mods"], json!(mods), "{combo}: {:?}", main[0]);
    }
    assert_eq!(
        keys.last().unwrap()["mods"],
        json!([]),
        "a modifier stayed down"
    );
    bystander.assert_untouched();
}

#[test]
fn clicks_land_on_the_right_pixel_in_both_coordinate_modes() {
    require_desktop();
    let daemon = Daemon::start();
    let bystander = Fixture::start("click bystander", &["--size", "300x200"]);
    let fixture = Fixture::start("click target", &["--size", "500x400"]);
    let (left, top) = (
        fixture.ready["x"].as_i64().unwrap(),
        fixture.ready["y"].as_i64().unwrap(),
    );

    // Window mode: pixels of the window's shot.
    let reply = daemon
        .call(
            "desk_click",
            json!({"x": 120, "y": 250, "window": fixture.id()}),
        )
        .json();
    assert_eq!(reply["app_answer"], "read");
    let press = fixture.await_events("press", 1).pop().unwrap();
    assert_eq!(
        (
            press["x"].as_i64(),
            press["y"].as_i64(),
            press["button"].as_i64()
        ),
        (Some(120), Some(250), Some(1))
    );

    // Desk mode: screen pixels.
    daemon
        .call(
            "desk_click",
            json!({"x": left + 300, "y": top + 330, "button": "right"}),
        )
        .json();
    let press = fixture.await_events("press", 2).pop().unwrap();
    assert_eq!(
        (
            press["x"].as_i64(),
            press["y"].as_i64(),
            press["button"].as_i64()
        ),
        (Some(300), Some(330), Some(3))
    );

    // A double click is two presses, the second one counted as a double.
    daemon
        .call(
            "desk_click",
            json!({"x": 200, "y": 300, "count": 2, "window": fixture.id()}),
        )
        .json();
    fixture.await_events("release", 4);
    let presses: Vec<i64> = fixture.events_of("press")[2..]
        .iter()
        .map(|p| p["count"].as_i64().unwrap())
        .collect();
    assert_eq!(presses, [1, 1, 2], "{:?}", fixture.events());
    bystander.assert_untouched();
}

#[test]
fn scrolls_go_in_the_asked_direction_and_number() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("scroll target", &["--size", "500x400"]);
    for (direction, amount) in [("down", 3), ("up", 2), ("left", 1), ("right", 4)] {
        let before = fixture.events_of("scroll").len();
        let reply = daemon
            .call("desk_scroll", json!({"direction": direction, "amount": amount, "x": 250, "y": 300, "window": fixture.id()}))
            .json();
        assert_eq!(reply["app_answer"], "read");
        let got: Vec<String> = fixture.await_events("scroll", before + amount)[before..]
            .iter()
            .map(|e| e["direction"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            got,
            vec![direction.to_string(); amount],
            "scroll {direction} {amount}"
        );
    }
    // Without a point: at the centre of the focused window.
    daemon
        .call("desk_focus", json!({"window": fixture.id()}))
        .json();
    let before = fixture.events_of("scroll").len();
    daemon
        .call("desk_scroll", json!({"direction": "down"}))
        .json();
    let events = fixture.await_events("scroll", before + 3);
    assert_eq!(events.len() - before, 3, "the default amount is 3");
}

#[test]
fn a_drag_presses_moves_and_releases_along_the_path() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("drag target", &["--size", "500x400"]);
    let reply = daemon
        .call(
            "desk_drag",
            json!({"x": 50, "y": 150, "to_x": 400, "to_y": 350, "window": fixture.id()}),
        )
        .json();
    assert_eq!(reply["app_answer"], "read");
    fixture.await_events("release", 1);
    let events: Vec<Value> = fixture
        .events()
        .into_iter()
        .filter(|e| ["press", "motion", "release"].contains(&e["event"].as_str().unwrap()))
        .collect();
    let at = |e: &Value| (e["x"].as_i64().unwrap(), e["y"].as_i64().unwrap());
    assert_eq!(events.first().unwrap()["event"], "press");
    assert_eq!(at(&events[0]), (50, 150));
    assert_eq!(events.last().unwrap()["event"], "release");
    assert_eq!(at(events.last().unwrap()), (400, 350));
    let motions: Vec<(i64, i64)> = events
        .iter()
        .filter(|e| e["event"] == "motion")
        .map(at)
        .collect();
    assert!(
        motions.len() >= 5,
        "the pointer moved in steps: {motions:?}"
    );
    assert!(
        motions
            .windows(2)
            .all(|w| w[1].0 >= w[0].0 && w[1].1 >= w[0].1),
        "{motions:?}"
    );
    assert_eq!(*motions.last().unwrap(), (400, 350));
}

fn active_window() -> String {
    let xprop = run("xprop", &["-root", "_NET_ACTIVE_WINDOW"]);
    let id = xprop
        .rsplit(' ')
        .next()
        .unwrap()
        .trim()
        .trim_start_matches("0x");
    format!("0x{:x}", u32::from_str_radix(id, 16).unwrap())
}

#[test]
fn focus_and_close_are_verified() {
    require_desktop();
    let daemon = Daemon::start();
    let first = Fixture::start("focus first", &["--size", "300x200"]);
    let mut second = Fixture::start("focus second", &["--size", "300x200"]);
    let reply = daemon
        .call("desk_focus", json!({"window": "focus first"}))
        .json();
    assert_eq!(reply["focused"], true);
    assert_eq!(active_window(), first.id());
    daemon
        .call("desk_focus", json!({"pid": second.pid()}))
        .json();
    assert_eq!(active_window(), second.id());

    let reply = daemon
        .call("desk_close", json!({"window": second.id()}))
        .json();
    assert_eq!(reply["closed"], true, "{reply}");
    let status = wait_for("the closed fixture to exit", Duration::from_secs(5), || {
        second.child.try_wait().unwrap()
    });
    assert!(status.success());
}

#[test]
fn close_reports_a_window_that_stays_open() {
    require_desktop();
    let daemon = Daemon::start();
    let sticky = Fixture::start("close sticky", &["--sticky", "--size", "300x200"]);
    let reply = daemon
        .call("desk_close", json!({"window": sticky.id()}))
        .json();
    assert_eq!(reply["closed"], false, "{reply}");
    assert!(
        reply["note"].as_str().unwrap().contains("still open"),
        "{reply}"
    );
    assert_eq!(sticky.await_events("close-refused", 1).len(), 1);
}

#[test]
fn launch_starts_a_detached_app_and_finds_its_window() {
    require_desktop();
    let daemon = Daemon::start();
    let log = daemon.scratch.path("launched.log");
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/fixture.py");
    let reply = daemon
        .call(
            "desk_launch",
            json!({"app": "/usr/bin/python3", "args": [script, "--title", "launched fixture", "--log", log]}),
        )
        .json();
    let pid = reply["pid"].as_u64().unwrap() as u32;
    assert_eq!(reply["window"]["title"], "launched fixture", "{reply}");
    assert_eq!(reply["window"]["pid"], pid);
    assert_eq!(
        reply["scoped"], false,
        "the virtual desktop has no systemd user manager"
    );
    // Detached: a session of its own, and output into a file with no name, apart from the
    // daemon's log.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    assert_eq!(fields[3], pid.to_string(), "session id");
    let fd = |n: u32| std::fs::read_link(format!("/proc/{pid}/fd/{n}")).unwrap();
    assert_eq!(fd(0), std::path::Path::new("/dev/null"));
    assert_eq!(fd(1), fd(2));
    assert!(
        fd(2).to_string_lossy().ends_with("(deleted)"),
        "{:?}",
        fd(2)
    );
    // SAFETY: kill on the app this test launched, by the pid the daemon reported.
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
}

#[test]
fn an_app_that_fails_to_start_says_why() {
    require_desktop();
    let daemon = Daemon::start();
    let started = std::time::Instant::now();
    let script = "echo 'cannot open display: no such thing' >&2; exit 4";
    let reply = daemon.call("desk_launch", json!({"app": "sh", "args": ["-c", script]}));
    assert!(reply.is_error, "{}", reply.text);
    assert!(
        reply
            .text
            .contains("ended (exit status: 4) before showing a window"),
        "{}",
        reply.text
    );
    assert!(
        reply
            .text
            .contains("its last output: ⟪\"cannot open display: no such thing\"⟫"),
        "{}",
        reply.text
    );
    assert!(reply.text.contains("outcome: unknown"), "{}", reply.text);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "it waited out the whole launch wait"
    );
}

#[test]
fn wait_answers_when_a_window_appears_and_at_the_deadline_otherwise() {
    require_desktop();
    let daemon = Daemon::start();
    let since = daemon.call("desk_windows", json!({})).json();
    let started = std::time::Instant::now();
    let reply = daemon
        .call("desk_wait", json!({"since": since, "timeout_ms": 300}))
        .json();
    assert_eq!(reply["changed"], false);
    assert_eq!(reply["windows"], since);
    assert!(started.elapsed() >= Duration::from_millis(300));

    let waiter = {
        let socket = daemon.socket.clone();
        let since = since.clone();
        std::thread::spawn(move || {
            common::Wire::connect(&socket)
                .call("desk_wait", json!({"since": since, "timeout_ms": 5000}))
        })
    };
    let fixture = Fixture::start("wait newcomer", &["--size", "200x100"]);
    let reply = waiter.join().unwrap().json();
    assert_eq!(reply["changed"], true);
    let windows = reply["windows"].as_array().unwrap();
    assert!(windows.iter().any(|w| w["id"] == fixture.id()), "{reply}");
}

#[test]
fn still_tells_a_static_screen_from_an_animation() {
    require_desktop();
    let daemon = Daemon::start();
    {
        let _caret = Fixture::start("still blink", &["--blink", "--size", "300x200"]);
        let reply = daemon
            .call("desk_still", json!({"timeout_ms": 2000}))
            .json();
        assert_eq!(
            reply["still"], true,
            "a blinking square does not keep the screen busy: {reply}"
        );
        assert!(reply["ms"].as_u64().unwrap() < 2000);
    }
    {
        let _spinner = Fixture::start("still spin", &["--spin", "--size", "300x200"]);
        let reply = daemon
            .call("desk_still", json!({"timeout_ms": 2000}))
            .json();
        assert_eq!(reply["still"], true, "a spinner becomes volatile: {reply}");
        assert!(reply["volatile"].as_u64().unwrap() >= 1, "{reply}");
    }
    {
        let _animation = Fixture::start("still animate", &["--animate", "--size", "1800x900"]);
        let reply = daemon.call("desk_still", json!({"timeout_ms": 600})).json();
        assert_eq!(reply["still"], false, "{reply}");
        assert_eq!(reply["changed"], true);
    }
    let reply = daemon.call("desk_still", json!({})).json();
    assert_eq!(reply["still"], true, "{reply}");
}

#[test]
fn bad_input_is_refused_and_nothing_is_sent() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("bad input target", &["--size", "300x200"]);
    let twin_a = Fixture::start("twin window A", &["--size", "200x100"]);
    let _twin_b = Fixture::start("twin window B", &["--size", "200x100"]);
    let id = fixture.id();
    let cases = [
        (
            "desk_key",
            json!({"keys": "ctrl+Retrun", "window": id}),
            "unknown key \"Retrun\"; did you mean \"Return\"",
        ),
        (
            "desk_type",
            json!({"text": "", "window": id}),
            "text is empty",
        ),
        (
            "desk_scroll",
            json!({"direction": "down", "amount": 0}),
            "amount must be at least 1",
        ),
        (
            "desk_scroll",
            json!({"direction": "down", "x": 10}),
            "x and y go together",
        ),
        (
            "desk_click",
            json!({"x": 5000, "y": 10}),
            "is off the screen",
        ),
        (
            "desk_click",
            json!({"x": 10, "y": 10, "count": 7}),
            "count must be 1, 2 or 3, got 7",
        ),
        (
            "desk_click",
            json!({"x": 350, "y": 10, "window": id}),
            "is outside window",
        ),
        (
            "desk_drag",
            json!({"x": 10, "y": 10, "to_x": 20}),
            "missing field `to_y`",
        ),
        (
            "desk_focus",
            json!({"window": "twin window"}),
            "matches 2 windows alike",
        ),
        (
            "desk_type",
            json!({"text": "x", "window": "twin window"}),
            "matches 2 windows alike",
        ),
        (
            "desk_wait",
            json!({"since": [{"title": "no id"}]}),
            "`since[0]`: missing field `id`",
        ),
        (
            "desk_wait",
            json!({"since": "windows"}),
            "`since`: invalid type",
        ),
    ];
    for (tool, args, want) in cases {
        let reply = daemon.call(tool, args.clone());
        assert!(
            reply.error().contains(want),
            "{tool} {args}: {}",
            reply.text
        );
    }
    // A window that closed after the agent looked it up.
    let gone = twin_a.id();
    drop(twin_a);
    wait_for(
        "the closed window to leave the list",
        Duration::from_secs(5),
        || {
            let list = daemon.call("desk_windows", json!({})).json();
            (!list.as_array().unwrap().iter().any(|w| w["id"] == gone)).then_some(())
        },
    );
    for tool in ["desk_click", "desk_type", "desk_focus"] {
        let args = json!({"window": gone, "x": 5, "y": 5, "text": "x"});
        let args = match tool {
            "desk_click" => json!({"window": args["window"], "x": 5, "y": 5}),
            "desk_type" => json!({"window": args["window"], "text": "x"}),
            _ => json!({"window": args["window"]}),
        };
        let reply = daemon.call(tool, args);
        assert!(
            reply.error().contains("does not exist"),
            "{tool}: {}",
            reply.text
        );
    }
    let touched: Vec<Value> = fixture
        .events()
        .into_iter()
        .filter(|e| !["shown", "ready"].contains(&e["event"].as_str().unwrap()))
        .collect();
    assert!(touched.is_empty(), "refused calls sent input: {touched:?}");
}

#[test]
fn actions_take_turns() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("turn target", &["--size", "300x200"]);
    let sticky = Fixture::start("turn sticky", &["--sticky", "--size", "200x100"]);
    // Closing a window that refuses holds the turn for the close bound (3 s).
    let closer = {
        let socket = daemon.socket.clone();
        let id = sticky.id();
        std::thread::spawn(move || {
            common::Wire::connect(&socket).call("desk_close", json!({"window": id}))
        })
    };
    wait_for("the close to hold the turn", Duration::from_secs(5), || {
        let status = daemon.call("status", json!({})).json();
        status["turn"]
            .as_str()
            .is_some_and(|t| t.starts_with("desk_close"))
            .then_some(())
    });
    // Reads go on meanwhile...
    let read_started = std::time::Instant::now();
    daemon.call("desk_windows", json!({})).json();
    assert!(
        read_started.elapsed() < Duration::from_secs(1),
        "a read waited for the action"
    );
    // ...while an action waits its turn: the close holds it for about 3 s.
    let click_started = std::time::Instant::now();
    daemon
        .call(
            "desk_click",
            json!({"x": 10, "y": 150, "window": fixture.id()}),
        )
        .json();
    let waited = click_started.elapsed();
    assert_eq!(closer.join().unwrap().json()["closed"], false);
    assert!(
        waited >= Duration::from_secs(2),
        "the click ran after {waited:?}, during the close"
    );
    assert_eq!(fixture.await_events("press", 1).len(), 1);
}

#[test]
fn lent_keycodes_go_back_when_the_daemon_stops_or_after_it_was_killed() {
    require_desktop();
    // Start from a keymap with nothing on loan: a daemon that stops gives back whatever an
    // earlier one left on record.
    let cleaner = Daemon::start();
    cleaner.call("desk_screen", json!({})).json();
    drop(cleaner);
    let keymap_before = run("xmodmap", &["-pke"]);
    let fixture = Fixture::start("loan target", &[]);

    // A daemon that stops gracefully gives its loans back on the way out.
    let daemon = Daemon::start();
    daemon
        .call("desk_type", json!({"text": "ŝĉ", "window": fixture.id()}))
        .json();
    assert_ne!(
        run("xmodmap", &["-pke"]),
        keymap_before,
        "typing ŝĉ lends keycodes"
    );
    drop(daemon);
    assert_eq!(
        run("xmodmap", &["-pke"]),
        keymap_before,
        "a stopped daemon kept its loans"
    );

    // One that is killed cannot; the next daemon finds its record and reclaims them.
    let mut daemon = Daemon::start();
    daemon
        .call("desk_type", json!({"text": "ĥĵ", "window": fixture.id()}))
        .json();
    daemon.kill();
    assert_ne!(
        run("xmodmap", &["-pke"]),
        keymap_before,
        "a killed daemon cannot give back"
    );
    let daemon = Daemon::start();
    daemon
        .call("desk_type", json!({"text": "ŭ", "window": fixture.id()}))
        .json();
    await_text(&fixture, "ŝĉĥĵŭ");
    wait_for(
        "the reclaimed keycodes to be given back",
        Duration::from_secs(5),
        || (run("xmodmap", &["-pke"]) == keymap_before).then_some(()),
    );
}

/// Holds Shift down from another X client, as a person's finger would, until dropped.
struct ShiftHeld;

impl ShiftHeld {
    fn press() -> Self {
        run("xdotool", &["keydown", "shift"]);
        Self
    }
}

impl Drop for ShiftHeld {
    fn drop(&mut self) {
        run("xdotool", &["keyup", "shift"]);
    }
}

#[test]
fn typing_waits_for_a_shift_someone_else_holds_and_never_sends_through_it() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("input held shift", &[]);
    // Released while typing waits: the text arrives as typed.
    let shift = ShiftHeld::press();
    let typing = std::thread::spawn({
        let (socket, window) = (daemon.socket.clone(), fixture.id());
        move || {
            common::Wire::connect(&socket).call(
                "desk_type",
                json!({"text": "quiet words", "window": window}),
            )
        }
    });
    std::thread::sleep(Duration::from_millis(600));
    assert!(
        fixture.events_of("text").is_empty(),
        "nothing was typed while Shift was down"
    );
    drop(shift);
    let reply = typing.join().unwrap().json();
    assert_eq!(reply["typed"], 11);
    await_text(&fixture, "quiet words");

    // Held throughout: typing stops without sending a key, and says why.
    clear_entry(&daemon, &fixture);
    let before = fixture.events().len();
    let shift = ShiftHeld::press();
    let refused = daemon.call("desk_type", json!({"text": "abc", "window": fixture.id()}));
    let key = daemon.call(
        "desk_key",
        json!({"keys": "ctrl+a", "window": fixture.id()}),
    );
    drop(shift);
    for reply in [&refused, &key] {
        let error = reply.error();
        assert!(
            error.contains("Shift stayed held down by someone else"),
            "{error}"
        );
        assert!(
            error.ends_with("(outcome: refused: nothing was sent)"),
            "{error}"
        );
    }
    // The person's own Shift reaches the app; nothing of ours does.
    let after: Vec<Value> = fixture.events().split_off(before);
    assert!(
        after
            .iter()
            .all(|e| e["event"] != "text" && (e["event"] != "key" || e["key"] == "Shift_L")),
        "the fixture received {after:?}"
    );
}

#[test]
fn typing_stops_when_the_focus_moves_to_another_window_and_says_how_far_it_got() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("input focus target", &[]);
    let thief = Fixture::start("input focus thief", &["--size", "300x200"]);
    let text = "abcdefghij".repeat(300);
    let typing = std::thread::spawn({
        let (socket, window, text) = (daemon.socket.clone(), fixture.id(), text.clone());
        move || {
            common::Wire::connect(&socket)
                .call("desk_type", json!({"text": text, "window": window}))
        }
    });
    wait_for("typing to begin", Duration::from_secs(5), || {
        (!last_text(&fixture).unwrap_or_default().is_empty()).then_some(())
    });
    run("xdotool", &["windowactivate", &thief.id()]);
    let reply = typing.join().unwrap();
    let error = reply.error();
    assert!(error.contains("the keyboard focus left window"), "{error}");
    assert!(error.contains("outcome: unknown"), "{error}");
    let typed = common::typed_of(error, 3000);
    await_text(&fixture, &text[..typed]);
    assert!(
        thief.events_of("text").is_empty() && thief.events_of("key").is_empty(),
        "the window that took the focus got {:?}",
        thief.events()
    );
}
