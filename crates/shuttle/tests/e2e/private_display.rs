//! End to end: `[daemon] display = "private"`. The rig's display plays the person's, with a
//! window of theirs, a known pointer position and input focus; the daemon starts a display of
//! its own, and the agent launches and types there through the real MCP server. Judged by the
//! fixture's own log, the person's X server (QueryPointer, GetInputFocus, its window list) and
//! which processes are still alive.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::ConnectionExt;

const PRIVATE: &str = "[daemon]\ndisplay = \"private\"\n";

/// The person's pointer position and input focus, read from their X server.
fn pointer_and_focus() -> ((i16, i16), u32) {
    let (conn, screen) = x11rb::connect(None).unwrap();
    let root = conn.setup().roots[screen].root;
    let pointer = conn.query_pointer(root).unwrap().reply().unwrap();
    let focus = conn.get_input_focus().unwrap().reply().unwrap();
    ((pointer.root_x, pointer.root_y), focus.focus)
}

/// A window on the person's display with their focus, and their pointer at `x`,`y`; answers
/// the window and that pointer position and focus.
fn persons_window_with_pointer_at(x: i16, y: i16) -> (Fixture, ((i16, i16), u32)) {
    let window = Fixture::start("Person's Window", &[]);
    run("wmctrl", &["-i", "-a", &window.id()]);
    run("xdotool", &["mousemove", &x.to_string(), &y.to_string()]);
    let now = wait_for("the person's focus", Duration::from_secs(5), || {
        let now = pointer_and_focus();
        (now.0 == (x, y) && now.1 > 1).then_some(now)
    });
    (window, now)
}

fn display_status(daemon: &Daemon) -> Value {
    daemon.call("status", json!({})).json()["display"].clone()
}

/// Launches the fixture on the daemon's display through `desk_launch`; answers its pid.
fn launch_fixture(daemon: &Daemon, title: &str, log: &Path) -> i64 {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/fixture.py");
    let reply = daemon.call(
        "desk_launch",
        json!({"app": "/usr/bin/python3", "args": [script, "--title", title, "--log", log]}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    let pid = reply.json()["pid"].as_i64().unwrap();
    wait_for(
        "the fixture on the private display",
        Duration::from_secs(20),
        || {
            std::fs::read_to_string(log)
                .unwrap_or_default()
                .contains("\"ready\"")
                .then_some(())
        },
    );
    pid
}

fn log_events(log: &Path, kind: &str) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == kind)
        .collect()
}

#[test]
fn an_agent_on_a_private_display_leaves_the_persons_display_untouched() {
    require_desktop();
    let (bystander, before) = persons_window_with_pointer_at(123, 321);

    let daemon = Daemon::start_configured(Some(PRIVATE), &[]);
    let display = display_status(&daemon);
    assert_eq!(display["mode"], "private", "{display}");
    let person = std::env::var("DISPLAY").unwrap();
    assert_eq!(display["person"], person.as_str());
    assert_ne!(display["name"], person.as_str(), "{display}");

    let scratch = daemon.shared_scratch("private-display");
    let log = scratch.path("agent.log");
    let app = launch_fixture(&daemon, "Agent's Window", &log);
    let mut mcp = Mcp::start(
        &daemon.socket,
        &[("SHUTTLE_CONFIG", daemon.config_path().to_str().unwrap())],
    );
    mcp.initialize("2025-06-18");
    let text = "privé ✓ 日本";
    let result = mcp.call(
        "desk",
        json!({"verb": "type", "window": "Agent's Window", "text": text}),
    );
    assert_ne!(result["isError"], json!(true), "{result}");
    wait_for(
        "the text in the agent's fixture",
        Duration::from_secs(10),
        || {
            log_events(&log, "text")
                .iter()
                .any(|e| e["text"] == text)
                .then_some(())
        },
    );

    // The person's display never saw the agent's window, and nothing of theirs moved.
    assert!(!window_list().contains("Agent's Window"));
    bystander.assert_untouched();
    assert_eq!(
        pointer_and_focus(),
        before,
        "the person's pointer or focus moved"
    );

    // The display, its buses and the agent's app end with the daemon.
    let server = display["group"].as_i64().unwrap();
    assert!(alive(server) && alive(app));
    let mut daemon = daemon;
    stop_child(&mut daemon.child);
    wait_for(
        "the private display to end",
        Duration::from_secs(10),
        || (!alive(server) && !alive(app)).then_some(()),
    );
}

