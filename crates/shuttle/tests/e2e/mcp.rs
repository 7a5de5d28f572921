//! `shuttle mcp` as an MCP client sees it: handshake, tools, results, daemon start-up.

use crate::common;

use std::time::Duration;

use base64::Engine as _;
use common::{Daemon, Fixture, Mcp, Scratch, decode_png, require_desktop, result_text, wait_for};
use serde_json::{Value, json};

#[test]
fn negotiates_each_supported_protocol_version() {
    let daemon = Daemon::start();
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut mcp = Mcp::start(&daemon.socket, &[]);
        let init = mcp.initialize(version);
        assert_eq!(init["result"]["protocolVersion"], version, "{init}");
        assert_eq!(init["result"]["serverInfo"]["name"], "shuttle");
        assert!(
            init["result"]["capabilities"]["tools"].is_object(),
            "{init}"
        );
    }
    // A version we do not know gets our newest one, for the client to accept or hang up on.
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    let init = mcp.initialize("2099-01-01");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
}

#[test]
fn lists_the_built_in_tools_with_short_exact_descriptions() {
    let daemon = Daemon::start();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let id = mcp.request("tools/list", json!({}));
    let tools = mcp.response(id)["result"]["tools"]
        .as_array()
        .unwrap()
        .clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "look",
            "desk",
            "computer",
            "screenshot",
            "status",
            "script_run",
            "gui_plan"
        ]
    );
    // Reading apart from acting, as the annotations say: a client may let look, screenshot
    // and status run unasked, and ask before desk, computer and the runs of code.
    let hint = |tool: &Value, key: &str| tool["annotations"][key].clone();
    for tool in &tools {
        let reads = ["look", "screenshot", "status"].contains(&tool["name"].as_str().unwrap());
        // Unsaid is MCP's default: not read-only.
        assert_eq!(hint(tool, "readOnlyHint") == json!(true), reads, "{tool}");
        let open = ["script_run", "gui_plan"].contains(&tool["name"].as_str().unwrap());
        assert_eq!(hint(tool, "openWorldHint"), json!(open), "{tool}");
    }
    let (look, desk) = (&tools[0], &tools[1]);
    let read_lines = look["description"].as_str().unwrap();
    let act_lines = desk["description"].as_str().unwrap();
    for line in [
        "windows: Top-level windows",
        "screen: Screen width",
        "shot x? y? w? h? path? window?",
    ] {
        assert!(
            read_lines.contains(line),
            "look lacks {line:?}: {read_lines}"
        );
    }
    assert!(
        act_lines.contains("scroll direction(up|down|left|right) amount?"),
        "{act_lines}"
    );
    let enum_of = |tool: &Value| tool["inputSchema"]["properties"]["verb"]["enum"].clone();
    assert_eq!(desk["inputSchema"]["required"], json!(["verb"]));
    let (reads, verbs) = (enum_of(look), enum_of(desk));
    for verb in [
        "windows", "screen", "shot", "wait", "still", "snapshot", "find",
    ] {
        assert!(
            reads.as_array().unwrap().contains(&json!(verb)),
            "{verb}: {reads}"
        );
        assert!(
            !verbs.as_array().unwrap().contains(&json!(verb)),
            "{verb}: {verbs}"
        );
    }
    for verb in [
        "key",
        "type",
        "click",
        "scroll",
        "drag",
        "focus",
        "close",
        "launch",
        "set_value",
        "select_option",
    ] {
        assert!(
            verbs.as_array().unwrap().contains(&json!(verb)),
            "{verb} is not listed: {verbs}"
        );
    }
    let computer = tools[2]["inputSchema"]["properties"]["verb"]["enum"].clone();
    assert_eq!(
        computer,
        json!([
            "computer_state",
            "computer_act",
            "computer_end",
            "computer_scale",
            "look",
            "title_at"
        ])
    );
    assert!(!verbs.as_array().unwrap().contains(&json!("computer_state")));
    // About 1,900 tokens: every desk verb (38 of them), limit and result field, and the vision
    // verbs; then about 500 for scripts and plans.
    let cost = |tools: &[Value]| -> usize { tools.iter().map(|t| t.to_string().len()).sum() };
    let desk_tools = cost(&tools[..5]);
    assert!(desk_tools < 7700, "the desk tools cost {desk_tools} bytes");
    let run_tools = cost(&tools[5..]);
    assert!(
        run_tools < 2300,
        "script_run and gui_plan cost {run_tools} bytes"
    );
}

