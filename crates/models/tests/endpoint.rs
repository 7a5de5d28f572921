//! The model calls against an OpenAI-compatible server on loopback (`tests/fixture/
//! model_server.py`), which records every request: one request per call, the configured model
//! per role, the key only in the Authorization header, and clear errors that never hold it.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use models::{AskArgs, Config, DecideArgs, GroundArgs, ModelError, Models};
use serde_json::{Value, json};

const KEY: &str = "sk-test-5e3f9a1c";

struct Server {
    child: Child,
    port: u16,
    record: PathBuf,
    dir: PathBuf,
}

impl Server {
    fn start(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("shuttle-models-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let record = dir.join("requests.ndjson");
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/model_server.py");
        let mut child = Command::new("python3")
            .arg(script)
            .arg(&record)
            .arg(dir.join("ground.json"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the test model server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().expect("the server prints its port");
        Self {
            child,
            port,
            record,
            dir,
        }
    }

    fn config(&self, var: &str) -> Config {
        Config {
            base_url: format!("http://127.0.0.1:{}/v1", self.port),
            api_key_env: var.into(),
            timeout_ms: 10_000,
            decide: Some("decider".into()),
            verify: Some("verifier".into()),
            ground: Some("grounder".into()),
            ask: Some("asker".into()),
            ..Config::default()
        }
    }

    fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A key variable of this test's own, so tests running at once do not share it.
fn key_var(name: &str) -> String {
    let var = format!("SHUTTLE_TEST_KEY_{}", name.to_uppercase());
    // SAFETY: each test sets a variable no other test reads or writes.
    unsafe { std::env::set_var(&var, KEY) };
    var
}

fn decide_args(image: bool) -> DecideArgs {
    DecideArgs::parse(&json!({
        "state": "The dialog says \"Saved\".",
        "questions": {
            "saved": {"type": "noul", "instructions": "Does it say \"Saved\"?"},
            "failed": {"type": "noul", "instructions": "Does it say \"Failed\"?"},
            "button": {"type": "choice", "instructions": "Which button next?", "choices": ["Close", "Saved", "Retry"]},
        },
        "image": image,
    }))
    .unwrap()
}

#[test]
fn each_call_is_one_request_to_its_roles_model_with_the_key_only_in_its_header() {
    let server = Server::start("roles");
    let models = Models::new(server.config(&key_var("roles")));
    let decided = models.decide(&decide_args(false)).unwrap();
    assert_eq!(decided.answers["saved"], json!({"probability": 0.9}));
    assert_eq!(decided.answers["failed"], json!({"probability": 0.1}));
    assert_eq!(decided.answers["button"]["choice"], "Saved");
    assert_eq!(decided.answers["button"]["confidence"], json!(0.9));
    assert!(decided.from_logprobs);
    assert_eq!(decided.served.model, "decider");
    assert_eq!(decided.served.build.as_deref(), Some("decider-build"));
    assert_eq!(decided.served.id.as_deref(), Some("gen-test"));
    assert_eq!(
        (
            decided.usage.input_tokens,
            decided.usage.output_tokens,
            decided.usage.cached_tokens
        ),
        (100, 10, 40)
    );

    models.decide(&decide_args(true)).unwrap();
    let asked = models
        .ask(
            &AskArgs {
                prompt: "What is open?".into(),
                images: vec![],
            },
            None,
        )
        .unwrap();
    assert_eq!(asked.text, "echo: What is open?");
    let png = "iVBORw0KGgoAAAANSUhEUg";
    let grounded = models
        .ground(
            &GroundArgs::parse(
                &json!({"png_b64": png, "target": "Save", "area": {"width": 11, "height": 11}}),
            )
            .unwrap(),
        )
        .unwrap();
    assert_eq!((grounded.x, grounded.y), (5, 5));

    let requests = server.requests();
    let models_asked: Vec<&str> = requests
        .iter()
        .map(|r| r["body"]["model"].as_str().unwrap())
        .collect();
    assert_eq!(models_asked, ["decider", "verifier", "asker", "grounder"]);
    for request in &requests {
        assert_eq!(request["path"], "/v1/chat/completions");
        assert_eq!(request["authorization"], format!("Bearer {KEY}"));
        assert_eq!(request["body"]["stream"], false);
        let elsewhere = json!([request["body"], request["path"]]).to_string()
            + &request["headers"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| !k.eq_ignore_ascii_case("authorization"))
                .map(|(_, v)| v.to_string())
                .collect::<String>();
        assert!(
            !elsewhere.contains(KEY),
            "the key left its header: {elsewhere}"
        );
    }
}

#[test]
fn ground_maps_onto_an_area_off_the_origin() {
    let server = Server::start("ground");
    std::fs::write(
        server.dir.join("ground.json"),
        r#"{"OK button": [1000, 0], "corner": [0, 1000]}"#,
    )
    .unwrap();
    let models = Models::new(server.config(&key_var("ground")));
    let ground = |target: &str| {
        let args = json!({"png_b64": "iVBORw0KGgoAAAA", "target": target, "area": {"left": 640, "top": 200, "width": 320, "height": 100}});
        models.ground(&GroundArgs::parse(&args).unwrap())
    };
    let ok = ground("OK button").unwrap();
    assert_eq!((ok.x, ok.y), (959, 200));
    let corner = ground("corner").unwrap();
    assert_eq!((corner.x, corner.y), (640, 299));
}

#[test]
fn failures_are_clear_sent_once_and_never_hold_the_key() {
    let server = Server::start("failures");
    let var = key_var("failures");
    let with_model = |model: &str| {
        let mut config = server.config(&var);
        config.ask = Some(model.into());
        config.ground = Some(model.into());
        Models::new(config)
    };
    let ask = |models: &Models, timeout_ms: Option<u64>| {
        models
            .ask(
                &AskArgs {
                    prompt: "hi".into(),
                    images: vec![],
                },
                timeout_ms,
            )
            .unwrap_err()
    };
    let expect = |error: ModelError, parts: &[&str]| {
        let text = error.to_string();
        for part in parts {
            assert!(text.contains(part), "{text:?} lacks {part:?}");
        }
        assert!(!text.contains(KEY), "{text}");
    };
    let url = format!("http://127.0.0.1:{}/v1/chat/completions", server.port);

    let before = server.requests().len();
    let started = Instant::now();
    expect(
        ask(&with_model("slow-1"), Some(500)),
        &[&url, "no full reply within 500 ms", "not retried"],
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the timeout held for {:?}",
        started.elapsed()
    );
    expect(
        ask(&with_model("http500"), None),
        &[&url, "HTTP 500", "fails on purpose"],
    );
    expect(ask(&with_model("garbage"), None), &[&url, "not JSON"]);
    expect(
        ask(&with_model("nochoices"), None),
        &[&url, "not a chat completion"],
    );
    let ground = with_model("out").ground(&GroundArgs::parse(&json!({"png_b64": "iVBORw0KGgoAAAA", "target": "x", "area": {"width": 5, "height": 5}})).unwrap());
    expect(ground.unwrap_err(), &["outside 0 to 1000"]);
    // Wait past the slow answer: each failed call still reached the server exactly once.
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(server.requests().len() - before, 5);

    let mut missing = server.config("SHUTTLE_TEST_KEY_THAT_IS_NOT_SET");
    missing.ask = Some("asker".into());
    expect(
        ask(&Models::new(missing), None),
        &[
            "SHUTTLE_TEST_KEY_THAT_IS_NOT_SET is not set",
            "nothing was sent",
        ],
    );
    let mut no_model = server.config(&var);
    no_model.ask = None;
    expect(
        ask(&Models::new(no_model), None),
        &["no model is set for the ask role", "nothing was sent"],
    );
    assert_eq!(
        server.requests().len() - before,
        5,
        "a call refused before sending sent something"
    );

    // An endpoint that is down.
    let mut down = server.config(&var);
    down.base_url = "http://127.0.0.1:9/v1".into();
    expect(
        ask(&Models::new(down), None),
        &["http://127.0.0.1:9/v1/chat/completions", "not retried"],
    );
}

#[test]
fn a_decisions_url_answers_decide_itself() {
    let server = Server::start("decisions");
    let mut config = server.config(&key_var("decisions"));
    config.decisions_url = Some(format!("http://127.0.0.1:{}/decisions", server.port));
    let decided = Models::new(config).decide(&decide_args(false)).unwrap();
    assert_eq!(decided.answers["saved"], json!({"probability": 0.75}));
    assert_eq!(decided.answers["button"]["choice"], "Close");
    assert_eq!(decided.served.build.as_deref(), Some("decider-1"));
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0]["path"], "/decisions");
    assert_eq!(requests[0]["body"]["model"], "decider");
    assert_eq!(requests[0]["body"]["questions"]["saved"]["type"], "noul");
}
