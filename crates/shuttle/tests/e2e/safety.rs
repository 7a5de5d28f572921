//! The safety controls on the rig: config errors, stop and resume (and from another user), the
//! kill hotkey, the acting marker, the app allowlist, confirm mode, dry run, read-only, the
//! auth guard and the journal. Every action is judged by what the fixture app received.

use crate::common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{
    Daemon, Fixture, Mcp, Reply, confirm_dialog, decode_png, require_desktop, run, wait_for,
};
use serde_json::{Value, json};

fn desk(daemon: &Daemon, verb: &str, args: Value) -> Reply {
    daemon.call(&format!("desk_{verb}"), args)
}

/// The centre of a fixture's client area, in desk coordinates.
fn centre(fixture: &Fixture) -> (i64, i64) {
    let r = &fixture.ready;
    (
        r["x"].as_i64().unwrap() + r["width"].as_i64().unwrap() / 2,
        r["y"].as_i64().unwrap() + r["height"].as_i64().unwrap() * 3 / 4,
    )
}

fn active_window() -> u64 {
    run("xdotool", &["getactivewindow"]).trim().parse().unwrap()
}

fn fixture_xid(fixture: &Fixture) -> u64 {
    u64::from_str_radix(fixture.id().trim_start_matches("0x"), 16).unwrap()
}

