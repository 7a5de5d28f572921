//! Service plugins: long-lived children the daemon keeps running, each serving its own tools
//! on a socket of its own (`services/<service>.sock` beside the daemon's, in a 0700 directory).
//!
//! A service runs in a process group of its own, from the person's home directory, with
//! `SHUTTLE_SERVICE_SOCKET` (where to listen) and `SHUTTLE_SOCKET` (for its own desk calls) and
//! without the model keys. When it exits, the rest of its group is killed and it starts again
//! after 1 s, the wait doubling on each exit up to 30 s; one that ran 30 s or more starts again
//! after 1 s. When the daemon exits it sends SIGTERM, waits up to 3 s, then kills the group.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Command;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::group;
use crate::plugins::Service;

/// The first wait before a restart, and the wait after a service that ran long enough.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
/// The longest wait before a restart.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A service that ran this long restarts after [`FIRST_BACKOFF`].
const STEADY: Duration = Duration::from_secs(30);
/// Between SIGTERM and SIGKILL when the daemon exits.
const EXIT_GRACE: Duration = Duration::from_secs(3);

/// The services the daemon runs.
pub struct Services {
    dir: PathBuf,
    states: Vec<Arc<Mutex<State>>>,
    shutdown: CancellationToken,
    tasks: tokio::sync::Mutex<JoinSet<()>>,
}

/// One service's life so far, for `status`.
#[derive(Debug, Default)]
struct State {
    name: String,
    pid: Option<u32>,
    starts: u32,
    last_exit: Option<String>,
}

impl Services {
    /// Starts every service of `services`, with sockets beside `daemon_socket`, without the
    /// environment variables `hidden` names (the model keys).
    pub fn start(services: &[Service], daemon_socket: &Path, hidden: Vec<String>) -> Self {
        let dir = crate::endpoint::socket_dir(daemon_socket).join("services");
        let mut tasks = JoinSet::new();
        let shutdown = CancellationToken::new();
        let mut states = Vec::new();
        if !services.is_empty()
            && let Err(e) = std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&dir)
        {
            tracing::error!(dir = %dir.display(), error = %e, "cannot create the services' directory");
        }
        for service in services {
            let state = Arc::new(Mutex::new(State {
                name: service.name.clone(),
                ..State::default()
            }));
            states.push(state.clone());
            tasks.spawn(supervise(
                service.clone(),
                dir.join(format!("{}.sock", service.name)),
                daemon_socket.to_path_buf(),
                hidden.clone(),
                state,
                shutdown.clone(),
            ));
        }
        Self {
            dir,
            states,
            shutdown,
            tasks: tokio::sync::Mutex::new(tasks),
        }
    }

    /// Where `service` listens.
    pub fn socket_of(&self, service: &str) -> PathBuf {
        self.dir.join(format!("{service}.sock"))
    }

    /// Each service's pid, starts and last exit.
    pub fn status(&self) -> Vec<desk_core::status::ServiceState> {
        self.states
            .iter()
            .map(|state| {
                let state = state.lock().unwrap_or_else(|e| e.into_inner());
                desk_core::status::ServiceState {
                    service: state.name.clone(),
                    pid: state.pid,
                    starts: state.starts,
                    last_exit: state.last_exit.clone(),
                }
            })
            .collect()
    }

    /// Ends every service: SIGTERM, then SIGKILL to its group after up to 3 s.
    pub async fn shutdown(&self) {
        self.shutdown.cancel();
        let mut tasks = self.tasks.lock().await;
        while tasks.join_next().await.is_some() {}
    }
}

/// Keeps one service running until the daemon shuts down.
async fn supervise(
    service: Service,
    socket: PathBuf,
    daemon_socket: PathBuf,
    hidden: Vec<String>,
    state: Arc<Mutex<State>>,
    shutdown: CancellationToken,
) {
    let mut backoff = FIRST_BACKOFF;
    let set = |update: &dyn Fn(&mut State)| {
        update(&mut state.lock().unwrap_or_else(|e| e.into_inner()));
    };
    loop {
        // A socket file left by the last instance would refuse the new one's bind.
        let _ = std::fs::remove_file(&socket);
        let started = Instant::now();
        let exit = match spawn(&service, &socket, &daemon_socket, &hidden) {
            Ok(mut child) => {
                let pid = child.id();
                set(&|s| {
                    s.pid = pid;
                    s.starts += 1;
                });
                tracing::info!(service = %service.name, pid, "service started");
                let group = pid.map(|p| p as i32);
                tokio::select! {
                    status = child.wait() => {
                        if let Some(group) = group {
                            group::signal(group, libc::SIGKILL);
                        }
                        match status {
                            Ok(status) => format!("exited: {status}"),
                            Err(e) => format!("lost: {e}"),
                        }
                    }
                    () = shutdown.cancelled() => {
                        if let Some(group) = group {
                            group::end(group, &mut child, EXIT_GRACE, std::future::pending()).await;
                        }
                        let _ = std::fs::remove_file(&socket);
                        return;
                    }
                }
            }
            Err(e) => format!("could not start {}: {e}", service.bin.display()),
        };
        if started.elapsed() >= STEADY {
            backoff = FIRST_BACKOFF;
        }
        tracing::warn!(
            service = %service.name,
            %exit,
            restart_in_ms = backoff.as_millis() as u64,
            "service ended; it starts again after the wait"
        );
        set(&|s| {
            s.pid = None;
            s.last_exit = Some(exit.clone());
        });
        tokio::select! {
            () = tokio::time::sleep(backoff) => {}
            () = shutdown.cancelled() => return,
        }
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

fn spawn(
    service: &Service,
    socket: &Path,
    daemon_socket: &Path,
    hidden: &[String],
) -> std::io::Result<tokio::process::Child> {
    let mut command = Command::new(&service.bin);
    command
        .args(&service.args)
        .current_dir(std::env::var_os("HOME").unwrap_or_else(|| "/".into()))
        .env("SHUTTLE_SERVICE_SOCKET", socket)
        .env("SHUTTLE_SOCKET", daemon_socket)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for key in hidden {
        command.env_remove(key);
    }
    let mut child = command.spawn()?;
    if let Some(pid) = child.id() {
        crate::platform::note_agent_group(pid);
    }
    if let Some(out) = child.stdout.take() {
        tokio::spawn(log_lines(service.name.clone(), out));
    }
    if let Some(err) = child.stderr.take() {
        tokio::spawn(log_lines(service.name.clone(), err));
    }
    Ok(child)
}

/// A service's output goes to the daemon's log, line by line.
async fn log_lines(service: String, stream: impl AsyncRead + Unpin) {
    let mut lines = BufReader::new(stream).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::info!(service = %service, "{line}");
    }
}
