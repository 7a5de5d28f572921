//! The accessibility verbs against real GTK apps, judged by the apps' own logs and by an
//! independent AT-SPI reading (pyatspi).

use crate::common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Daemon, Fixture, require_desktop, run, wait_for, window_list};
use serde_json::{Value, json};

/// The snapshot's nodes of `window` (an id or title, or a pid as a number).
fn nodes(daemon: &Daemon, window: impl Into<Value>, extra: Value) -> Vec<Value> {
    let window = window.into();
    let mut args = if window.is_number() {
        json!({"pid": window})
    } else {
        json!({"window": window})
    };
    // Every node, hidden ones too, unless the test asks for a view.
    args["view"] = json!("all");
    if let (Some(args), Some(extra)) = (args.as_object_mut(), extra.as_object()) {
        args.extend(extra.clone());
    }
    daemon.call("desk_snapshot", args).json()["nodes"]
        .as_array()
        .unwrap()
        .clone()
}

/// The one node with this role and name.
fn the(nodes: &[Value], role: &str, name: &str) -> Value {
    let hits: Vec<&Value> = nodes
        .iter()
        .filter(|n| n["role"] == role && n["name"] == name)
        .collect();
    assert_eq!(hits.len(), 1, "expected one {role} {name:?} in {nodes:?}");
    hits[0].clone()
}

fn has_state(node: &Value, state: &str) -> bool {
    node["states"]
        .as_array()
        .is_some_and(|s| s.iter().any(|x| x == state))
}

/// pyatspi's view of the states of every node of `app` with this role and name.
fn probe(app: &str, role: &str, name: &str) -> Vec<Vec<String>> {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/atspi_probe.py");
    let out = run(
        "/usr/bin/python3",
        &[script.to_str().unwrap(), app, role, name],
    );
    serde_json::from_str(&out).unwrap()
}

/// A gtk3-widget-factory of the test's own, stopped by pid when dropped.
struct WidgetFactory(std::process::Child);

impl WidgetFactory {
    fn start(daemon: &Daemon) -> Self {
        let child = Command::new("gtk3-widget-factory")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let factory = Self(child);
        wait_for(
            "gtk3-widget-factory on the accessibility bus",
            Duration::from_secs(20),
            || {
                let reply = daemon.call("desk_snapshot", json!({"pid": factory.0.id()}));
                (!reply.is_error).then_some(())
            },
        );
        factory
    }
}

impl Drop for WidgetFactory {
    fn drop(&mut self) {
        common::stop_child(&mut self.0);
    }
}

#[test]
fn press_toggles_a_check_button_in_the_widget_factory() {
    require_desktop();
    let daemon = Daemon::start();
    let factory = WidgetFactory::start(&daemon);
    let pid = factory.0.id();
    let find = daemon
        .call(
            "desk_find",
            json!({"name": "checkbutton", "role": "check box", "pid": factory.0.id()}),
        )
        .json();
    let enabled: Vec<&Value> = find["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| !has_state(n, "disabled"))
        .collect();
    assert!(enabled.len() >= 2, "{find}");
    let target = enabled[0].clone();
    let was_checked = has_state(&target, "checked");
    let checked_before = probe("gtk3-widget-factory", "check box", "checkbutton")
        .iter()
        .filter(|s| s.contains(&"checked".to_string()))
        .count();

    let reply = daemon
        .call("desk_press", json!({"id": target["id"]}))
        .json();
    assert_eq!(reply["pressed"], target["id"]);
    assert!(
        ["clicked", "action"].contains(&reply["how"].as_str().unwrap()),
        "{reply}"
    );

    // The next snapshot shows the new state, and so does pyatspi.
    let toggled = wait_for("the check button to toggle", Duration::from_secs(5), || {
        let node = nodes(&daemon, pid, json!({}))
            .into_iter()
            .find(|n| n["id"] == target["id"])
            .unwrap();
        (has_state(&node, "checked") != was_checked).then_some(node)
    });
    assert_eq!(has_state(&toggled, "checked"), !was_checked);
    let checked_after = probe("gtk3-widget-factory", "check box", "checkbutton")
        .iter()
        .filter(|s| s.contains(&"checked".to_string()))
        .count();
    let expected = if was_checked {
        checked_before - 1
    } else {
        checked_before + 1
    };
    assert_eq!(
        checked_after, expected,
        "pyatspi sees a different number of checked boxes"
    );
}

#[test]
fn press_selects_tabs_and_runs_menu_items_in_closed_menus() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("a11y widgets", &["--widgets"]);
    let tree = nodes(&daemon, fixture.id(), json!({}));

    let beta = the(&tree, "page tab", "Beta");
    assert!(!has_state(&beta, "selected"));
    let reply = daemon.call("desk_press", json!({"id": beta["id"]})).json();
    assert_eq!(reply["how"], "selected", "{reply}");
    wait_for("the fixture to show tab 1", Duration::from_secs(5), || {
        fixture
            .events_of("tab")
            .iter()
            .any(|e| e["index"] == 1)
            .then_some(())
    });
    let beta_now = the(&nodes(&daemon, fixture.id(), json!({})), "page tab", "Beta");
    assert!(has_state(&beta_now, "selected"), "{beta_now}");
    assert_eq!(
        beta_now["id"], beta["id"],
        "ids stay the same across snapshots"
    );

    // Notes.txt sits in File > Recent, both closed: they are opened, and the entry is clicked
    // where the submenu shows it.
    let notes = the(&tree, "menu item", "Notes.txt");
    assert!(has_state(&notes, "hidden"));
    let reply = daemon.call("desk_press", json!({"id": notes["id"]})).json();
    assert_eq!(reply["how"], "clicked", "{reply}");
    assert_eq!(reply["opened"], json!(["File", "Recent"]));
    assert_eq!(fixture.await_events("menu", 1)[0]["item"], "Notes.txt");

    let check = the(&tree, "check box", "Wrap lines");
    let reply = daemon
        .call("desk_act", json!({"id": check["id"], "action": "action"}))
        .json();
    assert_eq!(reply["how"], "action", "{reply}");
    assert_eq!(fixture.await_events("toggled", 1)[0]["active"], true);

    // A menu is clicked at its centre, and opens as a click opens it.
    let file = the(&tree, "menu", "File");
    let reply = daemon.call("desk_press", json!({"id": file["id"]})).json();
    assert_eq!(reply["how"], "clicked", "{reply}");
    wait_for("the File menu to open", Duration::from_secs(5), || {
        let open = the(
            &nodes(&daemon, fixture.id(), json!({})),
            "menu item",
            "Open",
        );
        (!has_state(&open, "hidden")).then_some(())
    });
    let closed = daemon.call(
        "desk_key",
        json!({"keys": "Escape", "window": fixture.id()}),
    );
    assert!(!closed.is_error, "{}", closed.text);
}

