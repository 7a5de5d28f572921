//! End to end: window geometry (`set_frame`, `minimize`, `maximize`, `restore`), `open` and
//! `quit`, through the real daemon on the rig, judged by `xwininfo`, the fixture's own log and
//! which processes still run.

use crate::common;

use std::process::{Command, Stdio};

use common::*;
use serde_json::{Value, json};

/// What xwininfo says of a window: upper-left x, y, width, height and map state.
fn xwininfo(id: &str) -> (i64, i64, i64, i64, String) {
    let out = run("xwininfo", &["-id", id]);
    let field = |name: &str| {
        out.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    let n = |name: &str| field(name).parse::<i64>().unwrap();
    (
        n("Absolute upper-left X:"),
        n("Absolute upper-left Y:"),
        n("Width:"),
        n("Height:"),
        field("Map State:"),
    )
}

/// The window manager's frame around a client window, as X has it: the client's parent
/// (openbox reparents each client into its frame).
fn wm_frame(id: &str) -> (i64, i64, i64, i64) {
    let tree = run("xwininfo", &["-tree", "-id", id]);
    let parent = tree
        .lines()
        .find_map(|l| l.trim().strip_prefix("Parent window id: "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_string();
    let (x, y, w, h, _) = xwininfo(&parent);
    (x, y, w, h)
}

#[test]
fn geometry_verbs_answer_what_the_window_manager_did() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("Geometry", &[]);
    let id = fixture.id();
    let set = daemon.call(
        "desk_set_frame",
        json!({"window": id, "x": 100, "y": 120, "width": 500, "height": 300}),
    );
    assert!(!set.is_error, "{}", set.text);
    let answer = set.json();
    // The frame asked is the one the screen shows, title bar and borders included; the app's
    // area inside it is answered beside it.
    assert_eq!(answer["frame"], json!([100, 120, 500, 300]), "{answer}");
    assert_eq!(answer["state"], "normal");
    assert_eq!(wm_frame(&id), (100, 120, 500, 300));
    let client = |answer: &Value| {
        let (x, y, w, h, _) = xwininfo(&id);
        assert_eq!(answer["client"], json!([x, y, w, h]), "{answer}");
        (w, h)
    };
    let (w, h) = client(&answer);
    assert!(w < 500 && h < 300, "the client is inside the decorations");
    // A new size alone leaves the window where it is.
    let resized = daemon
        .call("desk_set_frame", json!({"window": id, "width": 420}))
        .json();
    assert_eq!(resized["frame"], json!([100, 120, 420, 300]), "{resized}");
    assert!(resized["note"].is_null(), "{resized}");
    assert_eq!(wm_frame(&id), (100, 120, 420, 300));
    client(&resized);
    daemon.call("desk_set_frame", json!({"window": id, "width": 500}));
    // A frame too small for its own decorations: refused, nothing moved.
    let tiny = daemon.call("desk_set_frame", json!({"window": id, "height": 3}));
    assert!(tiny.error().contains("no room inside"), "{}", tiny.text);
    assert_eq!(wm_frame(&id), (100, 120, 500, 300));

    let max = daemon.call("desk_maximize", json!({"window": id})).json();
    assert_eq!(max["state"], "maximized", "{max}");
    let (_, _, w, _, _) = xwininfo(&id);
    assert!(w > 1800, "maximized to {w} wide");
    assert_eq!(max["client"][2], w);
    assert_eq!(max["frame"][2], wm_frame(&id).2);

    let restored = daemon.call("desk_restore", json!({"window": id})).json();
    assert_eq!(restored["state"], "normal", "{restored}");
    client(&restored);
    let (x, y, w, h) = wm_frame(&id);
    assert_eq!(restored["frame"], json!([x, y, w, h]), "{restored}");
    assert_eq!((w, h), (500, 300));

    let min = daemon.call("desk_minimize", json!({"window": id})).json();
    assert_eq!(min["state"], "minimized", "{min}");
    assert_eq!(
        (&min["frame"], &min["client"]),
        (&Value::Null, &Value::Null)
    );
    assert_eq!(xwininfo(&id).4, "IsUnMapped");
    let back = daemon.call("desk_restore", json!({"window": id})).json();
    assert_eq!(back["state"], "normal", "{back}");
    // Where the window manager put it back is its choice; the answer says where that is.
    let (x, y, w, h) = wm_frame(&id);
    assert_eq!(back["frame"], json!([x, y, w, h]), "{back}");
    assert_eq!((w, h, xwininfo(&id).4.as_str()), (500, 300, "IsViewable"));

    // Off every screen: refused, nothing moved.
    let before = xwininfo(&id);
    let off = daemon.call(
        "desk_set_frame",
        json!({"window": id, "x": 5000, "y": 5000}),
    );
    assert!(off.is_error);
    assert!(off.text.contains("outside the screen"), "{}", off.text);
    assert_eq!(xwininfo(&id), before);
    let bad = daemon.call("desk_set_frame", json!({"window": id}));
    assert!(
        bad.is_error && bad.text.contains("pass x and y"),
        "{}",
        bad.text
    );
}

#[test]
fn quit_closes_politely_and_terminates_an_app_that_ignores_it() {
    require_desktop();
    let daemon = Daemon::start();
    let polite = Fixture::start("Polite App", &[]);
    let quit = daemon.call("desk_quit", json!({"pid": polite.pid()}));
    assert!(!quit.is_error, "{}", quit.text);
    assert_eq!(quit.json()["ended"], "closed", "{}", quit.text);
    assert!(!alive(polite.pid()));

    let stubborn = Fixture::start("Stubborn App", &["--sticky"]);
    let quit = daemon.call("desk_quit", json!({"window": "Stubborn App", "grace_s": 1}));
    assert!(!quit.is_error, "{}", quit.text);
    let answer = quit.json();
    assert_eq!(answer["ended"], "terminated", "{answer}");
    assert!(!alive(stubborn.pid()));

    // An app that asks whether to save is left running, its question named, unless forced.
    let asking = Fixture::start("Asking App", &["--ask-on-close", "Save Changes?"]);
    let quit = daemon.call("desk_quit", json!({"window": "Asking App"}));
    assert!(quit.is_error, "{}", quit.text);
    assert!(quit.text.contains("\"Save Changes?\""), "{}", quit.text);
    assert!(
        quit.text.contains("nothing was terminated"),
        "{}",
        quit.text
    );
    assert!(alive(asking.pid()));
    assert_eq!(asking.events_of("close-asked").len(), 1);
    let forced = daemon.call("desk_quit", json!({"window": "Asking App", "force": true}));
    assert!(!forced.is_error, "{}", forced.text);
    let answer = forced.json();
    assert_eq!(answer["ended"], "terminated", "{answer}");
    assert_eq!(answer["questions"][0]["title"], "Save Changes?", "{answer}");
    assert!(!alive(asking.pid()));

    // close names the question too, and leaves the window.
    let closing = Fixture::start("Closing App", &["--ask-on-close", "Keep Edits?"]);
    let close = daemon.call("desk_close", json!({"window": "Closing App"}));
    assert!(!close.is_error, "{}", close.text);
    let answer = close.json();
    assert_eq!(answer["closed"], false, "{answer}");
    assert_eq!(answer["questions"][0]["title"], "Keep Edits?", "{answer}");
    assert!(alive(closing.pid()));

    // A process with no window is no app: refused, left running.
    let mut sleeper = Command::new("sleep")
        .arg("30")
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let refused = daemon.call("desk_quit", json!({"pid": sleeper.id()}));
    assert!(refused.is_error);
    assert!(refused.text.contains("shows no window"), "{}", refused.text);
    assert!(alive(sleeper.id()));
    stop_child(&mut sleeper);
}

#[test]
fn quit_is_refused_for_an_app_outside_the_allowlist() {
    require_desktop();
    let daemon = Daemon::start_configured(Some("[safety]\napps = [\"mousepad\"]\n"), &[]);
    let fixture = Fixture::start("Not Allowed", &["--sticky"]);
    let refused = daemon.call("desk_quit", json!({"pid": fixture.pid()}));
    assert!(refused.is_error, "{}", refused.text);
    assert!(alive(fixture.pid()));
    assert!(fixture.events_of("close-refused").is_empty());
}

#[test]
fn open_starts_the_default_app_for_a_file_and_refuses_what_nothing_opens() {
    require_desktop();
    let scratch = Scratch::new("open");
    // The rig's own associations: text files open in mousepad.
    let config = scratch.path("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("mimeapps.list"),
        "[Default Applications]\ntext/plain=org.xfce.mousepad.desktop\n",
    )
    .unwrap();
    let daemon = Daemon::start_with(&[("XDG_CONFIG_HOME", config.to_str().unwrap())]);
    let file = scratch.path("notes-to-open.txt");
    std::fs::write(&file, "opened by shuttle\n").unwrap();
    let opened = daemon.call("desk_open", json!({"target": file}));
    assert!(!opened.is_error, "{}", opened.text);
    let answer = opened.json();
    assert_eq!(answer["kind"], "text/plain", "{answer}");
    assert_eq!(answer["app"], "org.xfce.mousepad.desktop");
    let title = answer["window"]["title"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(title.contains("notes-to-open"), "{answer}");
    assert!(window_list().contains("notes-to-open"));
    let pid = answer["window"]["pid"].as_u64().unwrap() as u32;
    let quit = daemon.call("desk_quit", json!({"pid": pid, "grace_s": 2}));
    assert!(!quit.is_error, "{}", quit.text);

    let missing = daemon.call("desk_open", json!({"target": "/no/such/file.txt"}));
    assert!(
        missing.is_error && missing.text.contains("no file at"),
        "{}",
        missing.text
    );
    let unhandled = daemon.call("desk_open", json!({"target": "nosuchscheme://x"}));
    assert!(unhandled.is_error, "{}", unhandled.text);
    assert!(
        unhandled.text.contains("x-scheme-handler/nosuchscheme"),
        "{}",
        unhandled.text
    );
    let relative = daemon.call("desk_open", json!({"target": "notes.txt"}));
    assert!(
        relative.is_error && relative.text.contains("neither an absolute path"),
        "{}",
        relative.text
    );
}

#[test]
fn launch_answers_the_main_window_once_its_title_settles_and_the_dialog_in_front_of_it() {
    require_desktop();
    let daemon = Daemon::start();
    let log = daemon.scratch.path("launched.log");
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/fixture.py");
    // As a big app starts: a first title, the real one 250 ms after mapping, and a tip dialog
    // 300 ms after mapping.
    let args = json!([
        script,
        "--log",
        log,
        "--start-title",
        "Starting…",
        "--title",
        "Settled main",
        "--dialog",
        "Tip of the day",
        "--dialog-after",
        "300"
    ]);
    let reply = daemon
        .call(
            "desk_launch",
            json!({"app": "/usr/bin/python3", "args": args}),
        )
        .json();
    let pid = reply["pid"].as_u64().unwrap();
    let main = reply["window"]["id"].as_str().unwrap().to_string();
    assert_eq!(reply["window"]["title"], "Settled main", "{reply}");
    let dialogs = reply["dialogs"].as_array().expect("a dialogs list");
    assert_eq!(dialogs.len(), 1, "{reply}");
    assert_eq!(dialogs[0]["title"], "Tip of the day");
    assert_eq!(dialogs[0]["blocking"], "transient");
    // The X server's own word: the dialog is transient for the window named main.
    let props = run(
        "xprop",
        &[
            "-id",
            dialogs[0]["id"].as_str().unwrap(),
            "WM_TRANSIENT_FOR",
            "_NET_WM_NAME",
        ],
    );
    let owner = u64::from_str_radix(main.trim_start_matches("0x"), 16).unwrap();
    assert!(
        props.contains(&format!("window id # 0x{owner:x}")),
        "{props}"
    );
    assert!(props.contains("\"Tip of the day\""), "{props}");
    let title = run("xprop", &["-id", &main, "_NET_WM_NAME"]);
    assert!(title.contains("\"Settled main\""), "{title}");

    // A window that shows settled, with no dialog, has no dialogs list.
    let plain = daemon
        .call(
            "desk_launch",
            json!({"app": "/usr/bin/python3", "args": [script, "--log", log, "--title", "Plain launch"]}),
        )
        .json();
    assert_eq!(plain["window"]["title"], "Plain launch", "{plain}");
    assert!(plain.get("dialogs").is_none(), "{plain}");
    for pid in [pid, plain["pid"].as_u64().unwrap()] {
        // SAFETY: kill on the apps this test launched, by the pids the daemon reported.
        unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    }
}
