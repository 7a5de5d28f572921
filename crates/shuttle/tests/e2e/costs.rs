//! Measurements written as tests, for scripts/bench.sh: what a private display and the clipboard
//! cost. They print tables for docs/benchmarks.md and judge nothing; the `bench` feature builds
//! them (`cargo test -p shuttle --release --features e2e,bench --test e2e costs -- --nocapture`).

use crate::common;

use std::process::Command;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};

use crate::clipboard::ON;
use crate::private_display::{launch_as, per_agent, seats, start_watch, viewer_pixel};

fn pss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("Pss:"))?;
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .unwrap_or(0.0)
        / 1024.0
}

fn xclip_in(text: &str) {
    use std::io::Write as _;
    let mut child = std::process::Command::new("xclip")
        .args(["-selection", "clipboard", "-i"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
}

fn xclip_out() -> String {
    run("xclip", &["-selection", "clipboard", "-o"])
}

fn median_ms(mut f: impl FnMut(), runs: usize) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let started = std::time::Instant::now();
            f();
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Issue 15's numbers: `cargo test -p shuttle --release --features e2e,bench --test e2e
/// clipboard_costs -- --nocapture` on the virtual desktop (scripts/bench.sh runs it).
#[test]
fn clipboard_costs() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(ON), &[]);
    let mut wire = Wire::connect(&daemon.socket);
    let mut ours = |text: &str| {
        assert!(
            !wire
                .call("desk_clipboard_write", json!({"text": text}))
                .is_error
        );
        let back = wire.call("desk_clipboard_read", json!({})).json();
        assert_eq!(back["bytes"], text.len());
    };
    let short = "a line of text ✓";
    let mega: String = "0123456789abcdef".repeat(65_536);
    let runs = 15;
    let ours_short = median_ms(|| ours(short), runs);
    let theirs_short = median_ms(
        || {
            xclip_in(short);
            assert_eq!(xclip_out(), short);
        },
        runs,
    );
    let ours_mega = median_ms(|| ours(&mega), runs);
    let theirs_mega = median_ms(
        || {
            xclip_in(&mega);
            assert_eq!(xclip_out().len(), mega.len());
        },
        runs,
    );
    println!("#### Clipboard: write then read back, shuttle against xclip ({runs} runs, median)\n");
    println!("| what | shuttle ms | xclip ms | ratio |");
    println!("|---|---|---|---|");
    println!(
        "| a short line | {ours_short:.1} | {theirs_short:.1} | {:.2}x |",
        theirs_short / ours_short
    );
    println!(
        "| 1 MiB of text | {ours_mega:.1} | {theirs_mega:.1} | {:.2}x |",
        theirs_mega / ours_mega
    );
    println!();

    let pid = daemon.pid();
    let before = pss_mib(pid);
    let ten: String = "x".repeat(10 << 20);
    assert!(
        !wire
            .call("desk_clipboard_write", json!({"text": ten}))
            .is_error
    );
    let serving = pss_mib(pid);
    // Another client takes the clipboard: shuttle stops serving and lets the text go.
    xclip_in("taken");
    wait_for(
        "shuttle to let the clipboard go",
        Duration::from_secs(5),
        || (xclip_out() == "taken").then_some(()),
    );
    std::thread::sleep(Duration::from_millis(300));
    let after = pss_mib(pid);
    println!("#### The daemon's memory (PSS) around serving a 10 MiB selection\n");
    println!("| before | while serving | after another app took the clipboard |");
    println!("|---|---|---|");
    println!("| {before:.1} MiB | {serving:.1} MiB | {after:.1} MiB |");
    println!();
}

fn median_and_p99(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let p99 = times[((times.len() * 99) / 100).min(times.len() - 1)];
    (times[times.len() / 2], p99)
}

/// Memory of `pids` in MiB: their proportional set size, so libraries they share are
/// counted once.
fn rss_mib(pids: &[i64]) -> f64 {
    pids.iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok())
        .filter_map(|status| {
            let line = status.lines().find(|l| l.starts_with("Pss:"))?;
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .sum::<f64>()
        / 1024.0
}

/// The processes of a private display: its X server's process group.
fn group_of(server: i64) -> Vec<i64> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i64>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                let rest = &stat[stat.rfind(')').unwrap() + 1..];
                rest.split_whitespace().nth(2) == Some(&server.to_string())
            })
        })
        .collect()
}

