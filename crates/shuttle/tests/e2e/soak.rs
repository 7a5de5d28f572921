//! Four agents at once against one daemon and a real GTK app: reads, typing and scrolling on the
//! fixture, pipelined calls, malformed packets and connections dropped mid-call. No reply may be
//! lost or answer another request, everything reported typed must be in the app's field exactly
//! once, the bystander gets nothing, and the daemon's open descriptors and memory stay flat.
//!
//! `SHUTTLE_SOAK_CALLS` calls per agent (default 120, so the suite stays fast);
//! `scripts/soak.sh` runs 2000.

use crate::common;

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{Daemon, Fixture, Wire, require_desktop, wait_for};
use serde_json::json;

const AGENTS: usize = 4;

/// What one agent's calls came to.
#[derive(Default)]
struct Tally {
    calls: usize,
    /// Tokens whose typing the daemon reported complete.
    typed: Vec<String>,
    /// Scroll notches reported complete.
    scrolled: usize,
}

/// The daemon's open descriptors and resident memory in KiB, from /proc.
fn usage(pid: u32) -> (usize, u64) {
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    (fds, rss)
}

/// One agent's run of `calls` calls on `window`, its own connection kept open throughout.
fn agent(socket: &Path, window: &str, agent: usize, calls: usize) -> Tally {
    let name = format!("soak-{agent}");
    let mut wire = Wire::connect_as(socket, &name);
    let mut tally = Tally::default();
    for i in 0..calls {
        // Each agent walks the mix from its own offset, so the four overlap differently.
        match (i + agent * 5) % 20 {
            0..=1 => {
                let reply = wire.call("desk_windows", json!({}));
                assert!(reply.text.contains(window), "{}", reply.text);
            }
            2 => {
                let reply = wire.call("desk_screen", json!({}));
                assert!(reply.json()["width"].as_u64() > Some(0));
            }
            3..=4 => {
                let reply = wire.call("desk_snapshot", json!({"window": window}));
                assert!(!reply.json()["nodes"].as_array().unwrap().is_empty());
            }
            5 => {
                let reply = wire.call("desk_shot", json!({"x": 0, "y": 0, "w": 64, "h": 48}));
                assert!(reply.image.is_some(), "{}", reply.text);
            }
            6 => {
                let reply = wire.call("status", json!({}));
                assert_eq!(reply.json()["daemon"], "running");
            }
            7..=9 => {
                // The agent's letter (r to v), the call's number in the letters a to p, and z:
                // no token can be found inside the others run together.
                let token = format!("{}{}z", char::from(b'r' + agent as u8), to_letters(i));
                let reply = wire.call("desk_type", json!({"text": token, "window": window}));
                let done = reply.json();
                assert_eq!(done["typed"], token.len(), "{done}");
                tally.typed.push(token);
            }
            10 => {
                let args =
                    json!({"direction": "down", "amount": 1, "x": 250, "y": 300, "window": window});
                let reply = wire.call("desk_scroll", args);
                assert!(!reply.is_error, "{}", reply.text);
                tally.scrolled += 1;
            }
            11 => {
                // Two requests back to back: the replies come in order, each to its own.
                let missing = format!("soak-missing-{agent}-{i}");
                wire.send("desk_snapshot", json!({"window": missing}));
                wire.send("desk_screen", json!({}));
                let first = wire.read().expect("a reply to the first of two");
                let second = wire.read().expect("a reply to the second of two");
                assert!(first.error().contains(&missing), "{}", first.text);
                assert!(second.json()["width"].as_u64() > Some(0));
                tally.calls += 1;
            }
            12 => {
                // A connection dropped mid-call: the call is cancelled, nothing else changes.
                let mut dropped = Wire::connect_as(socket, &name);
                dropped.send("desk_still", json!({"timeout_ms": 300}));
            }
            13 => {
                wire.send_payload(b"{\"agent_id\": \"soak\", \"tool\": ");
                let reply = wire.read().expect("a reply to a malformed packet");
                assert!(reply.error().contains("not valid JSON"), "{}", reply.text);
            }
            14 => {
                let reply = wire.call("desk_nope", json!({}));
                assert!(reply.error().contains("unknown tool"), "{}", reply.text);
            }
            15 => {
                let reply = wire.call("desk_find", json!({"window": window, "name": "Press me"}));
                assert!(reply.text.contains("Press me"), "{}", reply.text);
            }
            16..=17 => {
                let reply = wire.call("desk_unanswered", json!({}));
                assert!(!reply.is_error, "{}", reply.text);
            }
            _ => {
                let reply = wire.call("desk_at", json!({"x": 60, "y": 60, "window": window}));
                assert!(!reply.is_error, "{}", reply.text);
            }
        }
        tally.calls += 1;
    }
    tally
}

