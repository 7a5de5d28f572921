//! End to end: `script_run`, tool plugins and service plugins, through the real daemon, the
//! real MCP server and the bundled Node, judged by the fixture's log, files the scripts leave,
//! and the processes that are (or are not) still there.

use crate::common;

use std::io::Write as _;
use std::net::Shutdown;
use std::path::Path;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};

/// A run's report from a wire reply, error or not.
fn report(reply: &Reply) -> Value {
    serde_json::from_str(&reply.text)
        .unwrap_or_else(|e| panic!("the reply is not a report ({e}): {}", reply.text))
}

fn mcp_for(daemon: &Daemon) -> Mcp {
    let config = daemon.config_path();
    let state = daemon.scratch.path("state");
    let mut mcp = Mcp::start(
        &daemon.socket,
        &[
            ("SHUTTLE_CONFIG", config.to_str().unwrap()),
            ("XDG_STATE_HOME", state.to_str().unwrap()),
        ],
    );
    mcp.initialize("2025-06-18");
    mcp
}

fn pid_alive(pid: i32) -> bool {
    // SAFETY: signal 0 checks for the process without touching it.
    unsafe { libc::kill(pid, 0) == 0 }
}

#[test]
fn a_script_types_into_the_fixture_and_reads_it_back_through_mcp() {
    require_desktop();
    let daemon = Daemon::start();
    let bystander = Fixture::start("Bystander", &[]);
    let fixture = Fixture::start("Script Target", &[]);
    let mut mcp = mcp_for(&daemon);
    let code = r#"
        export async function main({ window, text }) {
            const typed = await desk.type({ window, text });
            const found = await desk.find({ name: "Input", window });
            const node = await desk.read({ id: found.nodes[0].id, text: true });
            console.log("typed", typed.typed);
            return { outcome: typed.outcome, node };
        }"#;
    let text = "héllo from a script ✓";
    let result = mcp.call(
        "script_run",
        json!({"code": code, "params": {"window": fixture.id(), "text": text}}),
    );
    assert_ne!(result["isError"], json!(true), "{result}");
    let report: Value = serde_json::from_str(&result_text(&result)).unwrap();
    assert_eq!(report["result"]["outcome"], "completed", "{report}");
    assert!(
        report["result"]["node"].to_string().contains(text),
        "{report}"
    );
    assert!(
        report["logs"].as_str().unwrap().starts_with("typed "),
        "{report}"
    );
    assert_eq!(report["exit_code"], 0);
    assert!(report.get("error").is_none());
    let landed = fixture.await_events("text", 1);
    assert!(
        fixture.events_of("text").iter().any(|e| e["text"] == text),
        "the fixture's entry never held the text: {landed:?}"
    );
    bystander.assert_untouched();
    // The run's desk calls carry its own name, which the journal shows.
    let agents: Vec<String> = daemon
        .journal()
        .iter()
        .filter(|e| e["tool"] == "desk_type")
        .map(|e| e["agent_id"].as_str().unwrap().to_string())
        .collect();
    assert!(
        agents.len() == 1 && agents[0].contains("/run-"),
        "{agents:?}"
    );
}

#[test]
fn a_script_that_traps_sigterm_gets_its_grace_and_its_child_is_killed_after_it() {
    let daemon = Daemon::start();
    let scratch = Scratch::new("grace");
    let marker = scratch.path("term");
    let child_pid = scratch.path("child.pid");
    let code = format!(
        r#"
        import {{ spawn }} from "node:child_process";
        import {{ writeFileSync }} from "node:fs";
        export async function main() {{
            process.on("SIGTERM", () => writeFileSync({marker:?}, "term"));
            const child = spawn("sh", ["-c", "trap '' TERM; sleep 300"], {{ stdio: "ignore" }});
            writeFileSync({child_pid:?}, String(child.pid));
            console.log("waiting");
            await new Promise(() => setInterval(() => {{}}, 1000));
        }}"#
    );
    let started = Instant::now();
    let reply = daemon.call("script_run", json!({"code": code, "timeout_s": 1}));
    let took = started.elapsed();
    let report = report(&reply);
    assert!(reply.is_error, "{}", reply.text);
    assert_eq!(report["error"]["kind"], "timeout", "{report}");
    assert!(report.get("exit_code").is_none(), "{report}");
    assert_eq!(report["logs"], "waiting\n");
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        "term",
        "SIGTERM reached the script"
    );
    assert!(
        took >= Duration::from_millis(2900) && took < Duration::from_secs(6),
        "the report came {took:?} after the start: 1 s timeout + 2 s grace"
    );
    let pid: i32 = std::fs::read_to_string(&child_pid)
        .unwrap()
        .parse()
        .unwrap();
    wait_for(
        "the child that ignored SIGTERM to be killed",
        Duration::from_secs(2),
        || (!pid_alive(pid)).then_some(()),
    );
}

