//! Generated inputs against the wire decoder: packets split at every byte boundary, and payloads
//! of every shape (bytes, JSON, near-valid requests with random arguments for every verb).
//!
//! Each property runs `SHUTTLE_FUZZ_CASES` cases (default 2000, so the test suite stays fast);
//! `scripts/fuzz.sh` runs a million and more.

use std::pin::Pin;
use std::task::{Context, Poll};

use desk_core::call::{DeskCall, Verb};
use desk_core::wire::tools::Tool;
use desk_core::wire::{
    MAX_PACKET, PacketError, PacketReader, decode_reply, decode_request, encode_packet, peek_tool,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, ReadBuf};

fn runner() -> TestRunner {
    let cases = std::env::var("SHUTTLE_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Argument names the verbs know, so generated objects often reach the value checks.
const KEYS: &[&str] = &[
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
    "path",
    "timeout_ms",
    "since",
    "region",
    "name",
    "role",
    "value",
    "action",
    "command",
    "args",
    "cwd",
    "verb",
    "allow_auth",
    "format",
    "max",
    "depth",
    "query",
    "states",
    "to_x",
    "to_y",
];

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(KEYS).prop_map(str::to_string),
        1 => ".{0,8}",
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-3000i64..3000).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
    ]
}

/// Any JSON value, nested a few levels, with keys drawn mostly from [`KEYS`].
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        number(),
        ".{0,24}".prop_map(Value::from),
        proptest::sample::select(&["0x00a00003", "1.9:7", "#1.9:7", "ctrl+a", "Notes", ""][..])
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((key(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn tool_name() -> impl Strategy<Value = String> {
    let mut names: Vec<String> = Verb::ALL.iter().map(|v| v.tool_name()).collect();
    names.extend(
        [
            "status",
            "safety_stop",
            "safety_resume",
            "desk_",
            "desk_nope",
        ]
        .map(String::from),
    );
    prop_oneof![
        5 => proptest::sample::select(names),
        1 => ".{0,12}",
    ]
}

/// A request that is well-formed JSON, often right in shape, with arguments of any kind.
fn request_json() -> impl Strategy<Value = Value> {
    (
        prop_oneof![".{0,8}".prop_map(Value::from), json_value()],
        tool_name(),
        json_value(),
        proptest::collection::vec((key(), json_value()), 0..2),
    )
        .prop_map(|(agent, tool, args, extra)| {
            let mut request = json!({"agent_id": agent, "tool": tool, "args": args});
            request.as_object_mut().unwrap().extend(extra);
            request
        })
}

/// Any packet payload: raw bytes, JSON of any shape, requests, and requests with bytes broken.
fn payload() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..64),
        2 => json_value().prop_map(|v| v.to_string().into_bytes()),
        6 => request_json().prop_map(|v| v.to_string().into_bytes()),
        2 => (request_json(), any::<prop::sample::Index>(), any::<u8>()).prop_map(|(v, at, byte)| {
            let mut bytes = v.to_string().into_bytes();
            let at = at.index(bytes.len());
            bytes[at] = byte;
            bytes
        }),
        1 => (request_json(), any::<prop::sample::Index>()).prop_map(|(v, at)| {
            let bytes = v.to_string().into_bytes();
            let end = at.index(bytes.len());
            bytes[..end].to_vec()
        }),
    ]
}

/// How a byte stream ends after its whole packets.
#[derive(Debug, Clone)]
enum Tail {
    /// Cleanly, between packets.
    Clean,
    /// Inside a header or a payload, after this many of the next packet's bytes.
    Cut(Vec<u8>, usize),
    /// With a header announcing more than [`MAX_PACKET`].
    TooLong(u32),
}

