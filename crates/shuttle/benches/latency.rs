//! Call latency through the real processes: the desk wire directly, and the same call through
//! `shuttle mcp`, so the difference is what the MCP proxy costs. Also a full-screen `shot`, and
//! how soon `wait` and `xdotool search --sync` notice a window that was just mapped.
//!
//! Needs a display (run it through scripts/bench.sh, which starts one):
//! `cargo bench -p shuttle --bench latency`. Prints a markdown table.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const SHUTTLE: &str = env!("CARGO_BIN_EXE_shuttle");
const CALLS: usize = 2000;
const SHOTS: usize = 50;

fn main() {
    let dir = std::env::temp_dir().join(format!("shuttle-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let socket = dir.join("desk.sock");
    let mut daemon = Command::new(SHUTTLE)
        .args(["serve", "--foreground", "--display", "inherit"])
        .env("SHUTTLE_SOCKET", &socket)
        .env("SHUTTLE_LOG", "warn")
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut wire = connect(&socket);

    let direct = sample(CALLS, || {
        wire_call(&mut wire, "status", json!({}));
    });
    let mut mcp = Mcp::start(&socket);
    let through_mcp = sample(CALLS, || mcp.call("status", json!({})));
    let mut png_bytes = 0;
    let shots = sample(SHOTS, || {
        let reply = wire_call(&mut wire, "desk_shot", json!({}));
        png_bytes = reply["image_b64"].as_str().map_or(0, |b| b.len() * 3 / 4);
    });

    let new_window = new_window_latency(&socket);

    println!("| call | n | p50 ms | p99 ms |");
    println!("|---|---|---|---|");
    row("status on the desk wire", &direct);
    row("status through shuttle mcp", &through_mcp);
    row("desk_shot 1920x1080 on the desk wire", &shots);
    row(
        "new window noticed by desk_wait, from its map request",
        &new_window.from_map,
    );
    row(
        "new window noticed by desk_wait, from the window manager listing it",
        &new_window.from_listed,
    );
    row(
        "new window noticed by xdotool search --sync, from its map request",
        &new_window.xdotool,
    );
    println!();
    println!(
        "MCP proxy overhead: p50 {:.3} ms, p99 {:.3} ms; full-screen PNG {} bytes",
        ms(percentile(&through_mcp, 50)) - ms(percentile(&direct, 50)),
        ms(percentile(&through_mcp, 99)) - ms(percentile(&direct, 99)),
        png_bytes
    );
    for note in &new_window.notes {
        println!("- {note}");
    }

    drop(mcp);
    // SAFETY: kill on the daemon this benchmark started.
    unsafe { libc::kill(daemon.id() as i32, libc::SIGTERM) };
    let _ = daemon.wait();
    let _ = std::fs::remove_dir_all(dir);
}

/// Maps a bare window of our own and times how long `desk_wait` (on the wire) and `xdotool
/// search --sync` take to notice it.
fn new_window_latency(socket: &Path) -> NewWindow {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{ConnectionExt as _, CreateWindowAux, PropMode, WindowClass};
    use x11rb::wrapper::ConnectionExt as _;

    let (conn, screen) = x11rb::connect(None).unwrap();
    let root = conn.setup().roots[screen].root;
    let mut result = NewWindow::default();
    for i in 0..20 {
        let title = format!("latency probe {i}");
        let mut wire = connect(socket);
        let since = wire_call(&mut wire, "desk_windows", json!({}));
        let since: Value = serde_json::from_str(since["text"].as_str().unwrap()).unwrap();
        let probe = title.clone();
        let waiter = std::thread::spawn(move || {
            let reply = wire_call(
                &mut wire,
                "desk_wait",
                json!({"since": since, "timeout_ms": 5000}),
            );
            let seen = reply["text"].as_str().unwrap().contains(&probe);
            (Instant::now(), seen)
        });
        let mut xdotool = Command::new("xdotool")
            .args(["search", "--sync", "--name", &format!("^{title}$")])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let xdotool = std::thread::spawn(move || {
            xdotool.wait().unwrap();
            Instant::now()
        });
        std::thread::sleep(Duration::from_millis(300));
        let window = conn.generate_id().unwrap();
        conn.create_window(
            0,
            window,
            root,
            10,
            10,
            100,
            50,
            0,
            WindowClass::INPUT_OUTPUT,
            0,
            &CreateWindowAux::new(),
        )
        .unwrap();
        conn.change_property8(
            PropMode::REPLACE,
            window,
            x11rb::protocol::xproto::AtomEnum::WM_NAME,
            x11rb::protocol::xproto::AtomEnum::STRING,
            title.as_bytes(),
        )
        .unwrap();
        conn.map_window(window).unwrap();
        conn.flush().unwrap();
        let mapped = Instant::now();
        let listed = listed_after(&conn, root, window, mapped);
        let (noticed, seen) = waiter.join().unwrap();
        let from_map = noticed - mapped;
        result.xdotool.push(xdotool.join().unwrap() - mapped);
        if seen {
            result.from_map.push(from_map);
            result.from_listed.push(from_map.saturating_sub(listed));
        } else {
            result.notes.push(format!(
                "run {i}: the window manager listed the window only after {} ms, past the \
                 wait's deadline, so desk_wait answered without it",
                listed.as_millis()
            ));
        }
        conn.destroy_window(window).unwrap();
        conn.flush().unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    result.from_map.sort();
    result.from_listed.sort();
    result.xdotool.sort();
    result
}

/// How soon a new window is noticed.
#[derive(Default)]
struct NewWindow {
    /// desk_wait, from the map request.
    from_map: Vec<Duration>,
    /// desk_wait, from the moment the window manager listed the window.
    from_listed: Vec<Duration>,
    /// xdotool search --sync, from the map request.
    xdotool: Vec<Duration>,
    /// Runs left out, and why.
    notes: Vec<String>,
}

/// How long after `mapped` the window manager's client list held `window` (up to 6 s).
fn listed_after(
    conn: &impl x11rb::connection::Connection,
    root: u32,
    window: u32,
    mapped: Instant,
) -> Duration {
    use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};
    let list = conn
        .intern_atom(false, b"_NET_CLIENT_LIST")
        .unwrap()
        .reply()
        .unwrap()
        .atom;
    while mapped.elapsed() < Duration::from_secs(6) {
        let reply = conn
            .get_property(false, root, list, AtomEnum::WINDOW, 0, u32::MAX)
            .unwrap()
            .reply()
            .unwrap();
        if reply
            .value32()
            .is_some_and(|mut ids| ids.any(|id| id == window))
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    mapped.elapsed()
}

fn sample(n: usize, mut f: impl FnMut()) -> Vec<Duration> {
    for _ in 0..n / 10 {
        f();
    }
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn row(label: &str, sorted: &[Duration]) {
    println!(
        "| {label} | {} | {:.3} | {:.3} |",
        sorted.len(),
        ms(percentile(sorted, 50)),
        ms(percentile(sorted, 99))
    );
}

fn connect(socket: &Path) -> UnixStream {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(stream) = UnixStream::connect(socket) {
            return stream;
        }
        assert!(Instant::now() < deadline, "the daemon did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn wire_call(stream: &mut UnixStream, tool: &str, args: Value) -> Value {
    let payload = json!({"tool": tool, "args": args}).to_string();
    let mut frame = (payload.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(payload.as_bytes());
    stream.write_all(&frame).unwrap();
    let mut header = [0u8; 4];
    stream.read_exact(&mut header).unwrap();
    let mut body = vec![0u8; u32::from_be_bytes(header) as usize];
    stream.read_exact(&mut body).unwrap();
    let reply: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(reply["is_error"], false, "{reply}");
    reply
}

struct Mcp {
    child: Child,
    reader: BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl Mcp {
    fn start(socket: &Path) -> Self {
        let mut child = Command::new(SHUTTLE)
            .arg("mcp")
            .env("SHUTTLE_SOCKET", socket)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let reader = BufReader::new(child.stdout.take().unwrap());
        let mut mcp = Self {
            child,
            reader,
            next_id: 1,
        };
        mcp.request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}));
        mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line).unwrap();
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(response["result"]["isError"] != true, "{response}");
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}
