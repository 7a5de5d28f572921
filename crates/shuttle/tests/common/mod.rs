//! Shared helpers for the end-to-end tests: a daemon of the test's own, fixture windows, raw
//! wire and MCP clients, and condition waits with deadlines.
//!
//! These tests need the virtual desktop (`scripts/desktop.sh`): `scripts/test.sh` starts it.
//! Each test starts its own daemon on its own socket and stops only the processes it started.

#![allow(dead_code)]

pub mod inprocess;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

/// The shuttle binary under test.
pub const SHUTTLE: &str = env!("CARGO_BIN_EXE_shuttle");

/// Fails the test with a clear message when the virtual desktop is not there: a test that
/// cannot run must not pass.
pub fn require_desktop() {
    for var in ["DISPLAY", "DBUS_SESSION_BUS_ADDRESS"] {
        assert!(
            std::env::var_os(var).is_some(),
            "{var} is not set: run the end-to-end tests inside the virtual desktop, with \
             scripts/test.sh or scripts/desktop.sh run cargo test"
        );
    }
}

/// Polls `check` every 10 ms until it returns `Some`, or panics with `what` after `limit`.
pub fn wait_for<T>(what: &str, limit: Duration, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {limit:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A private scratch directory (mode 0700), removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let unique = format!(
            "shuttle-test-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let dir = std::env::temp_dir().join(unique);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        Self(dir)
    }

    /// A scratch directory inside `dir`.
    pub fn within(dir: &Path, name: &str) -> Self {
        let scratch = Self::new(name);
        let inside = dir.join(scratch.0.file_name().unwrap());
        std::fs::create_dir_all(&inside).unwrap();
        Self(inside)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Sends SIGTERM to a child we started and reaps it, killing it if it does not exit in 5 s.
pub fn stop_child(child: &mut Child) {
    if child.try_wait().ok().flatten().is_some() {
        return;
    }
    // SAFETY: kill on the pid of our own child, which has not been reaped yet.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if child.try_wait().ok().flatten().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A `shuttle serve --foreground` of the test's own, on a socket in a scratch directory.
pub struct Daemon {
    pub child: Child,
    pub socket: PathBuf,
    pub scratch: Scratch,
    env: Vec<(String, String)>,
}

impl Daemon {
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts a daemon with extra environment variables.
    pub fn start_with(env: &[(&str, &str)]) -> Self {
        Self::start_configured(None, env)
    }

    /// Starts a daemon whose config.toml holds `config` (none: no file, every default), with
    /// its journal in its own scratch directory.
    pub fn start_configured(config: Option<&str>, env: &[(&str, &str)]) -> Self {
        Self::start_prepared(config, env, |_| {})
    }

    /// Like [`Daemon::start_configured`], with `prepare` run on the daemon's scratch directory
    /// (where its config.toml and tools.d live) before it starts.
    pub fn start_prepared(
        config: Option<&str>,
        env: &[(&str, &str)],
        prepare: impl FnOnce(&Scratch),
    ) -> Self {
        let scratch = Scratch::new("daemon");
        prepare(&scratch);
        let socket = scratch.path("desk.sock");
        let mut env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if let Some(config) = config {
            // On private displays apps run sandboxed, away from the person's home and /tmp:
            // the person's home is the daemon's own, and what an app must write for the test
            // goes to the part of it the sandbox shares (`Daemon::shared`).
            let private = config.contains("\"per-agent\"") || config.contains("\"private\"");
            let mut config = config.to_string();
            if private {
                std::fs::create_dir_all(scratch.path("home/shared")).unwrap();
                env.push(("HOME".into(), scratch.path("home").display().to_string()));
                if !config.contains("[apps]") {
                    config.push_str("\n[apps]\nshare = [\"~/shared\"]\n");
                }
            }
            std::fs::write(scratch.path("config.toml"), config).unwrap();
        }
        let child = Self::spawn(&scratch, &socket, &env);
        let daemon = Self {
            child,
            socket,
            scratch,
            env,
        };
        wait_for("the daemon to listen", Duration::from_secs(10), || {
            UnixStream::connect(&daemon.socket).ok()
        });
        daemon
    }

    fn spawn(scratch: &Scratch, socket: &Path, env: &[(String, String)]) -> Child {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(scratch.path("serve.log"))
            .unwrap();
        let mut command = Command::new(SHUTTLE);
        command.args(["serve", "--foreground"]);
        // The tests drive the rig's display, the person's, unless their config picks another.
        let config = std::fs::read_to_string(scratch.path("config.toml")).unwrap_or_default();
        if !config.contains("display =") {
            command.args(["--display", "inherit"]);
        }
        command
            .env("SHUTTLE_SOCKET", socket)
            .env("SHUTTLE_CONFIG", scratch.path("config.toml"))
            .env("XDG_STATE_HOME", scratch.path("state"))
            .env("SHUTTLE_LOG", "debug")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        command.spawn().unwrap()
    }

    /// A file `name` in the part of the person's home that sandboxed apps share (a daemon on
    /// private displays has a home of its own, `home` in its scratch directory).
    pub fn shared(&self, name: &str) -> PathBuf {
        self.scratch.path("home/shared").join(name)
    }

    /// A scratch directory in the part of the person's home that sandboxed apps share.
    pub fn shared_scratch(&self, name: &str) -> Scratch {
        Scratch::within(&self.shared(""), name)
    }

    /// The daemon's pid: the one child of the process started, `shuttle serve`'s keeper, which
    /// forks the daemon off first thing.
    pub fn pid(&self) -> u32 {
        let keeper = self.child.id();
        wait_for("the keeper's daemon", Duration::from_secs(10), || {
            std::fs::read_to_string(format!("/proc/{keeper}/task/{keeper}/children"))
                .ok()?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
    }

    /// Kills the daemon outright (SIGKILL: it cleans nothing up), and waits until it is gone:
    /// its keeper exits once it has reaped it.
    pub fn kill(&mut self) {
        let pid = self.pid();
        // SAFETY: the daemon this test started, not yet reaped by its keeper.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        self.child.wait().unwrap();
    }

    /// Kills the daemon outright (SIGKILL: it cleans nothing up), then starts a new one on the
    /// same socket, config and state, and waits for it to listen.
    pub fn kill_and_restart(&mut self) {
        self.kill();
        self.child = Self::spawn(&self.scratch, &self.socket, &self.env);
        wait_for("the new daemon to listen", Duration::from_secs(20), || {
            UnixStream::connect(&self.socket).ok()
        });
    }

    /// The daemon's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.scratch.path("serve.log")).unwrap_or_default()
    }

    pub fn connect(&self) -> Wire {
        Wire::connect(&self.socket)
    }

    /// One call on a fresh connection.
    pub fn call(&self, tool: &str, args: Value) -> Reply {
        self.connect().call(tool, args)
    }

    /// Runs the CLI against this daemon.
    pub fn cli(&self, args: &[&str]) -> std::process::Output {
        Command::new(SHUTTLE)
            .args(args)
            .env("SHUTTLE_SOCKET", &self.socket)
            .env("SHUTTLE_CONFIG", self.config_path())
            .env("XDG_STATE_HOME", self.scratch.path("state"))
            .output()
            .unwrap()
    }

    /// `shuttle resume` as the person runs it: the daemon asks on the person's display (the
    /// rig's), and the person answers Allow with the pointer. Answers what the command did.
    pub fn cli_resume(&self) -> std::process::Output {
        let (socket, config, state) = (
            self.socket.clone(),
            self.config_path(),
            self.scratch.path("state"),
        );
        let pending = std::thread::spawn(move || {
            Command::new(SHUTTLE)
                .arg("resume")
                .env("SHUTTLE_SOCKET", socket)
                .env("SHUTTLE_CONFIG", config)
                .env("XDG_STATE_HOME", state)
                .output()
                .unwrap()
        });
        answer_dialog(Answer::Allow);
        pending.join().unwrap()
    }

    /// `safety_resume` over the wire, allowed by the person on their display.
    pub fn resume(&self) -> Reply {
        let socket = self.socket.clone();
        let pending =
            std::thread::spawn(move || Wire::connect(&socket).call("safety_resume", json!({})));
        answer_dialog(Answer::Allow);
        pending.join().unwrap()
    }

    /// The config file this daemon reads.
    pub fn config_path(&self) -> PathBuf {
        self.scratch.path("config.toml")
    }

    /// The journal file this daemon writes.
    pub fn journal_path(&self) -> PathBuf {
        self.scratch.path("state/loomhand/shuttle/journal.ndjson")
    }

    /// The journal's lines so far.
    pub fn journal(&self) -> Vec<Value> {
        std::fs::read_to_string(self.journal_path())
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        stop_child(&mut self.child);
        // A failing test shows what the daemon said. Written without eprintln: a panic here,
        // while unwinding (stderr closed by a reader that stopped early), would abort the test
        // before the apps it started are ended.
        if std::thread::panicking() {
            use std::io::Write as _;
            let mut stderr = std::io::stderr();
            let _ = writeln!(stderr, "--- the daemon's log ---\n{}", self.log());
            // And what the X servers of its private displays said.
            let displays = self.socket.parent().unwrap().join("display");
            for entry in std::fs::read_dir(displays).into_iter().flatten().flatten() {
                if let Ok(said) = std::fs::read_to_string(entry.path().join("Xvfb.log")) {
                    let _ = writeln!(stderr, "--- {} ---\n{said}", entry.path().display());
                }
            }
        }
    }
}

/// A reply as a test reads it.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    pub is_error: bool,
    pub image: Option<Vec<u8>>,
}

impl Reply {
    pub fn json(&self) -> Value {
        assert!(!self.is_error, "expected success, got error: {}", self.text);
        serde_json::from_str(&self.text)
            .unwrap_or_else(|e| panic!("reply is not JSON ({e}): {}", self.text))
    }

    pub fn error(&self) -> &str {
        assert!(self.is_error, "expected an error, got: {}", self.text);
        &self.text
    }
}

/// A raw desk-wire connection, written against the spec rather than our client code.
pub struct Wire {
    pub stream: UnixStream,
    agent: String,
}

impl Wire {
    pub fn connect(socket: &Path) -> Self {
        Self::connect_as(socket, "test")
    }

    /// A connection whose requests carry `agent` as their agent_id.
    pub fn connect_as(socket: &Path, agent: &str) -> Self {
        let stream = UnixStream::connect(socket).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        Self {
            stream,
            agent: agent.into(),
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    pub fn send_payload(&mut self, payload: &[u8]) {
        let mut packet = (payload.len() as u32).to_be_bytes().to_vec();
        packet.extend_from_slice(payload);
        self.send_raw(&packet);
    }

    pub fn send(&mut self, tool: &str, args: Value) {
        let payload = json!({"agent_id": self.agent, "tool": tool, "args": args}).to_string();
        self.send_payload(payload.as_bytes());
    }

    /// Reads one reply packet; `None` when the daemon closed the connection.
    pub fn read(&mut self) -> Option<Reply> {
        let mut header = [0u8; 4];
        match self.stream.read_exact(&mut header) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return None,
            Err(e) => panic!("reading a reply failed: {e}"),
        }
        let mut payload = vec![0u8; u32::from_be_bytes(header) as usize];
        self.stream.read_exact(&mut payload).unwrap();
        let value: Value = serde_json::from_slice(&payload).unwrap();
        Some(Reply {
            text: value["text"].as_str().unwrap().to_string(),
            is_error: value["is_error"].as_bool().unwrap(),
            image: value["image_b64"].as_str().map(|b64| {
                base64::engine::general_purpose::STANDARD
                    .decode(b64)
                    .unwrap()
            }),
        })
    }

    pub fn call(&mut self, tool: &str, args: Value) -> Reply {
        self.send(tool, args);
        self.read()
            .expect("the daemon closed the connection instead of replying")
    }

    /// Whether the daemon has closed its side.
    pub fn closed(&mut self) -> bool {
        let mut byte = [0u8; 1];
        matches!(self.stream.read(&mut byte), Ok(0))
    }
}

/// A fixture window (tests/fixture/fixture.py) that logs what it receives.
pub struct Fixture {
    pub child: Child,
    pub log: PathBuf,
    pub title: String,
    pub ready: Value,
    _scratch: Scratch,
}

impl Fixture {
    pub fn start(title: &str, extra: &[&str]) -> Self {
        Self::start_with_env(title, extra, &[])
    }

    /// A fixture started with `env` added to its environment (`GDK_SCALE`).
    pub fn start_with_env(title: &str, extra: &[&str], env: &[(&str, &str)]) -> Self {
        require_desktop();
        let scratch = Scratch::new("fixture");
        let log = scratch.path("events.log");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/fixture.py");
        let child = Command::new("/usr/bin/python3")
            .arg(script)
            .args(["--title", title, "--log"])
            .arg(&log)
            .args(extra)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut fixture = Self {
            child,
            log,
            title: title.into(),
            ready: Value::Null,
            _scratch: scratch,
        };
        fixture.ready = wait_for("the fixture window to map", Duration::from_secs(20), || {
            fixture.events().into_iter().find(|e| e["event"] == "ready")
        });
        fixture
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The window id the fixture reported, as `windows` prints ids.
    pub fn id(&self) -> String {
        let hex = self.ready["id"].as_str().unwrap().trim_start_matches("0x");
        format!("0x{:x}", u32::from_str_radix(hex, 16).unwrap())
    }

    pub fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// The text the fixture's entry last reported (empty before any).
    pub fn entry_text(&self) -> String {
        self.events_of("text")
            .last()
            .and_then(|e| e["text"].as_str().map(String::from))
            .unwrap_or_default()
    }

    pub fn events_of(&self, kind: &str) -> Vec<Value> {
        self.events()
            .into_iter()
            .filter(|e| e["event"] == kind)
            .collect()
    }

    /// Fails the test if the fixture logged anything besides starting up: a bystander, or a
    /// window whose input was refused.
    pub fn assert_untouched(&self) {
        let touched: Vec<Value> = self
            .events()
            .into_iter()
            .filter(|e| !["shown", "ready"].contains(&e["event"].as_str().unwrap()))
            .collect();
        assert!(
            touched.is_empty(),
            "window {:?} received {touched:?}",
            self.title
        );
    }

    /// Waits until the fixture has logged at least `count` events of `kind`, and returns them.
    /// An app acknowledges input once it has read it, and handles it a moment later.
    pub fn await_events(&self, kind: &str, count: usize) -> Vec<Value> {
        wait_for(
            &format!("{count} {kind} events in {}", self.title),
            Duration::from_secs(5),
            || Some(self.events_of(kind)).filter(|events| events.len() >= count),
        )
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        stop_child(&mut self.child);
    }
}

/// The person stops a long `type` into `fixture` with the kill hotkey: 3000 characters go out
/// on a connection of their own, the hotkey is pressed (xdotool, as a keyboard would) once the
/// first landed, and the call must end part way, `unknown`, with exactly the characters it
/// counts in the fixture's entry. Answers how many went out.
pub fn stop_a_long_type(daemon: &Daemon, fixture: &Fixture) -> usize {
    wait_for(
        "the kill hotkey to be grabbed",
        Duration::from_secs(5),
        || {
            let status = daemon.call("status", json!({})).json();
            (status["safety"]["kill_hotkey"]["grabbed"] == true).then_some(())
        },
    );
    let text = "abcdefghij".repeat(300);
    let typing = std::thread::spawn({
        let socket = daemon.socket.clone();
        let (text, window) = (text.clone(), fixture.id());
        move || Wire::connect(&socket).call("desk_type", json!({"text": text, "window": window}))
    });
    wait_for("typing to begin", Duration::from_secs(5), || {
        (!fixture.entry_text().is_empty()).then_some(())
    });
    run("xdotool", &["key", "super+alt+Escape"]);
    let reply = typing.join().unwrap();
    let error = reply.error();
    assert!(error.contains("stopped by the user"), "{error}");
    assert!(error.contains("outcome: unknown"), "{error}");
    let typed = typed_of(error, 3000);
    assert!(typed > 0 && typed < 3000, "{error}");
    let received = wait_for(
        "the fixture to read what was sent",
        Duration::from_secs(5),
        || {
            let now = fixture.entry_text();
            (now.len() == typed).then_some(now)
        },
    );
    assert_eq!(received, text[..typed], "the fixture got exactly a prefix");
    typed
}

/// How many characters a typing error says went out: the number before " of {total}
/// characters".
pub fn typed_of(error: &str, total: usize) -> usize {
    error
        .split(&format!(" of {total} characters"))
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {error}"))
}

/// Decodes a PNG into (width, height, RGB bytes).
pub fn decode_png(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let rgb = match info.color_type {
        png::ColorType::Rgb => buf,
        png::ColorType::Rgba => buf
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g]).collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0]])
            .collect(),
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    (info.width, info.height, rgb)
}

/// The RGB value at (x, y) of a decoded image.
pub fn pixel(image: &(u32, u32, Vec<u8>), x: u32, y: u32) -> [u8; 3] {
    let i = ((y * image.0 + x) * 3) as usize;
    [image.2[i], image.2[i + 1], image.2[i + 2]]
}

/// A `shuttle mcp` process spoken to over its stdio, line by line.
pub struct Mcp {
    pub child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<Value>,
    next_id: u64,
}

impl Mcp {
    pub fn start(socket: &Path, env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(SHUTTLE);
        command.arg("mcp").env("SHUTTLE_SOCKET", socket);
        for (key, value) in env {
            command.env(key, value);
        }
        Self::spawn(command)
    }

    /// Runs `command`, a `shuttle mcp` set up by the caller, with its stdin and stdout ours.
    pub fn spawn(mut command: Command) -> Self {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let value: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("shuttle mcp wrote a line that is not JSON ({e}): {line}")
                });
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        Self {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    pub fn send(&mut self, message: Value) {
        self.send_line(&message.to_string());
    }

    /// Sends one line as it is, JSON or not.
    pub fn send_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its id.
    pub fn request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next message from the server, or `None` after `limit`.
    pub fn next(&mut self, limit: Duration) -> Option<Value> {
        self.lines.recv_timeout(limit).ok()
    }

    /// Waits for the response to request `id`, skipping notifications.
    pub fn response(&mut self, id: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .next(left)
                .unwrap_or_else(|| panic!("no response to request {id}"));
            if message["id"] == json!(id) {
                return message;
            }
            assert!(
                message.get("id").is_none() || message.get("method").is_some(),
                "unexpected response {message}"
            );
        }
    }

    pub fn initialize(&mut self, version: &str) -> Value {
        let id = self.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}),
        );
        let response = self.response(id);
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        response
    }

    /// Calls a tool and returns the `result` object.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let id = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let response = self.response(id);
        response
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tools/call {tool} failed: {response}"))
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        stop_child(&mut self.child);
    }
}

