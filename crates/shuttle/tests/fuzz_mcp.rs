//! Generated JSON-RPC traffic through a real `shuttle mcp` process to a daemon run in-process on
//! the fake desk: tool calls with arguments of any kind, local requests, cancellations,
//! notifications, JSON of the wrong shape and lines that are not JSON at all.
//!
//! The rules checked, message by message: a request with an id gets exactly one response with
//! that id (a cancelled call may get none); well-formed JSON that is no JSON-RPC message gets
//! one `Invalid request` error without an id; a line that is not JSON is ignored, as every
//! official MCP SDK does (answering it could start an error storm with a peer that echoes),
//! unless it starts like JSON of the wrong shape (`5j…`), which earns the same one error; a
//! notification gets nothing. The process stays up throughout.
//!
//! `SHUTTLE_FUZZ_MCP_BATCHES` batches of up to 40 messages run (default 100, so the test suite
//! stays fast); `scripts/fuzz.sh` runs far more.

mod common;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use common::Mcp;
use common::inprocess::InProcess;
use desk_core::call::Verb;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};

/// One line the client sends.
#[derive(Debug, Clone)]
enum Message {
    /// A `tools/call` request.
    Call(String, Value),
    /// A request the MCP server answers itself (ping, tools/list, an unknown method).
    Local(String, Value),
    /// A notification.
    Notify(String, Value),
    /// A cancellation of the request sent this many messages earlier.
    Cancel(usize),
    /// Well-formed JSON that is no JSON-RPC message.
    WrongShape(Value),
    /// A line that is not JSON.
    Garbage(String),
}

const KEYS: &[&str] = &[
    "verb",
    "x",
    "y",
    "window",
    "pid",
    "node",
    "text",
    "keys",
    "button",
    "count",
    "dx",
    "dy",
    "timeout_ms",
    "since",
    "name",
    "role",
    "value",
    "action",
    "command",
    "max",
    "query",
];

/// Argument values, kept small so waiting verbs wait at most a tenth of a second.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (0i64..100).prop_map(Value::from),
        (-2000i64..2000).prop_map(Value::from),
        "[a-zA-Z0-9 +._#:-]{0,12}".prop_map(Value::from),
        ".{0,6}".prop_map(Value::from),
        proptest::sample::select(&["0x10", "0x30", "Notes", "Vault", "ctrl+a", "1.9:7"][..])
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..4).prop_map(
                |pairs| {
                    Value::Object(
                        pairs
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), v))
                            .collect::<Map<_, _>>(),
                    )
                }
            ),
        ]
    })
}

fn verb() -> impl Strategy<Value = Value> {
    let names: Vec<&'static str> = Verb::ALL.iter().map(|v| v.name()).collect();
    prop_oneof![
        6 => proptest::sample::select(names).prop_map(Value::from),
        1 => value(),
    ]
}

fn arguments() -> impl Strategy<Value = Value> {
    (
        verb(),
        proptest::collection::vec((proptest::sample::select(KEYS), value()), 0..4),
    )
        .prop_map(|(verb, pairs)| {
            let mut args: Map<String, Value> =
                pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            args.insert("verb".into(), verb);
            Value::Object(args)
        })
}

fn message() -> impl Strategy<Value = Message> {
    let tool = prop_oneof![
        8 => Just("desk".to_string()),
        1 => Just("screenshot".to_string()),
        1 => Just("status".to_string()),
        1 => "[a-z_]{0,8}",
    ];
    prop_oneof![
        10 => (tool, arguments()).prop_map(|(tool, args)| Message::Call(tool, args)),
        1 => value().prop_map(|args| Message::Call("desk".into(), args)),
        2 => proptest::sample::select(&["ping", "tools/list", "resources/list", "nope/x", "x"][..])
            .prop_map(|m| Message::Local(m.to_string(), json!({}))),
        1 => proptest::sample::select(&["notifications/initialized", "notifications/whatever"][..])
            .prop_map(|m| Message::Notify(m.to_string(), json!({}))),
        2 => (1usize..6).prop_map(Message::Cancel),
        2 => proptest::sample::select(wrong_shapes()).prop_map(Message::WrongShape),
        1 => "[^\n]{0,30}".prop_filter("not JSON", |s| serde_json::from_str::<Value>(s).is_err())
            .prop_map(Message::Garbage),
    ]
}

/// JSON that rmcp's decoder refuses as a message.
fn wrong_shapes() -> Vec<Value> {
    vec![
        json!({"foo": 1}),
        json!([1, 2]),
        json!(7),
        json!({"jsonrpc": "2.0", "id": 5}),
        json!({"jsonrpc": "2.0", "method": 5}),
        json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": 5}),
    ]
}

