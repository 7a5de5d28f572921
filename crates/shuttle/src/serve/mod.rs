//! `shuttle serve`: the per-user daemon that owns the desktop.
//!
//! - [`daemon`]: the shared state every call reaches, and its life cycle.
//! - `pipeline`: one call's way from packet to reply, in a fixed order.
//! - `ended`: how a call ended, as the reply and the journal read it.
//! - `status`: the daemon's state.
//! - `connection`: one client connection's read-call-reply loop.
//! - `turn`: desk actions one at a time.
//! - `desk`: the lazily connected desktop backend.
//! - [`display`]: which display the daemon drives, and its private one.
//! - `stop`: the user's stop, which ends every call in flight; `person`: asking them before a
//!   resume.
//! - `hotkey`: keeping the kill hotkey grabbed.
//! - [`seats`]: where each agent's calls land (one display for all, or one per agent).
//! - `runs`: `script_run`, `gui_plan` and the tool plugins.
//! - `model_calls`: `model_decide`, `model_ask`, `model_ground`.
//! - `services`: the service plugins, kept running; `splice` hands them their calls.
//! - `group`: ending a process group.
//! - `keeper`: the daemon's parent, which keeps what the daemon starts in its process tree.

mod connection;
pub mod daemon;
mod desk;
pub mod display;
mod ended;
mod group;
mod hotkey;
mod keeper;
mod model_calls;
mod person;
mod pipeline;
mod runs;
pub mod seats;
mod services;
mod splice;
mod status;
mod stop;
mod turn;

use std::future::Future;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::net::UnixListener;
use tokio::signal::unix::{SignalKind, signal};
use tokio::task::JoinSet;

use crate::config::{self, ConfigSource, DisplayMode};
use crate::endpoint::{self, Claim};
pub use daemon::{Daemon, Peer};

/// How often the daemon looks at the config for a new kill hotkey, and tries again to grab one
/// it could not.
const HOTKEY_CHECK: Duration = Duration::from_secs(2);

/// Runs the daemon until SIGTERM or SIGINT, on the display `display` names (else the
/// config's `[daemon] display`, else the default: see [`display::settle`]).
pub fn run(foreground: bool, display: Option<DisplayMode>) -> anyhow::Result<()> {
    // Before anything is read: the keys, the config and the environment stay the daemon's.
    crate::private_memory::seal()
        .context("cannot make the daemon's memory private to it (prctl PR_SET_DUMPABLE)")?;
    // SAFETY: the binary's main starts no thread before this.
    let keeper = unsafe { keeper::split() }.context("cannot start the daemon's keeper")?;
    crate::platform::note_keeper(keeper);
    crate::logging::init(foreground)?;
    let socket = endpoint::socket_path()?;
    let config = ConfigSource::new(config::config_path());
    // The socket's group and the display are settled at start; a config that does not load
    // keeps the socket private and the display at its default.
    let (group, configured_display) = match config.current() {
        Ok(loaded) => (
            match &loaded.daemon.socket_group {
                Some(name) => Some(endpoint::group_id(name).map_err(anyhow::Error::msg)?),
                None => None,
            },
            loaded.daemon.display,
        ),
        Err(e) => {
            tracing::warn!(error = %e, "the config does not load; calls are refused until it does");
            (None, None)
        }
    };
    endpoint::prepare_dir(&socket, group)?;
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
    // Before the runtime's threads, since both change the environment: the model keys leave it,
    // so that no app, script or service the daemon starts can inherit one, and the display's
    // settings go into it.
    // SAFETY: no thread has started yet.
    let keys = unsafe { models::Keys::take_from_env(&config.last_good().models) };
    if keys.names().next().is_some() {
        tracing::info!(keys = ?keys, "model keys taken out of the environment");
    }
    let settled = display::settle(
        &socket,
        display.or(configured_display),
        config.last_good().daemon.private_seat,
    )?;
    tracing::info!(mode = settled.mode.name(), display = ?settled.desk, "display settled");
    let seats = settled.seats(&config.last_good().daemon);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the daemon's runtime")?;
    runtime.block_on(async {
        let listener = bind(&socket, group)?;
        tracing::info!(socket = %socket.display(), pid = std::process::id(), "listening");
        let platform = settled.platform();
        let keys = models::KeySource::Held(Arc::new(keys));
        let daemon = Daemon::with_seats(socket.clone(), config, platform, seats, keys);
        daemon.set_display_status(settled.status());
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        let signalled = async move {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
            }
        };
        tokio::spawn(sweep_seats(Arc::downgrade(&daemon)));
        let kept = daemon.clone();
        serve(listener, daemon, group, signalled).await;
        // Each agent's display, and the apps on it, end with the daemon.
        let _ = tokio::task::spawn_blocking(move || kept.seats.end_all()).await;
        let _ = std::fs::remove_file(&socket);
        anyhow::Ok(())
    })?;
    // The calls and their tasks are gone; the private displays (and every app on them) go now.
    drop(runtime);
    drop(settled);
    Ok(())
}