fn tail() -> impl Strategy<Value = Tail> {
    prop_oneof![
        2 => Just(Tail::Clean),
        2 => (payload(), any::<prop::sample::Index>()).prop_map(|(p, at)| {
            let packed = encode_packet(&p);
            let at = 1 + at.index(packed.len() - 1);
            Tail::Cut(p, at)
        }),
        1 => ((MAX_PACKET as u32 + 1)..=u32::MAX).prop_map(Tail::TooLong),
    ]
}

/// A reader that hands out its bytes in the chunk sizes it was given, as a socket might.
struct Chunked {
    bytes: Vec<u8>,
    at: usize,
    sizes: Vec<usize>,
    turn: usize,
}

impl AsyncRead for Chunked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let size = self.sizes[self.turn % self.sizes.len()];
        self.turn += 1;
        let end = (self.at + size).min(self.bytes.len());
        let n = (end - self.at).min(buf.remaining());
        let at = self.at;
        buf.put_slice(&self.bytes[at..at + n]);
        self.at += n;
        Poll::Ready(Ok(()))
    }
}

#[test]
fn packets_split_anyhow_come_back_whole_and_in_order() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let cases = (
        proptest::collection::vec(payload(), 0..6),
        tail(),
        proptest::collection::vec(1usize..40, 1..5),
    );
    runner()
        .run(&cases, |(payloads, tail, sizes)| {
            let mut bytes: Vec<u8> = payloads.iter().flat_map(|p| encode_packet(p)).collect();
            match &tail {
                Tail::Clean => {}
                Tail::Cut(p, at) => bytes.extend_from_slice(&encode_packet(p)[..*at]),
                Tail::TooLong(len) => bytes.extend_from_slice(&len.to_be_bytes()),
            }
            let mut reader = PacketReader::new(Chunked {
                bytes,
                at: 0,
                sizes,
                turn: 0,
            });
            runtime.block_on(async {
                for sent in &payloads {
                    let got = reader.next_packet().await.ok().flatten();
                    prop_assert_eq!(got.as_ref(), Some(sent));
                }
                let end = reader.next_packet().await;
                match (&tail, end) {
                    (Tail::Clean, Ok(None)) => {}
                    (Tail::Cut(p, at), Err(PacketError::Truncated { expected, got })) => {
                        prop_assert_eq!(got, *at);
                        // Until the header is complete the reader cannot know the packet's size.
                        if *at >= 4 {
                            prop_assert_eq!(expected, 4 + p.len());
                        }
                    }
                    (Tail::TooLong(len), Err(PacketError::TooLong { len: said })) => {
                        prop_assert_eq!(said, u64::from(*len));
                    }
                    (tail, end) => prop_assert!(false, "tail {tail:?} ended with {end:?}"),
                }
                Ok(())
            })
        })
        .unwrap();
}

#[test]
fn any_payload_decodes_or_names_its_fault() {
    runner()
        .run(&payload(), |payload| {
            let peeked = peek_tool(&payload);
            match decode_request(&payload) {
                Ok(request) => {
                    prop_assert!(request.args.is_object() || request.args.is_null());
                    if let Some(peeked) = peeked {
                        prop_assert_eq!(peeked, request.tool.as_str());
                    }
                    if let Some(Tool::Desk(verb)) = Tool::parse(&request.tool)
                        && let Err(e) = DeskCall::parse(verb, request.args)
                    {
                        prop_assert!(!e.to_string().is_empty());
                    }
                }
                Err(e) => prop_assert!(e.to_string().len() > 10, "{e}"),
            }
            // A reply decoder given the same bytes never panics either.
            let _ = decode_reply(&payload);
            Ok(())
        })
        .unwrap();
}

#[test]
fn every_verb_takes_any_arguments_without_panicking() {
    let cases = (proptest::sample::select(Verb::ALL), json_value());
    runner()
        .run(&cases, |(verb, args)| {
            match DeskCall::parse(verb, args) {
                Ok(call) => prop_assert_eq!(call.verb(), verb),
                Err(e) => prop_assert!(!e.to_string().is_empty()),
            }
            Ok(())
        })
        .unwrap();
}
