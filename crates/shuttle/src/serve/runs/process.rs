//! One run's process group, from spawn to the last byte of its output.
//!
//! The program runs in a process group of its own. A timeout, a stop or a cancelled call sends
//! SIGTERM to the group, so the script can clean up, then SIGKILL to whatever is left 2 s later,
//! or at once when the caller goes away during that grace. A run that ends by itself keeps the
//! processes it started. Apps the desk launches are not in the group: `launch` starts them in
//! sessions of their own.

use std::future::Future;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::serve::group;

/// What a run keeps of each output stream.
pub const OUTPUT_CAP: usize = 32 * 1024;
/// Between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(2);
/// How long the output pipes may stay open after the process ended (a child it left holds them).
const PIPE_WAIT: Duration = Duration::from_millis(500);

/// What to run.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The program: Node, or a plugin's `bin`.
    pub program: PathBuf,
    /// Its one argument: the runtime's entry module.
    pub entry: PathBuf,
    /// Variables set for it.
    pub env: Vec<(String, String)>,
    /// Variables taken out of the daemon's environment (the model keys).
    pub hidden: Vec<String>,
    /// Its working directory.
    pub cwd: PathBuf,
    /// How long it may run.
    pub timeout: Duration,
}

/// How the process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited by itself.
    Exited(ExitStatus),
    /// It passed its timeout and was ended.
    TimedOut,
    /// The person stopped shuttle.
    Stopped,
    /// The caller went away.
    Cancelled,
}

/// A run that is over.
#[derive(Debug)]
pub struct Finished {
    /// How it ended.
    pub ending: Ending,
    /// Its standard output, capped.
    pub logs: String,
    /// Its standard error, capped.
    pub stderr: String,
}

/// Runs `launch` to its end. `stop` resolves when the person stops shuttle; `closed` is
/// cancelled when the caller goes away. An error means the program did not start.
pub async fn run(
    launch: Launch,
    stop: impl Future<Output = ()>,
    closed: CancellationToken,
) -> Result<Finished, String> {
    let mut command = Command::new(&launch.program);
    command
        .arg(&launch.entry)
        .current_dir(&launch.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for name in &launch.hidden {
        command.env_remove(name);
    }
    command.envs(launch.env.iter().map(|(k, v)| (k, v)));
    let mut child = command
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", launch.program.display()))?;
    let group = child.id().map(|pid| pid as i32);
    if let Some(pid) = child.id() {
        crate::platform::note_agent_group(pid);
    }
    let logs = Arc::new(Mutex::new(Capped::default()));
    let stderr = Arc::new(Mutex::new(Capped::default()));
    let readers = [
        child
            .stdout
            .take()
            .map(|out| tokio::spawn(drain(out, logs.clone()))),
        child
            .stderr
            .take()
            .map(|err| tokio::spawn(drain(err, stderr.clone()))),
    ];
    tokio::pin!(stop);
    let ending = tokio::select! {
        status = child.wait() => match status {
            Ok(status) => Ending::Exited(status),
            Err(e) => return Err(format!("lost track of {}: {e}", launch.program.display())),
        },
        () = tokio::time::sleep(launch.timeout) => Ending::TimedOut,
        () = &mut stop => Ending::Stopped,
        () = closed.cancelled() => Ending::Cancelled,
    };
    if let (false, Some(group)) = (matches!(ending, Ending::Exited(_)), group) {
        // The caller going away during the grace hurries the kill; after a cancel it already has.
        let hurry = async {
            if ending == Ending::Cancelled {
                std::future::pending::<()>().await;
            }
            closed.cancelled().await;
        };
        group::end(group, &mut child, GRACE, hurry).await;
    }
    let waiting = Instant::now() + PIPE_WAIT;
    for reader in readers.into_iter().flatten() {
        let abort = reader.abort_handle();
        if tokio::time::timeout_at(waiting.into(), reader)
            .await
            .is_err()
        {
            abort.abort();
        }
    }
    Ok(Finished {
        ending,
        logs: take(&logs),
        stderr: take(&stderr),
    })
}

/// The first [`OUTPUT_CAP`] bytes of a stream, and how many more there were.
#[derive(Debug, Default)]
struct Capped {
    kept: Vec<u8>,
    dropped: u64,
}

async fn drain(mut stream: impl AsyncRead + Unpin, into: Arc<Mutex<Capped>>) {
    let mut chunk = [0u8; 8192];
    loop {
        let n = match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let mut capped = into.lock().unwrap_or_else(|e| e.into_inner());
        let room = OUTPUT_CAP.saturating_sub(capped.kept.len()).min(n);
        capped.kept.extend_from_slice(&chunk[..room]);
        capped.dropped += (n - room) as u64;
    }
}

fn take(capped: &Mutex<Capped>) -> String {
    let capped = capped.lock().unwrap_or_else(|e| e.into_inner());
    let mut text = String::from_utf8_lossy(&capped.kept).into_owned();
    if capped.dropped > 0 {
        text.push_str(&format!(
            "\n[shuttle kept the first {OUTPUT_CAP} bytes; {} more were not kept]",
            capped.dropped
        ));
    }
    text
}

/// The exit code a report gives: the status, or 128 + the signal that ended the process.
pub fn exit_code(status: ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.code().or_else(|| status.signal().map(|s| 128 + s))
}