/// Serves `listener` with `daemon` until `shutdown` resolves, admitting peers of the daemon's
/// own user and of `group`. Then it cancels the calls in flight and gives back what the desk
/// borrowed. Tests run a daemon in-process through this.
pub async fn serve(
    listener: UnixListener,
    daemon: Arc<Daemon>,
    group: Option<u32>,
    shutdown: impl Future<Output = ()>,
) {
    tokio::spawn(keep_hotkey(Arc::downgrade(&daemon)));
    // Connect the desktop at once, so the first call does not pay for it.
    let early = daemon.clone();
    tokio::task::spawn_blocking(move || early.connect_desk());
    tokio::pin!(shutdown);
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => match check_peer(&stream, group) {
                    Ok(peer) => {
                        daemon.connected();
                        connections.spawn(connection::serve(stream, daemon.clone(), peer));
                    }
                    Err(reason) => {
                        tracing::warn!(%reason, "refused a connection");
                        connections.spawn(connection::refuse(stream, reason));
                    }
                },
                Err(e) => tracing::warn!(error = %e, "accept failed"),
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            () = &mut shutdown => break,
        }
    }
    tracing::info!("shutting down");
    // Dropping the connection tasks cancels the calls in flight.
    connections.shutdown().await;
    daemon.end_services().await;
    daemon.release().await;
}

/// How often per-agent displays are checked for idleness, a dead X server or a finished session,
/// and agents' input devices for a finished session.
const SEAT_SWEEP: Duration = Duration::from_secs(5);

/// Ends per-agent displays that are no longer needed, until the daemon goes.
async fn sweep_seats(daemon: std::sync::Weak<Daemon>) {
    loop {
        tokio::time::sleep(SEAT_SWEEP).await;
        let Some(strong) = daemon.upgrade() else {
            return;
        };
        for agent in strong.seats.sweep() {
            tracing::info!(agent = %agent, "ended the agent's private display");
        }
        let _ = tokio::task::spawn_blocking(move || strong.end_agent_devices()).await;
    }
}

/// Keeps the kill hotkey grabbed as the config says, until the daemon goes.
async fn keep_hotkey(daemon: std::sync::Weak<Daemon>) {
    loop {
        let Some(strong) = daemon.upgrade() else {
            return;
        };
        let _ = tokio::task::spawn_blocking(move || strong.keep_hotkey()).await;
        tokio::time::sleep(HOTKEY_CHECK).await;
    }
}

/// Binds the socket, replacing a stale file (we hold the lock, so no daemon listens on it): mode
/// 0600, or 0660 owned by `group`.
fn bind(socket: &Path, group: Option<u32>) -> anyhow::Result<UnixListener> {
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
    let mode = match group {
        Some(gid) => {
            std::os::unix::fs::chown(socket, None, Some(gid))
                .with_context(|| format!("cannot give {} to group {gid}", socket.display()))?;
            0o660
        }
        None => 0o600,
    };
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("cannot set mode {mode:04o} on {}", socket.display()))?;
    Ok(listener)
}

/// Admits processes of the daemon's own user, and members of `group` when there is one.
fn check_peer(stream: &tokio::net::UnixStream, group: Option<u32>) -> Result<Peer, String> {
    let cred = stream.peer_cred().map_err(|e| e.to_string())?;
    let uid = cred.uid();
    let member = || {
        group.is_some_and(|gid| {
            cred.gid() == gid || cred.pid().is_some_and(|pid| endpoint::in_group(pid, gid))
        })
    };
    if uid == endpoint::current_uid() || member() {
        Ok(Peer {
            uid,
            pid: cred.pid().and_then(|pid| u32::try_from(pid).ok()),
        })
    } else {
        Err(format!(
            "peer uid {uid} is neither the daemon's user nor in its socket_group"
        ))
    }
}