#[test]
fn desk_screenshot_and_status_reach_the_desktop() {
    require_desktop();
    let daemon = Daemon::start();
    let fixture = Fixture::start("mcp fixture", &["--size", "300x200", "--color", "#00ff00"]);
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-11-25");

    let result = mcp.call("desk", json!({"verb": "windows"}));
    assert_ne!(result["isError"], true, "{result}");
    let windows: Value = serde_json::from_str(&result_text(&result)).unwrap();
    let listed = windows
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == fixture.id())
        .unwrap();
    assert_eq!(listed["title"], "mcp fixture");

    let result = mcp.call("screenshot", json!({"window": "mcp fixture"}));
    let content = result["content"].as_array().unwrap();
    let image = content
        .iter()
        .find(|c| c["type"] == "image")
        .expect("an image block");
    assert_eq!(image["mimeType"], "image/png");
    let png = base64::engine::general_purpose::STANDARD
        .decode(image["data"].as_str().unwrap())
        .unwrap();
    let decoded = decode_png(&png);
    assert_eq!((decoded.0, decoded.1), (300, 200));
    assert_eq!(common::pixel(&decoded, 150, 190), [0, 255, 0]);
    let meta: Value = serde_json::from_str(&result_text(&result)).unwrap();
    assert_eq!(meta["width"], 300);
    assert_eq!(meta["origin"], json!([0, 0]));

    let result = mcp.call("desk", json!({"verb": "screen"}));
    let screen: Value = serde_json::from_str(&result_text(&result)).unwrap();
    assert!(screen["width"].as_u64().unwrap() > 0);

    let result = mcp.call("status", json!({}));
    let status: Value = serde_json::from_str(&result_text(&result)).unwrap();
    assert_eq!(status["pid"], daemon.pid());
}

#[test]
fn bad_calls_are_tool_errors_the_agent_can_read() {
    let daemon = Daemon::start();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let cases = [
        (
            "desk",
            json!({"verb": "teleport"}),
            "unknown verb \"teleport\"",
        ),
        ("desk", json!({}), "desk: pass verb"),
        (
            "desk",
            json!({"verb": "shot", "x": 5}),
            "x, y, w and h go together",
        ),
        (
            "desk",
            json!({"verb": "windows", "all": 1}),
            "unknown field `all`",
        ),
        (
            "screenshot",
            json!({"window": "no such window anywhere"}),
            "no window matches",
        ),
        (
            "look",
            json!({"verb": "type", "text": "x"}),
            "look: type acts on the desktop; look only reads",
        ),
    ];
    for (tool, args, want) in cases {
        let result = mcp.call(tool, args.clone());
        assert_eq!(result["isError"], true, "{tool} {args}: {result}");
        let text = result_text(&result);
        assert!(text.contains(want), "{tool} {args}: {text}");
    }
    // The session carries on.
    let result = mcp.call("status", json!({}));
    assert_ne!(result["isError"], true);
}

/// The session id of a process, from /proc.
fn session_of(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after_name = stat.rsplit_once(')').unwrap().1;
    after_name
        .split_whitespace()
        .nth(3)
        .unwrap()
        .parse()
        .unwrap()
}