/// Sends one batch and checks every response against the rules; returns the messages sent.
fn run_batch(mcp: &mut Mcp, next_id: &mut u64, batch: &[Message]) -> usize {
    let mut sent_ids: Vec<Option<(u64, bool)>> = Vec::new();
    let mut expect: HashSet<u64> = HashSet::new();
    let mut cancelled: HashSet<u64> = HashSet::new();
    let mut wrong = 0;
    let mut garbage = 0;
    for message in batch {
        let mut id = || {
            *next_id += 1;
            *next_id
        };
        let (line, sent) = match message {
            Message::Call(tool, args) => {
                let id = id();
                let params = json!({"name": tool, "arguments": args});
                let line =
                    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
                (line.to_string(), Some((id, true)))
            }
            Message::Local(method, params) => {
                let id = id();
                let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
                (line.to_string(), Some((id, false)))
            }
            Message::Notify(method, params) => {
                let line = json!({"jsonrpc": "2.0", "method": method, "params": params});
                (line.to_string(), None)
            }
            Message::Cancel(back) => {
                let target = sent_ids
                    .len()
                    .checked_sub(*back)
                    .and_then(|i| sent_ids[i])
                    .map_or(0, |(id, _)| id);
                if target != 0 {
                    cancelled.insert(target);
                }
                let params = json!({"requestId": target, "reason": "fuzz"});
                let line = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params});
                (line.to_string(), None)
            }
            Message::WrongShape(value) => {
                wrong += 1;
                (value.to_string(), None)
            }
            Message::Garbage(text) => {
                garbage += 1;
                (text.clone(), None)
            }
        };
        if let Some((id, _)) = sent {
            expect.insert(id);
        }
        sent_ids.push(sent);
        mcp.send_line(&line);
    }
    // Calls are answered in order, so once this one is, every call before it is too.
    *next_id += 1;
    let last = *next_id;
    mcp.send(
        json!({"jsonrpc": "2.0", "id": last, "method": "tools/call", "params": {"name": "status"}}),
    );
    let mut answered: HashMap<u64, usize> = HashMap::new();
    let mut id_less = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let reply = mcp
            .next(left)
            .unwrap_or_else(|| panic!("no answer to the batch's last call: {batch:?}"));
        match reply.get("id").and_then(Value::as_u64) {
            Some(id) if id == last => break,
            Some(id) => *answered.entry(id).or_default() += 1,
            None => {
                assert_eq!(reply["error"]["code"], -32600, "{reply}");
                id_less += 1;
            }
        }
    }
    // Requests answered at once (ping, tools/list) may come after the last call's answer.
    let settle = Instant::now() + Duration::from_secs(5);
    while expect
        .iter()
        .any(|id| !cancelled.contains(id) && !answered.contains_key(id))
        && Instant::now() < settle
    {
        if let Some(reply) = mcp.next(Duration::from_millis(100)) {
            match reply.get("id").and_then(Value::as_u64) {
                Some(id) => *answered.entry(id).or_default() += 1,
                None => id_less += 1,
            }
        }
    }
    for (id, times) in &answered {
        assert!(expect.contains(id), "a response to {id}, never sent");
        assert_eq!(*times, 1, "request {id} answered {times} times");
    }
    for id in &expect {
        assert!(
            cancelled.contains(id) || answered.contains_key(id),
            "request {id} got no response; batch {batch:?}"
        );
    }
    assert!(
        (wrong..=wrong + garbage).contains(&id_less),
        "{id_less} id-less errors for {wrong} wrong shapes and {garbage} lines of garbage; batch \
         {batch:?}"
    );
    batch.len() + 1
}

#[test]
fn any_traffic_is_answered_by_the_rules_and_the_proxy_stays_up() {
    let batches: usize = std::env::var("SHUTTLE_FUZZ_MCP_BATCHES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100);
    let daemon = InProcess::start("");
    let config = daemon.scratch.path("config.toml");
    let mut mcp = Mcp::start(
        &daemon.socket,
        &[("SHUTTLE_CONFIG", config.to_str().unwrap())],
    );
    mcp.initialize("2025-06-18");
    let mut runner = TestRunner::new(Config {
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = proptest::collection::vec(message(), 1..40);
    let started = Instant::now();
    let mut next_id = 1000;
    let mut messages = 0;
    for _ in 0..batches {
        let batch = strategy.new_tree(&mut runner).unwrap().current();
        messages += run_batch(&mut mcp, &mut next_id, &batch);
    }
    assert!(
        mcp.child.try_wait().unwrap().is_none(),
        "shuttle mcp exited"
    );
    let elapsed = started.elapsed();
    eprintln!(
        "fuzz_mcp: {messages} messages in {:.1} s ({:.0} per second)",
        elapsed.as_secs_f64(),
        messages as f64 / elapsed.as_secs_f64()
    );
}