#[test]
fn a_stop_mid_run_reports_stopped_with_its_logs() {
    let daemon = Daemon::start();
    let scratch = Scratch::new("stop");
    let marker = scratch.path("running");
    let code = format!(
        r#"
        import {{ writeFileSync }} from "node:fs";
        export async function main() {{
            console.log("started");
            writeFileSync({marker:?}, "1");
            await new Promise((resolve) => setTimeout(resolve, 60000));
        }}"#
    );
    let mut wire = daemon.connect();
    wire.send("script_run", json!({"code": code}));
    wait_for("the script to start", Duration::from_secs(10), || {
        marker.exists().then_some(())
    });
    let stopped = daemon.cli(&["stop"]);
    assert!(stopped.status.success());
    let reply = wire.read().expect("a report");
    let report = report(&reply);
    assert!(reply.is_error);
    assert_eq!(report["error"]["kind"], "stopped", "{report}");
    assert!(
        report["error"]["message"]
            .as_str()
            .unwrap()
            .contains("shuttle resume")
    );
    assert_eq!(report["logs"], "started\n");
    // Stopped: new runs are refused until the person resumes.
    let refused = daemon.call("script_run", json!({"code": "export function main() {}"}));
    assert!(refused.error().contains("stopped by the user"));
    assert!(daemon.cli_resume().status.success());
    let ok = daemon.call(
        "script_run",
        json!({"code": "export function main() { return 7 }"}),
    );
    assert_eq!(report_of_ok(&ok)["result"], 7);
}

fn report_of_ok(reply: &Reply) -> Value {
    assert!(!reply.is_error, "{}", reply.text);
    report(reply)
}

#[test]
fn another_agents_action_waits_while_a_run_owns_the_desk() {
    require_desktop();
    let daemon = Daemon::start_configured(Some("[daemon]\nturn_wait_ms = 1000\n"), &[]);
    let fixture = Fixture::start("Owned Desk", &[]);
    let scratch = Scratch::new("own");
    let typed = scratch.path("typed");
    let release = scratch.path("release");
    let code = format!(
        r#"
        import {{ existsSync, writeFileSync }} from "node:fs";
        export async function main({{ window }}) {{
            await desk.type({{ window, text: "run" }});
            writeFileSync({typed:?}, "1");
            while (!existsSync({release:?})) await new Promise((r) => setTimeout(r, 20));
            return "released";
        }}"#
    );
    let mut run = Wire::connect_as(&daemon.socket, "owner");
    run.send(
        "script_run",
        json!({"code": code, "params": {"window": fixture.id()}}),
    );
    wait_for(
        "the run's own action to pass",
        Duration::from_secs(10),
        || typed.exists().then_some(()),
    );
    let mut other = Wire::connect_as(&daemon.socket, "other");
    let windows = other.call("desk_windows", json!({}));
    assert!(
        !windows.is_error,
        "reads run alongside a run: {}",
        windows.text
    );
    let busy = other.call(
        "desk_type",
        json!({"window": fixture.id(), "text": "intruder"}),
    );
    let error = busy.error();
    assert!(
        error.contains("desk busy") && error.contains("/run-"),
        "{error}"
    );
    std::fs::File::create(&release).unwrap().flush().unwrap();
    let reply = run.read().expect("the run's report");
    assert_eq!(report_of_ok(&reply)["result"], "released");
    let texts: Vec<String> = fixture
        .events_of("text")
        .iter()
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(texts.last().map(String::as_str), Some("run"), "{texts:?}");
    assert!(!texts.iter().any(|t| t.contains("intruder")), "{texts:?}");
    // The desk is free again.
    let after = other.call("desk_type", json!({"window": fixture.id(), "text": "!"}));
    assert!(!after.is_error, "{}", after.text);
}