/// The parent of a process, from /proc.
fn parent_of(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after_name = stat.rsplit_once(')').unwrap().1;
    after_name
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn the_first_call_starts_a_detached_daemon() {
    let scratch = Scratch::new("autostart");
    let socket = scratch.path("desk.sock");
    let mut mcp = Mcp::start(&socket, &[]);
    mcp.initialize("2025-06-18");
    assert!(
        !socket.exists(),
        "no daemon is started before the first call"
    );
    let result = mcp.call("status", json!({}));
    let status: Value =
        serde_json::from_str(&result_text(&result)).unwrap_or_else(|e| panic!("{e}: {result}"));
    let pid = status["pid"].as_u64().unwrap() as u32;
    // Its keeper, its parent, leads a session of its own, apart from the MCP proxy's.
    let keeper = parent_of(pid);
    assert_eq!(
        session_of(pid),
        keeper,
        "the keeper leads the daemon's session"
    );
    assert_eq!(session_of(keeper), keeper);
    assert_ne!(session_of(pid), session_of(mcp.child.id()));
    assert_ne!(pid, mcp.child.id());
    drop(mcp);
    // It outlives the MCP session that started it...
    let alive = std::path::Path::new(&format!("/proc/{pid}")).exists();
    // ...and this test stops it, by the pid it reported.
    // SAFETY: kill on the pid of the daemon this test caused to start.
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    wait_for("the started daemon to exit", Duration::from_secs(5), || {
        (!std::path::Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|s| s.contains(") Z")))
        .then_some(())
    });
    assert!(
        alive,
        "the daemon must outlive the MCP session that started it"
    );
}

#[test]
fn embedded_mode_only_connects() {
    let scratch = Scratch::new("embedded");
    let socket = scratch.path("desk.sock");
    let mut mcp = Mcp::start(&socket, &[("SHUTTLE_EMBEDDED", "1")]);
    mcp.initialize("2025-06-18");
    let result = mcp.call("status", json!({}));
    assert_eq!(result["isError"], true);
    let text = result_text(&result);
    assert!(
        text.contains("shuttle serve is not running") && text.contains("SHUTTLE_EMBEDDED=1"),
        "{text}"
    );
    assert!(!socket.exists(), "embedded mode must not start a daemon");
}

/// The windows right now, as a `since` for a wait that will last its whole timeout.
fn current_windows(daemon: &Daemon) -> Value {
    daemon.call("desk_windows", json!({})).json()
}

#[test]
fn calls_are_answered_in_order_and_cancelled_ones_get_no_reply() {
    require_desktop();
    let daemon = Daemon::start();
    let since = current_windows(&daemon);
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let wait = |ms: u64| json!({"name": "desk", "arguments": {"verb": "wait", "since": since, "timeout_ms": ms}});

    let first = mcp.request("tools/call", wait(1500));
    let second = mcp.request("tools/call", json!({"name": "status", "arguments": {}}));
    let third = mcp.request("tools/call", wait(1500));
    // The client is read while the first call runs: a ping is answered at once...
    let ping = mcp.request("ping", json!({}));
    let started = std::time::Instant::now();
    assert_eq!(mcp.next(Duration::from_secs(1)).unwrap()["id"], ping);
    assert!(started.elapsed() < Duration::from_millis(500));
    // ...and the queued third call is dropped by a cancel.
    mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": third, "reason": "test"}}));
    let replies: Vec<Value> = (0..2)
        .map(|_| mcp.next(Duration::from_secs(5)).expect("a reply"))
        .collect();
    assert_eq!(replies[0]["id"], first, "answered in order: {replies:?}");
    assert_eq!(replies[1]["id"], second, "answered in order: {replies:?}");
    assert!(
        mcp.next(Duration::from_secs(2)).is_none(),
        "the cancelled call must get no reply"
    );
}