/// The MCP `desk` tool's answer to `args`: the reply's JSON (a string when it is not JSON), or
/// the error's text.
pub fn desk_tool(mcp: &mut Mcp, args: Value) -> Result<Value, String> {
    let result = mcp.call("desk", args);
    let text = result_text(&result);
    if result["isError"] == true {
        return Err(text);
    }
    Ok(serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// The text content of a tools/call result as the daemon answered it: the fence around apps'
/// data taken off, and shuttle's own fields and the data, given in blocks apart, put back in
/// one JSON object.
pub fn result_text(result: &Value) -> String {
    let blocks: Vec<String> = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == "text")
        .map(|c| unfence(c["text"].as_str().unwrap()))
        .collect();
    let objects: Option<Vec<serde_json::Map<String, Value>>> = blocks
        .iter()
        .map(|b| match serde_json::from_str::<Value>(b) {
            Ok(Value::Object(fields)) => Some(fields),
            _ => None,
        })
        .collect();
    match objects {
        Some(objects) if objects.len() > 1 => {
            Value::Object(objects.into_iter().flatten().collect()).to_string()
        }
        _ => blocks.join("\n"),
    }
}

/// Where a block of an MCP result fences apps' data: the data between its markers, else the
/// block as it is.
pub fn fenced(block: &str) -> Option<&str> {
    let start = block.find("\n⟦data ")? + 1;
    let data = block[start..].split_once('\n')?.1;
    let end = data.rfind("\n⟦/data ")?;
    Some(&data[..end])
}

/// A block of an MCP result without the fence around apps' data.
pub fn unfence(block: &str) -> String {
    fenced(block).unwrap_or(block).to_string()
}

/// The image block of a tools/call result, decoded: width, height and RGB pixels.
pub fn result_png(result: &Value) -> (u32, u32, Vec<u8>) {
    use base64::Engine as _;
    let data = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "image")
        .unwrap_or_else(|| panic!("an image in {result}"))["data"]
        .as_str()
        .unwrap();
    decode_png(
        &base64::engine::general_purpose::STANDARD
            .decode(data)
            .unwrap(),
    )
}

