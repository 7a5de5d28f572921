//! End to end: `[daemon] display = "private"`. The rig's display plays the person's, with a
//! window of theirs, a known pointer position and input focus; the daemon starts a display of
//! its own, and the agent launches and types there through the real MCP server. Judged by the
//! fixture's own log, the person's X server (QueryPointer, GetInputFocus, its window list) and
//! which processes are still alive.

mod common;

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

/// Whether `pid` is a live process (a zombie nobody reaped yet counts as gone).
fn alive(pid: i64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let rest = stat[stat.rfind(')')? + 1..].trim_start().to_string();
            Some(!rest.starts_with('Z'))
        })
        .unwrap_or(false)
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
    let bystander = Fixture::start("Person's Window", &[]);
    run("wmctrl", &["-i", "-a", &bystander.id()]);
    run("xdotool", &["mousemove", "123", "321"]);
    let before = wait_for("the person's focus", Duration::from_secs(5), || {
        let now = pointer_and_focus();
        (now.0 == (123, 321) && now.1 > 1).then_some(now)
    });

    let daemon = Daemon::start_configured(Some(PRIVATE), &[]);
    let display = display_status(&daemon);
    assert_eq!(display["mode"], "private", "{display}");
    let person = std::env::var("DISPLAY").unwrap();
    assert_eq!(display["person"], person.as_str());
    assert_ne!(display["name"], person.as_str(), "{display}");

    let scratch = Scratch::new("private-display");
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
    assert!(!run("wmctrl", &["-l"]).contains("Agent's Window"));
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
    let scratch = Scratch::new("private-reap");
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

fn per_agent(extra: &str) -> Daemon {
    Daemon::start_configured(
        Some(&format!("[daemon]\ndisplay = \"per-agent\"\n{extra}")),
        &[],
    )
}

/// The agents' seats, as `status` lists them: agent → (display, X server pid).
fn seats(daemon: &Daemon) -> std::collections::HashMap<String, (String, i64)> {
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
                    a["x_server_pid"].as_i64().unwrap(),
                ),
            )
        })
        .collect()
}

fn launch_as(wire: &mut Wire, title: &str, log: &Path) -> i64 {
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
    let bystander = Fixture::start("Person's Window", &[]);
    run("wmctrl", &["-i", "-a", &bystander.id()]);
    run("xdotool", &["mousemove", "222", "111"]);
    let before = wait_for("the person's focus", Duration::from_secs(5), || {
        let now = pointer_and_focus();
        (now.0 == (222, 111) && now.1 > 1).then_some(now)
    });
    let daemon = per_agent("");
    let scratch = Scratch::new("per-agent");
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
    let scratch = Scratch::new("session-end");
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
    wait_for("the confirm dialog", Duration::from_secs(10), || {
        let out = Command::new("xdotool")
            .args(["search", "--name", "shuttle: allow this action"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .map(String::from)
    })
}

#[test]
fn confirm_asks_on_the_persons_display_for_an_agent_on_its_own_and_the_journal_names_it() {
    require_desktop();
    let daemon = per_agent("[safety]\nconfirm = true\nconfirm_timeout_s = 10\n");
    let scratch = Scratch::new("confirm-private");
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
    assert!(!run("wmctrl", &["-l"]).contains("Confirmed App"));

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
