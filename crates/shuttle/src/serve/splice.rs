//! Handing a connection to a service: after the first packet, the bytes are the service's.
//!
//! The daemon connects to the service's socket (waiting up to 10 s while it starts), writes the
//! first packet exactly as it read it, with whatever the client sent after it, and then copies
//! bytes both ways without parsing them. When one side closes its end, the other side's input
//! is closed and what it still sends is passed on; the call ends when both have closed, at the
//! first error, or at a stop, which closes both connections without a reply. How it ended is
//! answered as an [`Outcome`], for the journal.

use std::path::Path;
use std::time::Duration;

use desk_core::outcome::{Control, Outcome};
use desk_core::wire::{Reply, encode_packet, write_packet};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use super::stop::{STOPPED, StopSwitch};

/// How long a call waits for its service to listen.
const CONNECT_WAIT: Duration = Duration::from_secs(10);
/// Between connection attempts while the service starts.
const CONNECT_RETRY: Duration = Duration::from_millis(25);
/// The copy buffer, each way.
const BUFFER: usize = 64 * 1024;

/// The client's connection as the daemon holds it when the first packet names a service tool.
pub struct Handover {
    /// The client's read side.
    pub read: OwnedReadHalf,
    /// What the daemon read past the first packet.
    pub ahead: Vec<u8>,
    /// The client's write side.
    pub write: OwnedWriteHalf,
}

/// Splices the client onto the service `service` listening at `socket`, starting with `packet`;
/// answers how the call ended.
pub async fn splice(
    client: Handover,
    packet: &[u8],
    service: &str,
    socket: &Path,
    stop: &StopSwitch,
) -> Outcome {
    let Handover {
        read,
        ahead,
        mut write,
    } = client;
    if stop.is_stopped() {
        let _ = write_packet(&mut write, &Reply::error(STOPPED).to_json()).await;
        return Outcome::refused_by(Control::Stop, STOPPED);
    }
    let closed_by_stop = || Outcome::Failed {
        reason: "closed by the person's stop".into(),
    };
    let connected = tokio::select! {
        connected = connect(socket) => connected,
        () = stop.stopped() => return closed_by_stop(),
    };
    let upstream = match connected {
        Ok(upstream) => upstream,
        Err(reason) => {
            let text = format!("service {service:?}: {reason}");
            let _ = write_packet(&mut write, &Reply::error(text.clone()).to_json()).await;
            return Outcome::Failed { reason: text };
        }
    };
    let (up_read, mut up_write) = upstream.into_split();
    let mut first = encode_packet(packet);
    first.extend_from_slice(&ahead);
    if let Err(e) = up_write.write_all(&first).await {
        let text = format!("service {service:?}: could not hand it the call: {e}");
        let _ = write_packet(&mut write, &Reply::error(text.clone()).to_json()).await;
        return Outcome::Failed { reason: text };
    }
    let both = async { tokio::try_join!(pass(read, up_write), pass(up_read, write)).map(|_| ()) };
    tokio::select! {
        passed = both => match passed {
            Ok(()) => Outcome::Completed,
            Err(e) => {
                tracing::debug!(%service, error = %e, "a service call ended on an error");
                Outcome::Failed {
                    reason: format!("the connection to service {service:?} broke: {e}"),
                }
            }
        },
        // Dropping both connections closes them: the client may be inside a stream of the
        // service's packets, so no reply is written.
        () = stop.stopped() => {
            tracing::info!(%service, "service call closed by the stop");
            closed_by_stop()
        }
    }
}

/// Connects to `socket`, retrying while the service starts.
async fn connect(socket: &Path) -> Result<UnixStream, String> {
    let deadline = tokio::time::Instant::now() + CONNECT_WAIT;
    loop {
        match UnixStream::connect(socket).await {
            Ok(stream) => return Ok(stream),
            Err(e) if tokio::time::Instant::now() >= deadline => {
                return Err(format!(
                    "it did not listen on {} within {} s ({e}); its log lines are in the \
                     daemon's log",
                    socket.display(),
                    CONNECT_WAIT.as_secs()
                ));
            }
            Err(_) => tokio::time::sleep(CONNECT_RETRY).await,
        }
    }
}

/// Copies `from` to `to` until `from` ends, then closes `to`'s input (a half-close).
async fn pass(
    from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
) -> std::io::Result<()> {
    let mut from = BufReader::with_capacity(BUFFER, from);
    tokio::io::copy_buf(&mut from, &mut to).await?;
    to.shutdown().await
}
