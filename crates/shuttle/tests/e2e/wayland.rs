//! The daemon inside a sway session (the virtual desktop's headless sway): it drives the
//! native Wayland windows itself, through `shuttle mcp` as an agent would. Each action is
//! judged by the app's own state (what the fixture writes) and by sway's own IPC, with a
//! bystander window that must get nothing.

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{Daemon, Mcp, Scratch, decode_png, result_text, wait_for};
use serde_json::{Value, json};

fn rig(name: &str) -> String {
    std::env::var(name)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| {
            panic!(
                "{name} is not set: run the tests inside scripts/desktop.sh, with sway installed"
            )
        })
}

/// A daemon started as it would be inside the person's sway session: WAYLAND_DISPLAY and
/// SWAYSOCK set, and XWayland's DISPLAY beside them.
fn sway_daemon() -> Daemon {
    Daemon::start_with(&[
        ("WAYLAND_DISPLAY", &rig("SHUTTLE_RIG_WAYLAND")),
        ("SWAYSOCK", &rig("SHUTTLE_RIG_SWAYSOCK")),
    ])
}

fn swaymsg(args: &[&str]) -> String {
    let out = Command::new("swaymsg")
        .args(["-s", &rig("SHUTTLE_RIG_SWAYSOCK")])
        .args(args)
        .output()
        .expect("swaymsg runs: run scripts/deps.sh");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What sway's own IPC says of the window titled `title`: its id and where its surface is.
fn sway_window(title: &str) -> Option<(i64, [i64; 4])> {
    let tree: Value = serde_json::from_str(&swaymsg(&["-t", "get_tree", "-r"])).ok()?;
    let mut stack = vec![tree];
    while let Some(node) = stack.pop() {
        if node["name"] == title && node["pid"].is_number() {
            let (rect, inner) = (&node["rect"], &node["window_rect"]);
            let at = |k: &str| rect[k].as_i64().unwrap() + inner[k].as_i64().unwrap();
            return Some((
                node["id"].as_i64().unwrap(),
                [
                    at("x"),
                    at("y"),
                    inner["width"].as_i64().unwrap(),
                    inner["height"].as_i64().unwrap(),
                ],
            ));
        }
        for key in ["nodes", "floating_nodes"] {
            stack.extend(node[key].as_array().cloned().unwrap_or_default());
        }
    }
    None
}

/// A native GTK 3 window of `tests/fixture/wayland_entry.py`, ended (by pid) when dropped.
struct Native(Child);

impl Native {
    /// An entry whose text the app writes whole to `file` on every change.
    fn entry(title: &str, file: &Path) -> Self {
        Self::start(title, file, &[])
    }

    /// One button; each click adds a line to `file`.
    fn button(title: &str, file: &Path) -> Self {
        Self::start(title, file, &["button"])
    }

    fn start(title: &str, file: &Path, mode: &[&str]) -> Self {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/wayland_entry.py");
        let child = Command::new("/usr/bin/python3")
            .arg(script)
            .args([title, file.to_str().unwrap()])
            .args(mode)
            .env("GDK_BACKEND", "wayland")
            .env("WAYLAND_DISPLAY", rig("SHUTTLE_RIG_WAYLAND"))
            .env_remove("DISPLAY")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 with GTK 3 starts: run scripts/deps.sh");
        wait_for(
            "the native window to show in sway",
            Duration::from_secs(10),
            || sway_window(title),
        );
        Self(child)
    }
}

impl Drop for Native {
    fn drop(&mut self) {
        common::stop_child(&mut self.0);
    }
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap_or_default()
}

fn desk(mcp: &mut Mcp, args: Value) -> Value {
    let result = mcp.call("desk", args.clone());
    let text = result_text(&result);
    assert_ne!(result["isError"], true, "{args}: {text}");
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

#[test]
fn the_daemon_in_a_sway_session_lists_its_native_windows_as_sway_does() {
    let scratch = Scratch::new("wayland-list");
    let _one = Native::entry("wl list one", &scratch.path("one"));
    let _two = Native::button("wl list two", &scratch.path("two"));
    let daemon = sway_daemon();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");

    let status = mcp.call("status", json!({}));
    let status: Value = serde_json::from_str(&result_text(&status)).unwrap();
    assert_eq!(status["desk"]["system"], "wayland", "{status}");
    assert_eq!(status["display"]["system"], "wayland", "{status}");

    let windows = desk(&mut mcp, json!({"verb": "windows"}));
    for title in ["wl list one", "wl list two"] {
        let (id, _) = sway_window(title).unwrap();
        let listed: Vec<&Value> = windows
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["title"] == title)
            .collect();
        assert_eq!(listed.len(), 1, "{title} once in {windows}");
        assert_eq!(listed[0]["id"], id.to_string(), "{windows}");
        let app = listed[0]["app"].as_str().unwrap_or_default();
        assert!(app.starts_with("python3"), "{windows}");
    }
}

#[test]
fn exact_unicode_and_shortcuts_land_in_a_native_window_and_nowhere_else() {
    let scratch = Scratch::new("wayland-type");
    let (field, bystander_log) = (scratch.path("field"), scratch.path("bystander"));
    let bystander = Native::button("wl bystander", &bystander_log);
    let _entry = Native::entry("wl typing", &field);
    let daemon = sway_daemon();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");

    let text = "Grüße, señor: naïve café ✓ 日本語 🎉 Ωμέγα";
    let typed = desk(
        &mut mcp,
        json!({"verb": "type", "window": "wl typing", "text": text}),
    );
    assert_eq!(typed["typed"], text.chars().count(), "{typed}");
    // Wayland cannot ask an app whether it read its input: the reply must not say it did.
    assert_eq!(typed["confirmed"], false, "{typed}");
    wait_for("the entry to hold the text", Duration::from_secs(5), || {
        (read(&field) == text).then_some(())
    });

    desk(
        &mut mcp,
        json!({"verb": "key", "window": "wl typing", "keys": "ctrl+a"}),
    );
    desk(
        &mut mcp,
        json!({"verb": "type", "window": "wl typing", "text": "Z"}),
    );
    wait_for(
        "ctrl+a then Z to replace the text",
        Duration::from_secs(5),
        || (read(&field) == "Z").then_some(()),
    );
    assert_eq!(read(&bystander_log), "", "the bystander got a click");
    drop(bystander);
}

#[test]
fn press_clicks_a_control_found_by_accessibility_where_sway_shows_it() {
    let scratch = Scratch::new("wayland-press");
    let (log, bystander_log) = (scratch.path("clicks"), scratch.path("bystander"));
    let _bystander = Native::button("wl press bystander", &bystander_log);
    let _target = Native::button("wl press target", &log);
    // Floating away from the corner, so that a position relative to the window would miss.
    swaymsg(&[
        "[title=\"wl press target\"] floating enable, resize set 300 120, move absolute position 700 400",
    ]);
    wait_for("sway to move the window", Duration::from_secs(5), || {
        sway_window("wl press target").filter(|(_, r)| r[0] == 700 && r[1] == 400)
    });
    let daemon = sway_daemon();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");

    let found = desk(
        &mut mcp,
        json!({"verb": "find", "window": "wl press target", "name": "wl press target", "role": "button"}),
    );
    let button = &found["nodes"][0];
    let (_, rect) = sway_window("wl press target").unwrap();
    let bounds: Vec<i64> = button["bounds"]
        .as_array()
        .unwrap_or_else(|| panic!("bounds in {found}"))
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(
        bounds, rect,
        "the button fills the window sway shows at {rect:?}"
    );

    // The move is drawn once the screen holds still; input goes by what is drawn.
    desk(&mut mcp, json!({"verb": "still"}));
    let pressed = desk(&mut mcp, json!({"verb": "press", "id": button["id"]}));
    assert_eq!(pressed["outcome"], "completed", "{pressed}");
    // A click at the centre sway shows, not the accessibility action.
    assert_eq!(pressed["how"], "clicked", "{pressed}");
    assert_eq!(
        pressed["at"],
        json!([rect[0] + rect[2] / 2, rect[1] + rect[3] / 2]),
        "{pressed}"
    );
    wait_for(
        "the click to reach the button",
        Duration::from_secs(5),
        || (read(&log) == "clicked\n").then_some(()),
    );
    assert_eq!(read(&bystander_log), "", "the bystander got a click");
}

#[test]
fn a_window_shot_of_a_native_window_is_its_size_and_a_covered_one_is_refused() {
    let scratch = Scratch::new("wayland-shot");
    let _under = Native::button("wl shot under", &scratch.path("under"));
    let _over = Native::button("wl shot over", &scratch.path("over"));
    swaymsg(&[
        "[title=\"wl shot over\"] floating enable, resize set 320 200, move absolute position 100 100",
    ]);
    wait_for("sway to float the window", Duration::from_secs(5), || {
        sway_window("wl shot over").filter(|(_, r)| r[0] == 100 && r[2] == 320)
    });
    let daemon = sway_daemon();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    desk(&mut mcp, json!({"verb": "still"}));

    let shot = mcp.call("screenshot", json!({"window": "wl shot over"}));
    let png = shot["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "image")
        .unwrap_or_else(|| panic!("an image in {shot}"))["data"]
        .as_str()
        .unwrap()
        .to_string();
    use base64::Engine as _;
    let image = decode_png(
        &base64::engine::general_purpose::STANDARD
            .decode(png)
            .unwrap(),
    );
    assert_eq!((image.0, image.1), (320, 200));

    let refused = mcp.call("screenshot", json!({"window": "wl shot under"}));
    assert_eq!(refused["isError"], true, "{refused}");
    let text = result_text(&refused);
    assert!(
        text.contains("covered by window") && text.contains("wl shot over"),
        "{text}"
    );
}

#[test]
fn the_kill_hotkey_is_bound_in_sway_and_stops_the_daemon() {
    let daemon = sway_daemon();
    let status = || -> Value {
        serde_json::from_slice(&daemon.cli(&["status"]).stdout).expect("status answers JSON")
    };
    wait_for("the hotkey to be bound", Duration::from_secs(10), || {
        (status()["safety"]["kill_hotkey"]["grabbed"] == true).then_some(())
    });
    // The person presses super+shift+Escape on a keyboard of their own.
    let pressed = Command::new("wtype")
        .args([
            "-M", "logo", "-M", "shift", "-k", "Escape", "-m", "shift", "-m", "logo",
        ])
        .env("WAYLAND_DISPLAY", rig("SHUTTLE_RIG_WAYLAND"))
        .status()
        .expect("wtype runs: run scripts/deps.sh");
    assert!(pressed.success());
    wait_for("the daemon to stop", Duration::from_secs(5), || {
        (status()["stopped"] == true).then_some(())
    });
}

/// A foot terminal whose shell copies what is typed into `file`, ended (by pid) when dropped.
struct Terminal(Child);

impl Terminal {
    fn start(title: &str, file: &Path) -> Self {
        let child = Command::new("foot")
            .args(["--title", title, "sh", "-c"])
            .arg(format!("cat > '{}'", file.display()))
            .env("WAYLAND_DISPLAY", rig("SHUTTLE_RIG_WAYLAND"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("foot starts: run scripts/deps.sh");
        wait_for(
            "the terminal to show in sway",
            Duration::from_secs(10),
            || sway_window(title),
        );
        Self(child)
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        common::stop_child(&mut self.0);
    }
}

#[test]
fn the_vision_verbs_see_and_act_on_native_windows_and_a_terminal() {
    let scratch = Scratch::new("wayland-vision");
    let (clicks, bystander_log, typed) = (
        scratch.path("clicks"),
        scratch.path("bystander"),
        scratch.path("typed"),
    );
    let _bystander = Native::button("wl vision bystander", &bystander_log);
    let _terminal = Terminal::start("wl vision foot", &typed);
    let _target = Native::button("wl vision target", &clicks);
    swaymsg(&[
        "[title=\"wl vision target\"] floating enable, resize set 400 150, move absolute position 600 300",
    ]);
    wait_for("sway to float the window", Duration::from_secs(5), || {
        sway_window("wl vision target").filter(|(_, r)| r[0] == 600 && r[2] == 400)
    });
    let daemon = sway_daemon();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    desk(&mut mcp, json!({"verb": "still"}));

    let state = result_text(&mcp.call("computer", json!({"verb": "computer_state"})));
    for title in ["wl vision bystander", "wl vision foot", "wl vision target"] {
        assert!(
            state.contains(&format!("\"{title}\"")),
            "{title} in {state}"
        );
    }
    let line = state
        .lines()
        .find(|l| l.contains("button \"wl vision target\""))
        .unwrap_or_else(|| panic!("the target's button among the elements: {state}"));
    let index: u64 = line
        .trim()
        .trim_start_matches('[')
        .split(']')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let clicked = mcp.call(
        "computer",
        json!({"verb": "computer_act", "action": "click", "element": index}),
    );
    let reply = result_text(&clicked);
    assert_ne!(clicked["isError"], true, "{reply}");
    assert!(
        reply.contains("cannot ask an app whether it read"),
        "{reply}"
    );
    wait_for(
        "the click to reach the target",
        Duration::from_secs(5),
        || (read(&clicks) == "clicked\n").then_some(()),
    );

    // The terminal: clicked by where it shows in the screenshot, then typed into.
    let scale = state
        .split("scale ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("a scale in {state}"));
    let (_, rect) = sway_window("wl vision foot").unwrap();
    let at = |v: i64| (v as f64 / scale).round() as i64;
    let text = "héllo ✓ 日本\n";
    let acted = mcp.call(
        "computer",
        json!({"verb": "computer_act", "actions": [
            {"action": "click", "x": at(rect[0] + 40), "y": at(rect[1] + 40)},
            {"action": "type", "text": text}
        ]}),
    );
    assert_ne!(acted["isError"], true, "{}", result_text(&acted));
    wait_for(
        "the terminal's shell to get the line",
        Duration::from_secs(5),
        || (read(&typed) == text).then_some(()),
    );
    assert_eq!(read(&bystander_log), "", "the bystander got a click");
}