/// The window news a reply carried, else the one the next call's reply carries: a change is
/// in the reply of the action when it came while the action ran, else in the next one.
fn news_after(daemon: &Daemon, reply: &Value) -> Value {
    match reply.get("windows_changed") {
        Some(news) => news.clone(),
        None => daemon.call("desk_screen", json!({})).json()["windows_changed"].clone(),
    }
}

#[test]
fn an_action_says_which_windows_it_opened_and_closed() {
    require_desktop();
    let bystander = Fixture::start("a11y bystander", &[]);
    let daemon = Daemon::start();
    let fixture = Fixture::start("a11y opener", &["--opener"]);
    let tree = nodes(&daemon, fixture.id(), json!({}));

    // A press that opens nothing reports no change, now or in the next reply.
    let press_me = the(&tree, "button", "Press me");
    let quiet = daemon
        .call("desk_press", json!({"id": press_me["id"]}))
        .json();
    assert_eq!(fixture.await_events("clicked", 1).len(), 1);
    assert_eq!(news_after(&daemon, &quiet), Value::Null, "{quiet}");

    // The dialog the app maps during the press, as wmctrl sees it.
    let options = the(&tree, "button", "Options");
    let opened = daemon
        .call("desk_press", json!({"id": options["id"]}))
        .json();
    fixture.await_events("opened", 1);
    wait_for("wmctrl to list Options", Duration::from_secs(5), || {
        window_list().contains("Options").then_some(())
    });
    let news = news_after(&daemon, &opened);
    assert_eq!(news["opened"][0]["title"], "Options", "{opened} {news}");
    assert!(news["opened"][0]["after_ms"].is_u64(), "{news}");
    let dialog = news["opened"][0]["id"].clone();
    // Any key closes the dialog: the key's reply, or the next, says it went.
    let closed = daemon
        .call("desk_key", json!({"keys": "Escape", "window": "Options"}))
        .json();
    wait_for("the dialog to go", Duration::from_secs(5), || {
        (!window_list().contains("Options")).then_some(())
    });
    let news = news_after(&daemon, &closed);
    assert_eq!(news["closed"][0]["id"], dialog, "{closed} {news}");
    bystander.assert_untouched();
}

#[test]
fn a_dialog_that_opens_late_is_in_the_next_reply_with_its_delay() {
    require_desktop();
    let bystander = Fixture::start("late bystander", &[]);
    let daemon = Daemon::start();
    let fixture = Fixture::start("late opener", &["--opener", "--late", "300"]);
    let tree = nodes(&daemon, fixture.id(), json!({}));
    let later = the(&tree, "button", "Later");
    for round in 1..=3 {
        let pressed = daemon.call("desk_press", json!({"id": later["id"]})).json();
        assert_eq!(pressed["outcome"], "completed", "{pressed}");
        // The press answers without waiting 300 ms for a dialog that may never come.
        assert_eq!(pressed.get("windows_changed"), None, "{pressed}");
        fixture.await_events("opened", round);
        wait_for("wmctrl to list Later", Duration::from_secs(5), || {
            window_list().contains("Later").then_some(())
        });
        let news = daemon.call("desk_screen", json!({})).json()["windows_changed"].clone();
        assert_eq!(news["opened"].as_array().map(Vec::len), Some(1), "{news}");
        assert_eq!(news["opened"][0]["title"], "Later", "{news}");
        let delay = news["opened"][0]["after_ms"].as_u64().unwrap();
        assert!(
            (300..3000).contains(&delay),
            "opened {delay} ms after the press"
        );
        assert_eq!(news.get("closed"), None, "nothing else is reported: {news}");
        // Told once: the next reply has no news.
        let again = daemon.call("desk_screen", json!({})).json();
        assert_eq!(again.get("windows_changed"), None, "{again}");
        let closed = daemon
            .call("desk_key", json!({"keys": "Escape", "window": "Later"}))
            .json();
        wait_for("Later to go", Duration::from_secs(5), || {
            (!window_list().contains("Later")).then_some(())
        });
        assert_eq!(news_after(&daemon, &closed)["closed"][0]["title"], "Later");
    }
    bystander.assert_untouched();
}