#[test]
fn the_environment_of_a_run_holds_no_model_key_and_the_journal_no_code() {
    let secret = "sk-or-test-4d1f8e";
    let daemon = Daemon::start_with(&[("OPENROUTER_API_KEY", secret)]);
    let code = "export function main() { return process.env }";
    let reply = daemon.call(
        "script_run",
        json!({"code": code, "params": {"p": "hunter2"}}),
    );
    let env = report_of_ok(&reply)["result"].clone();
    assert!(
        !reply.text.contains(secret),
        "the key leaked: {}",
        reply.text
    );
    assert!(env.get("OPENROUTER_API_KEY").is_none());
    for var in [
        "SHUTTLE_SOCKET",
        "SHUTTLE_AGENT",
        "SHUTTLE_SCRIPT",
        "SHUTTLE_RUN",
        "SHUTTLE_FLOWS",
    ] {
        assert!(env[var].is_string(), "{var} missing: {env}");
    }
    assert_eq!(env["SHUTTLE_SOCKET"], daemon.socket.display().to_string());
    assert!(
        env["SHUTTLE_AGENT"]
            .as_str()
            .unwrap()
            .starts_with("test/run-")
    );
    let journal = serde_json::to_string(&daemon.journal()).unwrap();
    assert!(journal.contains("script_run"));
    assert!(
        !journal.contains("hunter2") && !journal.contains("process.env"),
        "{journal}"
    );
    assert!(!daemon.log().contains(secret));
}

#[test]
fn bad_scripts_and_bad_arguments_say_which() {
    let daemon = Daemon::start();
    let kind = |args: Value| {
        let reply = daemon.call("script_run", args);
        assert!(reply.is_error, "{}", reply.text);
        let report = report(&reply);
        (
            report["error"]["kind"].as_str().unwrap().to_string(),
            report["error"]["message"].as_str().unwrap().to_string(),
        )
    };
    let (k, m) = kind(json!({"code": "export function main( {"}));
    assert_eq!(k, "import", "{m}");
    let (k, m) = kind(json!({"path": "/nonexistent/script.mjs"}));
    assert_eq!(k, "import");
    assert!(m.contains("/nonexistent/script.mjs"), "{m}");
    let (k, m) = kind(json!({"code": "export const x = 1"}));
    assert_eq!(k, "no_main");
    assert!(m.contains("main"), "{m}");
    let (k, m) = kind(json!({"code": "export function main() { throw new Error('boom') }"}));
    assert_eq!(k, "exception");
    assert!(m.contains("boom") && m.contains("at main"), "{m}");
    let (k, m) = kind(json!({"code": "export function main() { process.exit(4) }"}));
    assert_eq!(k, "exit", "{m}");
    let reply = daemon.call(
        "script_run",
        json!({"code": "export function main() { process.exit(4) }"}),
    );
    assert_eq!(report(&reply)["exit_code"], 4);
    for (args, says) in [
        (
            json!({"code": "x", "params": [1]}),
            "params must be an object",
        ),
        (json!({"code": "x", "timeout_s": 111}), "at most 110"),
        (json!({"path": "relative.mjs"}), "is relative"),
        (json!({}), "pass code"),
    ] {
        let reply = daemon.call("script_run", args);
        assert!(reply.error().contains(says), "{}", reply.text);
    }
    // The daemon is unaffected.
    let ok = daemon.call(
        "script_run",
        json!({"code": "export const main = async (p) => p.n + 1", "params": {"n": 1}}),
    );
    assert_eq!(report_of_ok(&ok)["result"], 2);
}

#[test]
fn a_failed_run_is_an_mcp_error_with_the_whole_report_and_relative_paths_resolve() {
    let daemon = Daemon::start();
    let mut mcp = mcp_for(&daemon);
    let result = mcp.call("script_run", json!({"code": "export function main() { console.log('before'); throw new Error('nope') }"}));
    assert_eq!(result["isError"], true);
    let report: Value = serde_json::from_str(&result_text(&result)).unwrap();
    assert_eq!(report["error"]["kind"], "exception");
    assert_eq!(report["logs"], "before\n");
    // shuttle mcp runs in the test's working directory, the crate's: a path relative to it.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile_in(dir);
    let name = scratch.file_name().unwrap().to_str().unwrap().to_string();
    let result = mcp.call("script_run", json!({"path": name}));
    let _ = std::fs::remove_file(&scratch);
    let report: Value = serde_json::from_str(&result_text(&result)).unwrap();
    assert_eq!(report["result"], "relative", "{report}");
}