/// Whether `pid` is a live process (a zombie nobody reaped yet counts as gone).
pub fn alive(pid: impl std::fmt::Display) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .is_some_and(|end| !stat[end + 1..].trim_start().starts_with('Z'))
    })
}

/// The window of shuttle's confirm dialog on the person's display, once it shows within
/// `limit`.
pub fn confirm_dialog(limit: Duration) -> String {
    wait_for("the confirm dialog", limit, || {
        let out = Command::new("xdotool")
            .args(["search", "--name", "shuttle: allow this action"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .map(String::from)
    })
}

/// The index `computer_state` gives the element whose line holds `label` (`button "Save"`).
pub fn element_index(state: &str, label: &str) -> u64 {
    let line = state
        .lines()
        .find(|l| l.contains(label))
        .unwrap_or_else(|| panic!("{label} among the elements: {state}"));
    line.trim()
        .trim_start_matches('[')
        .split(']')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("an [index] in {line:?}"))
}

/// The person's answer in a confirm dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Allow,
    Deny,
}

/// Answers the confirm dialog that shows on the person's display within 10 s, with the pointer,
/// as the person would. A dialog that has just mapped may not take a click yet: it is clicked
/// again, each half second, until it has gone.
pub fn answer_dialog(answer: Answer) {
    let window = confirm_dialog(Duration::from_secs(10));
    // The buttons' centres (desk_x11::confirm's ALLOW and DENY).
    let x = match answer {
        Answer::Allow => "350",
        Answer::Deny => "460",
    };
    let shown = || {
        Command::new("xdotool")
            .args(["getwindowname", &window])
            .output()
            .is_ok_and(|out| out.status.success())
    };
    let mut clicked: Option<Instant> = None;
    wait_for(
        "the confirm dialog to take the answer",
        Duration::from_secs(10),
        || {
            if !shown() {
                return Some(());
            }
            if clicked.is_none_or(|at| at.elapsed() >= Duration::from_millis(500)) {
                // The dialog may go between the look and the click, which then fails: it is
                // looked at again.
                let _ = Command::new("xdotool")
                    .args(["mousemove", "--window", &window, x, "181", "click", "1"])
                    .output();
                clicked = Some(Instant::now());
            }
            None
        },
    );
}

/// The window manager's list of windows, as `wmctrl -l` prints it. wmctrl reads each window's
/// title after the list: a window that closes in between fails it with BadWindow, so the list
/// is asked again, for a second at most.
pub fn window_list() -> String {
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        let out = Command::new("wmctrl")
            .arg("-l")
            .output()
            .unwrap_or_else(|e| panic!("wmctrl: {e}"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            return String::from_utf8(out.stdout).unwrap();
        }
        assert!(
            stderr.contains("BadWindow") && Instant::now() < deadline,
            "wmctrl -l failed: {stderr}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Where a window's client area is on the screen: x, y, width, height (xwininfo's reading;
/// xdotool's adds the frame's offset once more).
pub fn geometry(id: &str) -> [i64; 4] {
    let info = run("xwininfo", &["-id", id]);
    let value = |key: &str| -> i64 {
        info.lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    [
        value("Absolute upper-left X:"),
        value("Absolute upper-left Y:"),
        value("Width:"),
        value("Height:"),
    ]
}

/// Runs a command and returns its stdout, panicking with its stderr when it fails.
pub fn run(program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