#[test]
fn a_dialog_an_app_builds_after_a_press_is_in_the_press_own_reply_and_a_slower_one_says_busy() {
    require_desktop();
    let bystander = Fixture::start("busy bystander", &[]);
    let daemon = Daemon::start();
    // The app works 400 ms after the click before it maps its dialog: the press waits for it.
    let fixture = Fixture::start("busy opener", &["--opener", "--busy", "400"]);
    let busy = the(&nodes(&daemon, fixture.id(), json!({})), "button", "Busy");
    // GTK answers a ping as it reads it, ahead of the click read with it: on a loaded machine
    // the app may answer twice before its click handler has run, and the dialog is then in
    // the next reply. So: never lost, and in the press's own reply at least once in three.
    let mut own = 0;
    for round in 1..=3 {
        let pressed = daemon.call("desk_press", json!({"id": busy["id"]})).json();
        assert_eq!(pressed["outcome"], "completed", "{pressed}");
        assert_eq!(pressed["app_answer"], "read", "{pressed}");
        // The app's own word that it opened the dialog, and a reply naming it.
        fixture.await_events("opened", round);
        if pressed["windows_changed"]["opened"][0]["title"] == "Busy" {
            own += 1;
        } else {
            wait_for("wmctrl to list Busy", Duration::from_secs(5), || {
                window_list().contains("Busy").then_some(())
            });
        }
        let opened = &news_after(&daemon, &pressed)["opened"];
        assert_eq!(opened.as_array().map(Vec::len), Some(1), "{pressed}");
        assert_eq!(opened[0]["title"], "Busy", "{pressed}");
        let closed = daemon
            .call("desk_key", json!({"keys": "Escape", "window": "Busy"}))
            .json();
        // The dialog the key closed cannot answer; the window it belonged to, of the same
        // app, does.
        assert_eq!(closed["app_answer"], "read", "{closed}");
        wait_for("Busy to go", Duration::from_secs(5), || {
            (!window_list().contains("Busy")).then_some(())
        });
        assert_eq!(news_after(&daemon, &closed)["closed"][0]["title"], "Busy");
    }
    assert!(
        own >= 1,
        "the dialog was in none of the presses' own replies"
    );
    // Past the wait the reply says busy (or, as above, read before the click was handled), a
    // completed press and not a failure, and the dialog is in a later reply.
    let slow = Fixture::start("slow opener", &["--opener", "--busy", "2500"]);
    let busy = the(&nodes(&daemon, slow.id(), json!({})), "button", "Busy");
    let pressed = daemon.call("desk_press", json!({"id": busy["id"]})).json();
    assert_eq!(pressed["outcome"], "completed", "{pressed}");
    assert!(
        ["busy", "read"].contains(&pressed["app_answer"].as_str().unwrap()),
        "{pressed}"
    );
    assert_eq!(pressed.get("windows_changed"), None, "{pressed}");
    slow.await_events("opened", 1);
    wait_for("wmctrl to list Busy", Duration::from_secs(5), || {
        window_list().contains("Busy").then_some(())
    });
    let news = daemon.call("desk_screen", json!({})).json()["windows_changed"].clone();
    assert_eq!(news["opened"][0]["title"], "Busy", "{news}");
    bystander.assert_untouched();
}

/// What `at` finds at the centre of `button`'s bounds is the button, and a click there is
/// the fixture's first, as its own log says.
fn at_its_centre_a_click_lands(daemon: &Daemon, fixture: &Fixture, button: &Value) {
    let [x, y, w, h] = [0, 1, 2, 3].map(|i| button["bounds"][i].as_i64().unwrap());
    let (cx, cy) = (x + w / 2, y + h / 2);
    let at = daemon.call("desk_at", json!({"x": cx, "y": cy})).json();
    assert_eq!(at["node"]["id"], button["id"], "{at}");
    let clicked = daemon.call("desk_click", json!({"x": cx, "y": cy})).json();
    assert_eq!(clicked["outcome"], "completed", "{clicked}");
    fixture.await_events("clicked", 1);
}

#[test]
fn an_app_drawn_at_twice_the_scale_is_read_and_clicked_in_screen_pixels() {
    require_desktop();
    let bystander = Fixture::start("scale bystander", &[]);
    let daemon = Daemon::start();
    let fixture = Fixture::start_with_env("scaled twice", &[], &[("GDK_SCALE", "2")]);
    // GTK reports this app's positions in its own pixels, half the screen's.
    let [wx, wy, ww, wh] = common::geometry(&fixture.id());
    let tree = nodes(&daemon, fixture.id(), json!({"bounds": true}));
    // GTK's window node counts the window manager's frame: as wide as the window and its
    // borders.
    let frame = the(&tree, "frame", "scaled twice");
    let width = frame["bounds"][2].as_i64().unwrap();
    assert!(
        (ww..=ww + 4).contains(&width),
        "the window node {frame} is as wide as the window, {ww}"
    );
    // The app rounds its origin down to its own pixels: at most one screen pixel short.
    let button = the(&tree, "button", "Press me");
    let [x, y, w, h] = [0, 1, 2, 3].map(|i| button["bounds"][i].as_i64().unwrap());
    assert!(
        x >= wx - 1 && y >= wy - 1 && x + w <= wx + ww && y + h <= wy + wh,
        "the button at {:?} lies inside its window at {:?}",
        [x, y, w, h],
        [wx, wy, ww, wh]
    );
    at_its_centre_a_click_lands(&daemon, &fixture, &button);
    bystander.assert_untouched();
}

