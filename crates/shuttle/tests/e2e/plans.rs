//! End to end: the model calls and `gui_plan`, through the real daemon and MCP server, against
//! `tests/fixture/model_server.py`, an OpenAI-compatible server on loopback that answers
//! deterministically and records every request it gets.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};

const KEY: &str = "sk-e2e-9d1b7c44f0";
const KEY_VAR: &str = "SHUTTLE_E2E_MODEL_KEY";

/// The test model server, stopped (by pid) when dropped.
struct ModelServer {
    child: Child,
    port: u16,
    record: PathBuf,
    ground: PathBuf,
}

impl ModelServer {
    fn start(scratch: &Scratch) -> Self {
        let record = scratch.path("requests.ndjson");
        let ground = scratch.path("ground.json");
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/model_server.py");
        let mut child = Command::new("python3")
            .arg(script)
            .arg(&record)
            .arg(&ground)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Self {
            child,
            port: line.trim().parse().unwrap(),
            record,
            ground,
        }
    }

    fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn config(&self, roles: &str) -> String {
        format!(
            "[models]\nbase_url = \"http://127.0.0.1:{}/v1\"\napi_key_env = \"{KEY_VAR}\"\ntimeout_ms = 10000\n{roles}\n",
            self.port
        )
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        stop_child(&mut self.child);
    }
}

const ROLES: &str =
    "decide = \"decider\"\nverify = \"verifier\"\nground = \"grounder\"\nask = \"asker\"";

fn model_daemon(server: &ModelServer, roles: &str) -> Daemon {
    Daemon::start_configured(Some(&server.config(roles)), &[(KEY_VAR, KEY)])
}

fn mcp_for(daemon: &Daemon) -> Mcp {
    let config = daemon.config_path();
    let mut mcp = Mcp::start(
        &daemon.socket,
        &[("SHUTTLE_CONFIG", config.to_str().unwrap())],
    );
    mcp.initialize("2025-06-18");
    mcp
}

#[test]
fn a_script_calls_the_models_through_the_daemon_and_never_sees_the_key() {
    let scratch = Scratch::new("models-e2e");
    let server = ModelServer::start(&scratch);
    let daemon = model_daemon(&server, ROLES);
    let code = r#"
        export async function main() {
            const decided = await desk.model_decide({
                state: "The dialog says \"Saved\".",
                questions: { saved: { type: "noul", instructions: "Does it say \"Saved\"?" } },
            });
            const asked = await desk.model_ask({ prompt: "What is open?" });
            const grounded = await desk.model_ground({
                png_b64: "iVBORw0KGgoAAAANSUhEUg", target: "Save",
                area: { left: 100, top: 200, width: 11, height: 21 },
            });
            const env = JSON.stringify(process.env);
            return { decided, asked, grounded, env_has_key: /sk-e2e/.test(env), names: Object.keys(process.env) };
        }"#;
    let mut mcp = mcp_for(&daemon);
    let result = mcp.call("script_run", json!({"code": code}));
    assert_ne!(result["isError"], json!(true), "{result}");
    let report: Value = serde_json::from_str(&result_text(&result)).unwrap();
    let answer = &report["result"];
    assert_eq!(
        answer["decided"]["answers"]["saved"],
        json!({"probability": 0.9}),
        "{report}"
    );
    assert_eq!(
        answer["decided"]["served"],
        json!({"model": "decider", "build": "decider-build", "id": "gen-test"})
    );
    assert_eq!(
        answer["decided"]["usage"],
        json!({"model": "decider", "input_tokens": 100, "output_tokens": 10, "cached_tokens": 40})
    );
    assert_eq!(answer["asked"]["text"], "echo: What is open?");
    assert_eq!(
        (
            answer["grounded"]["x"].as_i64(),
            answer["grounded"]["y"].as_i64()
        ),
        (Some(105), Some(210))
    );
    assert_eq!(answer["env_has_key"], false, "{report}");
    assert!(
        !answer["names"]
            .as_array()
            .unwrap()
            .contains(&json!(KEY_VAR))
    );

    // One request per call, each to its role's model, the key in the Authorization header only.
    let requests = server.requests();
    let models: Vec<&str> = requests
        .iter()
        .map(|r| r["body"]["model"].as_str().unwrap())
        .collect();
    assert_eq!(models, ["decider", "asker", "grounder"]);
    for request in &requests {
        assert_eq!(request["authorization"], format!("Bearer {KEY}"));
        assert!(!request["body"].to_string().contains(KEY));
    }
    let journal = std::fs::read_to_string(daemon.journal_path()).unwrap();
    assert!(journal.contains("\"tool\":\"model_ask\""), "{journal}");
    assert!(journal.contains("\"kind\":\"model\""), "{journal}");
    assert!(!journal.contains(KEY) && !daemon.log().contains(KEY));
    // The journal keeps a prompt as its length and digest, as it does typed text.
    assert!(!journal.contains("What is open?"), "{journal}");
}

