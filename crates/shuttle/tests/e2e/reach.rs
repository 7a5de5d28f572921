//! Out of reach: what an agent starts (an app it launches, a script it runs, a process either
//! leaves behind, detached) cannot read the model key out of the daemon or the MCP proxy, run as
//! a non-root user, the way a person runs them.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::{self, Mcp, SHUTTLE, Scratch, desk_tool, require_desktop, wait_for};
use serde_json::{Value, json};

/// The user the test's processes run as: this one, or `nobody` when the test runs as root.
fn person() -> (u32, u32) {
    // SAFETY: geteuid and getegid have no preconditions.
    match unsafe { (libc::geteuid(), libc::getegid()) } {
        (0, _) => (65534, 65534),
        ids => ids,
    }
}

/// `from`, linked (or copied) into `dir`, so that `person` can run it whatever the modes on the
/// way to the original.
fn reachable(from: &Path, dir: &Path) -> PathBuf {
    let to = dir.join(from.file_name().unwrap());
    if std::fs::hard_link(from, &to).is_err() {
        std::fs::copy(from, &to).unwrap();
    }
    to
}

fn chown(path: &Path, (uid, gid): (u32, u32)) {
    std::os::unix::fs::chown(path, Some(uid), Some(gid)).unwrap();
}

/// A command run as `person`, with the environment a desktop session gives it.
fn as_person(program: &Path, scratch: &Scratch, key: &str) -> Command {
    let (uid, gid) = person();
    let mut command = Command::new(program);
    command
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", scratch.path("home"))
        .env("XDG_RUNTIME_DIR", scratch.path("run"))
        .env("DISPLAY", std::env::var("DISPLAY").unwrap())
        .env("SHUTTLE_SOCKET", scratch.path("run/desk.sock"))
        .env("SHUTTLE_CONFIG", scratch.path("config.toml"))
        .env("XDG_STATE_HOME", scratch.path("state"))
        .env("OPENROUTER_API_KEY", key)
        .uid(uid)
        .gid(gid);
    command
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        common::stop_child(&mut self.0);
    }
}