#[test]
fn runs_share_nodes_compile_cache_without_growing_it() {
    let daemon = Daemon::start();
    let cache = daemon.socket.parent().unwrap().join("node-cache");
    let files = || {
        fn count(dir: &Path) -> usize {
            std::fs::read_dir(dir).map_or(0, |entries| {
                entries
                    .flatten()
                    .map(|e| match e.file_type() {
                        Ok(t) if t.is_dir() => count(&e.path()),
                        _ => 1,
                    })
                    .sum()
            })
        }
        count(&cache)
    };
    let run = |n: usize| {
        let code = format!("export function main(): number {{ return {n} }}");
        let reply = daemon.call("script_run", json!({ "code": code }));
        assert_eq!(report(&reply)["result"], n, "{}", reply.text);
    };
    run(0);
    let after_one = files();
    assert!(after_one > 0, "no compile cache in {}", cache.display());
    for n in 1..6 {
        run(n);
    }
    // Each run's code is new, but it sits at the same path as the last run's: its cache entry
    // is replaced, not added.
    assert_eq!(files(), after_one, "the cache grew run by run");
}

fn tempfile_in(dir: &Path) -> std::path::PathBuf {
    let path = dir.join(format!("script-test-{}.mjs", std::process::id()));
    std::fs::write(&path, "export function main() { return 'relative' }").unwrap();
    path
}

/// A daemon whose plugin directory (tools.d beside its config) holds `files` when it starts,
/// with a model key in its environment that no plugin may see.
fn daemon_with_plugins(config: Option<&str>, files: &[(&str, String)]) -> Daemon {
    Daemon::start_prepared(
        config,
        &[("OPENROUTER_API_KEY", "sk-service-test")],
        |scratch| {
            let dir = scratch.path("tools.d");
            std::fs::create_dir_all(&dir).unwrap();
            for (name, text) in files {
                std::fs::write(dir.join(name), text).unwrap();
            }
        },
    )
}

fn plugin_runner(scratch: &Scratch) -> String {
    let bin = scratch.path("runner.sh");
    std::fs::write(
        &bin,
        "#!/bin/sh\n# A plugin's program: answers with what it was given.\n\
         printf '{\"entry\": \"%s\", \"agent\": \"%s\", \"params\": %s}' \"$1\" \"$SHUTTLE_AGENT\" \
         \"$(cat \"$SHUTTLE_RUN/params.json\")\" > \"$SHUTTLE_RUN/result.json\"\necho ran\n",
    )
    .unwrap();
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    bin.display().to_string()
}

#[test]
fn a_plugin_tool_and_its_resources_are_listed_and_served_and_bad_files_are_skipped() {
    let scratch = Scratch::new("plugin");
    let bin = plugin_runner(&scratch);
    let guide = scratch.path("GUIDE.md");
    std::fs::write(&guide, "# Demo\nUse demo_run.\n").unwrap();
    let good = json!({"name": "demo_run", "description": "Run a demo.", "bin": bin,
        "resources": [{"uri": "demo://GUIDE.md", "path": guide, "mime": "text/markdown", "description": "The guide"}]});
    let daemon = daemon_with_plugins(
        None,
        &[
            ("a-demo.json", good.to_string()),
            ("b-dup.json", good.to_string()),
            ("c-name.json", json!({"name": "demo", "description": "", "bin": "/bin/true"}).to_string()),
            ("d-field.json", json!({"name": "x_run", "description": "", "bin": "/bin/true", "env": {}}).to_string()),
            ("e-relative.json", json!({"name": "y_run", "description": "", "bin": "true"}).to_string()),
            ("f-broken.json", "{".into()),
            ("g-service.json", json!({"service": "s", "bin": "/bin/cat", "tools": [{"name": "desk_x", "description": "", "input_schema": {"type": "object"}}]}).to_string()),
        ],
    );
    let status = daemon.call("status", Value::Null).json();
    let errors: Vec<String> = status["plugins"]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect();
    assert_eq!(status["plugins"]["tools"], json!(["demo_run"]), "{status}");
    for (file, rule) in [
        ("b-dup.json", "already taken"),
        ("c-name.json", "must match"),
        ("d-field.json", "unknown field `env`"),
        ("e-relative.json", "must be an absolute path"),
        ("f-broken.json", "not JSON"),
        ("g-service.json", "starts with desk_"),
    ] {
        assert!(
            errors.iter().any(|e| e.contains(file) && e.contains(rule)),
            "{file}: {rule} not reported in {errors:?}"
        );
    }
    assert_eq!(errors.len(), 6, "{errors:?}");

    let mut mcp = mcp_for(&daemon);
    let id = mcp.request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}));
    assert!(mcp.response(id)["result"]["capabilities"]["resources"].is_object());
    let id = mcp.request("tools/list", json!({}));
    let names: Vec<String> = mcp.response(id)["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "look",
            "desk",
            "computer",
            "screenshot",
            "status",
            "script_run",
            "gui_plan",
            "demo_run"
        ]
    );
    let id = mcp.request("resources/list", json!({}));
    let resources = mcp.response(id)["result"]["resources"].clone();
    assert_eq!(
        resources,
        json!([{"uri": "demo://GUIDE.md", "name": "GUIDE.md", "description": "The guide", "mimeType": "text/markdown"}])
    );
    let id = mcp.request("resources/read", json!({"uri": "demo://GUIDE.md"}));
    let contents = mcp.response(id)["result"]["contents"][0].clone();
    assert_eq!(contents["text"], "# Demo\nUse demo_run.\n");
    let id = mcp.request("resources/read", json!({"uri": "demo://missing"}));
    assert!(
        mcp.response(id)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no plugin resource")
    );

    let result = mcp.call("demo_run", json!({"code": "ignored", "params": {"n": 3}}));
    let report: Value = serde_json::from_str(&result_text(&result)).unwrap();
    assert_eq!(report["result"]["params"], json!({"n": 3}), "{report}");
    assert!(
        report["result"]["entry"]
            .as_str()
            .unwrap()
            .ends_with("run.mts")
    );
    assert!(
        report["result"]["agent"]
            .as_str()
            .unwrap()
            .contains("/run-")
    );
    assert_eq!(report["logs"], "ran\n");
}

