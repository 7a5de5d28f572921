//! The client side of the desk wire, shared by `shuttle mcp` and `shuttle desk`.
//!
//! One rule shapes it: a call that may have reached the daemon is never sent twice. A request
//! goes out once; if the connection fails before the request could be delivered, the client may
//! reconnect and send it then, but once it is delivered, a broken connection is reported as
//! "may have run", never retried.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use desk_core::wire::{Answer, PacketReader, Reply, Request, decode_answer, write_packet};
use serde_json::Value;
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc::UnboundedSender;

use crate::endpoint;

/// How long to wait for a daemon we started to listen.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Set to `1` when an app embeds shuttle and runs the daemon itself: clients then only connect.
pub const EMBEDDED_ENV: &str = "SHUTTLE_EMBEDDED";

/// Why a call got no reply.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The request never reached a daemon; nothing ran.
    #[error("{0}")]
    NotSent(String),
    /// The connection broke after the request went out: it may or may not have run.
    #[error(
        "the connection to shuttle serve broke during {tool} ({reason}); the call may or may not \
         have run: check the desk before repeating it"
    )]
    MaybeRan {
        /// The wire tool.
        tool: String,
        /// What broke.
        reason: String,
    },
}

/// What to do when no daemon listens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenAbsent {
    /// Start `shuttle serve` (unless embedded) and wait for it.
    Start,
    /// Report that none runs.
    Fail,
}

/// A connection to the daemon, opened on first use and kept for later calls.
pub struct DeskClient {
    socket: PathBuf,
    when_absent: WhenAbsent,
    agent_id: String,
    conn: Option<(PacketReader<OwnedReadHalf>, OwnedWriteHalf)>,
}

impl DeskClient {
    /// A client for the daemon at `socket`, calling as `agent_id`.
    pub fn new(socket: PathBuf, agent_id: String, when_absent: WhenAbsent) -> Self {
        Self {
            socket,
            when_absent,
            agent_id,
            conn: None,
        }
    }

    /// A client like this one with a connection of its own, for a call that takes its
    /// connection with it (a service's tool).
    pub fn sibling(&self) -> Self {
        Self::new(self.socket.clone(), self.agent_id.clone(), self.when_absent)
    }

    /// Sends one call and waits for its reply.
    pub async fn call(&mut self, tool: &str, args: Value) -> Result<Reply, CallError> {
        self.call_telling(tool, args, None).await
    }

    /// Sends one call and waits for its reply; with `news`, asks for the call's progress and
    /// passes each line of it there as it comes.
    pub async fn call_telling(
        &mut self,
        tool: &str,
        args: Value,
        news: Option<&UnboundedSender<String>>,
    ) -> Result<Reply, CallError> {
        // Kept for a second sending only where one can be needed.
        let again = news.is_some().then(|| args.clone());
        let reply = self.send_call(tool, args, news).await?;
        // A daemon older than progress refuses the field before it runs anything (this proxy
        // was upgraded, the running daemon not yet): the call goes again without it.
        match again {
            Some(args) if reply.is_error && reply.text.contains("unknown field `progress`") => {
                self.send_call(tool, args, None).await
            }
            _ => Ok(reply),
        }
    }

    async fn send_call(
        &mut self,
        tool: &str,
        args: Value,
        news: Option<&UnboundedSender<String>>,
    ) -> Result<Reply, CallError> {
        let request = Request {
            agent_id: self.agent_id.clone(),
            tool: tool.into(),
            args,
            progress: news.is_some(),
        };
        let payload = request.to_json();
        // A kept connection may have gone stale (the daemon restarted); a write to it fails
        // before anything is delivered, so one fresh connection may carry the request instead.
        for attempt in 0..2 {
            if self.conn.is_none() {
                self.conn = Some(self.open().await?);
            }
            let (_, writer) = self.conn.as_mut().expect("connected above");
            if let Err(e) = write_packet(writer, &payload).await {
                self.conn = None;
                if attempt == 0 && is_undelivered(&e) {
                    continue;
                }
                return Err(CallError::MaybeRan {
                    tool: tool.into(),
                    reason: e.to_string(),
                });
            }
            return self.read_reply(tool, news).await;
        }
        unreachable!("the second attempt always returns")
    }

    /// Reads the call's reply, passing the progress before it to `news`.
    async fn read_reply(
        &mut self,
        tool: &str,
        news: Option<&UnboundedSender<String>>,
    ) -> Result<Reply, CallError> {
        let broke = |reason: String| CallError::MaybeRan {
            tool: tool.into(),
            reason,
        };
        loop {
            let (reader, _) = self.conn.as_mut().expect("a request was just written");
            let packet = match reader.next_packet().await {
                Ok(Some(packet)) => packet,
                Ok(None) => {
                    self.conn = None;
                    return Err(broke("the daemon closed the connection".into()));
                }
                Err(e) => {
                    self.conn = None;
                    return Err(broke(e.to_string()));
                }
            };
            match decode_answer(&packet) {
                Ok(Answer::Reply(reply)) => return Ok(reply),
                Ok(Answer::Progress(note)) => {
                    // A listener that went away misses the news, not the reply.
                    if let Some(news) = news {
                        let _ = news.send(note.progress);
                    }
                }
                Err(e) => {
                    self.conn = None;
                    return Err(broke(format!("unreadable reply: {e}")));
                }
            }
        }
    }

    /// Drops the connection; the daemon cancels a call still running on it.
    pub fn disconnect(&mut self) {
        self.conn = None;
    }

