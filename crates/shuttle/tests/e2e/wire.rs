//! The desk wire against a real daemon: bad input gets a clear error and nothing is lost.

use crate::common;

use std::net::Shutdown;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use common::{Daemon, SHUTTLE, Scratch, Wire};
use serde_json::json;

/// After each bad input the daemon must still answer a fresh connection.
fn still_answers(daemon: &Daemon) {
    let status = daemon.call("status", json!(null)).json();
    assert_eq!(status["daemon"], "running");
}

#[test]
fn bad_packets_get_errors_and_the_connection_survives() {
    let daemon = Daemon::start();
    let mut wire = daemon.connect();

    wire.send_payload(b"\xff\xfe{}");
    assert!(
        wire.read()
            .unwrap()
            .error()
            .contains("not UTF-8: invalid byte at offset 0")
    );

    wire.send_payload(b"[\"desk_windows\"]");
    assert!(
        wire.read()
            .unwrap()
            .error()
            .contains("must be a JSON object")
    );

    wire.send_payload(b"{\"tool\": \"status\",");
    assert!(wire.read().unwrap().error().contains("not valid JSON"));

    wire.send_payload(br#"{"tool":"desk_screen","args":[1,2]}"#);
    assert!(
        wire.read()
            .unwrap()
            .error()
            .contains("`args` must be an object or null, got an array")
    );

    wire.send_payload(br#"{"tool":"desk_screen","agent":"x"}"#);
    assert!(
        wire.read()
            .unwrap()
            .error()
            .contains("unknown field `agent`")
    );

    wire.send_payload(br#"{"agent_id":"a"}"#);
    assert!(
        wire.read()
            .unwrap()
            .error()
            .contains("missing field `tool`")
    );

    wire.send_payload(br#"{"tool":["desk_windows"]}"#);
    assert!(
        wire.read()
            .unwrap()
            .error()
            .contains("`tool`: invalid type: sequence")
    );

    let unknown = wire.call("desk_fly", json!({}));
    assert!(
        unknown.error().contains("unknown tool \"desk_fly\""),
        "{}",
        unknown.text
    );

    let missing = wire.call("desk_shot", json!({"x": 1}));
    assert!(
        missing
            .error()
            .contains("desk_shot: x, y, w and h go together"),
        "{}",
        missing.text
    );

    let mistyped = wire.call("desk_shot", json!({"window": 5}));
    assert!(
        mistyped
            .error()
            .contains("`window`: invalid type: integer `5`, expected a string"),
        "{}",
        mistyped.text
    );

    let extra = wire.call("desk_windows", json!({"all": true}));
    assert!(
        extra
            .error()
            .contains("desk_windows: `all`: unknown field `all`"),
        "{}",
        extra.text
    );

    // The same connection still serves good calls after all of that.
    assert_eq!(wire.call("status", json!({})).json()["daemon"], "running");
}

#[test]
fn a_truncated_packet_is_reported_then_closed() {
    let daemon = Daemon::start();
    let mut wire = daemon.connect();
    wire.send_raw(&100u32.to_be_bytes());
    wire.send_raw(b"{\"tool\":\"status\"");
    wire.stream.shutdown(Shutdown::Write).unwrap();
    let reply = wire.read().expect("an error reply before the close");
    assert!(
        reply
            .error()
            .contains("truncated packet: the peer closed its side after 20 of 104 bytes"),
        "{}",
        reply.text
    );
    assert!(wire.closed());
    still_answers(&daemon);
}

#[test]
fn an_oversized_packet_is_refused_then_closed() {
    let daemon = Daemon::start();
    let mut wire = daemon.connect();
    wire.send_raw(&(64 * 1024 * 1024 + 1u32).to_be_bytes());
    let reply = wire.read().expect("an error reply before the close");
    assert!(
        reply.error().contains("over the 67108864-byte limit"),
        "{}",
        reply.text
    );
    assert!(wire.closed());
    still_answers(&daemon);
}

#[test]
fn pipelined_calls_are_answered_in_order() {
    let daemon = Daemon::start();
    let mut wire = daemon.connect();
    wire.send("desk_fly", json!({}));
    wire.send("status", json!({}));
    wire.send("desk_fly2", json!({}));
    assert!(wire.read().unwrap().error().contains("desk_fly\""));
    assert_eq!(wire.read().unwrap().json()["daemon"], "running");
    assert!(wire.read().unwrap().error().contains("desk_fly2"));
}

#[test]
fn a_second_daemon_on_the_same_socket_exits_with_status_1() {
    let daemon = Daemon::start();
    let out = Command::new(SHUTTLE)
        .args(["serve", "--foreground", "--display", "inherit"])
        .env("SHUTTLE_SOCKET", &daemon.socket)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "shuttle serve is already running (pid {})",
            daemon.pid()
        )),
        "{stderr}"
    );
    still_answers(&daemon);
}

#[test]
fn a_stale_socket_file_is_replaced() {
    let scratch = Scratch::new("stale");
    let socket = scratch.path("desk.sock");
    // A socket file that nothing listens on, as a crashed daemon leaves it.
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    assert!(std::os::unix::net::UnixStream::connect(&socket).is_err());
    let mut child = Command::new(SHUTTLE)
        .args(["serve", "--foreground", "--display", "inherit"])
        .env("SHUTTLE_SOCKET", &socket)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    common::wait_for(
        "the daemon to listen",
        std::time::Duration::from_secs(10),
        || std::os::unix::net::UnixStream::connect(&socket).ok(),
    );
    let mut wire = Wire::connect(&socket);
    assert_eq!(wire.call("status", json!({})).json()["daemon"], "running");
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the socket must be private");
    common::stop_child(&mut child);
    assert!(!socket.exists(), "a clean shutdown removes the socket");
}

#[test]
fn a_socket_directory_open_to_others_is_refused() {
    let scratch = Scratch::new("open-dir");
    std::fs::set_permissions(&scratch.0, std::fs::Permissions::from_mode(0o755)).unwrap();
    let socket = scratch.path("desk.sock");
    let out = Command::new(SHUTTLE)
        .args(["serve", "--foreground", "--display", "inherit"])
        .env("SHUTTLE_SOCKET", &socket)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refusing socket directory") && stderr.contains("mode is 0755"),
        "{stderr}"
    );
    assert!(!socket.exists());

    // The client refuses it too, rather than trusting whatever listens there.
    let out = Command::new(SHUTTLE)
        .args(["desk", "windows"])
        .env("SHUTTLE_SOCKET", &socket)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("mode is 0755"));
}