#[test]
fn turning_scripts_off_unlists_them_and_refuses_their_calls() {
    let scratch = Scratch::new("off");
    let bin = plugin_runner(&scratch);
    let config = "[tools]\nscript_run = false\n";
    let daemon = daemon_with_plugins(
        Some(config),
        &[(
            "demo.json",
            json!({"name": "demo_run", "description": "d", "bin": bin}).to_string(),
        )],
    );
    let mut mcp = mcp_for(&daemon);
    let id = mcp.request("tools/list", json!({}));
    let listed = mcp.response(id)["result"]["tools"].to_string();
    assert!(
        !listed.contains("script_run")
            && !listed.contains("gui_plan")
            && !listed.contains("demo_run"),
        "{listed}"
    );
    for tool in ["script_run", "demo_run", "gui_plan"] {
        let args = json!({"code": "export function main() {}", "steps": []});
        let reply = daemon.call(tool, args);
        assert!(
            reply.error().contains("script_run = false"),
            "{}",
            reply.text
        );
    }
}

fn echo_service(log: &Path) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/echo_service.py");
    json!({"service": "echo", "bin": "/usr/bin/python3", "args": [script, log], "tools": [
        {"name": "echo_say", "description": "Echo the arguments.", "input_schema": {"type": "object"}},
        {"name": "echo_crash", "description": "Crash the service.", "input_schema": {"type": "object"}},
        {"name": "echo_stream", "description": "Stream.", "input_schema": {"type": "object"}, "mcp": false}
    ]})
    .to_string()
}

