//! What a service call costs in the daemon: the same request answered by a service's socket
//! directly, and through the daemon, which peeks the tool, connects to the service and splices
//! the two connections. Run it with
//!
//! ```sh
//! cargo test -p shuttle --release --features bench --test splice -- --nocapture
//! ```
//!
//! The service is this test itself, listening on the service's socket, so both paths reach the
//! same few microseconds of echo and the difference is the daemon's alone. The daemon runs
//! in-process on the fake desk and needs no display.

mod common;

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::time::{Duration, Instant};

use common::Wire;
use common::inprocess::InProcess;
use serde_json::{Value, json};

const CALLS: usize = 2000;

#[test]
fn splice_cost() {
    // The service's program only holds its place; the test serves its socket.
    let service = json!({
        "service": "bench",
        "bin": "/bin/sleep",
        "args": ["3600"],
        "tools": [{"name": "bench_echo", "description": "Echoes.", "input_schema": {"type": "object"}}],
    });
    let daemon = InProcess::start_with_plugins("", &[("bench.json", service)]);
    common::wait_for("the service to start", Duration::from_secs(10), || {
        let status = daemon.call("status", Value::Null).json();
        status["plugins"]["services"][0]["pid"].as_u64()
    });
    let service_socket = daemon.socket.parent().unwrap().join("services/bench.sock");
    let listener = UnixListener::bind(&service_socket).unwrap();
    std::thread::spawn(move || echo(listener));

    // Warm both paths up before timing.
    measure(&service_socket, 200);
    measure(&daemon.socket, 200);
    let direct = measure(&service_socket, CALLS);
    let spliced = measure(&daemon.socket, CALLS);

    let (d50, d99) = (percentile(&direct, 50), percentile(&direct, 99));
    let (s50, s99) = (percentile(&spliced, 50), percentile(&spliced, 99));
    println!("splice_cost: {CALLS} calls each, a connection per call, request to reply");
    println!("  direct to the service socket: p50 {d50:7.1} us  p99 {d99:7.1} us");
    println!("  through the daemon (spliced): p50 {s50:7.1} us  p99 {s99:7.1} us");
    println!(
        "  the daemon adds:              p50 {:7.1} us  p99 {:7.1} us",
        s50 - d50,
        s99 - d99
    );
}

/// One call per connection, as an agent makes them; each call's microseconds, sorted.
fn measure(socket: &Path, calls: usize) -> Vec<f64> {
    let mut times: Vec<f64> = (0..calls)
        .map(|n| {
            let start = Instant::now();
            let reply = Wire::connect(socket).call("bench_echo", json!({"n": n}));
            let took = start.elapsed().as_secs_f64() * 1e6;
            assert_eq!(reply.text, format!("{{\"n\":{n}}}"), "{}", reply.text);
            took
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times
}

fn percentile(sorted: &[f64], p: usize) -> f64 {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

/// Answers each connection's one packet with its args, then waits for the client to close.
fn echo(listener: UnixListener) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { return };
        let Some(request) = read_packet(&mut stream) else {
            continue;
        };
        let text = request["args"].to_string();
        let reply = json!({"text": text, "is_error": false}).to_string();
        let mut packet = (reply.len() as u32).to_be_bytes().to_vec();
        packet.extend_from_slice(reply.as_bytes());
        if stream.write_all(&packet).is_err() {
            continue;
        }
        let _ = stream.read(&mut [0u8; 1]);
    }
}

fn read_packet(stream: &mut UnixStream) -> Option<Value> {
    let mut header = [0u8; 4];
    stream.read_exact(&mut header).ok()?;
    let mut payload = vec![0u8; u32::from_be_bytes(header) as usize];
    stream.read_exact(&mut payload).ok()?;
    serde_json::from_slice(&payload).ok()
}