/// `n` in the letters a to p (base 16).
fn to_letters(mut n: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'a' + (n % 16) as u8);
        n /= 16;
        if n == 0 {
            break;
        }
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn four_agents_at_once_lose_nothing_and_the_daemon_stays_flat() {
    require_desktop();
    let calls: usize = std::env::var("SHUTTLE_SOAK_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(120);
    let daemon = Daemon::start();
    let bystander = Fixture::start("soak bystander", &["--size", "300x200"]);
    let fixture = Fixture::start("soak target", &["--size", "500x400"]);
    let window = fixture.id();
    let pid = daemon.pid();

    // Warm up: connections, caches and the keymap settle before the first measure.
    let warm = agent(&daemon.socket, &window, AGENTS, 40);
    let before = usage(pid);
    let started = Instant::now();
    let running = std::sync::atomic::AtomicBool::new(true);
    let (tallies, samples): (Vec<Tally>, Vec<(usize, u64)>) = std::thread::scope(|scope| {
        // Memory over the run, to tell growth from the first calls' warm-up.
        let sampler = scope.spawn(|| {
            let mut samples = Vec::new();
            while running.load(std::sync::atomic::Ordering::Relaxed) {
                samples.push(usage(pid));
                std::thread::sleep(Duration::from_millis(250));
            }
            samples
        });
        let runs: Vec<_> = (0..AGENTS)
            .map(|n| {
                let (socket, window) = (&daemon.socket, &window);
                scope.spawn(move || agent(socket, window, n, calls))
            })
            .collect();
        let tallies = runs.into_iter().map(|r| r.join().unwrap()).collect();
        running.store(false, std::sync::atomic::Ordering::Relaxed);
        (tallies, sampler.join().unwrap())
    });
    let elapsed = started.elapsed();
    let half = samples[samples.len() / 2];
    // Dropped connections end their calls within a moment; measure once they have.
    let settle = Instant::now() + Duration::from_secs(5);
    let mut after = usage(pid);
    while after.0 > before.0 && Instant::now() < settle {
        std::thread::sleep(Duration::from_millis(50));
        after = usage(pid);
    }
    let total: usize = tallies.iter().map(|t| t.calls).sum();
    eprintln!(
        "soak: {total} calls by {AGENTS} agents in {:.1} s ({:.0} per second); open descriptors \
         {} -> {}; resident memory {} -> {} (half way) -> {} KiB",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64(),
        before.0,
        after.0,
        before.1,
        half.1,
        after.1
    );
    assert!(
        after.0 <= before.0,
        "open descriptors grew from {} to {}",
        before.0,
        after.0
    );
    assert!(
        after.1 < before.1 + 16 * 1024,
        "resident memory grew from {} to {} KiB",
        before.1,
        after.1
    );

    // Every token reported typed is in the field exactly once, and nothing else is.
    let tokens: Vec<&String> = warm
        .typed
        .iter()
        .chain(tallies.iter().flat_map(|t| &t.typed))
        .collect();
    let length: usize = tokens.iter().map(|t| t.len()).sum();
    let text = wait_for(
        "every typed token in the field",
        Duration::from_secs(10),
        || {
            let last = fixture.events_of("text").pop()?;
            let text = last["text"].as_str()?.to_string();
            (text.len() == length).then_some(text)
        },
    );
    let unique: HashSet<&String> = tokens.iter().copied().collect();
    assert_eq!(unique.len(), tokens.len());
    for token in tokens {
        assert_eq!(text.matches(token.as_str()).count(), 1, "{token} in {text}");
    }
    let scrolled = warm.scrolled + tallies.iter().map(|t| t.scrolled).sum::<usize>();
    assert_eq!(fixture.events_of("scroll").len(), scrolled);
    bystander.assert_untouched();
}