/// Issue 14's numbers: `cargo test -p shuttle --release --features e2e,bench --test e2e
/// display_costs -- --nocapture` on the virtual desktop (scripts/bench.sh runs it).
#[test]
fn display_costs() {
    require_desktop();
    let runs = 8;
    let daemon = per_agent(&format!("displays_max = {}\n", runs + 3));
    let daemon_pid = i64::from(daemon.pid());
    let rss_before = rss_mib(&[daemon_pid]);
    let mut starts = Vec::new();
    for n in 0..runs {
        let mut wire = Wire::connect_as(&daemon.socket, &format!("start-{n}"));
        let started = std::time::Instant::now();
        let reply = wire.call("desk_windows", json!({}));
        starts.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(!reply.is_error, "{}", reply.text);
    }
    let (start_p50, start_p99) = median_and_p99(starts);
    let seats = seats(&daemon);
    let displays: Vec<f64> = seats
        .values()
        .map(|(_, server)| rss_mib(&group_of(*server)))
        .collect();
    let idle_display = displays.iter().sum::<f64>() / displays.len() as f64;
    let daemon_per_display = (rss_mib(&[daemon_pid]) - rss_before) / runs as f64;
    println!("#### Private displays (per-agent), {runs} started one after another\n");
    println!("| what | value |");
    println!("|---|---|");
    println!(
        "| first call of a new agent (X server, openbox, buses, AT-SPI, then `windows`), median | {start_p50:.0} ms |"
    );
    println!("| the same, p99 | {start_p99:.0} ms |");
    println!(
        "| memory of one idle private display (Xvfb, openbox, dbus, AT-SPI), PSS | {idle_display:.1} MiB |"
    );
    println!(
        "| the daemon's memory per display it holds (PSS growth / displays) | {daemon_per_display:.1} MiB |"
    );
    println!();

    // Typing: one agent alone, then two at once on their own displays.
    let scratch = daemon.shared_scratch("display-costs");
    let text = "side by side ✓ ".repeat(10);
    let mut wires = Vec::new();
    for agent in ["typist-a", "typist-b"] {
        let mut wire = Wire::connect_as(&daemon.socket, agent);
        launch_as(
            &mut wire,
            &format!("Pad {agent}"),
            &scratch.path(&format!("{agent}.log")),
        );
        wires.push(wire);
    }
    let type_into = |wire: &mut Wire, agent: &str| {
        let reply = wire.call(
            "desk_type",
            json!({"window": format!("Pad {agent}"), "text": text}),
        );
        assert!(!reply.is_error, "{}", reply.text);
    };
    let started = std::time::Instant::now();
    type_into(&mut wires[0], "typist-a");
    let alone = started.elapsed().as_secs_f64() * 1000.0;
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        for (wire, agent) in wires.iter_mut().zip(["typist-a", "typist-b"]) {
            let type_into = &type_into;
            scope.spawn(move || type_into(wire, agent));
        }
    });
    let both = started.elapsed().as_secs_f64() * 1000.0;
    let chars = text.chars().count();
    println!("#### Typing {chars} characters: two agents at once against one alone\n");
    println!("| what | wall ms | ratio to one alone |");
    println!("|---|---|---|");
    println!("| one agent alone | {alone:.0} | 1.00x |");
    println!(
        "| two agents at once, each on its own display | {both:.0} | {:.2}x |",
        both / alone
    );
    println!();

    // Watch lag: the root of an agent's display changes colour; how long until the viewer shows it.
    let mut wire = Wire::connect_as(&daemon.socket, "watched");
    assert!(!wire.call("desk_windows", json!({})).is_error);
    let status = daemon.call("status", json!({})).json();
    let xauthority = status["display"]["xauthority"]
        .as_str()
        .unwrap()
        .to_string();
    let display = seats_of_status(&status, "watched");
    let (mut viewer, window) = start_watch(&daemon, false);
    let mut lags = Vec::new();
    for n in 0..30u8 {
        let colour = (40 + n * 5, 200 - n * 3, 100 + n);
        let started = std::time::Instant::now();
        let out = Command::new("xsetroot")
            .args([
                "-solid",
                &format!("#{:02x}{:02x}{:02x}", colour.0, colour.1, colour.2),
            ])
            .env("DISPLAY", &display)
            .env("XAUTHORITY", &xauthority)
            .output()
            .unwrap();
        assert!(out.status.success());
        wait_for(
            "the viewer to show the new colour",
            Duration::from_secs(5),
            || (viewer_pixel(window, 5, 5) == Some(colour)).then_some(()),
        );
        lags.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    stop_child(&mut viewer);
    let (lag_p50, lag_p99) = median_and_p99(lags);
    println!(
        "#### `shuttle watch` lag: a change on the agent's display until the viewer shows it (30 changes, xsetroot included)\n"
    );
    println!("| p50 ms | p99 ms |");
    println!("|---|---|");
    println!("| {lag_p50:.1} | {lag_p99:.1} |");
    println!();
}

fn seats_of_status(status: &Value, agent: &str) -> String {
    status["agents"]["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == agent)
        .unwrap()["display"]
        .as_str()
        .unwrap()
        .to_string()
}