#[test]
fn model_failures_name_the_endpoint_are_sent_once_and_leave_the_daemon_up() {
    let scratch = Scratch::new("models-fail");
    let server = ModelServer::start(&scratch);
    let daemon = model_daemon(
        &server,
        "decide = \"slow-decider\"\nask = \"http500\"\nground = \"out\"",
    );
    let url = format!("http://127.0.0.1:{}/v1/chat/completions", server.port);
    let question = json!({"state": "s", "questions": {"k": {"type": "noul", "instructions": "ok?"}}, "timeout_ms": 500});
    let slow = daemon.call("model_decide", question);
    assert!(
        slow.is_error
            && slow.text.contains(&url)
            && slow.text.contains("no full reply within 500 ms"),
        "{}",
        slow.text
    );
    let failed = daemon.call("model_ask", json!({"prompt": "hi"}));
    assert!(
        failed.is_error && failed.text.contains("HTTP 500") && failed.text.contains("not retried"),
        "{}",
        failed.text
    );
    let outside = daemon.call(
        "model_ground",
        json!({"png_b64": "iVBORw0KGgoAAAA", "target": "x", "area": {"width": 10, "height": 10}}),
    );
    assert!(
        outside.is_error && outside.text.contains("outside 0 to 1000"),
        "{}",
        outside.text
    );
    let bad = daemon.call(
        "model_decide",
        json!({"state": "s", "questions": {"k": {"type": "maybe", "instructions": "?"}}}),
    );
    assert!(
        bad.is_error
            && bad.text.contains("type \"maybe\" is unknown")
            && bad.text.contains("nothing was sent"),
        "{}",
        bad.text
    );
    let no_role = daemon.call("model_decide", json!({"state": "s", "image": true, "questions": {"k": {"type": "noul", "instructions": "?"}}}));
    assert!(
        no_role.is_error && no_role.text.contains("no model is set for the verify role"),
        "{}",
        no_role.text
    );
    // The slow answer arrives after its timeout: still one request per call that was sent.
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(server.requests().len(), 3);
    for reply in [&slow, &failed, &outside, &bad, &no_role] {
        assert!(!reply.text.contains(KEY));
    }
    assert!(!daemon.call("status", Value::Null).is_error);

    // Without the key variable, a call is refused before anything is sent.
    let keyless = Daemon::start_configured(Some(&server.config(ROLES)), &[]);
    let refused = keyless.call("model_ask", json!({"prompt": "hi"}));
    assert!(
        refused.is_error && refused.text.contains(&format!("{KEY_VAR} is not set")),
        "{}",
        refused.text
    );
    assert_eq!(server.requests().len(), 3);
}

/// The Save button's centre as the model server should answer it: 0 to 1000 across the
/// fixture window's shot.
fn save_button_point(daemon: &Daemon, fixture: &Fixture) -> [f64; 2] {
    let found = daemon
        .call(
            "desk_find",
            json!({"window": fixture.id(), "name": "Save", "role": "button"}),
        )
        .json();
    let bounds = &found["nodes"][0]["bounds"];
    let [x, y, w, h] = [0, 1, 2, 3].map(|i| bounds[i].as_f64().unwrap());
    let shot = daemon
        .call("desk_shot", json!({"window": fixture.id()}))
        .json();
    let origin = &shot["screen_origin"];
    let (left, top) = (origin[0].as_f64().unwrap(), origin[1].as_f64().unwrap());
    let (width, height) = (
        shot["width"].as_f64().unwrap(),
        shot["height"].as_f64().unwrap(),
    );
    let cx = (x + w / 2.0).floor() - left;
    let cy = (y + h / 2.0).floor() - top;
    [cx * 1000.0 / (width - 1.0), cy * 1000.0 / (height - 1.0)]
}