fn starts(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_service_echoes_through_mcp_streams_with_half_close_and_comes_back_after_a_crash() {
    let scratch = Scratch::new("service");
    let log = scratch.path("starts.log");
    let daemon = daemon_with_plugins(None, &[("echo.json", echo_service(&log))]);
    wait_for("the service to start", Duration::from_secs(10), || {
        (!starts(&log).is_empty()).then_some(())
    });
    let first = starts(&log)[0].clone();
    assert_eq!(
        first["keys"],
        json!([]),
        "no model key reaches a service: {first}"
    );

    let mut mcp = mcp_for(&daemon);
    let id = mcp.request("tools/list", json!({}));
    let names: Vec<String> = mcp.response(id)["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        names.ends_with(&["echo_say".to_string(), "echo_crash".to_string()]),
        "{names:?}"
    );
    assert!(!names.contains(&"echo_stream".to_string()));
    for n in 0..2 {
        let result = mcp.call("echo_say", json!({"n": n}));
        assert_eq!(
            result_text(&result),
            json!({"n": n}).to_string(),
            "{result}"
        );
    }

    // A streaming tool on the wire: three packets, a half-close from the client, a last packet.
    let mut wire = daemon.connect();
    wire.send("echo_stream", json!({}));
    for i in 0..3 {
        assert_eq!(wire.read().unwrap().text, format!("tick {i}"));
    }
    wire.stream.shutdown(Shutdown::Write).unwrap();
    assert_eq!(wire.read().unwrap().text, "bye");
    assert!(
        wire.read().is_none(),
        "the service's close reaches the client"
    );

    // A crash: the service comes back after its 1 s backoff.
    let mut crash = daemon.connect();
    crash.send("echo_crash", json!({}));
    assert!(
        crash.read().is_none(),
        "the crashed service's connection closes"
    );
    let crashed = Instant::now();
    wait_for(
        "the service to start again",
        Duration::from_secs(10),
        || (starts(&log).len() == 2).then_some(()),
    );
    let back = starts(&log)[1]["started"].as_f64().unwrap() - first["started"].as_f64().unwrap();
    assert!(
        back >= 1.0,
        "restarted {back} s after the first start: the backoff is 1 s"
    );
    let again = daemon.call("echo_say", json!({"again": true}));
    assert_eq!(again.text, r#"{"again":true}"#);
    assert!(crashed.elapsed() < Duration::from_secs(10));
    let status = daemon.call("status", Value::Null).json();
    assert_eq!(status["plugins"]["services"][0]["starts"], 2, "{status}");

    // A stop closes service calls without a reply and refuses new ones.
    let mut streaming = daemon.connect();
    streaming.send("echo_stream", json!({}));
    assert_eq!(streaming.read().unwrap().text, "tick 0");
    assert!(daemon.cli(&["stop"]).status.success());
    let mut rest = Vec::new();
    while let Some(reply) = streaming.read() {
        rest.push(reply.text);
    }
    assert!(!rest.contains(&"bye".to_string()), "{rest:?}");
    assert!(
        daemon
            .call("echo_say", json!({}))
            .error()
            .contains("stopped by the user")
    );
    assert!(daemon.cli_resume().status.success());
    assert!(!daemon.call("echo_say", json!({})).is_error);

    // The daemon's exit ends the service.
    let pid = status["plugins"]["services"][0]["pid"].as_i64().unwrap() as i32;
    drop(mcp);
    drop(daemon);
    wait_for(
        "the service to end with the daemon",
        Duration::from_secs(5),
        || (!pid_alive(pid)).then_some(()),
    );
}

/// Whether the daemon says it is stopped.
fn stopped(daemon: &Daemon) -> bool {
    daemon.call("status", Value::Null).json()["stopped"] == json!(true)
}

#[test]
fn anyone_stops_but_only_the_person_resumes_not_a_script_a_plugin_or_an_app_an_agent_launched() {
    require_desktop();
    let scratch = Scratch::new("person-only");
    let dir = scratch.0.clone();
    // A plugin whose program runs `shuttle stop`.
    let plugin = dir.join("stopper.sh");
    std::fs::write(
        &plugin,
        format!("#!/bin/sh\n'{SHUTTLE}' stop\nprintf '{{}}' > \"$SHUTTLE_RUN/result.json\"\n"),
    )
    .unwrap();
    std::fs::set_permissions(&plugin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let daemon = Daemon::start_prepared(None, &[], |scratch| {
        let tools = scratch.path("tools.d");
        std::fs::create_dir_all(&tools).unwrap();
        std::fs::write(
            tools.join("stopper.json"),
            json!({"name": "stopper_run", "description": "Stops.", "bin": plugin}).to_string(),
        )
        .unwrap();
    });

    // The plugin's stop is obeyed (a stop only makes things safer), and it may end the
    // plugin's own run with the rest. The person resumes.
    let ran = daemon.call("stopper_run", json!({"code": "unused"}));
    wait_for("the plugin's stop", Duration::from_secs(10), || {
        stopped(&daemon).then_some(())
    });
    let stops: Vec<Value> = daemon
        .journal()
        .into_iter()
        .filter(|e| e["tool"] == "safety_stop")
        .collect();
    assert!(
        stops.len() == 1 && stops[0]["outcome"] == "completed",
        "{stops:?}, the plugin's reply: {}",
        ran.text
    );
    assert!(daemon.cli_resume().status.success());
    assert!(!stopped(&daemon));

    // An app the agent launched, which leaves a child behind (adopted by init, so only its
    // session tells it apart) to resume shuttle once the person has stopped it.
    let go = dir.join("go");
    let app_said = dir.join("app.out");
    let waiter = format!(
        "(while [ ! -e '{go}' ]; do sleep 0.05; done; '{SHUTTLE}' resume > '{out}.tmp' 2>&1; \
         mv '{out}.tmp' '{out}') &",
        go = go.display(),
        out = app_said.display()
    );
    let launched = daemon.call(
        "desk_launch",
        json!({"app": "/bin/sh", "args": ["-c", waiter]}),
    );
    assert!(!launched.is_error, "{}", launched.text);

    // A script that leaves a process behind detached every way it can: a session of its own
    // (setsid), then a double fork, so neither its parent, group nor session is the agent's.
    let detached_said = dir.join("detached.out");
    let detached = format!(
        "(while [ ! -e '{go}' ]; do sleep 0.05; done; '{SHUTTLE}' resume > '{out}.tmp' 2>&1; \
         mv '{out}.tmp' '{out}') &",
        go = go.display(),
        out = detached_said.display()
    );
    let code = format!(
        r#"import {{ spawn }} from "node:child_process";
        export function main() {{
            spawn("setsid", ["sh", "-c", {detached:?}], {{ detached: true, stdio: "ignore" }}).unref();
        }}"#
    );
    let left = daemon.call("script_run", json!({"code": code}));
    assert!(!left.is_error, "{}", left.text);
    // Where a systemd user manager runs, one more way out: a unit of the manager's, which the
    // daemon's tree does not hold. The daemon cannot tell it is the agent's, so it asks the
    // person, who is not there to allow it.
    let systemd_said = dir.join("systemd.out");
    let systemd = std::process::Command::new("systemd-run")
        .args(["--user", "--quiet", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if systemd {
        let code = format!(
            r#"import {{ execFileSync }} from "node:child_process";
            export function main() {{
                execFileSync("systemd-run", ["--user", "--quiet", "sh", "-c", {waiter:?}]);
            }}"#,
            waiter = format!(
                "while [ ! -e '{go}' ]; do sleep 0.05; done; '{SHUTTLE}' resume > '{out}.tmp' \
                 2>&1; mv '{out}.tmp' '{out}'",
                go = go.display(),
                out = systemd_said.display()
            )
        );
        let left = daemon.call("script_run", json!({"code": code}));
        assert!(!left.is_error, "{}", left.text);
    }

    // A script that, stopped, tries to lift the stop from its SIGTERM handler: through the
    // runtime, then on a socket of its own, again and again through its grace.
    let marker = dir.join("running");
    let tries = dir.join("tries.ndjson");
    let code = format!(
        r#"
        import net from "node:net";
        import {{ appendFileSync, writeFileSync }} from "node:fs";
        function resume() {{
            const socket = net.connect(process.env.SHUTTLE_SOCKET);
            const body = Buffer.from(JSON.stringify({{ tool: "safety_resume", args: {{}} }}));
            const head = Buffer.alloc(4);
            head.writeUInt32BE(body.length);
            socket.write(Buffer.concat([head, body]));
            let got = Buffer.alloc(0);
            socket.on("data", (chunk) => {{
                got = Buffer.concat([got, chunk]);
                if (got.length >= 4 && got.length >= 4 + got.readUInt32BE(0)) {{
                    appendFileSync({tries:?}, got.subarray(4).toString() + "\n");
                    socket.destroy();
                }}
            }});
            socket.on("error", () => {{}});
        }}
        export async function main() {{
            process.on("SIGTERM", async () => {{
                try {{ await desk.call("safety_resume"); }}
                catch (e) {{ appendFileSync({tries:?}, JSON.stringify({{ runtime: e.message }}) + "\n"); }}
                setInterval(resume, 100);
            }});
            writeFileSync({marker:?}, "1");
            await new Promise(() => setInterval(() => {{}}, 1000));
        }}"#
    );
    let mut wire = daemon.connect();
    wire.send("script_run", json!({"code": code}));
    wait_for("the script to start", Duration::from_secs(10), || {
        marker.exists().then_some(())
    });
    let stopped_at = Instant::now();
    assert!(daemon.cli(&["stop"]).status.success());
    std::fs::write(&go, "").unwrap();
    let report = report(&wire.read().expect("the run's report"));
    assert_eq!(report["error"]["kind"], "stopped", "{report}");
    // Through its whole grace and after, shuttle stays stopped.
    while stopped_at.elapsed() < Duration::from_secs(3) {
        assert!(stopped(&daemon), "the stop was lifted");
        std::thread::sleep(Duration::from_millis(100));
    }
    let tried: Vec<Value> = std::fs::read_to_string(&tries)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        tried[0]["runtime"]
            .as_str()
            .is_some_and(|m| m.contains("only the person resumes shuttle")),
        "{tried:?}"
    );
    let raw: Vec<&Value> = tried.iter().skip(1).collect();
    assert!(
        !raw.is_empty(),
        "the script's own resumes never got an answer"
    );
    for reply in &raw {
        assert_eq!(reply["is_error"], true, "{reply}");
        assert!(
            reply["text"]
                .as_str()
                .unwrap()
                .contains("which shuttle started for an agent"),
            "{reply}"
        );
    }
    let app = wait_for("the app's resume", Duration::from_secs(10), || {
        std::fs::read_to_string(&app_said).ok()
    });
    assert!(app.contains("only the person resumes shuttle"), "{app}");
    let detached = wait_for("the detached resume", Duration::from_secs(10), || {
        std::fs::read_to_string(&detached_said).ok()
    });
    assert!(
        detached.contains("which shuttle started for an agent"),
        "{detached}"
    );
    if systemd {
        // Asked on the person's display: nobody allows it.
        common::answer_dialog(common::Answer::Deny);
        let said = wait_for("the systemd unit's resume", Duration::from_secs(10), || {
            std::fs::read_to_string(&systemd_said).ok()
        });
        assert!(said.contains("the person denied the resume"), "{said}");
    } else {
        eprintln!("no systemd user manager here: the systemd-run way out was not tried");
    }
    assert!(stopped(&daemon));
    // Each refusal is in the journal, by the owner rule.
    let refusals = daemon
        .journal()
        .into_iter()
        .filter(|e| e["tool"] == "safety_resume" && e["outcome"] == "refused")
        .count();
    assert!(refusals > raw.len(), "{refusals} refusals journaled");
    // The person's own resume works.
    assert!(daemon.cli_resume().status.success());
    assert!(!stopped(&daemon));
}

#[test]
fn a_service_call_is_refused_while_the_config_is_broken_and_each_call_is_journaled() {
    let scratch = Scratch::new("service-config");
    let log = scratch.path("starts.log");
    let calls = scratch.path("starts.log.calls");
    let daemon = daemon_with_plugins(None, &[("echo.json", echo_service(&log))]);
    wait_for("the service to start", Duration::from_secs(10), || {
        (!starts(&log).is_empty()).then_some(())
    });
    let said = daemon.call("echo_say", json!({"note": "hunter2"}));
    assert_eq!(said.text, r#"{"note":"hunter2"}"#);

    std::fs::write(daemon.config_path(), "[safety\n").unwrap();
    let refused = daemon.call("echo_say", json!({"n": 2}));
    assert!(refused.is_error, "{}", refused.text);
    assert!(refused.text.contains("config.toml"), "{}", refused.text);
    assert!(
        refused
            .text
            .contains("every call but safety_stop and safety_resume is refused"),
        "{}",
        refused.text
    );
    let served = std::fs::read_to_string(&calls).unwrap();
    assert_eq!(
        served.lines().count(),
        1,
        "the service got the refused call: {served}"
    );

    std::fs::write(daemon.config_path(), "").unwrap();
    assert_eq!(daemon.call("echo_say", json!({"n": 3})).text, r#"{"n":3}"#);
    // A spliced call is journaled when both sides have closed, so lines come in that order.
    let lines: Vec<Value> = wait_for("three journal lines", Duration::from_secs(5), || {
        let lines: Vec<Value> = daemon
            .journal()
            .into_iter()
            .filter(|e| e["tool"] == "echo_say")
            .collect();
        (lines.len() == 3).then_some(lines)
    });
    for line in &lines {
        assert_eq!(line["kind"], "service", "{line}");
        assert_eq!(line["agent_id"], "test", "{line}");
        assert!(line["ms"].is_u64(), "{line}");
    }
    let outcomes: Vec<(&Value, &Value)> = lines.iter().map(|l| (&l["outcome"], &l["by"])).collect();
    let refused = (&json!("refused"), &json!("config"));
    let completed = (&json!("completed"), &Value::Null);
    assert_eq!(
        outcomes.iter().filter(|o| **o == refused).count(),
        1,
        "{lines:?}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| **o == completed).count(),
        2,
        "{lines:?}"
    );
    assert!(
        !serde_json::to_string(&lines).unwrap().contains("hunter2"),
        "a service's arguments are kept as a digest"
    );
}