/// The X resources as they were, put back when dropped: a test that sets one (Xft.dpi) leaves
/// the shared display as it found it.
struct Resources(String);

impl Resources {
    fn merge(line: &str) -> Self {
        let before = run("xrdb", &["-query"]);
        let mut merge = Command::new("xrdb")
            .arg("-merge")
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        merge
            .stdin
            .take()
            .unwrap()
            .write_all(format!("{line}\n").as_bytes())
            .unwrap();
        assert!(merge.wait().unwrap().success());
        Self(before)
    }
}

impl Drop for Resources {
    fn drop(&mut self) {
        let mut load = Command::new("xrdb")
            .arg("-load")
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        let _ = load.stdin.take().unwrap().write_all(self.0.as_bytes());
        let _ = load.wait();
    }
}

/// Text drawn at 192 dpi (Xft.dpi, as a person with a high-density screen sets it): GTK draws
/// bigger widgets but counts in screen pixels, so bounds, `at` and a click at a node's centre
/// agree with the screen, as the app's own log says.
#[test]
fn an_app_with_text_at_192_dpi_is_read_and_clicked_in_screen_pixels() {
    require_desktop();
    // The bystander is drawn at the display's own dpi, the fixture at 192.
    let bystander = Fixture::start("dpi bystander", &[]);
    let _dpi = Resources::merge("Xft.dpi: 192");
    let daemon = Daemon::start();
    let fixture = Fixture::start("at 192 dpi", &[]);
    let [wx, wy, ww, wh] = common::geometry(&fixture.id());
    let tree = nodes(&daemon, fixture.id(), json!({"bounds": true}));
    let button = the(&tree, "button", "Press me");
    let [x, y, w, h] = [0, 1, 2, 3].map(|i| button["bounds"][i].as_i64().unwrap());
    let plain = nodes(&daemon, bystander.id(), json!({"bounds": true}));
    let plain_height = the(&plain, "button", "Press me")["bounds"][3]
        .as_i64()
        .unwrap();
    // The text doubles; the button's padding does not.
    assert!(
        h > plain_height,
        "the text is drawn bigger: {h} pixels high against {plain_height}"
    );
    assert!(
        x >= wx && y >= wy && x + w <= wx + ww && y + h <= wy + wh,
        "the button at {:?} lies inside its window at {:?}",
        [x, y, w, h],
        [wx, wy, ww, wh]
    );
    at_its_centre_a_click_lands(&daemon, &fixture, &button);
    bystander.assert_untouched();
}

/// Two monitors side by side on one X screen (`xrandr --setmonitor`), taken off when dropped.
struct Monitors;

impl Monitors {
    fn halves() -> Self {
        run(
            "xrandr",
            &[
                "--setmonitor",
                "shuttle-left",
                "960/254x1080/286+0+0",
                "none",
            ],
        );
        run(
            "xrandr",
            &[
                "--setmonitor",
                "shuttle-right",
                "960/254x1080/286+960+0",
                "none",
            ],
        );
        Self
    }
}

impl Drop for Monitors {
    fn drop(&mut self) {
        for name in ["shuttle-left", "shuttle-right"] {
            let _ = Command::new("xrandr").args(["--delmonitor", name]).status();
        }
    }
}

/// Two monitors side by side: a window on each is read, named by `at` and clicked at its
/// button's centre in screen pixels, as each app's own log says; a shot of each monitor is
/// that monitor's size.
#[test]
fn a_window_on_each_of_two_monitors_is_read_and_clicked_where_it_shows() {
    require_desktop();
    let _monitors = Monitors::halves();
    let daemon = Daemon::start();
    let left = Fixture::start("on the left monitor", &["--size", "400x300"]);
    let right = Fixture::start("on the right monitor", &["--size", "400x300"]);
    for (fixture, x) in [(&left, 100), (&right, 1300)] {
        run(
            "wmctrl",
            &["-i", "-r", &fixture.id(), "-e", &format!("0,{x},200,-1,-1")],
        );
        wait_for("the window on its monitor", Duration::from_secs(5), || {
            (common::geometry(&fixture.id())[0] >= x).then_some(())
        });
    }
    for (fixture, monitor_x) in [(&left, 0), (&right, 960)] {
        let tree = nodes(&daemon, fixture.id(), json!({"bounds": true}));
        let button = the(&tree, "button", "Press me");
        let [x, y, w, h] = [0, 1, 2, 3].map(|i| button["bounds"][i].as_i64().unwrap());
        assert!(
            x >= monitor_x && x + w <= monitor_x + 960,
            "the button at {:?} is on its monitor from {monitor_x}",
            [x, y, w, h]
        );
        at_its_centre_a_click_lands(&daemon, fixture, &button);
        let shot = daemon.call(
            "desk_shot",
            json!({"x": monitor_x, "y": 0, "w": 960, "h": 1080}),
        );
        let (w, h, _) = common::decode_png(shot.image.as_ref().expect("a PNG"));
        assert_eq!((w, h), (960, 1080));
    }
    assert_eq!(left.events_of("clicked").len(), 1, "one click each");
}