#[test]
fn a_socket_directory_of_another_owner_is_refused() {
    let scratch = Scratch::new("foreign-dir");
    // Root can make a directory someone else owns; anyone else finds one in /root.
    // SAFETY: geteuid has no preconditions.
    let (foreign, owner) = if unsafe { libc::geteuid() } == 0 {
        let dir = scratch.path("theirs");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
        (dir, 65534)
    } else {
        (std::path::PathBuf::from("/root"), 0)
    };
    let out = Command::new(SHUTTLE)
        .args(["serve", "--foreground", "--display", "inherit"])
        .env("SHUTTLE_SOCKET", foreign.join("desk.sock"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("it is owned by uid {owner}")),
        "{stderr}"
    );
}

#[test]
fn a_client_that_disconnects_mid_call_cancels_it() {
    common::require_desktop();
    let daemon = Daemon::start();
    let since = daemon.call("desk_windows", json!({})).json();
    let mut wire = daemon.connect();
    wire.send("desk_wait", json!({"since": since, "timeout_ms": 5000}));
    // Once the wait has reached the daemon (the count, less this loop's own asks, holds the
    // windows and the wait), hang up.
    let mut asked = 0;
    common::wait_for(
        "the wait to reach the daemon",
        std::time::Duration::from_secs(5),
        || {
            asked += 1;
            let status = daemon.call("status", json!({})).json();
            (status["calls"].as_u64().unwrap() - asked >= 2).then_some(())
        },
    );
    drop(wire);
    common::wait_for(
        "the daemon to log the cancel",
        std::time::Duration::from_secs(3),
        || daemon.log().contains("call cancelled").then_some(()),
    );
    // Long before the wait's 5 s are up, the daemon answers again.
    let started = std::time::Instant::now();
    still_answers(&daemon);
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
}