    async fn open(&self) -> Result<(PacketReader<OwnedReadHalf>, OwnedWriteHalf), CallError> {
        let stream = match connect(&self.socket).await {
            Ok(stream) => stream,
            Err(e) if self.when_absent == WhenAbsent::Start && !embedded() && is_absent(&e) => {
                start_daemon(&self.socket).await?
            }
            Err(e) => return Err(CallError::NotSent(absent_message(&self.socket, &e))),
        };
        let (read, write) = stream.into_split();
        Ok((PacketReader::new(read), write))
    }
}

fn embedded() -> bool {
    std::env::var(EMBEDDED_ENV).is_ok_and(|v| v == "1")
}

/// Connects to the daemon after checking that nobody but its user could have put the socket
/// there and that the listener is that user (this user, or the owner of a socket opened to a
/// group this user is in).
pub async fn connect(socket: &Path) -> std::io::Result<UnixStream> {
    let expected = endpoint::expected_listener(socket).map_err(|e| match e {
        endpoint::EndpointError::Io { .. } => {
            std::io::Error::new(std::io::ErrorKind::NotFound, e.to_string())
        }
        other => std::io::Error::new(std::io::ErrorKind::PermissionDenied, other.to_string()),
    })?;
    let stream = UnixStream::connect(socket).await?;
    let peer = stream.peer_cred()?.uid();
    if peer != expected {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "the process listening on {} runs as uid {peer}, not as uid {expected}, who owns \
                 its directory",
                socket.display()
            ),
        ));
    }
    Ok(stream)
}

/// Whether a connect error means no daemon listens (as opposed to a refusal to use the socket).
fn is_absent(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
    )
}

fn is_undelivered(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::BrokenPipe
            | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::NotConnected
    )
}

fn absent_message(socket: &Path, e: &std::io::Error) -> String {
    if is_absent(e) {
        let hint = if embedded() {
            format!("{EMBEDDED_ENV}=1 is set, so the app embedding shuttle must start it")
        } else {
            "start it with `shuttle serve`".into()
        };
        format!(
            "shuttle serve is not running (nothing listens on {}); {hint}",
            socket.display()
        )
    } else {
        format!("cannot use {}: {e}", socket.display())
    }
}

/// This shuttle binary's path. When a package upgrade replaced the file this process runs
/// from, Linux names it "PATH (deleted)"; the new binary at PATH is the one to start then.
pub fn shuttle_binary() -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let shown = exe.to_string_lossy();
    Ok(match shown.strip_suffix(" (deleted)") {
        Some(replaced) => PathBuf::from(replaced),
        None => exe,
    })
}

/// Starts `shuttle serve` detached in a session of its own, then waits for it to listen.
async fn start_daemon(socket: &Path) -> Result<UnixStream, CallError> {
    let exe = shuttle_binary().map_err(|e| {
        CallError::NotSent(format!(
            "cannot find the shuttle binary to start the daemon: {e}"
        ))
    })?;
    let mut command = std::process::Command::new(exe);
    command.arg("serve").env(endpoint::SOCKET_ENV, socket);
    crate::platform::detach(&mut command);
    let mut command = tokio::process::Command::from(command);
    let mut child = command
        .spawn()
        .map_err(|e| CallError::NotSent(format!("cannot start shuttle serve: {e}")))?;
    let deadline = Instant::now() + START_TIMEOUT;
    let mut exited = None;
    loop {
        match connect(socket).await {
            Ok(stream) => {
                // Reap the daemon if it ever exits while we run, so it leaves no zombie.
                tokio::spawn(async move { child.wait().await });
                return Ok(stream);
            }
            Err(e) if !is_absent(&e) => return Err(CallError::NotSent(absent_message(socket, &e))),
            Err(_) => {}
        }
        if exited.is_none() {
            exited = child.try_wait().ok().flatten();
        }
        if Instant::now() >= deadline {
            let status = exited.map_or(String::new(), |s| format!(" (it exited with {s})"));
            return Err(CallError::NotSent(format!(
                "started shuttle serve, but nothing listened on {} within {} s{status}; see its log at {}",
                socket.display(),
                START_TIMEOUT.as_secs(),
                crate::logging::log_path().display()
            )));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use desk_core::wire::{PacketReader, decode_request, write_packet};
    use std::os::unix::fs::PermissionsExt;

    /// A daemon from before progress: it refuses the field as an unknown one.
    async fn old_daemon(socket: &Path) -> tokio::task::JoinHandle<Vec<bool>> {
        let listener = tokio::net::UnixListener::bind(socket).unwrap();
        tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let (read, mut write) = stream.into_split();
            let mut reader = PacketReader::new(read);
            let mut asked = Vec::new();
            while let Ok(Some(packet)) = reader.next_packet().await {
                let request = decode_request(&packet).unwrap();
                asked.push(request.progress);
                let reply = if request.progress {
                    Reply::error(
                        "bad request: unknown field `progress`, expected one of `agent_id`, `tool`, `args`",
                    )
                } else {
                    Reply::json(&serde_json::json!({"ok": true}))
                };
                write_packet(&mut write, &reply.to_json()).await.unwrap();
            }
            asked
        })
    }

    #[tokio::test]
    async fn a_daemon_older_than_progress_gets_the_call_again_without_it() {
        let dir = std::env::temp_dir().join(format!("shuttle-client-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        let socket = dir.join("desk.sock");
        let daemon = old_daemon(&socket).await;
        let mut client = DeskClient::new(socket.clone(), "mcp-1".into(), WhenAbsent::Fail);
        let (news, _heard) = tokio::sync::mpsc::unbounded_channel();
        let reply = client
            .call_telling("desk_windows", Value::Null, Some(&news))
            .await
            .unwrap();
        assert!(!reply.is_error, "{}", reply.text);
        client.disconnect();
        assert_eq!(daemon.await.unwrap(), [true, false]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
