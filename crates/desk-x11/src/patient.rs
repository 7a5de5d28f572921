//! Connections to the X server that never wait without a deadline.
//!
//! x11rb waits for the server with an unbounded `poll`. A server that stops answering (stopped,
//! swapping, or frozen by a grab another client holds) would then hang the call, and with it
//! the desk turn. [`Patient`] is x11rb's own stream with a deadline on each wait: a reply that
//! does not come within it fails the call as a broken connection, which the daemon replaces on
//! the next call. The break is for good: every later wait on that connection fails at once, so
//! one call that tries several requests (a capture falling back from MIT-SHM to GetImage) waits
//! out one deadline, not one per request. Only the kill hotkey's connection, which does nothing but wait for presses,
//! waits for ever once it is set up.

use std::io::{IoSlice, Result};
use std::os::fd::{AsFd, AsRawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use x11rb::errors::{ConnectError, DisplayParsingError};
use x11rb::reexports::x11rb_protocol::parse_display::parse_display;
use x11rb::reexports::x11rb_protocol::xauth::get_auth;
use x11rb::rust_connection::{DefaultStream, PollMode, RustConnection, Stream};
use x11rb::utils::RawFdContainer;

/// How long any one wait for the X server may take.
pub(crate) const REPLY_LIMIT: Duration = Duration::from_secs(5);

/// A connection whose waits have a deadline.
pub(crate) type Conn = RustConnection<Patient>;

/// x11rb's stream, with a deadline on each wait.
#[derive(Debug)]
pub(crate) struct Patient {
    inner: DefaultStream,
    /// The deadline in milliseconds; 0 waits for ever.
    limit_ms: AtomicU64,
    /// A wait ran out: the server's answers can no longer be trusted to come.
    stalled: AtomicBool,
}

impl Patient {
    /// From now on, waits for ever (for a connection that only waits for events).
    pub(crate) fn wait_forever(&self) {
        self.limit_ms.store(0, Ordering::Relaxed);
    }
}

impl Stream for Patient {
    fn poll(&self, mode: PollMode) -> Result<()> {
        let mut events = 0;
        if mode.readable() {
            events |= libc::POLLIN;
        }
        if mode.writable() {
            events |= libc::POLLOUT;
        }
        let limit = Duration::from_millis(self.limit_ms.load(Ordering::Relaxed));
        if self.stalled.load(Ordering::Relaxed) {
            return Err(stalled(REPLY_LIMIT));
        }
        let deadline = Instant::now() + limit;
        loop {
            let timeout = if limit.is_zero() {
                -1
            } else {
                let left = deadline.saturating_duration_since(Instant::now());
                i32::try_from(left.as_millis()).unwrap_or(i32::MAX)
            };
            let mut fd = libc::pollfd {
                fd: self.inner.as_fd().as_raw_fd(),
                events,
                revents: 0,
            };
            // SAFETY: one valid pollfd, for a descriptor the stream keeps open.
            let ready = unsafe { libc::poll(&mut fd, 1, timeout) };
            match ready {
                0 => {
                    self.stalled.store(true, Ordering::Relaxed);
                    return Err(stalled(limit));
                }
                n if n > 0 => return Ok(()),
                _ => {
                    let e = std::io::Error::last_os_error();
                    if e.kind() != std::io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
        }
    }

    fn read(&self, buf: &mut [u8], fd_storage: &mut Vec<RawFdContainer>) -> Result<usize> {
        self.inner.read(buf, fd_storage)
    }

    fn write(&self, buf: &[u8], fds: &mut Vec<RawFdContainer>) -> Result<usize> {
        self.inner.write(buf, fds)
    }

    fn write_vectored(&self, bufs: &[IoSlice<'_>], fds: &mut Vec<RawFdContainer>) -> Result<usize> {
        self.inner.write_vectored(bufs, fds)
    }
}

fn stalled(limit: Duration) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        format!(
            "the X server did not answer within {} s; it may be stopped or frozen",
            limit.as_secs()
        ),
    )
}

/// Connects to X display `display`, as x11rb's `RustConnection::connect` does, with every
/// wait (the handshake's included) bounded by [`REPLY_LIMIT`].
pub(crate) fn connect(display: &str) -> std::result::Result<(Conn, usize), ConnectError> {
    let parsed = parse_display(Some(display))?;
    let screen = usize::from(parsed.screen);
    let mut error = None;
    for address in parsed.connect_instruction() {
        match DefaultStream::connect(&address) {
            Ok((stream, (family, peer))) => {
                let (name, data) = get_auth(family, &peer, parsed.display)
                    .unwrap_or(None)
                    .unwrap_or_default();
                let stream = Patient {
                    inner: stream,
                    limit_ms: AtomicU64::new(REPLY_LIMIT.as_millis() as u64),
                    stalled: AtomicBool::new(false),
                };
                let conn =
                    RustConnection::connect_to_stream_with_auth_info(stream, screen, name, data)?;
                return Ok((conn, screen));
            }
            Err(e) => error = Some(e),
        }
    }
    Err(match error {
        Some(e) => ConnectError::IoError(e),
        None => DisplayParsingError::Unknown.into(),
    })
}
