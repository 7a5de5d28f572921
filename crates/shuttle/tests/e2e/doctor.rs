//! `shuttle doctor` on the virtual desktop: what it reports against what the desktop is, and
//! that it changes nothing unless asked with `--fix`.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

use common::{Daemon, Fixture, SHUTTLE, Scratch, require_desktop};
use serde_json::Value;

/// Runs `shuttle doctor ARGS` with the socket and config in `scratch` and a home of its own.
fn doctor(scratch: &Scratch, args: &[&str], env: &[(&str, Option<&str>)]) -> Output {
    let mut command = Command::new(SHUTTLE);
    command
        .arg("doctor")
        .args(args)
        .env("SHUTTLE_SOCKET", scratch.path("sock/desk.sock"))
        .env("SHUTTLE_CONFIG", scratch.path("config.toml"))
        .env("HOME", scratch.path("home"));
    for (key, value) in env {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    command.output().unwrap()
}

fn report(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json printed no JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name} in {report:#}"))
}

fn mode_of(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn doctor_reads_the_desktop_the_bus_and_the_running_daemon() {
    require_desktop();
    let daemon = Daemon::start_configured(Some("[daemon]\ndisplay = \"inherit\"\n"), &[]);
    let app = Fixture::start("doctor bystander", &[]);
    let out = Command::new(SHUTTLE)
        .args(["doctor", "--json"])
        .env("SHUTTLE_SOCKET", &daemon.socket)
        .env("SHUTTLE_CONFIG", daemon.config_path())
        .output()
        .unwrap();
    let report = report(&out);
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(report["ok"], true);
    assert_eq!(report["display_mode"], "inherit");

    let display = std::env::var("DISPLAY").unwrap();
    let shown = check(&report, "display");
    assert_eq!(shown["status"], "ok", "{shown}");
    let detail = shown["detail"].as_str().unwrap();
    assert!(detail.starts_with(&format!("X11 {display} (")), "{detail}");
    assert!(detail.contains("window manager Openbox"), "{detail}");

    let bus = check(&report, "accessibility bus");
    assert_eq!(bus["status"], "ok", "{bus}");
    let address = std::env::var("AT_SPI_BUS_ADDRESS").unwrap();
    assert!(
        bus["detail"].as_str().unwrap().starts_with(&address),
        "{bus}"
    );
    // The fixture is a GTK 3 app; doctor finds it on the bus by its toolkit.
    let gtk = check(&report, "gtk")["detail"].as_str().unwrap();
    assert!(gtk.contains("on the bus now:"), "{gtk}");

    let running = check(&report, "daemon")["detail"].as_str().unwrap();
    assert_eq!(
        running,
        format!(
            "running, pid {}, version {}",
            daemon.pid(),
            env!("CARGO_PKG_VERSION")
        )
    );
    app.assert_untouched();
}

#[test]
fn doctor_changes_nothing_unless_asked_and_then_only_what_it_names() {
    require_desktop();
    let scratch = Scratch::new("doctor");
    let dir = scratch.path("sock");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();

    let out = doctor(&scratch, &["--json"], &[]);
    let first = report(&out);
    assert_eq!(out.status.code(), Some(1), "{first:#}");
    let socket = check(&first, "socket");
    assert_eq!(socket["status"], "fail", "{socket}");
    assert_eq!(socket["fix"], format!("chmod 700 {}", dir.display()));
    assert_eq!(
        mode_of(&dir),
        0o755,
        "doctor without --fix changed the directory"
    );

    let out = doctor(&scratch, &["--fix"], &[]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(mode_of(&dir), 0o700, "{said}");
    let fixed: Vec<&str> = said.lines().filter(|l| l.starts_with("fixed:")).collect();
    assert_eq!(
        fixed,
        [format!("fixed: chmod 700 {}", dir.display())],
        "{said}"
    );
    assert!(said.contains("  ok    socket"), "{said}");
    assert!(!said.contains("--fix would"), "{said}");
}

#[test]
fn doctor_says_why_the_persons_display_cannot_be_driven_and_how_to_fix_it() {
    require_desktop();
    let scratch = Scratch::new("doctor");
    std::fs::write(
        scratch.path("config.toml"),
        "[daemon]\ndisplay = \"inherit\"\n",
    )
    .unwrap();
    let out = doctor(
        &scratch,
        &["--json"],
        &[("DISPLAY", None), ("WAYLAND_DISPLAY", Some("wayland-9"))],
    );
    let inherit = report(&out);
    assert_eq!(out.status.code(), Some(1), "{inherit:#}");
    let display = check(&inherit, "display");
    assert_eq!(display["status"], "fail");
    assert!(
        display["detail"]
            .as_str()
            .unwrap()
            .contains("Wayland (wayland-9) without X"),
        "{display}"
    );
    assert!(
        display["fix"]
            .as_str()
            .unwrap()
            .contains("display = \"per-agent\""),
        "{display}"
    );

    // With XWayland, the X display is driven, and what that leaves out is said.
    let out = doctor(
        &scratch,
        &["--json"],
        &[("WAYLAND_DISPLAY", Some("wayland-9"))],
    );
    let xwayland = report(&out);
    let xwayland = check(&xwayland, "display");
    assert_eq!(xwayland["status"], "warn", "{xwayland}");
    let detail = xwayland["detail"].as_str().unwrap();
    assert!(
        detail.contains("through XWayland") && detail.contains("out of reach"),
        "{xwayland}"
    );

    // The Wayland session itself: what its compositor offers, and that without sway's IPC
    // native windows are out of reach; a socket nobody listens on is named as such.
    let sway = std::env::var("SHUTTLE_RIG_WAYLAND").expect(
        "SHUTTLE_RIG_WAYLAND: run the tests inside scripts/desktop.sh, with sway installed",
    );
    let out = doctor(&scratch, &["--json"], &[("WAYLAND_DISPLAY", Some(&sway))]);
    let wayland = report(&out);
    let wayland = check(&wayland, "wayland");
    assert_eq!(wayland["status"], "warn", "{wayland}");
    let detail = wayland["detail"].as_str().unwrap();
    for protocol in [
        "zwlr_foreign_toplevel_manager_v1 v3",
        "zwlr_screencopy_manager_v1 v3",
        "zwp_virtual_keyboard_manager_v1 v1",
        "zwlr_virtual_pointer_manager_v1 v2",
    ] {
        assert!(detail.contains(protocol), "{wayland}");
    }
    assert!(detail.contains("out of its reach"), "{wayland}");
    // Started inside sway (SWAYSOCK set), the daemon drives the session natively, and the X
    // display beside it is XWayland's, not what is driven.
    let swaysock = std::env::var("SHUTTLE_RIG_SWAYSOCK").unwrap();
    let out = doctor(
        &scratch,
        &["--json"],
        &[
            ("WAYLAND_DISPLAY", Some(&sway)),
            ("SWAYSOCK", Some(&swaysock)),
        ],
    );
    let native = report(&out);
    let wayland = check(&native, "wayland");
    assert_eq!(wayland["status"], "ok", "{wayland}");
    assert!(
        wayland["detail"]
            .as_str()
            .unwrap()
            .contains("driven natively"),
        "{wayland}"
    );
    let display = check(&native, "display");
    assert_eq!(display["status"], "ok", "{display}");
    assert!(
        display["detail"].as_str().unwrap().contains("not driven"),
        "{display}"
    );
    let out = doctor(
        &scratch,
        &["--json"],
        &[("WAYLAND_DISPLAY", Some("/nonexistent/wayland-9"))],
    );
    let unreachable = report(&out);
    let unreachable = check(&unreachable, "wayland");
    assert!(
        unreachable["detail"]
            .as_str()
            .unwrap()
            .contains("cannot reach the Wayland compositor"),
        "{unreachable}"
    );

    // Under per-agent displays the person's display is not needed at all.
    std::fs::write(
        scratch.path("config.toml"),
        "[daemon]\ndisplay = \"per-agent\"\n",
    )
    .unwrap();
    let out = doctor(&scratch, &["--json"], &[("DISPLAY", None)]);
    let per_agent = report(&out);
    assert_eq!(check(&per_agent, "display")["status"], "skip");
    assert_eq!(check(&per_agent, "private displays")["status"], "ok");
}

#[test]
fn doctor_names_a_broken_config_file_and_line() {
    let scratch = Scratch::new("doctor");
    std::fs::write(
        scratch.path("config.toml"),
        "[daemon]\ndisplay = \"sideways\"\n",
    )
    .unwrap();
    let out = doctor(&scratch, &["--json"], &[]);
    let report = report(&out);
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    let config = check(&report, "config");
    assert_eq!(config["status"], "fail");
    let detail = config["detail"].as_str().unwrap();
    assert!(
        detail.contains("config.toml") && detail.contains("line 2"),
        "{detail}"
    );
}