#[test]
fn entries_read_back_what_was_typed_and_passwords_never() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("a11y entry", &["--widgets"]);
    let tree = nodes(&daemon, fixture.id(), json!({}));
    let entry = the(&tree, "text", "Input");
    daemon
        .call(
            "desk_type",
            json!({"text": "read me back ✓", "window": fixture.id()}),
        )
        .json();
    let value = wait_for("the entry to hold the text", Duration::from_secs(5), || {
        let node = daemon.call("desk_read", json!({"id": entry["id"]})).json();
        (node["value"] == "read me back ✓").then_some(node)
    });
    assert_eq!(value["role"], "text");
    assert_eq!(
        fixture.events_of("text").last().unwrap()["text"],
        "read me back ✓"
    );

    let password = the(&tree, "password text", "Password");
    let read = daemon.call("desk_read", json!({"id": password["id"], "text": true}));
    assert!(!read.text.contains("hunter2"), "{}", read.text);
    let outline = daemon.call(
        "desk_snapshot",
        json!({"window": fixture.id(), "text": true}),
    );
    assert!(
        !outline.text.contains("hunter2") && outline.text.contains("password text \"Password\""),
        "{}",
        outline.text
    );
}

#[test]
fn find_by_name_and_role_and_at_a_point() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("a11y find", &["--widgets"]);
    let found = daemon
        .call("desk_find", json!({"name": "Beta", "window": fixture.id()}))
        .json();
    let names: Vec<&str> = found["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Beta"], "an exact name wins over substrings");
    let found = daemon
        .call(
            "desk_find",
            json!({"name": "beta", "role": "label", "window": fixture.id()}),
        )
        .json();
    let names: Vec<&str> = found["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Beta page"]);

    let tree = nodes(&daemon, fixture.id(), json!({"bounds": true}));
    let button = the(&tree, "button", "Press me");
    let [x, y, w, h] = [0, 1, 2, 3].map(|i| button["bounds"][i].as_i64().unwrap());
    let at = daemon
        .call("desk_at", json!({"x": x + w / 2, "y": y + h / 2}))
        .json();
    assert_eq!(at["node"]["id"], button["id"], "{at}");
    assert_eq!(at["node"]["role"], "button");
    assert_eq!(at["pid"], fixture.pid());
    let ancestors: Vec<&str> = at["ancestors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["role"].as_str().unwrap())
        .collect();
    assert_eq!(ancestors.last(), Some(&"frame"), "{at}");
    assert!(at.get("covered").is_none(), "{at}");

    // Every bounds reported lies on the window.
    let window = fixture.ready.clone();
    for node in tree.iter().filter(|n| n.get("bounds").is_some()) {
        let b = &node["bounds"];
        let (bx, by) = (b[0].as_i64().unwrap(), b[1].as_i64().unwrap());
        assert!(
            bx >= window["x"].as_i64().unwrap() - 64
                && by >= window["y"].as_i64().unwrap() - 64
                && bx < 1920
                && by < 1080,
            "bounds off the window: {node}"
        );
    }
}