#[test]
fn a_killed_daemons_private_display_is_reaped_by_the_next_daemon() {
    require_desktop();
    let mut daemon = Daemon::start_configured(Some(PRIVATE), &[]);
    let first = display_status(&daemon);
    let server = first["group"].as_i64().unwrap();
    let scratch = daemon.shared_scratch("private-reap");
    let app = launch_fixture(&daemon, "Left Behind", &scratch.path("left.log"));

    daemon.kill_and_restart();
    // The new daemon reaps before it listens: nothing of the old display is left.
    assert!(!alive(server), "the old X server {server} is still running");
    assert!(!alive(app), "the old display's app {app} is still running");
    let second = display_status(&daemon);
    assert_eq!(second["mode"], "private");
    let windows = daemon.call("desk_windows", json!({}));
    assert!(!windows.is_error, "{}", windows.text);
    assert!(!windows.text.contains("Left Behind"), "{}", windows.text);
}

#[test]
fn a_private_display_without_xvfb_names_the_package_and_the_daemon_does_not_start() {
    let scratch = Scratch::new("no-xvfb");
    let empty = scratch.path("bin");
    std::fs::create_dir_all(&empty).unwrap();
    let out = Command::new(SHUTTLE)
        .args(["serve", "--foreground", "--display", "private"])
        .env("SHUTTLE_SOCKET", scratch.path("desk.sock"))
        .env("SHUTTLE_CONFIG", scratch.path("config.toml"))
        .env("XDG_STATE_HOME", scratch.path("state"))
        .env("PATH", &empty)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Xvfb is not installed: install the Debian package xvfb"),
        "{stderr}"
    );
    assert!(!scratch.path("desk.sock").exists());
}

pub(crate) fn per_agent(extra: &str) -> Daemon {
    Daemon::start_configured(
        Some(&format!("[daemon]\ndisplay = \"per-agent\"\n{extra}")),
        &[],
    )
}

/// The agents' seats, as `status` lists them: agent → (display, X server pid).
pub(crate) fn seats(daemon: &Daemon) -> std::collections::HashMap<String, (String, i64)> {
    let status = daemon.call("status", json!({})).json();
    status["agents"]["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["agent"].as_str().unwrap().to_string(),
                (
                    a["display"].as_str().unwrap().to_string(),
                    a["server_pid"].as_i64().unwrap(),
                ),
            )
        })
        .collect()
}