#[test]
fn a_reply_over_the_budget_is_cut_on_a_node_and_the_whole_is_read_as_a_resource() {
    require_desktop();
    let daemon = Daemon::start_configured(Some("[mcp]\nreply_budget = 2048\n"), &[]);
    let _fixture = Fixture::start("Many buttons", &["--many", "200"]);
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let result = mcp.call(
        "look",
        json!({"verb": "snapshot", "window": "Many buttons"}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let content = result["content"].as_array().unwrap();
    let text: usize = content
        .iter()
        .filter_map(|c| c["text"].as_str())
        .map(str::len)
        .sum();
    assert!(text <= 2048, "{text} bytes of text");
    let cut = &result["structuredContent"]["cut"];
    let (shown, of) = (cut["shown"].as_u64().unwrap(), cut["of"].as_u64().unwrap());
    assert!(shown > 0 && shown < of, "{cut}");
    let nodes = result["structuredContent"]["nodes"].as_array().unwrap();
    assert_eq!(nodes.len() as u64, shown);
    let uri = cut["whole"].as_str().unwrap();
    let link = content
        .iter()
        .find(|c| c["type"] == "resource_link")
        .unwrap();
    assert_eq!(link["uri"], uri, "{link}");
    // The whole reply, as the daemon gave it to a caller without a budget.
    let id = mcp.request("resources/list", json!({}));
    let listed = mcp.response(id)["result"]["resources"].clone();
    assert!(
        listed.as_array().unwrap().iter().any(|r| r["uri"] == uri),
        "{listed}"
    );
    let id = mcp.request("resources/read", json!({"uri": uri}));
    let read = mcp.response(id);
    let whole: Value =
        serde_json::from_str(read["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(whole["nodes"].as_array().unwrap().len() as u64, of);
    assert_eq!(
        whole["nodes"].as_array().unwrap()[..shown as usize],
        nodes[..]
    );
    let direct = daemon
        .call("desk_snapshot", json!({"window": "Many buttons"}))
        .json();
    assert_eq!(direct["nodes"].as_array().unwrap().len() as u64, of);
    // A reply never kept is an error that says what there is.
    let id = mcp.request("resources/read", json!({"uri": "shuttle://reply/999"}));
    let missing = mcp.response(id);
    let said = missing["error"]["message"].as_str().unwrap();
    assert!(
        said.contains("no reply") && said.contains("resources/list"),
        "{said}"
    );
}

#[test]
fn a_screenshot_over_the_budget_is_a_resource_link_when_the_client_asks_for_links() {
    require_desktop();
    let daemon = Daemon::start_configured(Some("[mcp]\nreply_budget = 2048\n"), &[]);
    let fixture = Fixture::start("linked shot", &["--size", "300x200", "--color", "#00ff00"]);
    let mut command = std::process::Command::new(common::SHUTTLE);
    command
        .args(["mcp", "--image-links"])
        .env("SHUTTLE_SOCKET", &daemon.socket);
    let mut mcp = Mcp::spawn(command);
    mcp.initialize("2025-06-18");
    let result = mcp.call("screenshot", json!({}));
    assert_ne!(result["isError"], true, "{result}");
    let content = result["content"].as_array().unwrap();
    assert!(!content.iter().any(|c| c["type"] == "image"), "{content:?}");
    let link = &result["structuredContent"]["image_link"];
    let uri = link["whole"].as_str().unwrap();
    let linked = content
        .iter()
        .find(|c| c["type"] == "resource_link")
        .unwrap();
    assert_eq!(
        (&linked["uri"], &linked["mimeType"]),
        (&json!(uri), &json!("image/png"))
    );
    let id = mcp.request("resources/read", json!({"uri": uri}));
    let read = mcp.response(id);
    let blob = &read["result"]["contents"][0];
    assert_eq!(blob["mimeType"], "image/png", "{blob}");
    let png = base64::engine::general_purpose::STANDARD
        .decode(blob["blob"].as_str().unwrap())
        .unwrap();
    assert_eq!(link["bytes"], png.len(), "{link}");
    // The whole screen, with the fixture's green where xwininfo places it.
    let shot = decode_png(&png);
    let screen = common::run("xdpyinfo", &[]);
    assert!(
        screen.contains(&format!("dimensions:    {}x{} pixels", shot.0, shot.1)),
        "{} x {}",
        shot.0,
        shot.1
    );
    let [x, y, ..] = common::geometry(&fixture.id());
    assert_eq!(
        common::pixel(&shot, x as u32 + 150, y as u32 + 190),
        [0, 255, 0]
    );
    let id = mcp.request("resources/list", json!({}));
    let listed = mcp.response(id)["result"]["resources"].clone();
    assert!(
        listed.as_array().unwrap().iter().any(|r| r["uri"] == uri),
        "{listed}"
    );
    // A session that did not ask gets the image inline.
    let mut inline = Mcp::start(&daemon.socket, &[]);
    inline.initialize("2025-06-18");
    let result = inline.call("screenshot", json!({}));
    let content = result["content"].as_array().unwrap();
    assert!(content.iter().any(|c| c["type"] == "image"), "{result}");
    assert!(result["structuredContent"].get("image_link").is_none());
}

/// An app that shows its window a second after it starts, so that its launch has stages to
/// tell: the fixture titled `title`, behind a shell that sleeps first. Answers the shell's
/// command and the fixture's log.
fn slow_app(daemon: &Daemon, title: &str) -> (String, std::path::PathBuf) {
    let log = daemon
        .scratch
        .path(&format!("{}.log", title.replace(' ', "-")));
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/fixture.py");
    let command = format!(
        "sleep 1; exec /usr/bin/python3 '{}' --title '{title}' --log '{}'",
        fixture.display(),
        log.display()
    );
    (command, log)
}

/// Waits for a launched fixture to say it was shown, then ends it by the pid the daemon
/// reported.
fn shown_then_ended(pid: i32, log: &std::path::Path) {
    wait_for(
        "the launched app to be shown",
        Duration::from_secs(5),
        || {
            std::fs::read_to_string(log)
                .is_ok_and(|l| l.contains("\"shown\""))
                .then_some(())
        },
    );
    // SAFETY: kill on the app this test launched, by the pid the daemon reported.
    unsafe { libc::kill(pid, libc::SIGTERM) };
}

/// Runs `program` `args` (a client script of tests/clients) against `daemon`; answers the JSON
/// it printed of what it saw.
fn client_saw(daemon: &Daemon, program: &str, args: &[&str], env: &[(&str, &str)]) -> Value {
    let output = std::process::Command::new(program)
        .args(args)
        .env("SHUTTLE_SOCKET", &daemon.socket)
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{program} {args:?} failed: {printed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(printed.trim()).unwrap_or_else(|e| panic!("{e}: {printed}"))
}

/// The real MCP SDKs, Python and TypeScript, each as a client program uses it: annotations,
/// progress from a launch, a cut reply's whole followed by its link, a long call cancelled.
#[test]
fn the_python_and_typescript_sdks_read_annotations_progress_links_and_cancel() {
    require_desktop();
    let clients =
        std::path::PathBuf::from(std::env::var("SHUTTLE_MCP_CLIENTS").unwrap_or_else(|_| {
            format!("{}/../../target/mcp-clients", env!("CARGO_MANIFEST_DIR"))
        }));
    let python = clients.join("venv/bin/python");
    let modules = clients.join("node_modules");
    assert!(
        python.exists() && modules.exists(),
        "no MCP client SDKs in {}: run scripts/mcp_clients.sh",
        clients.display()
    );
    let node = std::env::var("SHUTTLE_NODE").expect("SHUTTLE_NODE: run scripts/node.sh");
    let daemon = Daemon::start();
    let _fixture = Fixture::start("Many buttons", &["--many", "300"]);
    let whole = daemon
        .call(
            "desk_snapshot",
            json!({"window": "Many buttons", "view": "all"}),
        )
        .json()["nodes"]
        .as_array()
        .unwrap()
        .len();
    let here = env!("CARGO_MANIFEST_DIR");
    let shuttle = env!("CARGO_BIN_EXE_shuttle");
    let python_script = format!("{here}/../../tests/clients/python_sdk.py");
    let typescript_script = format!("{here}/../../tests/clients/typescript_sdk.mjs");
    let (python_launch, python_log) = slow_app(&daemon, "python launched");
    let (typescript_launch, typescript_log) = slow_app(&daemon, "typescript launched");
    for (sdk, log, saw) in [
        (
            "python",
            python_log,
            client_saw(
                &daemon,
                python.to_str().unwrap(),
                &[&python_script, shuttle, "Many buttons", &python_launch],
                &[],
            ),
        ),
        (
            "typescript",
            typescript_log,
            client_saw(
                &daemon,
                &node,
                &[
                    &typescript_script,
                    shuttle,
                    "Many buttons",
                    &typescript_launch,
                ],
                &[("NODE_PATH", modules.to_str().unwrap())],
            ),
        ),
    ] {
        shown_then_ended(saw["launched_pid"].as_u64().unwrap() as i32, &log);
        let tools = &saw["tools"];
        assert_eq!(tools["look"]["readOnlyHint"], true, "{sdk}: {saw}");
        assert_eq!(tools["status"]["readOnlyHint"], true, "{sdk}: {saw}");
        assert!(tools["desk"].get("readOnlyHint").is_none(), "{sdk}: {saw}");
        assert_eq!(tools["script_run"]["openWorldHint"], true, "{sdk}: {saw}");
        // The launch's stages, as the SDK handed them over, rising.
        let progress = saw["progress"].as_array().unwrap();
        let said: Vec<&str> = progress.iter().map(|p| p[1].as_str().unwrap()).collect();
        let values: Vec<f64> = progress.iter().map(|p| p[0].as_f64().unwrap()).collect();
        assert!(values.windows(2).all(|v| v[0] < v[1]), "{sdk}: {saw}");
        assert!(
            said.first()
                .is_some_and(|m| m.starts_with("launch: started /bin/sh (pid ")),
            "{sdk}: {saw}"
        );
        assert!(
            said.last()
                .is_some_and(|m| m.starts_with("launch: settled (")),
            "{sdk}: {saw}"
        );
        let cut = &saw["cut"];
        assert_eq!(cut["of"], whole, "{sdk}: {saw}");
        assert_eq!(cut["whole_nodes"], whole, "{sdk}: {saw}");
        assert!(
            cut["shown"].as_u64().unwrap() < whole as u64,
            "{sdk}: {saw}"
        );
        // The cancelled wait would have held the session for 5 s.
        assert!(
            saw["after_cancel_s"].as_f64().unwrap() < 4.0,
            "{sdk}: {saw}"
        );
        assert_eq!(saw["status_ok"], true, "{sdk}: {saw}");
        // The SDK checked these results against the schemas it listed (it throws otherwise).
        assert_eq!(
            saw["output_schemas"],
            json!(["screenshot", "script_run"]),
            "{sdk}: {saw}"
        );
        let screen = common::run("xdpyinfo", &[]);
        let width = saw["checked"]["screenshot_width"].as_u64().unwrap();
        assert!(
            screen.contains(&format!("dimensions:    {width}x")),
            "{sdk}: {saw}"
        );
        assert_eq!(
            saw["checked"]["script_result"],
            json!({"ok": 1}),
            "{sdk}: {saw}"
        );
        assert_eq!(saw["checked"]["cut_result"], 2, "{sdk}: {saw}");
        assert_eq!(saw["checked"]["cut"], true, "{sdk}: {saw}");
    }
}

/// Calls a tool, and answers everything the server sent before the call's answer, and the
/// answer.
fn until_answered(mcp: &mut Mcp, params: Value) -> (Vec<Value>, Value) {
    let id = mcp.request("tools/call", params);
    let mut before = Vec::new();
    loop {
        let message = mcp.next(Duration::from_secs(20)).expect("the answer");
        if message["id"] == json!(id) {
            return (before, message);
        }
        before.push(message);
    }
}

/// The messages of the progress notifications among `told`, checking that their progress
/// rises and that they carry `token`.
fn progress_messages(told: &[Value], token: &str) -> Vec<String> {
    let notes: Vec<&Value> = told
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    let progress: Vec<f64> = notes
        .iter()
        .map(|m| m["params"]["progress"].as_f64().unwrap())
        .collect();
    assert!(progress.windows(2).all(|p| p[0] < p[1]), "{progress:?}");
    notes
        .iter()
        .map(|m| {
            assert_eq!(m["params"]["progressToken"], token, "{m}");
            m["params"]["message"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn a_launch_a_long_text_and_a_script_tell_how_far_they_got() {
    require_desktop();
    let daemon = Daemon::start();
    let bystander = Fixture::start("progress bystander", &["--size", "300x200"]);
    let fixture = Fixture::start("progress typing", &[]);
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let with_token = |name: &str, arguments: Value, token: &str| json!({"name": name, "arguments": arguments, "_meta": {"progressToken": token}});

    // A launch of an app that shows its window a second after it starts: each stage told, in
    // order, as it happens; and the app is up (its log says so).
    let (slow, log) = slow_app(&daemon, "progress launched");
    let launch = json!({"verb": "launch", "app": "/bin/sh", "args": ["-c", slow]});
    let (told, answer) = until_answered(&mut mcp, with_token("desk", launch, "l-1"));
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    let launched = &answer["result"]["structuredContent"];
    let pid = launched["pid"].as_u64().unwrap() as i32;
    let said = progress_messages(&told, "l-1");
    let stages = [
        format!("launch: started /bin/sh (pid {pid}); waiting for its window ("),
        format!(
            "launch: its window {} is mapped; waiting for the app to settle (",
            launched["window"]["id"].as_str().unwrap()
        ),
        "launch: settled (".to_string(),
    ];
    let told_stages: Vec<usize> = said
        .iter()
        .filter_map(|m| {
            stages
                .iter()
                .position(|stage| m.starts_with(stage.as_str()))
        })
        .collect();
    assert_eq!(told_stages.first(), Some(&0), "{said:?}");
    assert!(
        told_stages.contains(&1) && told_stages.ends_with(&[2]),
        "{said:?}"
    );
    assert!(told_stages.windows(2).all(|w| w[0] <= w[1]), "{said:?}");
    shown_then_ended(pid, &log);

    // A long text: how much has gone out, as it goes; the entry holds it all.
    // Long enough to take seconds, so that the count is told while it runs.
    let text = "progress ".repeat(300);
    let typing = json!({"verb": "type", "text": text, "window": fixture.id()});
    let (told, answer) = until_answered(&mut mcp, with_token("desk", typing, "t-1"));
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    let said = progress_messages(&told, "t-1");
    let total = text.chars().count();
    assert!(
        said.iter()
            .any(|m| m.starts_with("type: typed ")
                && m.contains(&format!(" of {total} characters ("))),
        "{said:?}"
    );
    wait_for(
        "the entry to hold the text",
        Duration::from_secs(10),
        || {
            fixture
                .events_of("text")
                .last()
                .is_some_and(|e| e["text"] == text.as_str())
                .then_some(())
        },
    );
    bystander.assert_untouched();

    // A script: its own words, passed to desk.progress.
    let code = "export async function main() { desk.progress('half way'); \
                await new Promise((r) => setTimeout(r, 1500)); return 1; }";
    let (told, answer) = until_answered(
        &mut mcp,
        with_token("script_run", json!({"code": code}), "s-1"),
    );
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    let said = progress_messages(&told, "s-1");
    assert!(
        said.iter()
            .any(|m| m.starts_with("script_run: \u{27ea}\"half way\"\u{27eb} (")),
        "{said:?}"
    );
}

#[test]
fn a_long_call_reports_its_progress_when_the_client_asks_and_only_then() {
    require_desktop();
    let daemon = Daemon::start();
    let since = current_windows(&daemon);
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let wait = json!({"verb": "wait", "since": since, "timeout_ms": 2600});
    let (told, answer) = until_answered(
        &mut mcp,
        json!({"name": "look", "arguments": wait, "_meta": {"progressToken": "w-1"}}),
    );
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    let progress: Vec<f64> = told
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| {
            assert_eq!(m["params"]["progressToken"], "w-1", "{m}");
            let said = m["params"]["message"].as_str().unwrap();
            assert!(said.starts_with("wait: running for "), "{said}");
            m["params"]["progress"].as_f64().unwrap()
        })
        .collect();
    // At 0.5 s, 1.5 s and 2.5 s of a 2.6 s wait: each later than the one before.
    assert!(progress.len() >= 2, "{told:?}");
    assert!(progress.windows(2).all(|p| p[0] < p[1]), "{progress:?}");
    assert!(progress[0] >= 0.4, "{progress:?}");
    // Without a token, the same call says nothing before its answer.
    let (told, _) = until_answered(&mut mcp, json!({"name": "look", "arguments": wait}));
    assert!(told.is_empty(), "{told:?}");
}

#[test]
fn cancelling_the_running_call_cancels_it_in_the_daemon() {
    require_desktop();
    let daemon = Daemon::start();
    let since = current_windows(&daemon);
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let running = mcp.request(
        "tools/call",
        json!({"name": "desk", "arguments": {"verb": "wait", "since": since, "timeout_ms": 5000}}),
    );
    // The daemon counts each call as it arrives: the windows above, the proxy's status (it asks
    // what the daemon serves before its first forward), the wait, and each status asked here.
    // The wait, forwarded last, has arrived once the count less this loop's own asks reaches 3.
    let mut asked = 0;
    wait_for(
        "the wait to reach the daemon",
        Duration::from_secs(5),
        || {
            asked += 1;
            let status = daemon.call("status", json!({})).json();
            (status["calls"].as_u64().unwrap() - asked >= 3).then_some(())
        },
    );
    mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": running}}));
    wait_for(
        "the daemon to cancel the wait",
        Duration::from_secs(3),
        || daemon.log().contains("call cancelled").then_some(()),
    );
    // The next call is answered at once, and the cancelled one never.
    let started = std::time::Instant::now();
    let result = mcp.call("status", json!({}));
    assert_ne!(result["isError"], true);
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(
        mcp.next(Duration::from_secs(1)).is_none(),
        "no reply for the cancelled call"
    );
}

#[test]
fn a_call_cut_off_by_the_daemon_is_reported_and_not_sent_again() {
    require_desktop();
    let mut daemon = Daemon::start();
    let since = current_windows(&daemon);
    let mut mcp = Mcp::start(&daemon.socket, &[("SHUTTLE_EMBEDDED", "1")]);
    mcp.initialize("2025-06-18");
    let id = mcp.request(
        "tools/call",
        json!({"name": "desk", "arguments": {"verb": "wait", "since": since, "timeout_ms": 5000}}),
    );
    std::thread::sleep(Duration::from_millis(300));
    // The daemon dies with the call in flight.
    daemon.kill();
    let response = mcp.response(id);
    assert_eq!(response["result"]["isError"], true);
    let text = result_text(&response["result"]);
    assert!(text.contains("may or may not have run"), "{text}");
    // Embedded, so nothing restarted the daemon, and the call was not sent anywhere again.
    let result = mcp.call("status", json!({}));
    assert!(result_text(&result).contains("not running"), "{result}");
}