#[test]
fn a_plan_runs_on_the_fixture_replays_without_models_and_finds_its_way_after_a_move() {
    require_desktop();
    let scratch = Scratch::new("plans");
    let server = ModelServer::start(&scratch);
    let daemon = model_daemon(&server, ROLES);
    let bystander = Fixture::start("Plan Bystander", &[]);
    let fixture = Fixture::start("Plan Target", &["--saver"]);
    std::fs::write(
        &server.ground,
        json!({"the Save button": save_button_point(&daemon, &fixture)}).to_string(),
    )
    .unwrap();
    let mut mcp = mcp_for(&daemon);
    let steps = json!([
        {"do": "click", "target": {"name": "Input", "role": "text"}},
        {"do": "key", "keys": "ctrl+a"},
        {"do": "type", "text": "{{text}}"},
        {"do": "click", "target": {"describe": "the Save button"}},
        {"do": "expect", "name": "Saved: {{text}}"},
    ]);
    let plan = |mcp: &mut Mcp, args: Value| {
        let result = mcp.call("gui_plan", args);
        let text = result_text(&result);
        let answer: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_ne!(result["isError"], json!(true), "{answer}");
        answer
    };
    let first = plan(
        &mut mcp,
        json!({"steps": steps, "params": {"text": "one"}, "window": "Plan Target", "save_as": "save_note"}),
    );
    assert_eq!(first["completed"], true, "{first}");
    let how: Vec<&str> = first["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["how"].as_str().unwrap_or("-"))
        .collect();
    assert_eq!(how, ["accessibility", "-", "-", "model", "tree"], "{first}");
    assert_eq!(first["model_calls"], 1);
    assert!(
        fixture
            .events_of("saved")
            .iter()
            .any(|e| e["text"] == "one"),
        "{:?}",
        fixture.events()
    );
    let calls_after_first = server.requests().len();
    assert_eq!(calls_after_first, 1);

    let replay = plan(
        &mut mcp,
        json!({"flow": "save_note", "params": {"text": "two"}}),
    );
    assert_eq!(replay["completed"], true, "{replay}");
    assert_eq!(replay["model_calls"], 0, "{replay}");
    assert_eq!(
        server.requests().len(),
        calls_after_first,
        "the replay asked a model"
    );
    assert!(
        fixture
            .events_of("saved")
            .iter()
            .any(|e| e["text"] == "two"),
        "{:?}",
        fixture.events()
    );

    // Move the window: the recorded points now show other things, so the replay finds its
    // targets again (the entry by accessibility, the button by the model) and still completes.
    let origin = |daemon: &Daemon| {
        daemon
            .call("desk_shot", json!({"window": fixture.id()}))
            .json()["screen_origin"]
            .clone()
    };
    let before_move = origin(&daemon);
    run(
        "wmctrl",
        &["-i", "-r", &fixture.id(), "-e", "0,300,250,-1,-1"],
    );
    wait_for("the window to move", Duration::from_secs(5), || {
        (origin(&daemon) != before_move).then_some(())
    });
    let moved = plan(
        &mut mcp,
        json!({"flow": "save_note", "params": {"text": "three"}}),
    );
    assert_eq!(moved["completed"], true, "{moved}");
    let how: Vec<&str> = moved["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["how"].as_str().unwrap_or("-"))
        .collect();
    assert_eq!(how, ["accessibility", "-", "-", "model", "tree"], "{moved}");
    assert_eq!(moved["steps"][3]["replay_missed"], true);
    assert_eq!(moved["model_calls"], 1);
    assert!(
        fixture
            .events_of("saved")
            .iter()
            .any(|e| e["text"] == "three"),
        "{:?}",
        fixture.events()
    );
    bystander.assert_untouched();

    // A plan that cannot run is refused before it acts.
    let before = fixture.events().len();
    let result = mcp.call(
        "gui_plan",
        json!({"steps": [{"do": "key", "keys": "a"}, {"do": "fly"}]}),
    );
    let error = |result: &Value| -> String {
        assert_eq!(result["isError"], json!(true), "{result}");
        let answer: Value = serde_json::from_str(&result_text(result)).unwrap();
        assert_eq!(answer["completed"], false);
        answer["error"]["message"].as_str().unwrap().to_string()
    };
    let message = error(&result);
    assert!(
        message.contains("step 1: unknown kind \"fly\""),
        "{message}"
    );
    let message = error(&mcp.call("gui_plan", json!({"flow": "nope"})));
    assert!(message.contains("flows here: save_note"), "{message}");
    assert_eq!(fixture.events().len(), before);
}
