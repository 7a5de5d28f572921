//! `shuttle desk` and `shuttle status` from a shell: output, files and exit statuses.

use crate::common;

use std::process::Command;
use std::time::Duration;

use common::{Daemon, Fixture, SHUTTLE, Scratch, decode_png, require_desktop, wait_for};
use serde_json::Value;

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn help_lists_every_verb_and_each_verbs_arguments() {
    let daemon = Daemon::start();
    let out = daemon.cli(&["desk", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    for verb in ["windows", "screen", "shot"] {
        assert!(stdout(&out).contains(verb), "{}", stdout(&out));
    }
    let out = daemon.cli(&["desk", "shot", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for line in [
        "x          integer    optional",
        "window     text       optional",
        "--image <FILE>",
    ] {
        assert!(help.contains(line), "shot --help lacks {line:?}:\n{help}");
    }
}

#[test]
fn serve_help_names_per_agent_as_the_default_display() {
    let out = Command::new(SHUTTLE)
        .args(["serve", "--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains("default: [daemon] display in config.toml, else per-agent"),
        "{help}"
    );
    assert!(!help.contains("inherit when DISPLAY is set"), "{help}");
}

#[test]
fn usage_errors_exit_2_and_error_replies_exit_1() {
    let daemon = Daemon::start();
    for (args, want) in [
        (&["desk", "fly"][..], "unrecognized subcommand 'fly'"),
        (&["desk", "shot", "x"][..], "expected KEY=VALUE, got \"x\""),
        (&["desk", "shot", "x=left"][..], "x takes a whole number"),
        (&["desk", "shot", "z=1"][..], "shot has no argument \"z\""),
        (&["desk"][..], "Usage"),
    ] {
        let out = daemon.cli(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(want), "{args:?}: {}", stderr(&out));
    }
    let out = daemon.cli(&["desk", "shot", "window=no window is called this"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no window matches"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn results_print_and_images_land_in_files() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("cli fixture", &["--size", "320x240"]);
    let out = daemon.cli(&["desk", "windows"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let windows: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(
        windows
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["id"] == fixture.id())
    );

    let file = daemon.scratch.path("cli.png");
    let out = daemon.cli(&[
        "desk",
        "shot",
        &format!("window={}", fixture.id()),
        "--image",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let meta: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(meta["width"], 320);
    let image = decode_png(&std::fs::read(&file).unwrap());
    assert_eq!((image.0, image.1), (320, 240));

    let file = daemon.scratch.path("none.png");
    let out = daemon.cli(&["desk", "screen", "--image", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("screen returned no image"),
        "{}",
        stderr(&out)
    );
    assert!(!file.exists());
}

#[test]
fn status_reports_absence_and_the_cli_starts_a_daemon() {
    require_desktop();
    let scratch = Scratch::new("cli-status");
    let socket = scratch.path("desk.sock");
    let cli = |args: &[&str]| {
        Command::new(SHUTTLE)
            .args(args)
            .env("SHUTTLE_SOCKET", &socket)
            .output()
            .unwrap()
    };
    let out = cli(&["status"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("shuttle serve is not running"),
        "{}",
        stderr(&out)
    );
    assert!(!socket.exists(), "status must not start a daemon");

    let out = cli(&["desk", "screen"]);
    let out_status = cli(&["status"]);
    assert_eq!(out_status.status.code(), Some(0), "{}", stderr(&out_status));
    let status: Value = serde_json::from_str(&stdout(&out_status)).unwrap();
    let pid = status["pid"].as_u64().unwrap() as i32;
    // SAFETY: kill on the daemon this test started through the CLI.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    wait_for(
        "the daemon to release its socket",
        Duration::from_secs(5),
        || (!socket.exists()).then_some(()),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let screen: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(screen["width"].as_u64().unwrap() > 0);
}
