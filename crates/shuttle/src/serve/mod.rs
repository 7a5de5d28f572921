//! `shuttle serve`: the per-user daemon that owns the desktop.
//!
//! - [`dispatch`]: routes a request to the tool that answers it.
//! - [`connection`]: one client connection's read-call-reply loop.
//! - [`turn`]: desk actions one at a time.
//! - [`desk`]: the lazily connected desktop backend.

mod connection;
mod desk;
pub mod dispatch;
mod turn;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use tokio::net::UnixListener;
use tokio::signal::unix::{SignalKind, signal};
use tokio::task::JoinSet;

use crate::endpoint::{self, Claim};
use dispatch::Daemon;

/// Runs the daemon until SIGTERM or SIGINT.
pub async fn run(foreground: bool) -> anyhow::Result<()> {
    crate::logging::init(foreground)?;
    let socket = endpoint::socket_path()?;
    endpoint::prepare_dir(&socket)?;
    let _lock = match endpoint::claim(&socket)
        .with_context(|| format!("cannot lock {}", endpoint::lock_path(&socket).display()))?
    {
        Claim::Won(lock) => lock,
        Claim::Held(pid) => {
            let who = pid.map_or(String::new(), |p| format!(" (pid {p})"));
            bail!(
                "shuttle serve is already running{who} on {}; stop it first, or set {} to run \
                 another daemon elsewhere",
                socket.display(),
                endpoint::SOCKET_ENV
            );
        }
    };
    let listener = bind(&socket)?;
    tracing::info!(socket = %socket.display(), pid = std::process::id(), "listening");

    let daemon = Arc::new(Daemon::new(socket.clone()));
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    if let Err(reason) = check_peer(&stream) {
                        tracing::warn!(%reason, "refused a connection");
                        connections.spawn(connection::refuse(stream, reason));
                        continue;
                    }
                    daemon.connected();
                    connections.spawn(connection::serve(stream, daemon.clone()));
                }
                Err(e) => tracing::warn!(error = %e, "accept failed"),
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            _ = terminate.recv() => break,
            _ = interrupt.recv() => break,
        }
    }
    tracing::info!("shutting down");
    // Dropping the connection tasks cancels the calls in flight; then the endpoint is released.
    connections.shutdown().await;
    daemon.release().await;
    let _ = std::fs::remove_file(&socket);
    Ok(())
}

/// Binds the socket, replacing a stale file (we hold the lock, so no daemon listens on it).
fn bind(socket: &Path) -> anyhow::Result<UnixListener> {
    match std::fs::remove_file(socket) {
        Ok(()) => tracing::info!(socket = %socket.display(), "replaced a stale socket"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(e)
                .with_context(|| format!("cannot remove the stale socket {}", socket.display()));
        }
    }
    let listener = UnixListener::bind(socket)
        .with_context(|| format!("cannot listen on {}", socket.display()))?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("cannot set mode 0600 on {}", socket.display()))?;
    Ok(listener)
}

/// Admits only processes of the daemon's own user.
fn check_peer(stream: &tokio::net::UnixStream) -> Result<(), String> {
    let uid = stream.peer_cred().map_err(|e| e.to_string())?.uid();
    if uid == endpoint::current_uid() {
        Ok(())
    } else {
        Err(format!("peer uid {uid} is not the daemon's user"))
    }
}
