//! One client connection: packets in, replies out (with the call's progress before its reply,
//! for a request that asks), one call at a time. A packet that names a
//! service's tool hands the rest of the connection to that service ([`super::splice`]), once
//! the config loads; the call is journaled when the splice ends.
//!
//! While a call runs the connection is still read, for one reason: a client that closes its
//! side cancels the call (dropping its future). A packet that arrives meanwhile is kept and
//! answered after the current one; reading pauses until then.

use std::sync::Arc;
use std::time::Instant;

use desk_core::call::Kind;
use desk_core::wire::{
    PacketError, PacketReader, Progress, Reply, Request, decode_request, peek_tool, write_packet,
};
use serde_json::Value;
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;

use super::daemon::{Daemon, Peer};
use super::ended::Ended;
use super::pipeline::config_refusal;
use super::splice::{Handover, splice};

/// What reading the next packet gave.
type Next = Result<Option<Vec<u8>>, PacketError>;

/// Serves calls on `stream` until the client closes it or sends something unreadable.
pub async fn serve(stream: UnixStream, daemon: Arc<Daemon>, peer: Peer) {
    let (read, mut write) = stream.into_split();
    let mut reader = PacketReader::new(read);
    let mut early: Option<Next> = None;
    loop {
        let next = match early.take() {
            Some(next) => next,
            None => reader.next_packet().await,
        };
        let packet = match next {
            Ok(Some(packet)) => packet,
            Ok(None) => return,
            Err(PacketError::Io(e)) => {
                tracing::debug!(error = %e, "connection read failed");
                return;
            }
            Err(unrecoverable) => {
                // Say why before closing: the stream can no longer be split into packets.
                let _ = send(&mut write, &Reply::error(unrecoverable.to_string())).await;
                return;
            }
        };
        let peeked = peek_tool(&packet);
        if let Some((service, socket)) = peeked.and_then(|tool| daemon.service_for(tool)) {
            let started = Instant::now();
            let request = service_request(&packet);
            // A broken config may hold the allowlist or the key variable: nothing is forwarded,
            // and the connection stays the daemon's.
            if let Err(e) = daemon.config() {
                let ended = Ended::not_run(Kind::Service, config_refusal(&e));
                daemon.write_journal(&request, None, &ended, elapsed_ms(started));
                if send(&mut write, &ended.reply(&request.tool)).await.is_err() {
                    return;
                }
                continue;
            }
            tracing::info!(%service, "service call: the connection is handed over");
            let (read, ahead) = reader.into_parts();
            let client = Handover { read, ahead, write };
            let outcome = splice(client, &packet, &service, &socket, &daemon.stop).await;
            let ms = elapsed_ms(started);
            tracing::info!(
                tool = %request.tool,
                agent = %request.agent_id,
                outcome = outcome.name(),
                ms,
                "service call"
            );
            let ended = Ended::not_run(Kind::Service, outcome);
            daemon.write_journal(&request, None, &ended, ms);
            return;
        }
        // The call's news goes out before the reply, on this task alone. Only the latest is
        // held, so a call that tells faster than the client reads costs no memory.
        let (told, mut news) = tokio::sync::watch::channel(String::new());
        let progress = desk::Progress::to(move |line| {
            told.send_replace(line);
        });
        let call = daemon.handle(&packet, peeked, peer, progress);
        tokio::pin!(call);
        let reply = loop {
            tokio::select! {
                // The reply waits for news already told, so the last stage is never lost.
                biased;
                Ok(()) = news.changed() => {
                    if tell(&mut write, &mut news).await.is_err() {
                        // The client is gone: the call is cancelled as the loop ends.
                        return;
                    }
                }
                reply = &mut call => {
                    if news.has_changed().unwrap_or(false)
                        && tell(&mut write, &mut news).await.is_err()
                    {
                        return;
                    }
                    break Some(reply);
                }
                next = reader.next_packet(), if early.is_none() => match next {
                    Ok(Some(packet)) => early = Some(Ok(Some(packet))),
                    Err(e @ PacketError::TooLong { .. }) => early = Some(Err(e)),
                    // The client closed (or broke) its side: cancel the call by dropping it.
                    Ok(None) | Err(_) => break None,
                },
            }
        };
        let Some(reply) = reply else {
            tracing::info!("client closed the connection during a call; call cancelled");
            return;
        };
        if send(&mut write, &reply).await.is_err() {
            return;
        }
    }
}

/// The first packet of a service call as the journal records it: the request when it decodes as
/// one, else the tool alone (the service may read packets the desk wire would not).
fn service_request(packet: &[u8]) -> Request {
    decode_request(packet).unwrap_or_else(|_| {
        Request::new(
            peek_tool(packet).unwrap_or_default().to_string(),
            Value::Null,
        )
    })
}

fn elapsed_ms(since: Instant) -> u64 {
    since.elapsed().as_millis() as u64
}

/// Tells a client it may not use this daemon, then closes.
pub async fn refuse(stream: UnixStream, reason: String) {
    let (_, mut write) = stream.into_split();
    let _ = send(&mut write, &Reply::error(format!("refused: {reason}"))).await;
}

/// Sends the call's latest news.
async fn tell(
    write: &mut OwnedWriteHalf,
    news: &mut tokio::sync::watch::Receiver<String>,
) -> std::io::Result<()> {
    let progress = news.borrow_and_update().clone();
    write_packet(write, &Progress { progress }.to_json()).await
}

async fn send(write: &mut OwnedWriteHalf, reply: &Reply) -> std::io::Result<()> {
    write_packet(write, &reply.to_json()).await
}