#[test]
fn a_frozen_app_times_out_and_shows_as_unanswered() {
    require_desktop();
    let daemon = Daemon::start();
    let _other = Fixture::start("a11y bystander", &["--size", "300x200"]);
    let frozen = Fixture::start("a11y frozen", &[]);
    daemon
        .call("desk_focus", json!({"window": frozen.id()}))
        .json();
    assert_eq!(
        daemon.call("desk_unanswered", json!({})).json(),
        Value::Null
    );

    // SAFETY: SIGSTOP and SIGCONT to the fixture this test started.
    unsafe { libc::kill(frozen.pid() as i32, libc::SIGSTOP) };
    let started = std::time::Instant::now();
    let reply = daemon.call("desk_snapshot", json!({"window": frozen.id()}));
    eprintln!(
        "fault: app frozen on AT-SPI: the call ended after {:?}",
        started.elapsed()
    );
    assert!(
        reply
            .error()
            .contains("did not answer accessibility within"),
        "{}",
        reply.text
    );
    assert!(
        reply.text.contains(&format!("pid {}", frozen.pid())),
        "{}",
        reply.text
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // Other apps are read meanwhile.
    assert!(
        !daemon
            .call("desk_snapshot", json!({"window": "a11y bystander"}))
            .is_error
    );
    let unanswered = daemon.call("desk_unanswered", json!({})).json();
    assert_eq!(unanswered["title"], "a11y frozen", "{unanswered}");
    assert_eq!(unanswered["pid"], frozen.pid());
    assert_eq!(unanswered["id"], "");
    unsafe { libc::kill(frozen.pid() as i32, libc::SIGCONT) };
    wait_for(
        "the thawed app to answer again",
        Duration::from_secs(5),
        || (daemon.call("desk_unanswered", json!({})).json() == Value::Null).then_some(()),
    );
}

#[test]
fn snapshots_survive_windows_closing_under_them() {
    require_desktop();
    let daemon = Daemon::start();
    for round in 0..3 {
        let fixture = Fixture::start(&format!("a11y closing {round}"), &["--widgets"]);
        let id = fixture.id();
        let socket = daemon.socket.clone();
        let snapshot = std::thread::spawn(move || {
            common::Wire::connect(&socket).call("desk_snapshot", json!({"window": id}))
        });
        drop(fixture);
        let reply = snapshot.join().unwrap();
        if reply.is_error {
            let text = &reply.text;
            assert!(
                text.contains("gone")
                    || text.contains("does not exist")
                    || text.contains("no accessibility tree"),
                "an unclear error: {text}"
            );
        }
    }
    assert_eq!(daemon.call("status", json!({})).json()["daemon"], "running");
}

#[test]
fn bad_accessibility_input_is_refused_clearly() {
    require_desktop();
    let daemon = Daemon::start();
    let mut fixture = Fixture::start("a11y stale", &["--widgets"]);
    let tree = nodes(&daemon, fixture.id(), json!({}));
    let stale = the(&tree, "button", "Press me")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let bus = stale.split(':').next().unwrap().to_string();
    common::stop_child(&mut fixture.child);
    let reply = daemon.call("desk_read", json!({"id": stale}));
    assert!(reply.error().contains("is gone"), "{}", reply.text);
    let press = daemon.call("desk_press", json!({"id": stale}));
    assert!(press.error().contains("is gone"), "{}", press.text);

    let live = Fixture::start("a11y live", &[]);
    let live_tree = nodes(&daemon, live.id(), json!({}));
    let live_bus = live_tree[0]["id"]
        .as_str()
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .to_string();
    assert_ne!(bus, live_bus);
    let missing = daemon.call("desk_read", json!({"id": format!("{live_bus}:987654")}));
    assert!(missing.error().contains("is gone"), "{}", missing.text);

    let cases = [
        (
            "desk_act",
            json!({"id": live_tree[0]["id"], "action": "jump"}),
            "unknown variant `jump`",
        ),
        ("desk_read", json!({"id": "not an id"}), "is not a node id"),
        (
            "desk_snapshot",
            json!({"window": live.id(), "text": true, "max_chars": 0}),
            "max_chars must be at least 1",
        ),
        (
            "desk_at",
            json!({"x": 1919, "y": 1079}),
            "no app window is at (1919, 1079)",
        ),
        ("desk_at", json!({"x": 5000, "y": 10}), "is off the screen"),
    ];
    for (tool, args, want) in cases {
        let reply = daemon.call(tool, args.clone());
        assert!(
            reply.error().contains(want),
            "{tool} {args}: {}",
            reply.text
        );
    }

    let mut xterm = Command::new("xterm")
        .args(["-T", "a11y xterm"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("xterm to map", Duration::from_secs(10), || {
        let list = daemon.call("desk_windows", json!({})).json();
        list.as_array()
            .unwrap()
            .iter()
            .any(|w| w["title"] == "a11y xterm")
            .then_some(())
    });
    let reply = daemon.call("desk_snapshot", json!({"window": "a11y xterm"}));
    assert!(
        reply.error().contains("has no accessibility tree"),
        "{}",
        reply.text
    );
    common::stop_child(&mut xterm);
}

#[test]
fn outlines_are_cut_at_max_chars_with_a_note() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("a11y outline", &["--widgets"]);
    let full = daemon.call(
        "desk_snapshot",
        json!({"window": fixture.id(), "text": true}),
    );
    assert!(
        full.text
            .starts_with(&format!("window {} \"a11y outline\"", fixture.id())),
        "{}",
        full.text
    );
    assert!(full.text.contains("  menu bar"), "{}", full.text);
    let cut = daemon.call(
        "desk_snapshot",
        json!({"window": fixture.id(), "text": true, "max_chars": 200}),
    );
    assert!(cut.text.len() <= 200 + 200, "{}", cut.text);
    assert!(cut.text.contains("cut at"), "{}", cut.text);
}

#[test]
fn a_snapshot_holds_the_same_nodes_as_a_walk_by_pyatspi() {
    require_desktop();
    let daemon = Daemon::start();
    let factory = WidgetFactory::start(&daemon);
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/atspi_probe.py");
    // pyatspi walks first: walking makes GTK create objects (a popover's contents) that it then
    // lists under more than one parent, which a snapshot must not count twice.
    let walked: Vec<(String, String)> = serde_json::from_str(&run(
        "/usr/bin/python3",
        &[script.to_str().unwrap(), "gtk3-widget-factory", "--walk"],
    ))
    .unwrap();
    let ours = nodes(&daemon, factory.0.id(), json!({}));
    let mut theirs: Vec<(String, String)> = walked
        .into_iter()
        .map(|(role, name)| {
            (
                if role == "push button" {
                    "button".into()
                } else {
                    role
                },
                name,
            )
        })
        .collect();
    let mut mine: Vec<(String, String)> = ours
        .iter()
        .map(|n| {
            (
                n["role"].as_str().unwrap().to_string(),
                n["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    theirs.sort();
    mine.sort();
    assert_eq!(mine.len(), theirs.len(), "node counts differ");
    assert_eq!(mine, theirs);
    let mut ids: Vec<&str> = ours.iter().map(|n| n["id"].as_str().unwrap()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), ours.len(), "a node was listed twice");
}

#[test]
fn an_accessibility_bus_that_never_answers_fails_a_read_in_bounded_time() {
    require_desktop();
    // A bus that takes connections (into its backlog) and never says a word, as a stopped bus
    // daemon would.
    let scratch = common::Scratch::new("silent-bus");
    let socket = scratch.path("bus");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let address = format!("unix:path={}", socket.display());
    let daemon = Daemon::start_with(&[("AT_SPI_BUS_ADDRESS", &address)]);
    let window = Fixture::start("a11y silent bus", &[]);
    let started = std::time::Instant::now();
    let reply = daemon.call("desk_snapshot", json!({"window": window.id()}));
    let waited = started.elapsed();
    eprintln!("fault: accessibility bus silent: the call ended after {waited:?}");
    assert!(
        reply.error().contains("did not answer within 3 s"),
        "{}",
        reply.text
    );
    assert!(waited < Duration::from_secs(6), "the read took {waited:?}");
    // The rest of the desk is unaffected.
    assert_eq!(daemon.call("status", json!({})).json()["daemon"], "running");
    assert!(!daemon.call("desk_windows", json!({})).is_error);
}

#[test]
fn a_walk_keeps_to_its_node_budget_and_says_what_it_left_out() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("a11y crowded", &["--many", "300"]);
    let snapshot = |extra: Value| {
        let mut args = json!({"window": fixture.id(), "view": "all"});
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        daemon.call("desk_snapshot", args).json()
    };
    let whole = snapshot(json!({}));
    assert!(whole.get("truncated").is_none(), "{}", whole["truncated"]);
    let buttons = whole["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| {
            n["name"]
                .as_str()
                .is_some_and(|s| s.starts_with('b') && s[1..].parse::<u32>().is_ok())
        })
        .count();
    assert_eq!(buttons, 300);

    // The flow box lists 300 children, more than a budget of 100: it is not walked.
    let small = snapshot(json!({"max_nodes": 100}));
    let reason = small["truncated"]["reason"].as_str().unwrap();
    assert!(reason.contains("reports 300 children"), "{reason}");
    assert!(small["nodes"].as_array().unwrap().len() <= 100);

    // With room for the flow box but not for everything, the walk stops at the budget.
    let medium = snapshot(json!({"max_nodes": 400}));
    let truncated = &medium["truncated"];
    assert!(
        truncated["reason"]
            .as_str()
            .unwrap()
            .contains("budget of 400 nodes"),
        "{truncated}"
    );
    assert_eq!(medium["nodes"].as_array().unwrap().len(), 400);
    assert!(truncated["seen"].as_u64().unwrap() > 400, "{truncated}");
    let outline = daemon.call(
        "desk_snapshot",
        json!({"window": fixture.id(), "text": true, "max_nodes": 400, "view": "all"}),
    );
    assert!(
        outline.text.contains("truncated: the walk stopped"),
        "{}",
        outline.text
    );
    let zero = daemon.call(
        "desk_snapshot",
        json!({"window": fixture.id(), "max_nodes": 0}),
    );
    assert!(
        zero.error().contains("max_nodes must be 1 to 100000"),
        "{}",
        zero.text
    );
}

#[test]
fn set_value_replaces_an_entrys_text_and_never_a_password_unasked() {
    require_desktop();
    let daemon = Daemon::start_configured(Some("[safety]\nauth_guard = true\n"), &[]);
    let bystander = Fixture::start("a11y set bystander", &["--size", "300x200"]);
    let fixture = Fixture::start("a11y set value", &["--widgets"]);
    let tree = nodes(&daemon, fixture.id(), json!({}));
    let entry = the(&tree, "text", "Input");
    daemon
        .call("desk_type", json!({"text": "old", "window": fixture.id()}))
        .json();
    fixture.await_events("text", 3);
    let set = daemon
        .call(
            "desk_set_value",
            json!({"id": entry["id"], "value": "Ada Lovelace"}),
        )
        .json();
    assert_eq!(set["outcome"], "completed", "{set}");
    assert_eq!(
        (&set["holds"], &set["as_asked"]),
        (&json!("Ada Lovelace"), &json!(true))
    );
    // The app's own log: the whole text replaced, not typed after "old".
    wait_for(
        "the entry's text in the app",
        Duration::from_secs(5),
        || (fixture.events_of("text").last()?["text"] == "Ada Lovelace").then_some(()),
    );

    let password = the(&tree, "password text", "Password");
    let refused = daemon.call(
        "desk_set_value",
        json!({"id": password["id"], "value": "s3cret"}),
    );
    assert!(
        refused.error().contains("is a password field"),
        "{}",
        refused.text
    );
    assert!(
        fixture.events_of("secret").is_empty(),
        "nothing reached the field"
    );
    let allowed = daemon
        .call(
            "desk_set_value",
            json!({"id": password["id"], "value": "s3cret", "allow_auth": true}),
        )
        .json();
    assert_eq!(allowed["outcome"], "completed");
    assert!(
        allowed["holds"].is_null(),
        "a password is never read back: {allowed}"
    );
    let secret = fixture.await_events("secret", 1);
    assert_eq!(secret[0]["text"], "s3cret");
    // The journal keeps the value as a length and digest only.
    assert!(
        !std::fs::read_to_string(daemon.journal_path())
            .unwrap()
            .contains("s3cret")
    );
    bystander.assert_untouched();
}

#[test]
fn insert_text_and_select_text_edit_an_entry_where_asked() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("a11y insert", &["--widgets"]);
    let tree = nodes(&daemon, fixture.id(), json!({}));
    let entry = the(&tree, "text", "Input");
    let set = daemon
        .call(
            "desk_set_value",
            json!({"id": entry["id"], "value": "Lovelace"}),
        )
        .json();
    assert_eq!(set["as_asked"], true, "{set}");
    let inserted = daemon
        .call(
            "desk_insert_text",
            json!({"id": entry["id"], "text": "Ådä ", "position": 0}),
        )
        .json();
    assert_eq!(
        (&inserted["holds"], &inserted["as_asked"]),
        (&json!("Ådä Lovelace"), &json!(true))
    );
    wait_for(
        "the app to hold the inserted text",
        Duration::from_secs(5),
        || (fixture.events_of("text").last()?["text"] == "Ådä Lovelace").then_some(()),
    );
    let selected = daemon
        .call(
            "desk_select_text",
            json!({"id": entry["id"], "start": 0, "end": 3}),
        )
        .json();
    assert_eq!(
        (&selected["selected"], &selected["as_asked"]),
        (&json!("Ådä"), &json!(true)),
        "{selected}"
    );
    // The app's own proof: a typed key replaces exactly the selection.
    daemon
        .call(
            "desk_type",
            json!({"text": "Augusta", "window": fixture.id()}),
        )
        .json();
    wait_for("the selection replaced", Duration::from_secs(5), || {
        (fixture.events_of("text").last()?["text"] == "Augusta Lovelace").then_some(())
    });
    let password = the(&tree, "password text", "Password");
    let refused = daemon.call(
        "desk_select_text",
        json!({"id": password["id"], "start": 0, "end": 2}),
    );
    assert!(
        refused.error().contains("never reads a password field"),
        "{}",
        refused.text
    );
}

#[test]
fn a_snapshot_shows_what_the_app_changed_by_itself() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("a11y mutable", &["--mutable"]);
    let names = |daemon: &Daemon| -> Vec<String> {
        nodes(daemon, fixture.id(), json!({}))
            .iter()
            .map(|n| n["name"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let first = names(&daemon);
    assert!(first.contains(&"Label 0".to_string()), "{first:?}");
    assert!(!first.contains(&"Added child".to_string()), "{first:?}");
    // Unchanged, the tree is answered as kept (GTK 3 sends its events), and the same.
    let kept = |daemon: &Daemon| daemon.log().matches("tree answered as kept").count();
    let answered_as_kept = |daemon: &Daemon| {
        wait_for(
            "a snapshot answered as kept",
            Duration::from_secs(5),
            || {
                let before = kept(daemon);
                let again = names(daemon);
                (kept(daemon) > before).then_some(again)
            },
        )
    };
    assert_eq!(
        answered_as_kept(&daemon),
        first,
        "nothing changed in between"
    );

    // The app changes by itself, with no input and nothing the daemon did, and the very next
    // snapshot shows it: a label renamed, a child added, then removed.
    let signal = |name: &str| run("kill", &[&format!("-{name}"), &fixture.pid().to_string()]);
    let label = nodes(&daemon, fixture.id(), json!({}))
        .into_iter()
        .find(|n| n["name"] == "Label 0")
        .unwrap();
    signal("USR1");
    fixture.await_events("relabelled", 1);
    // Asked for changes only: the label, under the same id, and nothing else.
    let changes = |daemon: &Daemon| {
        daemon
            .call(
                "desk_snapshot",
                json!({"window": fixture.id(), "view": "all", "changes": true}),
            )
            .json()
    };
    let renamed = changes(&daemon);
    assert_eq!(renamed["nodes"].as_array().unwrap().len(), 1, "{renamed}");
    assert_eq!(renamed["nodes"][0]["id"], label["id"]);
    assert_eq!(renamed["nodes"][0]["name"], "Label 1");
    assert_eq!(renamed["changes"]["changed"], 1);
    assert_eq!(renamed["changes"]["removed"], json!([]));
    assert!(!names(&daemon).contains(&"Label 0".to_string()));
    // GTK 3 sends no event when a child is packed into a box: the kept tree's child counts
    // are what tell.
    answered_as_kept(&daemon);
    signal("USR2");
    fixture.await_events("added", 1);
    let added = names(&daemon);
    assert!(added.contains(&"Added child".to_string()), "{added:?}");
    let child = changes(&daemon);
    assert_eq!(
        child["changes"]["added"], 0,
        "the previous snapshot had it: {child}"
    );
    answered_as_kept(&daemon);
    signal("USR2");
    fixture.await_events("removed", 1);
    let removed = names(&daemon);
    assert!(!removed.contains(&"Added child".to_string()), "{removed:?}");

    // A child packed and never shown makes GTK 3 send no event at all; the whole tree lists
    // it, so a tree kept from before must not be answered.
    answered_as_kept(&daemon);
    signal("HUP");
    fixture.await_events("hidden added", 1);
    let hidden = names(&daemon);
    assert!(hidden.contains(&"Hidden child".to_string()), "{hidden:?}");

    // The window closes: the next snapshot says so.
    let id = fixture.id();
    drop(fixture);
    let gone = daemon.call("desk_snapshot", json!({"window": id, "view": "all"}));
    assert!(gone.is_error, "{}", gone.text);
}
