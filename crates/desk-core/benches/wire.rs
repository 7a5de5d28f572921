//! Cost of reading a request: the `tool` peek the daemon routes on, and the full decode.
//!
//! Run with `cargo bench -p shuttle-desk-core --bench wire`.

use criterion::{Criterion, criterion_group, criterion_main};
use desk_core::wire::{decode_request, peek_tool};
use std::hint::black_box;

/// A typical small desk call: 74 bytes.
const PACKET: &[u8] =
    br#"{"agent_id":"claude-code-7","tool":"desk_click","args":{"x":1640,"y":360}}"#;

fn wire(c: &mut Criterion) {
    assert_eq!(PACKET.len(), 74);
    c.bench_function("peek_tool 74-byte packet", |b| {
        b.iter(|| peek_tool(black_box(PACKET)))
    });
    c.bench_function("decode_request 74-byte packet", |b| {
        b.iter(|| decode_request(black_box(PACKET)).unwrap())
    });
}

criterion_group!(benches, wire);
criterion_main!(benches);