#[test]
fn nothing_an_agent_starts_reads_the_key_of_the_daemon_or_of_the_proxy() {
    require_desktop();
    let user = person();
    let key = format!("sk-or-reach-{:x}", std::process::id() * 7919);
    let scratch = Scratch::new("reach");
    for dir in ["home", "home/out", "run", "state", "bin"] {
        std::fs::create_dir_all(scratch.path(dir)).unwrap();
        chown(&scratch.path(dir), user);
    }
    std::fs::set_permissions(scratch.path("run"), std::fs::Permissions::from_mode(0o700)).unwrap();
    chown(&scratch.0, user);
    std::fs::write(
        scratch.path("config.toml"),
        // What the probes write goes where a sandboxed app may write: a part of the home shared.
        "[daemon]\ndisplay = \"per-agent\"\n[apps]\nshare = [\"~/out\"]\n",
    )
    .unwrap();
    let bin = scratch.path("bin");
    let shuttle = reachable(Path::new(SHUTTLE), &bin);
    let node = reachable(
        Path::new(&std::env::var("SHUTTLE_NODE").expect("SHUTTLE_NODE names the pinned Node")),
        &bin,
    );
    let peek = reachable(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/peek.py"),
        &scratch.path("home/out"),
    );

    let log = std::fs::File::create(scratch.path("serve.log")).unwrap();
    let mut serve = as_person(&shuttle, &scratch, &key);
    serve
        .args(["serve", "--foreground"])
        .env("SHUTTLE_NODE", &node)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    let keeper = Killed(serve.spawn().unwrap());
    let socket = scratch.path("run/desk.sock");
    wait_for("the daemon to listen", Duration::from_secs(20), || {
        std::os::unix::net::UnixStream::connect(&socket).ok()
    });
    let keeper_pid = keeper.0.id();
    let daemon = wait_for("the keeper's daemon", Duration::from_secs(5), || {
        std::fs::read_to_string(format!("/proc/{keeper_pid}/task/{keeper_pid}/children"))
            .ok()?
            .split_whitespace()
            .next()?
            .parse::<u32>()
            .ok()
    });
    let mut proxy = as_person(&shuttle, &scratch, &key);
    proxy.arg("mcp").env("SHUTTLE_EMBEDDED", "1");
    let mut mcp = Mcp::spawn(proxy);
    mcp.initialize("2025-06-18");
    // A process of the person's that holds the key and is not sealed: the probe must find it
    // there, or its finding nothing elsewhere proves nothing.
    let mut holder = as_person(Path::new("/bin/sleep"), &scratch, &key);
    let control = Killed(holder.arg("60").spawn().unwrap());
    let targets = [
        format!("daemon={daemon}"),
        format!("keeper={keeper_pid}"),
        format!("mcp={}", mcp.child.id()),
        format!("control={}", control.0.id()),
    ];
    let probe = |out: &str| {
        let mut args = vec![
            peek.display().to_string(),
            "--key".into(),
            key.clone(),
            "--out".into(),
            scratch.path("home/out").join(out).display().to_string(),
        ];
        args.extend(targets.iter().cloned());
        args
    };

    // An app the agent launches on its display.
    let launched = desk_tool(
        &mut mcp,
        json!({"verb": "launch", "app": "/usr/bin/python3", "args": probe("app.json")}),
    )
    .unwrap();
    // The probe shows no window: what counts is what it wrote.
    let sandboxed = launched["sandboxed"] == true;
    // A script, which also leaves a detached grandchild behind (a new session, its parent gone).
    let command = |args: Vec<String>| {
        args.iter()
            .map(|a| format!("'{a}'"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let code = format!(
        r#"import {{ execFileSync, spawn }} from "node:child_process";
        export function main() {{
            execFileSync("/usr/bin/python3", {script});
            spawn("setsid", ["sh", "-c", "(sleep 0.3; /usr/bin/python3 {detached}) &"],
                  {{ detached: true, stdio: "ignore" }}).unref();
            return "probed";
        }}"#,
        script = serde_json::to_string(&probe("script.json")).unwrap(),
        detached = command(probe("detached.json")).replace('"', "\\\""),
    );
    let ran = mcp.call("script_run", json!({"code": code}));
    assert_ne!(ran["result"]["isError"], true, "{ran}");

    for out in ["app.json", "script.json", "detached.json"] {
        let path = scratch.path("home/out").join(out);
        let report: Value = wait_for(out, Duration::from_secs(20), || {
            serde_json::from_str(&std::fs::read_to_string(&path).ok()?).ok()
        });
        assert_eq!(
            report["uid"], user.0,
            "{out}: the probe ran as the person: {report}"
        );
        let control = &report["control"];
        if out == "app.json" && sandboxed {
            // A sandbox keeps every process outside it out of the app's reach.
            assert!(
                control["environ"].as_str().unwrap().starts_with("refused"),
                "{out}: {report}"
            );
        } else {
            assert_eq!(control["environ"], "read", "{out}: {report}");
            assert_eq!(
                control["found"], true,
                "{out}: the probe finds an open key: {report}"
            );
        }
        for sealed in ["daemon", "keeper", "mcp"] {
            let tried = &report[sealed];
            for how in ["environ", "mem", "ptrace"] {
                assert!(
                    tried[how].as_str().unwrap().starts_with("refused"),
                    "{out}: {sealed}'s {how} was not refused: {report}"
                );
            }
            assert_eq!(
                tried["found"], false,
                "{out}: {sealed}'s key was found: {report}"
            );
        }
    }
    drop(mcp);
    drop(keeper);
    let said = std::fs::read_to_string(scratch.path("serve.log")).unwrap();
    assert!(!said.contains(&key), "the log holds the key");
}
