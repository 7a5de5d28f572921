//! The daemon inside a sway session (the virtual desktop's headless sway): it drives the
//! native Wayland windows itself, through `shuttle mcp` as an agent would. Each action is
//! judged by the app's own state (what the fixture writes) and by sway's own IPC, with a
//! bystander window that must get nothing.

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{Daemon, Mcp, Scratch, result_png, result_text, wait_for};
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
    sway_daemon_configured(None)
}

/// The same, with `config` as its config.toml.
fn sway_daemon_configured(config: Option<&str>) -> Daemon {
    Daemon::start_configured(
        config,
        &[
            ("WAYLAND_DISPLAY", &rig("SHUTTLE_RIG_WAYLAND")),
            ("SWAYSOCK", &rig("SHUTTLE_RIG_SWAYSOCK")),
        ],
    )
}

fn swaymsg(args: &[&str]) -> String {
    let out = Command::new("swaymsg")
        .args(["-s", &rig("SHUTTLE_RIG_SWAYSOCK")])
        .args(args)
        .output()
        .expect("swaymsg runs: run scripts/deps.sh");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The node of sway's own tree for the window titled `title`.
fn sway_node(title: &str) -> Option<Value> {
    let tree: Value = serde_json::from_str(&swaymsg(&["-t", "get_tree", "-r"])).ok()?;
    let mut stack = vec![tree];
    while let Some(node) = stack.pop() {
        if node["name"] == title && node["pid"].is_number() {
            return Some(node);
        }
        for key in ["nodes", "floating_nodes"] {
            stack.extend(node[key].as_array().cloned().unwrap_or_default());
        }
    }
    None
}

/// What sway's own IPC says of the window titled `title`: its id and where its surface is.
fn sway_window(title: &str) -> Option<(i64, [i64; 4])> {
    let node = sway_node(title)?;
    let (rect, inner) = (&node["rect"], &node["window_rect"]);
    let at = |k: &str| rect[k].as_i64().unwrap() + inner[k].as_i64().unwrap();
    Some((
        node["id"].as_i64().unwrap(),
        [
            at("x"),
            at("y"),
            inner["width"].as_i64().unwrap(),
            inner["height"].as_i64().unwrap(),
        ],
    ))
}

/// Floats window `title` at `rect` (x, y, width, height of its surface) and waits until sway
/// has held it there for a while. An app may commit the size of an earlier configure after
/// the latest, which a floating window then takes: the request is sent again until it holds.
fn float(title: &str, rect: [i64; 4]) {
    let [x, y, w, h] = rect;
    let command = format!(
        "[title=\"{title}\"] floating enable, resize set {w} {h}, move absolute position {x} {y}"
    );
    let mut asked: Option<std::time::Instant> = None;
    let mut held: Option<std::time::Instant> = None;
    wait_for(
        "sway to hold the window in place",
        Duration::from_secs(10),
        || {
            if asked.is_none_or(|at| at.elapsed() >= Duration::from_secs(1)) {
                swaymsg(&[&command]);
                asked = Some(std::time::Instant::now());
            }
            if sway_window(title).is_some_and(|(_, r)| r == rect) {
                let since = *held.get_or_insert_with(std::time::Instant::now);
                (since.elapsed() >= Duration::from_millis(300)).then_some(())
            } else {
                held = None;
                None
            }
        },
    );
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

    /// An area; each wheel notch adds its direction as a line to `file`.
    fn wheel(title: &str, file: &Path) -> Self {
        Self::start(title, file, &["scroll"])
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
    common::desk_tool(mcp, args.clone()).unwrap_or_else(|text| panic!("{args}: {text}"))
}

#[test]
fn the_daemon_in_a_sway_session_lists_its_native_windows_as_sway_does() {
    let scratch = Scratch::new("wayland-list");
    let _one = Native::entry("wl list one", &scratch.path("one"));
    let _two = Native::button("wl list two", &scratch.path("two"));
    let daemon = sway_daemon();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");

    let windows = desk(&mut mcp, json!({"verb": "windows"}));
    // Read after the first call, which connects the desk.
    let status = mcp.call("status", json!({}));
    let status: Value = serde_json::from_str(&result_text(&status)).unwrap();
    assert_eq!(status["desk"]["system"], "wayland", "{status}");
    assert_eq!(status["display"]["system"], "wayland", "{status}");

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
fn exact_unicode_shortcuts_and_the_clipboard_land_in_a_native_window_and_nowhere_else() {
    let scratch = Scratch::new("wayland-type");
    let (field, bystander_log) = (scratch.path("field"), scratch.path("bystander"));
    let bystander = Native::button("wl bystander", &bystander_log);
    let _entry = Native::entry("wl typing", &field);
    let daemon = sway_daemon_configured(Some(crate::clipboard::ON));
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");

    let text = "Grüße, señor: naïve café ✓ 日本語 🎉 Ωμέγα";
    let typed = desk(
        &mut mcp,
        json!({"verb": "type", "window": "wl typing", "text": text}),
    );
    assert_eq!(typed["typed"], text.chars().count(), "{typed}");
    // Wayland cannot ask an app whether it read its input: the reply must not say it did.
    assert_eq!(typed["app_answer"], "unknown", "{typed}");
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
    crate::clipboard::both_ways(&mut mcp, "wl typing", &field, "Z");
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
    float("wl press target", [700, 400, 300, 120]);
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

/// An agent's private sway seat, reached as the person's tools would: its IPC socket and its
/// Wayland socket, found in the runtime directory of its sway (process `pid`).
struct SeatSway {
    ipc: String,
    wayland: String,
}

impl SeatSway {
    fn of(pid: i64) -> Self {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
        let dir = environ
            .split(|&b| b == 0)
            .find_map(|v| v.strip_prefix(b"XDG_RUNTIME_DIR="))
            .map(|d| String::from_utf8_lossy(d).into_owned())
            .expect("the seat's sway has a runtime directory");
        let find = |prefix: &str| {
            std::fs::read_dir(&dir)
                .unwrap()
                .filter_map(Result::ok)
                .map(|e| e.path())
                .find(|p| {
                    let name = p.file_name().unwrap().to_string_lossy();
                    name.starts_with(prefix) && !name.ends_with(".lock")
                })
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| panic!("no {prefix}* in {dir}"))
        };
        Self {
            ipc: find("sway-ipc."),
            wayland: find("wayland-"),
        }
    }

    fn msg(&self, args: &[&str]) -> String {
        let out = Command::new("swaymsg")
            .args(["-s", &self.ipc])
            .args(args)
            .output()
            .expect("swaymsg runs: run scripts/deps.sh");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn outputs(&self) -> Vec<Value> {
        serde_json::from_str::<Value>(&self.msg(&["-t", "get_outputs", "-r"]))
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }

    /// Where the window titled `title` is: x, y, width, height of its surface.
    fn window(&self, title: &str) -> Option<[i64; 4]> {
        let tree: Value = serde_json::from_str(&self.msg(&["-t", "get_tree", "-r"])).ok()?;
        let mut stack = vec![tree];
        while let Some(node) = stack.pop() {
            if node["name"] == title && node["pid"].is_number() {
                let (rect, inner) = (&node["rect"], &node["window_rect"]);
                let at = |k: &str| rect[k].as_i64().unwrap() + inner[k].as_i64().unwrap();
                return Some([
                    at("x"),
                    at("y"),
                    inner["width"].as_i64().unwrap(),
                    inner["height"].as_i64().unwrap(),
                ]);
            }
            for key in ["nodes", "floating_nodes"] {
                stack.extend(node[key].as_array().cloned().unwrap_or_default());
            }
        }
        None
    }
}

/// A second output, scaled twice, beside the first, on an agent's own sway seat (sway 1.7
/// cannot unplug an output from the shared one): a shot of a window on it is that window as
/// grim sees it at one pixel per layout point, and a press on its button lands there, as the
/// app's own log says; a bystander on the first output gets nothing.
#[test]
fn a_second_scaled_output_is_shot_and_pressed_in_layout_points() {
    use crate::private_display::{per_agent, seats};
    let daemon = per_agent("private_seat = \"sway\"");
    let scratch = daemon.shared_scratch("wayland-outputs");
    let (log, bystander_log) = (scratch.path("clicks"), scratch.path("bystander"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/wayland_entry.py");
    let mut wire = common::Wire::connect_as(&daemon.socket, "agent-outputs");
    let launch = |wire: &mut common::Wire, title: &str, file: &Path| {
        let launched = wire.call(
            "desk_launch",
            json!({"app": "/usr/bin/python3", "args": [script, title, file, "button"]}),
        );
        assert!(!launched.is_error, "{}", launched.text);
    };
    launch(&mut wire, "wl outputs bystander", &bystander_log);
    let sway = SeatSway::of(seats(&daemon)["agent-outputs"].1);
    let first = sway.outputs()[0]["rect"]["width"].as_i64().unwrap();
    sway.msg(&["create_output"]);
    let name = wait_for("sway to make the output", Duration::from_secs(5), || {
        let outputs = sway.outputs();
        (outputs.len() == 2).then(|| outputs[1]["name"].as_str().unwrap().to_string())
    });
    sway.msg(&[&format!(
        "output {name} mode 1000x800 position {first} 0 scale 2"
    )]);
    sway.msg(&[&format!("focus output {name}")]);
    launch(&mut wire, "wl outputs target", &log);
    let rect = [first + 60, 50, 300, 150];
    let [x, y, w, h] = rect;
    let command = format!(
        "[title=\"wl outputs target\"] floating enable, resize set {w} {h}, move absolute position {x} {y}"
    );
    wait_for(
        "sway to hold the window on the output",
        Duration::from_secs(10),
        || {
            sway.msg(&[&command]);
            std::thread::sleep(Duration::from_millis(300));
            (sway.window("wl outputs target") == Some(rect)).then_some(())
        },
    );
    wire.call("desk_still", json!({}));

    let shot = wire.call("desk_shot", json!({"x": x, "y": y, "w": w, "h": h}));
    let ours = common::decode_png(
        shot.image
            .as_ref()
            .unwrap_or_else(|| panic!("{}", shot.text)),
    );
    assert_eq!((ours.0, ours.1), (300, 150));
    let grim = scratch.path("grim.png");
    let status = Command::new("grim")
        .args([
            "-s",
            "1",
            "-g",
            &format!("{x},{y} {w}x{h}"),
            grim.to_str().unwrap(),
        ])
        .env("WAYLAND_DISPLAY", &sway.wayland)
        .status()
        .expect("grim runs: run scripts/deps.sh");
    assert!(status.success());
    let theirs = common::decode_png(&std::fs::read(&grim).unwrap());
    assert_eq!((theirs.0, theirs.1), (300, 150));
    let differ: u64 = ours
        .2
        .iter()
        .zip(&theirs.2)
        .map(|(a, b)| u64::from(a.abs_diff(*b)))
        .sum();
    let mean = differ as f64 / ours.2.len() as f64;
    assert!(
        mean < 8.0,
        "the shot differs from grim's by {mean} a channel"
    );

    let found = wire.call(
        "desk_find",
        json!({"window": "wl outputs target", "name": "wl outputs target", "role": "button"}),
    );
    let pressed = wire
        .call("desk_press", json!({"id": found.json()["nodes"][0]["id"]}))
        .json();
    assert_eq!(pressed["how"], "clicked", "{pressed}");
    assert_eq!(pressed["at"], json!([x + w / 2, y + h / 2]), "{pressed}");
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
    float("wl shot over", [100, 100, 320, 200]);
    let daemon = sway_daemon();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    desk(&mut mcp, json!({"verb": "still"}));

    let image = result_png(&mcp.call("screenshot", json!({"window": "wl shot over"})));
    assert_eq!((image.0, image.1), (320, 200));

    let refused = mcp.call("screenshot", json!({"window": "wl shot under"}));
    assert_eq!(refused["isError"], true, "{refused}");
    let text = result_text(&refused);
    assert!(
        text.contains("covered by window") && text.contains("wl shot over"),
        "{text}"
    );
}

/// Waits for `daemon` to bind its kill hotkey, presses it in sway as the person would, on a
/// keyboard of their own, and waits for the daemon to stop.
fn the_kill_hotkey_stops(daemon: &Daemon) {
    let status = || -> Value {
        serde_json::from_slice(&daemon.cli(&["status"]).stdout).expect("status answers JSON")
    };
    wait_for("the hotkey to be bound", Duration::from_secs(10), || {
        (status()["safety"]["kill_hotkey"]["grabbed"] == true).then_some(())
    });
    let pressed = Command::new("wtype")
        .args([
            "-M", "logo", "-M", "alt", "-k", "Escape", "-m", "alt", "-m", "logo",
        ])
        .env("WAYLAND_DISPLAY", rig("SHUTTLE_RIG_WAYLAND"))
        .status()
        .expect("wtype runs: run scripts/deps.sh");
    assert!(pressed.success());
    wait_for("the daemon to stop", Duration::from_secs(5), || {
        (status()["stopped"] == true).then_some(())
    });
}

#[test]
fn the_kill_hotkey_is_bound_in_sway_and_stops_the_daemon() {
    let daemon = sway_daemon();
    the_kill_hotkey_stops(&daemon);
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
    float("wl vision target", [600, 300, 400, 150]);
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
    let index = common::element_index(&state, "button \"wl vision target\"");
    let clicked = mcp.call(
        "computer",
        json!({"verb": "computer_act", "action": "click", "element": index}),
    );
    let reply = result_text(&clicked);
    assert_ne!(clicked["isError"], true, "{reply}");
    assert!(
        reply.contains("the app cannot be asked whether it read it"),
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

#[test]
fn agents_on_sway_seats_type_at_once_natively_and_nothing_reaches_the_persons_sessions() {
    use crate::private_display::{per_agent, seats};
    let mut daemon = per_agent("private_seat = \"sway\"");
    let scratch = daemon.shared_scratch("wayland-seats");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/wayland_entry.py");
    let agents = [
        ("agent-a", "Ålpha ✓ ünïcödé 一二三", scratch.path("a")),
        ("agent-b", "βeta → ñ 四五六 😀", scratch.path("b")),
    ];
    let mut wires: Vec<common::Wire> = agents
        .iter()
        .map(|(agent, _, _)| common::Wire::connect_as(&daemon.socket, agent))
        .collect();
    for ((agent, _, file), wire) in agents.iter().zip(&mut wires) {
        let title = format!("Entry of {agent}");
        let launched = wire.call(
            "desk_launch",
            json!({"app": "/usr/bin/python3", "args": [script, title, file]}),
        );
        assert!(!launched.is_error, "{}", launched.text);
        assert_eq!(
            launched.json()["window"]["title"],
            title,
            "{}",
            launched.text
        );
    }
    let seats = seats(&daemon);
    assert_eq!(seats.len(), 2, "{seats:?}");
    assert_ne!(seats["agent-a"].0, seats["agent-b"].0);
    let status = daemon.call("status", json!({})).json();
    assert_eq!(status["display"]["seats"], "sway", "{status}");

    let typers: Vec<_> = agents
        .iter()
        .zip(wires)
        .map(|((agent, text, _), mut wire)| {
            let (agent, text) = (agent.to_string(), text.to_string());
            std::thread::spawn(move || {
                let typed = wire.call(
                    "desk_type",
                    json!({"window": format!("Entry of {agent}"), "text": text}),
                );
                assert!(!typed.is_error, "{}", typed.text);
                wire
            })
        })
        .collect();
    let mut wires: Vec<common::Wire> = typers.into_iter().map(|t| t.join().unwrap()).collect();
    for ((agent, text, file), wire) in agents.iter().zip(&mut wires) {
        wait_for(
            "the agent's text in its entry",
            Duration::from_secs(5),
            || (read(file) == *text).then_some(()),
        );
        // The seat's own accessibility bus reads the same text back.
        let tree = wire.call(
            "desk_snapshot",
            json!({"window": format!("Entry of {agent}")}),
        );
        assert!(tree.text.contains(text), "{}", tree.text);
    }
    // Neither the person's sway nor their X display shows an agent's window.
    for (agent, _, _) in &agents {
        let title = format!("Entry of {agent}");
        assert!(
            sway_window(&title).is_none(),
            "{title} reached the person's sway"
        );
        assert!(
            !common::window_list().contains(&title),
            "{title} reached the person's X display"
        );
    }

    // A daemon killed outright leaves its seats behind; the next one ends them.
    let leaders: Vec<i64> = seats.values().map(|(_, pid)| *pid).collect();
    let runtimes: Vec<std::path::PathBuf> = seats
        .values()
        .map(|(socket, _)| Path::new(socket).parent().unwrap().to_path_buf())
        .collect();
    daemon.kill_and_restart();
    wait_for(
        "the seats' compositors to end",
        Duration::from_secs(10),
        || leaders.iter().all(|pid| !common::alive(pid)).then_some(()),
    );
    for runtime in runtimes {
        assert!(!runtime.exists(), "{} was left behind", runtime.display());
    }
}

/// How many pixels of the marker's red the top right corner of the screen shows.
fn red_in_corner(mcp: &mut Mcp) -> usize {
    let (_, _, pixels) = result_png(&mcp.call(
        "desk",
        json!({"verb": "shot", "x": 1920 - 40, "y": 0, "w": 40, "h": 40}),
    ));
    pixels
        .chunks(3)
        .filter(|p| p[0] > 200 && p[1] < 60 && p[2] < 60)
        .count()
}

#[test]
fn the_marker_shows_on_sway_while_an_agent_acts_and_lets_clicks_through() {
    let scratch = Scratch::new("wayland-marker");
    let clicks = scratch.path("clicks");
    let _button = Native::button("wl marker", &clicks);
    let daemon = sway_daemon();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    desk(&mut mcp, json!({"verb": "still"}));
    assert_eq!(red_in_corner(&mut mcp), 0, "no marker before any action");

    desk(
        &mut mcp,
        json!({"verb": "key", "window": "wl marker", "keys": "shift"}),
    );
    wait_for("the marker to show", Duration::from_secs(3), || {
        (red_in_corner(&mut mcp) > 100).then_some(())
    });
    // A click on the marker reaches the window under it.
    let (_, rect) = sway_window("wl marker").unwrap();
    assert!(
        rect[0] + rect[2] >= 1920 && rect[1] <= 4,
        "the window reaches under the marker: {rect:?}"
    );
    desk(
        &mut mcp,
        json!({"verb": "click", "x": 1920 - 4 - 9, "y": 4 + 9}),
    );
    wait_for(
        "the click to reach the window under the marker",
        Duration::from_secs(5),
        || (read(&clicks) == "clicked\n").then_some(()),
    );
    wait_for("the marker to go", Duration::from_secs(5), || {
        (red_in_corner(&mut mcp) == 0).then_some(())
    });
}

#[test]
fn a_daemon_with_seats_of_its_own_in_a_sway_session_binds_the_hotkey_there_and_its_apps_get_nothing_of_sway()
 {
    let daemon = Daemon::start_configured(
        Some("[daemon]\ndisplay = \"per-agent\"\n"),
        &[
            ("WAYLAND_DISPLAY", &rig("SHUTTLE_RIG_WAYLAND")),
            ("SWAYSOCK", &rig("SHUTTLE_RIG_SWAYSOCK")),
            ("I3SOCK", &rig("SHUTTLE_RIG_SWAYSOCK")),
        ],
    );
    // An app on an agent's X display sees nothing of the person's sway session.
    let scratch = daemon.shared_scratch("wayland-seat-env");
    let env_file = scratch.path("env");
    let mut wire = common::Wire::connect_as(&daemon.socket, "agent-env");
    wire.call(
        "desk_launch",
        json!({"app": "/bin/sh", "args": ["-c", format!("env > '{}'", env_file.display())]}),
    );
    let env = wait_for("the app's environment", Duration::from_secs(10), || {
        Some(read(&env_file)).filter(|e| e.contains("DISPLAY="))
    });
    let persons_runtime = std::env::var("XDG_RUNTIME_DIR").unwrap_or_default();
    for line in env.lines() {
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        assert!(
            !["WAYLAND_DISPLAY", "SWAYSOCK", "I3SOCK"].contains(&key),
            "{line} reached an agent's app"
        );
        if key == "XDG_RUNTIME_DIR" {
            assert_ne!(
                value, persons_runtime,
                "the person's runtime directory reached an agent's app"
            );
        }
    }

    // The kill hotkey is bound in the person's sway, where they press it.
    the_kill_hotkey_stops(&daemon);
}

#[test]
fn set_frame_places_a_titled_native_window_exactly_as_sway_shows_it() {
    let scratch = Scratch::new("wayland-frame");
    let _window = Native::button("wl frame", &scratch.path("clicks"));
    swaymsg(&["[title=\"wl frame\"] border normal 2"]);
    let daemon = sway_daemon();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let set = desk(
        &mut mcp,
        json!({"verb": "set_frame", "window": "wl frame", "x": 400, "y": 300, "width": 300, "height": 200}),
    );
    assert_eq!(set["frame"], json!([400, 300, 300, 200]), "{set}");
    // What sway itself shows: the title bar at the top left asked, the whole frame that size.
    let node = sway_node("wl frame").expect("the window in sway's tree");
    let (rect, deco) = (&node["rect"], &node["deco_rect"]);
    assert_eq!(
        (deco["x"].as_i64(), deco["y"].as_i64()),
        (Some(400), Some(300)),
        "{node}"
    );
    assert_eq!(rect["width"], 300, "{node}");
    assert_eq!(
        rect["height"].as_i64().unwrap() + deco["height"].as_i64().unwrap(),
        200,
        "{node}"
    );
    let client = set["client"].as_array().unwrap();
    assert_eq!(
        client[1],
        rect["y"].as_i64().unwrap() + node["window_rect"]["y"].as_i64().unwrap()
    );
}

#[test]
fn scroll_turns_the_wheel_notch_by_notch_in_the_native_window_under_the_point() {
    let scratch = Scratch::new("wayland-scroll");
    let (notches, bystander_log) = (scratch.path("notches"), scratch.path("bystander"));
    let _bystander = Native::button("wl scroll bystander", &bystander_log);
    let _area = Native::wheel("wl scroll area", &notches);
    float("wl scroll area", [500, 300, 400, 300]);
    let daemon = sway_daemon();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    desk(&mut mcp, json!({"verb": "still"}));
    for (direction, amount) in [("down", 3), ("up", 2)] {
        let scrolled = desk(
            &mut mcp,
            json!({"verb": "scroll", "direction": direction, "amount": amount, "x": 700, "y": 450}),
        );
        assert_eq!(scrolled["amount"], amount, "{scrolled}");
    }
    wait_for(
        "the area to count every notch",
        Duration::from_secs(5),
        || (read(&notches) == "down\ndown\ndown\nup\nup\n").then_some(()),
    );
    assert_eq!(read(&bystander_log), "", "the bystander got input");
}