pub(crate) fn launch_as(wire: &mut Wire, title: &str, log: &Path) -> i64 {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/fixture.py");
    let reply = wire.call(
        "desk_launch",
        json!({"app": "/usr/bin/python3", "args": [script, "--title", title, "--log", log]}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    wait_for("the agent's fixture", Duration::from_secs(20), || {
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .contains("\"ready\"")
            .then_some(())
    });
    reply.json()["pid"].as_i64().unwrap()
}

#[test]
fn two_agents_type_different_texts_at_once_each_on_a_display_of_its_own() {
    require_desktop();
    let (bystander, before) = persons_window_with_pointer_at(222, 111);
    let daemon = per_agent("");
    let scratch = daemon.shared_scratch("per-agent");
    let agents = [
        ("agent-a", "Ålpha ✓ ünïcödé 一二三", scratch.path("a.log")),
        ("agent-b", "βeta → ñ 四五六 😀", scratch.path("b.log")),
    ];
    let mut wires: Vec<Wire> = agents
        .iter()
        .map(|(agent, _, _)| Wire::connect_as(&daemon.socket, agent))
        .collect();
    for ((agent, _, log), wire) in agents.iter().zip(&mut wires) {
        launch_as(wire, &format!("Window of {agent}"), log);
    }
    let seats = seats(&daemon);
    assert_eq!(seats.len(), 2, "{seats:?}");
    assert_ne!(seats["agent-a"].0, seats["agent-b"].0);
    // With two displays held, each reply names the display it ran on.
    for ((agent, _, _), wire) in agents.iter().zip(&mut wires) {
        let screen = wire.call("desk_screen", json!({})).json();
        assert_eq!(screen["display"], seats[*agent].0, "{agent}: {screen}");
    }
    // Each agent sees its own window only.
    let listed = wires[0].call("desk_windows", json!({})).text;
    assert!(
        listed.contains("Window of agent-a") && !listed.contains("agent-b"),
        "{listed}"
    );

    let typers: Vec<_> = agents
        .iter()
        .zip(wires)
        .map(|((agent, text, _), mut wire)| {
            let (agent, text) = (agent.to_string(), text.to_string());
            std::thread::spawn(move || {
                wire.call(
                    "desk_type",
                    json!({"window": format!("Window of {agent}"), "text": text}),
                )
            })
        })
        .collect();
    for typer in typers {
        let reply = typer.join().unwrap();
        assert!(!reply.is_error, "{}", reply.text);
    }
    for (agent, text, log) in &agents {
        let typed: Vec<Value> = log_events(log, "text");
        assert!(
            typed.iter().any(|e| e["text"] == *text),
            "{agent}'s text did not land whole: {typed:?}"
        );
    }
    bystander.assert_untouched();
    assert_eq!(
        pointer_and_focus(),
        before,
        "the person's pointer or focus moved"
    );
}

#[test]
fn the_display_cap_is_named_and_a_dead_display_is_replaced_on_the_next_call() {
    require_desktop();
    let daemon = per_agent("displays_max = 1\n");
    let mut first = Wire::connect_as(&daemon.socket, "first");
    let windows = first.call("desk_windows", json!({}));
    assert!(!windows.is_error, "{}", windows.text);
    // With one display, replies need not name it.
    let screen = first.call("desk_screen", json!({})).json();
    assert_eq!(screen.get("display"), None, "{screen}");
    let mut second = Wire::connect_as(&daemon.socket, "second");
    let refused = second.call("desk_windows", json!({}));
    assert!(refused.is_error);
    assert!(
        refused.text.contains("displays_max = 1") && refused.text.contains("first"),
        "{}",
        refused.text
    );

    let (display, server) = seats(&daemon)["first"].clone();
    // SAFETY: the X server pid the daemon reports for the agent's display.
    unsafe { libc::kill(server as i32, libc::SIGKILL) };
    wait_for("the X server to die", Duration::from_secs(5), || {
        (!alive(server)).then_some(())
    });
    let died = first.call("desk_windows", json!({}));
    assert!(died.is_error);
    assert!(
        died.text.contains(&display) && died.text.contains("died"),
        "{}",
        died.text
    );
    let fresh = first.call("desk_windows", json!({}));
    assert!(!fresh.is_error, "{}", fresh.text);
    assert_ne!(seats(&daemon)["first"].0, "", "a fresh display");
}

#[test]
fn an_agents_display_ends_with_its_mcp_session() {
    require_desktop();
    let daemon = per_agent("");
    let scratch = daemon.shared_scratch("session-end");
    let log = scratch.path("app.log");
    let mut mcp = Mcp::start(
        &daemon.socket,
        &[("SHUTTLE_CONFIG", daemon.config_path().to_str().unwrap())],
    );
    mcp.initialize("2025-06-18");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/fixture.py");
    let result = mcp.call(
        "desk",
        json!({"verb": "launch", "app": "/usr/bin/python3", "args": [script, "--title", "Session App", "--log", log]}),
    );
    assert_ne!(result["isError"], json!(true), "{result}");
    let app: Value = serde_json::from_str(&result_text(&result)).unwrap();
    let app = app["pid"].as_i64().unwrap();
    let seats = seats(&daemon);
    let (_, server) = seats.values().next().unwrap().clone();
    assert!(alive(server) && alive(app));
    drop(mcp);
    wait_for(
        "the session's display to end",
        Duration::from_secs(15),
        || (!alive(server) && !alive(app)).then_some(()),
    );
}

/// The confirm dialog on the person's display.
fn dialog() -> String {
    confirm_dialog(Duration::from_secs(10))
}

#[test]
fn confirm_asks_on_the_persons_display_for_an_agent_on_its_own_and_the_journal_names_it() {
    require_desktop();
    let daemon = per_agent("[safety]\nconfirm = true\nconfirm_timeout_s = 10\n");
    let scratch = daemon.shared_scratch("confirm-private");
    let log = scratch.path("app.log");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/fixture.py");
    let socket = daemon.socket.clone();
    let launch_args = json!({"app": "/usr/bin/python3", "args": [script, "--title", "Confirmed App", "--log", log]});
    let pending = std::thread::spawn(move || {
        Wire::connect_as(&socket, "careful").call("desk_launch", launch_args)
    });
    // The person allows it with the pointer, on their own display.
    let window = dialog();
    run(
        "xdotool",
        &["mousemove", "--window", &window, "350", "181", "click", "1"],
    );
    let launched = pending.join().unwrap();
    assert!(!launched.is_error, "{}", launched.text);
    wait_for(
        "the app on the agent's display",
        Duration::from_secs(20),
        || {
            std::fs::read_to_string(&log)
                .unwrap_or_default()
                .contains("\"ready\"")
                .then_some(())
        },
    );
    assert!(!window_list().contains("Confirmed App"));

    // Denied: nothing reaches the agent's app.
    let socket = daemon.socket.clone();
    let pending = std::thread::spawn(move || {
        Wire::connect_as(&socket, "careful").call(
            "desk_type",
            json!({"window": "Confirmed App", "text": "nope"}),
        )
    });
    let window = dialog();
    run(
        "xdotool",
        &["mousemove", "--window", &window, "460", "181", "click", "1"],
    );
    let denied = pending.join().unwrap();
    assert!(denied.error().contains("denied it"), "{}", denied.text);
    assert!(log_events(&log, "text").is_empty());

    let display = seats(&daemon)["careful"].0.clone();
    let lines = daemon.journal();
    let launch = lines.iter().find(|l| l["tool"] == "desk_launch").unwrap();
    assert_eq!(launch["display"], display.as_str(), "{launch}");
}

/// One pixel (r, g, b) of a window on the person's display.
pub(crate) fn viewer_pixel(window: u32, x: i16, y: i16) -> Option<(u8, u8, u8)> {
    let (conn, _) = x11rb::connect(None).ok()?;
    let image = conn
        .get_image(
            x11rb::protocol::xproto::ImageFormat::Z_PIXMAP,
            window,
            x,
            y,
            1,
            1,
            !0,
        )
        .ok()?
        .reply()
        .ok()?;
    // Depth 24 in 32 bits per pixel, least significant byte first: blue, green, red.
    let d = image.data;
    Some((d[2], d[1], d[0]))
}

/// One pixel (r, g, b) of the agent's screen, from its own `desk_shot`.
fn agent_pixel(wire: &mut Wire, x: u32, y: u32) -> (u8, u8, u8) {
    let shot = wire.call("desk_shot", json!({}));
    assert!(!shot.is_error, "{}", shot.text);
    let png = shot.image.expect("a shot has an image");
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let at = (y as usize * info.width as usize + x as usize) * channels;
    (buf[at], buf[at + 1], buf[at + 2])
}

/// The centre of a fixture's canvas, from its ready event (its display's coordinates).
fn canvas_centre(log: &Path) -> (u32, u32) {
    let ready = log_events(log, "ready")[0].clone();
    let n = |k: &str| ready[k].as_i64().unwrap() as u32;
    (n("x") + n("width") / 2, n("y") + n("height") * 3 / 4)
}

pub(crate) fn start_watch(daemon: &Daemon, control: bool) -> (std::process::Child, u32) {
    let mut args = vec!["watch", "watched"];
    if control {
        args.push("--control");
    }
    let child = Command::new(SHUTTLE)
        .args(&args)
        .env("SHUTTLE_SOCKET", &daemon.socket)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let window = wait_for("the viewer window", Duration::from_secs(10), || {
        window_list()
            .lines()
            .find(|l| l.contains("shuttle watch: watched"))
            .and_then(|l| {
                u32::from_str_radix(l.split_whitespace().next()?.trim_start_matches("0x"), 16).ok()
            })
    });
    (child, window)
}

#[test]
fn watch_shows_an_agents_display_live_view_only_unless_control() {
    require_desktop();
    let daemon = per_agent("");
    let scratch = daemon.shared_scratch("watch");
    let first_log = scratch.path("first.log");
    let mut wire = Wire::connect_as(&daemon.socket, "watched");
    launch_as(&mut wire, "Watched App", &first_log);

    let (mut viewer, window) = start_watch(&daemon, false);
    let (cx, cy) = canvas_centre(&first_log);
    let shows = |wire: &mut Wire, x: u32, y: u32| {
        let want = agent_pixel(wire, x, y);
        let mut seen = None;
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while seen != Some(want) {
            assert!(
                std::time::Instant::now() < deadline,
                "the viewer shows {seen:?} at ({x}, {y}), the agent's screen {want:?}"
            );
            seen = viewer_pixel(window, x as i16, y as i16);
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    shows(&mut wire, cx, cy);

    // View only: the person's click in the viewer reaches nothing on the agent's display.
    run(
        "xdotool",
        &[
            "mousemove",
            "--window",
            &window.to_string(),
            &cx.to_string(),
            &cy.to_string(),
            "click",
            "1",
        ],
    );
    // A change on the agent's display (a second, red app) reaches the viewer.
    let second_log = scratch.path("second.log");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/fixture.py");
    let reply = wire.call(
        "desk_launch",
        json!({"app": "/usr/bin/python3", "args": [script, "--title", "Red App", "--color", "#cc2222", "--log", second_log]}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    wait_for("the red app", Duration::from_secs(20), || {
        (!log_events(&second_log, "ready").is_empty()).then_some(())
    });
    let (rx, ry) = canvas_centre(&second_log);
    shows(&mut wire, rx, ry);
    assert!(
        log_events(&first_log, "press").is_empty(),
        "a view-only click landed"
    );
    run("wmctrl", &["-i", "-c", &format!("0x{window:08x}")]);
    wait_for("the viewer to end", Duration::from_secs(10), || {
        viewer
            .try_wait()
            .unwrap()
            .map(|status| assert!(status.success()))
    });

    // With --control, the person's click lands on the agent's app.
    let (mut viewer, window) = start_watch(&daemon, true);
    wait_for(
        "the viewer to show the red app",
        Duration::from_secs(10),
        || {
            (viewer_pixel(window, rx as i16, ry as i16) == Some(agent_pixel(&mut wire, rx, ry)))
                .then_some(())
        },
    );
    run(
        "xdotool",
        &[
            "mousemove",
            "--window",
            &window.to_string(),
            &rx.to_string(),
            &ry.to_string(),
            "click",
            "1",
        ],
    );
    wait_for(
        "the click on the agent's app",
        Duration::from_secs(10),
        || (!log_events(&second_log, "press").is_empty()).then_some(()),
    );
    stop_child(&mut viewer);
}

#[test]
fn stop_and_resume_reach_every_agents_display() {
    require_desktop();
    let daemon = per_agent("");
    let scratch = daemon.shared_scratch("stop-all");
    let mut agents: Vec<(Wire, std::path::PathBuf)> = ["stop-a", "stop-b"]
        .iter()
        .map(|agent| {
            let mut wire = Wire::connect_as(&daemon.socket, agent);
            let log = scratch.path(&format!("{agent}.log"));
            launch_as(&mut wire, &format!("Pad {agent}"), &log);
            (wire, log)
        })
        .collect();
    assert!(!daemon.call("safety_stop", json!({})).is_error);
    for (n, (wire, log)) in agents.iter_mut().enumerate() {
        let agent = ["stop-a", "stop-b"][n];
        let refused = wire.call(
            "desk_type",
            json!({"window": format!("Pad {agent}"), "text": "x"}),
        );
        assert!(
            refused.is_error && refused.text.contains("stop"),
            "{}",
            refused.text
        );
        assert!(log_events(log, "text").is_empty());
    }
    assert!(!daemon.resume().is_error);
    for (n, (wire, log)) in agents.iter_mut().enumerate() {
        let agent = ["stop-a", "stop-b"][n];
        let typed = wire.call(
            "desk_type",
            json!({"window": format!("Pad {agent}"), "text": "back"}),
        );
        assert!(!typed.is_error, "{}", typed.text);
        wait_for("the text after resume", Duration::from_secs(10), || {
            log_events(log, "text")
                .iter()
                .any(|e| e["text"] == "back")
                .then_some(())
        });
    }
}

#[test]
fn a_session_is_judged_by_the_process_behind_its_connection() {
    require_desktop();
    // An MCP proxy in a pid namespace names a pid the daemon cannot see; its connection's
    // process (this test) is what counts, so its display stays past a sweep (every 5 s).
    let daemon = per_agent("");
    let mut wire = Wire::connect_as(&daemon.socket, "mcp-999999999");
    assert!(!wire.call("desk_windows", json!({})).is_error);
    let (_, server) = seats(&daemon)["mcp-999999999"].clone();
    let kept_until = std::time::Instant::now() + Duration::from_secs(7);
    while std::time::Instant::now() < kept_until {
        assert!(
            alive(server) && seats(&daemon).contains_key("mcp-999999999"),
            "the display of a live session was ended"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The pids of the apps on the person's accessibility bus (the rig's), read by pyatspi.
fn persons_accessible_pids() -> Vec<i64> {
    let listed = run(
        "/usr/bin/python3",
        &[
            "-c",
            "import json, pyatspi\n\
             d = pyatspi.Registry.getDesktop(0)\n\
             print(json.dumps([d.getChildAtIndex(i).get_process_id() for i in range(d.childCount)]))",
        ],
    );
    serde_json::from_str(listed.trim()).unwrap_or_else(|e| panic!("{e}: {listed}"))
}

/// Launches the fixture as `agent`, then finds, reads and presses its button through the
/// daemon: judged by the fixture's log, with the person's window, pointer and accessibility
/// bus unchanged.
fn an_agent_reads_and_presses_on_its_display_alone(daemon: &Daemon, agent: &str) {
    let (bystander, before) = persons_window_with_pointer_at(321, 123);
    let scratch = daemon.shared_scratch("sealed");
    let log = scratch.path("agent.log");
    let mut wire = Wire::connect_as(&daemon.socket, agent);
    let title = format!("Sealed {agent}");
    let pid = launch_as(&mut wire, &title, &log);
    let outline = wire.call("desk_snapshot", json!({"window": title, "text": true}));
    assert!(!outline.is_error, "{}", outline.text);
    assert!(outline.text.contains("Press me"), "{}", outline.text);
    let found = wire.call("desk_find", json!({"window": title, "name": "Press me"}));
    assert!(!found.is_error, "{}", found.text);
    let id = found.json()["nodes"][0]["id"].as_str().unwrap().to_string();
    let pressed = wire.call("desk_press", json!({"id": id}));
    assert!(!pressed.is_error, "{}", pressed.text);
    wait_for(
        "the press in the agent's fixture",
        Duration::from_secs(10),
        || (!log_events(&log, "clicked").is_empty()).then_some(()),
    );
    // Nothing of the agent's display reached the person's session.
    assert!(!window_list().contains(&title));
    assert!(
        !persons_accessible_pids().contains(&pid),
        "the agent's app joined the person's accessibility bus"
    );
    bystander.assert_untouched();
    assert_eq!(
        pointer_and_focus(),
        before,
        "the person's pointer or focus moved"
    );
}

#[test]
fn a_private_display_is_sealed_from_the_persons_buses_it_was_started_with() {
    require_desktop();
    // The daemon starts from the rig's environment, as from a terminal in the person's
    // session: DISPLAY, DBUS_SESSION_BUS_ADDRESS and AT_SPI_BUS_ADDRESS name the person's.
    assert!(std::env::var_os("AT_SPI_BUS_ADDRESS").is_some());
    let daemon = per_agent("");
    an_agent_reads_and_presses_on_its_display_alone(&daemon, "sealed-per-agent");
    drop(daemon);
    let daemon = Daemon::start_configured(Some(PRIVATE), &[]);
    an_agent_reads_and_presses_on_its_display_alone(&daemon, "sealed-shared");
}

#[test]
fn a_node_id_read_on_one_agents_display_is_refused_on_another() {
    require_desktop();
    let daemon = per_agent("");
    let scratch = daemon.shared_scratch("ids");
    let mut ids = Vec::new();
    let mut wires = Vec::new();
    for agent in ["ids-a", "ids-b"] {
        let mut wire = Wire::connect_as(&daemon.socket, agent);
        let log = scratch.path(&format!("{agent}.log"));
        launch_as(&mut wire, &format!("Ids {agent}"), &log);
        let found = wire.call(
            "desk_find",
            json!({"window": format!("Ids {agent}"), "name": "Press me"}),
        );
        let id = found.json()["nodes"][0]["id"].as_str().unwrap().to_string();
        ids.push((id, log));
        wires.push(wire);
    }
    // Each display has a bus of its own, numbering its apps alike: the ids differ only by the
    // tag that names the bus.
    let without_tag = |id: &str| id.split_once('-').unwrap().1.to_string();
    assert_ne!(ids[0].0, ids[1].0);
    let (a_id, a_log) = &ids[0];
    let (b_id, b_log) = &ids[1];
    let pressed = wires[1].call("desk_press", json!({"id": a_id}));
    assert!(
        pressed.error().contains("another accessibility bus"),
        "{} (ids {a_id} and {b_id}, {} and {} without their tags)",
        pressed.text,
        without_tag(a_id),
        without_tag(b_id)
    );
    assert!(log_events(a_log, "clicked").is_empty());
    assert!(log_events(b_log, "clicked").is_empty());
    // Its own id works.
    let own = wires[1].call("desk_press", json!({"id": b_id}));
    assert!(!own.is_error, "{}", own.text);
    wait_for(
        "the press on agent b's fixture",
        Duration::from_secs(10),
        || (!log_events(b_log, "clicked").is_empty()).then_some(()),
    );
    assert!(log_events(a_log, "clicked").is_empty());
}