#[test]
fn a_config_that_does_not_load_refuses_every_call_but_stop_and_resume() {
    require_desktop();
    let daemon = Daemon::start_configured(Some("[safety]\nconfirm = \"yes\"\n"), &[]);
    let cases = [
        (
            "[safety]\nconfirm = \"yes\"\n",
            "line 2, key `confirm`: invalid type: string \"yes\", expected a boolean",
        ),
        (
            "[daemon]\nturn_wait_ms = 100\n\n[safety]\ncolour = \"red\"\n",
            "line 5, key `colour`: unknown field `colour`",
        ),
        (
            "[safety]\napps = [\"gedit\", 7]\n",
            "line 2, key `apps`: invalid type: integer `7`, expected a string",
        ),
    ];
    for (text, want) in cases {
        std::fs::write(daemon.config_path(), text).unwrap();
        for tool in ["desk_windows", "desk_click", "status"] {
            let reply = daemon.call(tool, json!({"x": 1, "y": 1}));
            let error = reply.error();
            assert!(error.contains(want), "{tool} under {text:?}: {error}");
            assert!(error.contains("every call but safety_stop"), "{error}");
        }
        // The user's own controls still answer.
        assert_eq!(
            daemon.call("safety_stop", json!({})).json()["stopped"],
            true
        );
        assert_eq!(daemon.resume().json()["resumed"], true);
        // `shuttle config check` names the same problem.
        let out = daemon.cli(&["config", "check"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains(want));
    }
    // Fixed, the file is read again on the next call.
    std::fs::write(daemon.config_path(), "[safety]\nauth_guard = true\n").unwrap();
    assert!(desk(&daemon, "windows", json!({})).json().is_array());
    let out = daemon.cli(&["config", "check"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("auth_guard = true"));
    // The refusals are in the journal with their reason.
    let refused: Vec<Value> = daemon
        .journal()
        .into_iter()
        .filter(|e| e["outcome"] == "refused" && e["tool"] == "desk_click")
        .collect();
    assert_eq!(refused.len(), 3);
    assert!(
        refused[1]["reason"]
            .as_str()
            .unwrap()
            .contains("unknown field `colour`")
    );
}

#[test]
fn stop_ends_calls_in_flight_and_refuses_new_ones_until_resume() {
    require_desktop();
    let daemon = Daemon::start();
    // Resume without a stop is an error.
    let out = daemon.cli(&["resume"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not stopped"));

    let since = desk(&daemon, "windows", json!({})).json();
    let mut wire = daemon.connect();
    wire.send("desk_wait", json!({"since": since, "timeout_ms": 5000}));
    let started = Instant::now();
    let out = daemon.cli(&["stop"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ended = wire.read().expect("the wait answers");
    assert!(
        ended.error().contains("stopped by the user"),
        "{}",
        ended.text
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the stop ended the wait"
    );

    for verb in ["windows", "screen"] {
        let error = desk(&daemon, verb, json!({}));
        assert!(
            error.error().contains("stopped by the user"),
            "{}",
            error.text
        );
    }
    let refused = desk(&daemon, "key", json!({"keys": "Escape"}));
    assert!(
        refused.error().contains("outcome: refused"),
        "{}",
        refused.text
    );
    assert_eq!(daemon.call("status", json!({})).json()["stopped"], true);

    let out = daemon.cli_resume();
    assert_eq!(out.status.code(), Some(0));
    assert!(desk(&daemon, "windows", json!({})).json().is_array());
    assert_eq!(daemon.call("status", json!({})).json()["stopped"], false);
}

/// Runs `command` as root, directly or through sudo.
fn as_root(command: &[&str]) -> std::process::Output {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let mut cmd = if root {
        Command::new(command[0])
    } else {
        let mut sudo = Command::new("sudo");
        sudo.args(["-n", command[0]]);
        sudo
    };
    cmd.args(&command[1..]).output().unwrap()
}

#[test]
fn the_socket_opens_to_its_group_whose_members_stop_but_only_its_user_resumes() {
    require_desktop();
    const GROUP: &str = "shuttle-peers";
    const USER: &str = "shuttle-peer";
    let out = as_root(&["groupadd", "-f", GROUP]);
    assert!(
        out.status.success(),
        "cannot create group {GROUP} (this test needs root or passwordless sudo): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if !Command::new("id")
        .arg(USER)
        .output()
        .unwrap()
        .status
        .success()
    {
        let out = as_root(&[
            "useradd",
            "-M",
            "-N",
            "-g",
            GROUP,
            "-s",
            "/usr/sbin/nologin",
            USER,
        ]);
        assert!(
            out.status.success(),
            "cannot create user {USER}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let daemon = Daemon::start_configured(
        Some(&format!("[daemon]\nsocket_group = \"{GROUP}\"\n")),
        &[],
    );
    let socket_meta = std::fs::metadata(&daemon.socket).unwrap();
    assert_eq!(socket_meta.permissions().mode() & 0o777, 0o660);
    let gid: u32 = run("getent", &["group", GROUP])
        .split(':')
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(socket_meta.gid(), gid);

    // The other user runs a copy of the binary it can reach.
    let binary = daemon.scratch.path("shuttle");
    std::fs::copy(common::SHUTTLE, &binary).unwrap();
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
    let as_peer = |args: &[&str]| {
        let mut command = vec![
            "setpriv",
            "--reuid",
            USER,
            "--regid",
            GROUP,
            "--init-groups",
            "env",
        ];
        let socket = format!("SHUTTLE_SOCKET={}", daemon.socket.display());
        command.push(&socket);
        command.push(binary.to_str().unwrap());
        command.extend_from_slice(args);
        as_root(&command)
    };
    // A member of the group may use the desk...
    let out = as_peer(&["desk", "screen"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("width"));
    // ...and stop it, since a stop only ever makes things safer...
    let out = as_peer(&["stop"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(daemon.call("status", json!({})).json()["stopped"], true);
    // ...but not resume it: that is the person's alone.
    let out = as_peer(&["resume"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("answered only to the daemon's own user"),
        "{stderr}"
    );
    assert_eq!(daemon.call("status", json!({})).json()["stopped"], true);
    assert!(daemon.cli_resume().status.success());
    assert_eq!(daemon.call("status", json!({})).json()["stopped"], false);
}

/// Whether any key is down on the X server, read with our own connection.
fn keys_down() -> Vec<usize> {
    use x11rb::connection::Connection as _;
    use x11rb::protocol::xproto::ConnectionExt as _;
    let (conn, _) = x11rb::connect(None).unwrap();
    let keymap = conn.query_keymap().unwrap().reply().unwrap().keys;
    let down = (0..256)
        .filter(|&code| keymap[code / 8] & (1 << (code % 8)) != 0)
        .collect();
    drop(conn.flush());
    down
}

#[test]
fn the_kill_hotkey_stops_a_long_type_midway() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("Hotkey target", &[]);
    common::stop_a_long_type(&daemon, &fixture);
    assert!(keys_down().is_empty(), "keys left down: {:?}", keys_down());
    assert_eq!(daemon.call("status", json!({})).json()["stopped"], true);
    assert!(
        desk(&daemon, "windows", json!({}))
            .error()
            .contains("stopped by the user")
    );
    let stop = daemon
        .journal()
        .into_iter()
        .find(|e| e["tool"] == "kill hotkey")
        .expect("the hotkey's stop is journaled");
    assert_eq!(stop["kind"], "control");
    assert!(daemon.cli_resume().status.success());
    assert!(desk(&daemon, "windows", json!({})).json().is_array());
}

/// How many pixels of the marker's red the top right corner shows.
fn red_in_corner(daemon: &Daemon) -> usize {
    let screen = desk(daemon, "screen", json!({})).json();
    let width = screen["width"].as_i64().unwrap();
    let shot = desk(
        daemon,
        "shot",
        json!({"x": width - 32, "y": 0, "w": 32, "h": 32}),
    );
    let (_, _, pixels) = decode_png(shot.image.as_ref().unwrap());
    pixels
        .chunks(3)
        .filter(|p| p[0] > 200 && p[1] < 60 && p[2] < 60)
        .count()
}

#[test]
fn the_marker_shows_while_an_action_runs_and_goes_after() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("Marker target", &[]);
    assert_eq!(red_in_corner(&daemon), 0, "no marker before any action");
    let typing = std::thread::spawn({
        let socket = daemon.socket.clone();
        let window = fixture.id();
        move || {
            common::Wire::connect(&socket).call(
                "desk_type",
                json!({"text": "marker ".repeat(200), "window": window}),
            )
        }
    });
    wait_for("the marker to show", Duration::from_secs(3), || {
        (red_in_corner(&daemon) > 100).then_some(())
    });
    // It never takes the focus.
    assert_eq!(active_window(), fixture_xid(&fixture));
    assert!(typing.join().unwrap().json()["outcome"] == "completed");
    wait_for("the marker to go", Duration::from_secs(3), || {
        (red_in_corner(&daemon) == 0).then_some(())
    });
}

#[test]
fn the_allowlist_limits_what_agents_see_and_touch_and_the_journal_keeps_the_refusals() {
    require_desktop();
    let daemon = Daemon::start_configured(Some("[safety]\napps = [\"fixture-a\"]\n"), &[]);
    let allowed = Fixture::start("Allowed A", &["--comm", "fixture-a"]);
    let foreign = Fixture::start("Foreign B", &["--comm", "fixture-b", "--size", "300x200"]);
    // Put the foreign window where it covers nothing of the allowed one.
    run(
        "wmctrl",
        &["-i", "-r", &foreign.id(), "-e", "0,20,60,300,200"],
    );
    let foreign_point = wait_for("the foreign window to move", Duration::from_secs(3), || {
        let geometry = run("xdotool", &["getwindowgeometry", "--shell", &foreign.id()]);
        let value = |key: &str| -> i64 {
            geometry
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{key}=")))
                .unwrap()
                .parse()
                .unwrap()
        };
        (value("X") < 100).then(|| (value("X") + 150, value("Y") + 150))
    });

    let windows = desk(&daemon, "windows", json!({})).json();
    let titles: Vec<&str> = windows
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Allowed A"]);
    let unchanged = desk(
        &daemon,
        "wait",
        json!({"since": windows, "timeout_ms": 200}),
    )
    .json();
    assert_eq!(unchanged["changed"], false, "a foreign window is no change");

    let focus = desk(&daemon, "focus", json!({"window": "Foreign B"}));
    assert!(
        focus.error().contains("not in the app allowlist"),
        "{}",
        focus.text
    );
    assert!(focus.error().contains("outcome: refused"));
    let click = desk(
        &daemon,
        "click",
        json!({"x": foreign_point.0, "y": foreign_point.1}),
    );
    assert!(click.error().contains("\"Foreign B\""), "{}", click.text);
    assert!(
        click.error().contains("not in the app allowlist"),
        "{}",
        click.text
    );
    for args in [
        json!({}),
        json!({"x": 0, "y": 0, "w": 10, "h": 10}),
        json!({"window": "Foreign B"}),
    ] {
        let shot = desk(&daemon, "shot", args.clone());
        assert!(
            shot.error().contains("refused"),
            "shot {args}: {}",
            shot.text
        );
    }
    let shot = desk(&daemon, "shot", json!({"window": "Allowed A"}));
    assert!(shot.image.is_some());

    let (x, y) = centre(&allowed);
    let click = desk(&daemon, "click", json!({"x": x, "y": y})).json();
    assert_eq!(click["outcome"], "completed");
    allowed.await_events("press", 1);
    let typed = desk(
        &daemon,
        "type",
        json!({"text": "secret words", "window": "Allowed A"}),
    )
    .json();
    assert_eq!(typed["outcome"], "completed");
    wait_for("the text", Duration::from_secs(3), || {
        (allowed.entry_text() == "secret words").then_some(())
    });
    foreign.assert_untouched();

    // The journal: refusals with their reason, typed text only as its length and digest.
    let journal = std::fs::read_to_string(daemon.journal_path()).unwrap();
    assert!(!journal.contains("secret words"));
    let entries = daemon.journal();
    let refusal = entries
        .iter()
        .find(|e| e["tool"] == "desk_click" && e["outcome"] == "refused")
        .unwrap();
    assert!(
        refusal["reason"]
            .as_str()
            .unwrap()
            .contains("not in the app allowlist"),
        "{refusal}"
    );
    assert_eq!(refusal["kind"], "act");
    assert_eq!(refusal["sent"], false);
    let typing = entries.iter().find(|e| e["tool"] == "desk_type").unwrap();
    assert_eq!(typing["args"]["text"]["chars"], 12);
    assert_eq!(typing["outcome"], "completed");
    let shots = entries.iter().filter(|e| e["tool"] == "desk_shot").count();
    assert_eq!(shots, 4, "observations are recorded as having happened");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&daemon.journal_path()), 0o600);
    assert_eq!(mode(daemon.journal_path().parent().unwrap()), 0o700);
    let out = daemon.cli(&["journal", "--refused"]);
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains("REFUSED") && printed.contains("Foreign B"),
        "{printed}"
    );
    assert!(!printed.contains("desk_type"), "{printed}");
}

/// The confirm dialog's window, once it shows.
fn dialog() -> String {
    confirm_dialog(Duration::from_secs(5))
}

fn no_dialog() -> bool {
    !Command::new("xdotool")
        .args(["search", "--name", "shuttle: allow this action"])
        .output()
        .unwrap()
        .status
        .success()
}

#[test]
fn confirm_mode_asks_the_person_and_takes_no_answer_as_deny() {
    require_desktop();
    let daemon = Daemon::start_configured(
        Some("[safety]\nconfirm = true\nconfirm_timeout_s = 3\n"),
        &[],
    );
    let fixture = Fixture::start("Confirm target", &[]);
    let (x, y) = centre(&fixture);
    let ask = || {
        let socket = daemon.socket.clone();
        std::thread::spawn(move || {
            common::Wire::connect(&socket).call("desk_click", json!({"x": x, "y": y}))
        })
    };
    // Allow, with the pointer, as the person would; the target keeps the focus meanwhile.
    let pending = ask();
    let window = dialog();
    assert_eq!(
        active_window(),
        fixture_xid(&fixture),
        "the dialog took the focus"
    );
    run(
        "xdotool",
        &["mousemove", "--window", &window, "350", "181", "click", "1"],
    );
    assert_eq!(pending.join().unwrap().json()["outcome"], "completed");
    fixture.await_events("press", 1);

    let pending = ask();
    let window = dialog();
    run(
        "xdotool",
        &["mousemove", "--window", &window, "460", "181", "click", "1"],
    );
    let denied = pending.join().unwrap();
    assert!(denied.error().contains("denied it"), "{}", denied.text);
    assert!(
        denied.error().contains("outcome: refused"),
        "{}",
        denied.text
    );

    let pending = ask();
    dialog();
    let started = Instant::now();
    let unanswered = pending.join().unwrap();
    eprintln!(
        "fault: confirm dialog unanswered (3 s limit): the call ended {:?} after the dialog showed",
        started.elapsed()
    );
    assert!(
        unanswered.error().contains("did not answer within 3 s"),
        "{}",
        unanswered.text
    );
    assert!(started.elapsed() < Duration::from_secs(5));

    let pending = ask();
    dialog();
    run("wmctrl", &["-c", "shuttle: allow this action?"]);
    let closed = pending.join().unwrap();
    assert!(
        closed.error().contains("closed the confirm dialog"),
        "{}",
        closed.text
    );
    assert!(no_dialog());

    // What is at the point may change while the person decides: then nothing is sent.
    let cover = Fixture::start("Cover", &["--size", "200x200"]);
    run("wmctrl", &["-i", "-r", &cover.id(), "-e", "0,0,0,200,200"]);
    let pending = ask();
    let window = dialog();
    let frame = format!("0,{},{},200,200", x - 100, y - 100);
    run("wmctrl", &["-i", "-r", &cover.id(), "-e", &frame]);
    run("wmctrl", &["-i", "-a", &cover.id()]);
    wait_for(
        "the cover to be on top at the point",
        Duration::from_secs(3),
        || {
            let at = desk(&daemon, "at", json!({"x": x, "y": y}));
            (!at.is_error && at.json()["window"]["title"] == "Cover").then_some(())
        },
    );
    run(
        "xdotool",
        &["mousemove", "--window", &window, "350", "181", "click", "1"],
    );
    let moved = pending.join().unwrap();
    assert!(
        moved.error().contains("changed after it was checked"),
        "{}",
        moved.text
    );
    assert!(moved.error().contains("Cover"), "{}", moved.text);
    cover.assert_untouched();
    assert_eq!(
        fixture.events_of("press").len(),
        1,
        "only the allowed click landed"
    );
}

#[test]
fn dry_run_describes_actions_and_delivers_nothing() {
    require_desktop();
    let daemon = Daemon::start_configured(Some("[safety]\ndry_run = true\n"), &[]);
    let target = Fixture::start("Dry target", &[]);
    let focused = Fixture::start("Dry bystander", &["--size", "300x200"]);
    wait_for(
        "the bystander to have the focus",
        Duration::from_secs(3),
        || (active_window() == fixture_xid(&focused)).then_some(()),
    );
    let (x, y) = centre(&target);
    let calls = [
        (
            "type",
            json!({"text": "hello", "window": "Dry target"}),
            "type 5 characters in window",
        ),
        (
            "key",
            json!({"keys": "ctrl+a", "window": "Dry target"}),
            "press ctrl+a in window",
        ),
        ("click", json!({"x": x, "y": y}), "click left at"),
        ("focus", json!({"window": "Dry target"}), "focus window"),
        ("close", json!({"window": "Dry target"}), "close window"),
    ];
    for (verb, args, would) in calls {
        let reply = desk(&daemon, verb, args).json();
        assert_eq!(reply["outcome"], "refused");
        assert_eq!(reply["dry_run"], true);
        let said = reply["would"].as_str().unwrap();
        assert!(said.contains(would), "{verb}: {said}");
    }
    // A dry run still runs every guard: a bad argument is an error, not a plan.
    assert!(
        desk(&daemon, "key", json!({"keys": "ctrl+nope"}))
            .error()
            .contains("nope")
    );
    target.assert_untouched();
    focused.assert_untouched();
    assert_eq!(
        active_window(),
        fixture_xid(&focused),
        "not even the focus moved"
    );
    let titles: Vec<String> = desk(&daemon, "windows", json!({}))
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["title"].as_str().unwrap().to_string())
        .collect();
    assert!(
        titles.contains(&"Dry target".to_string()),
        "the close was not sent"
    );
    let journal = daemon.journal();
    assert!(journal.iter().filter(|e| e["dry_run"] == true).count() >= 5);
}

#[test]
fn read_only_serves_observations_and_tells_agents_so() {
    require_desktop();
    let daemon = Daemon::start_configured(Some("[safety]\nread_only = true\n"), &[]);
    let fixture = Fixture::start("Read-only target", &[]);
    let refused = desk(
        &daemon,
        "type",
        json!({"text": "x", "window": "Read-only target"}),
    );
    assert!(refused.error().contains("read-only"), "{}", refused.text);
    assert!(refused.error().contains("outcome: refused"));
    assert!(desk(&daemon, "windows", json!({})).json().is_array());
    fixture.assert_untouched();

    let config = daemon.config_path();
    let mut mcp = Mcp::start(
        &daemon.socket,
        &[("SHUTTLE_CONFIG", config.to_str().unwrap())],
    );
    mcp.initialize("2025-06-18");
    let id = mcp.request("tools/list", json!({}));
    let tools = mcp.response(id)["result"]["tools"].clone();
    let description = tools[0]["description"].as_str().unwrap();
    assert!(description.contains("READ-ONLY"), "{description}");
    let verbs = tools[0]["inputSchema"]["properties"]["verb"]["enum"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        verbs.contains(&json!("snapshot")) && !verbs.contains(&json!("type")),
        "{verbs:?}"
    );
}

#[test]
fn the_auth_guard_keeps_agents_out_of_passwords_and_authentication_dialogs() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("Login form", &["--widgets"]);
    let found = desk(
        &daemon,
        "find",
        json!({"name": "Password", "window": "Login form"}),
    )
    .json();
    let id = found["nodes"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        desk(&daemon, "act", json!({"id": id, "action": "focus"})).json()["outcome"],
        "completed"
    );
    for (verb, args) in [
        ("type", json!({"text": "letmein", "window": "Login form"})),
        ("key", json!({"keys": "x", "window": "Login form"})),
    ] {
        let refused = desk(&daemon, verb, args);
        assert!(
            refused.error().contains("password field"),
            "{verb}: {}",
            refused.text
        );
        assert!(refused.error().contains("outcome: refused"));
    }
    // Shortcuts are not typing.
    assert_eq!(
        desk(
            &daemon,
            "key",
            json!({"keys": "End", "window": "Login form"})
        )
        .json()["outcome"],
        "completed"
    );
    assert!(
        fixture.events_of("secret").is_empty(),
        "{:?}",
        fixture.events_of("secret")
    );
    let allowed = desk(
        &daemon,
        "type",
        json!({"text": "!", "window": "Login form", "allow_auth": true}),
    );
    assert_eq!(allowed.json()["outcome"], "completed");
    let secrets = fixture.await_events("secret", 1);
    assert_eq!(secrets.last().unwrap()["text"], "hunter2!");

    // Any input into an authentication dialog is refused.
    let prompt = Fixture::start("Authentication Required", &["--size", "300x200"]);
    let (x, y) = centre(&prompt);
    let click = desk(&daemon, "click", json!({"x": x, "y": y}));
    assert!(
        click.error().contains("authentication dialog"),
        "{}",
        click.text
    );
    let key = desk(
        &daemon,
        "key",
        json!({"keys": "Return", "window": "Authentication Required"}),
    );
    assert!(
        key.error().contains("authentication dialog"),
        "{}",
        key.text
    );
    prompt.assert_untouched();
    let allowed = desk(
        &daemon,
        "click",
        json!({"x": x, "y": y, "allow_auth": true}),
    );
    assert_eq!(allowed.json()["outcome"], "completed");
    prompt.await_events("press", 1);
}

/// Runs `shuttle resume` against `daemon` on a terminal of its own (a new pseudo-terminal, as
/// a terminal window gives), typing `answer` once the daemon's question shows. Answers what
/// the terminal showed and the exit code.
fn resume_at_a_terminal(daemon: &Daemon, answer: &str) -> (String, i32) {
    let script = r#"
import os, pty, select, sys, time
shuttle, answer = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(shuttle, [shuttle, "resume"])
shown, answered, deadline = b"", False, time.time() + 20
while time.time() < deadline:
    if select.select([fd], [], [], 0.1)[0]:
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
        if not answered and b"Type yes" in shown:
            os.write(fd, answer.encode() + b"\r")
            answered = True
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(shown)
sys.exit(os.waitstatus_to_exitcode(status))
"#;
    let out = Command::new("python3")
        .args(["-c", script, common::SHUTTLE, answer])
        .env("SHUTTLE_SOCKET", &daemon.socket)
        .env("SHUTTLE_CONFIG", daemon.config_path())
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn without_a_display_of_the_persons_a_resume_is_asked_at_the_callers_terminal() {
    require_desktop();
    // A daemon that started with no DISPLAY knows no display of the person's to ask on.
    let daemon = Daemon::start_with(&[("DISPLAY", "")]);
    let stopped = || daemon.call("status", json!({})).json()["stopped"] == true;
    // An agent's script that holds a terminal's other side, as `systemd-run --user --pty` from
    // a script gives it, ready to type yes at the question (started before the stop, which
    // refuses new runs).
    let scratch = common::Scratch::new("agent-pty");
    let named = scratch.0.join("pty");
    let typist = r#"
import os, sys, time
out = sys.argv[1]
master, other = os.openpty()
open(out + ".tmp", "w").write(os.ttyname(other))
os.rename(out + ".tmp", out)
os.close(other)
seen, deadline = b"", time.time() + 30
while time.time() < deadline:
    try:
        seen += os.read(master, 1024)
    except OSError:
        time.sleep(0.05)
        continue
    if b"Type yes" in seen:
        os.write(master, b"yes\r")
        seen = b""
"#;
    let code = format!(
        r#"import {{ spawn }} from "node:child_process";
        export function main() {{
            spawn("python3", ["-c", {typist:?}, {named:?}], {{ detached: true, stdio: "ignore" }}).unref();
        }}"#,
        named = named.display().to_string()
    );
    let left = daemon.call("script_run", json!({"code": code}));
    assert!(!left.is_error, "{}", left.text);
    let terminal = wait_for("the script's terminal", Duration::from_secs(10), || {
        std::fs::read_to_string(&named).ok()
    });
    assert!(daemon.cli(&["stop"]).status.success());

    let (shown, code) = resume_at_a_terminal(&daemon, "no");
    assert_eq!(code, 1, "{shown}");
    assert!(shown.contains("Resume it, so agents may act"), "{shown}");
    assert!(shown.contains("was \"no\", not yes"), "{shown}");
    assert!(stopped());

    // A caller with no terminal (a session of its own) cannot be answered for.
    let resume = || {
        let mut command = Command::new(common::SHUTTLE);
        command
            .arg("resume")
            .env("SHUTTLE_SOCKET", &daemon.socket)
            .env("SHUTTLE_CONFIG", daemon.config_path());
        command
    };
    let alone = {
        use std::os::unix::process::CommandExt;
        let mut command = resume();
        // SAFETY: setsid is async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        command.output().unwrap()
    };
    assert_eq!(alone.status.code(), Some(1));
    let said = String::from_utf8_lossy(&alone.stderr);
    assert!(said.contains("there is no one to ask"), "{said}");
    assert!(said.contains("has no terminal"), "{said}");
    assert!(stopped());

    // A resume run on that terminal, by a process the daemon cannot tell is the agent's, is
    // refused all the same, unasked.
    let held = {
        use std::os::unix::process::CommandExt;
        let path = std::ffi::CString::new(terminal.clone()).unwrap();
        let mut command = resume();
        // SAFETY: setsid, open and dup2 are async-signal-safe; the path was made before the fork.
        // Opened in a new session, the terminal becomes the caller's controlling terminal.
        unsafe {
            command.pre_exec(move || {
                libc::setsid();
                let fd = libc::open(path.as_ptr(), libc::O_RDWR);
                if fd < 0 || libc::dup2(fd, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        command.output().unwrap()
    };
    assert_eq!(held.status.code(), Some(1));
    let said = String::from_utf8_lossy(&held.stderr);
    assert!(
        said.contains(&format!("holds the other side of {terminal}")),
        "{said}"
    );
    assert!(stopped());

    let (shown, code) = resume_at_a_terminal(&daemon, "yes");
    assert_eq!(code, 0, "{shown}");
    assert!(!stopped());
    let refused: Vec<Value> = daemon
        .journal()
        .into_iter()
        .filter(|e| e["tool"] == "safety_resume" && e["outcome"] == "refused")
        .collect();
    assert_eq!(refused.len(), 3, "{refused:?}");
    assert!(refused.iter().all(|e| e["by"] == "person"), "{refused:?}");
}
