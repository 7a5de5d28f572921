//! Sockets to KWin that KWin credits to shuttle. KWin grants fake input and ScreenShot2 by the
//! path it reads from `/proc/PID/exe` of the process at the other end of a socket, and the
//! daemon is not dumpable (so that the same user's other processes cannot read its memory),
//! which also keeps them, KWin among them, from reading that link. So a helper, a fresh `shuttle` process that holds no secret, connects the
//! daemon's sockets for it: the kernel credits a socket to the process that connected it. The
//! helper then stays, doing nothing, for as long as the daemon keeps its stdin open, since
//! KWin reads the link again on each screenshot.

use std::io::{BufRead, BufReader, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::kwin::KdeError;

/// The descriptors the helper finds its two sockets on.
const WAYLAND_FD: RawFd = 3;
const BUS_FD: RawFd = 4;

/// How long the helper has to connect.
const CONNECT_LIMIT: Duration = Duration::from_secs(5);

/// KWin's Wayland socket and the session bus, connected by the helper.
pub struct Credited {
    pub wayland: UnixStream,
    pub bus: UnixStream,
    pub helper: Helper,
}

/// The helper that connected them, which ends when this is dropped.
pub struct Helper(Child);

impl Helper {
    /// Whether it still runs: KWin credits the sockets to it only while it does.
    pub fn running(&mut self) -> bool {
        matches!(self.0.try_wait(), Ok(None))
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        // Its stdin closes, and it exits.
        drop(self.0.stdin.take());
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        while matches!(self.0.try_wait(), Ok(None)) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Has `helper` (this program, told to run [`serve`]) connect to KWin's Wayland socket at
/// `wayland` and to the session bus at `bus` for the daemon.
pub fn connect(mut helper: Command, wayland: &Path, bus: &str) -> Result<Credited, KdeError> {
    let (w, b) = (socket()?, socket()?);
    let (w_raw, b_raw) = (w.as_raw_fd(), b.as_raw_fd());
    helper
        .arg(wayland)
        .arg(bus)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: dup2 is async-signal-safe; the new descriptors lose close-on-exec, so the
    // helper has them where it looks.
    unsafe {
        helper.pre_exec(move || {
            if libc::dup2(w_raw, WAYLAND_FD) < 0 || libc::dup2(b_raw, BUS_FD) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = helper
        .spawn()
        .map_err(|e| KdeError::Broken(format!("cannot start shuttle's KWin helper: {e}")))?;
    let stdout = child.stdout.take().expect("piped");
    let (tell, told) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tell.send(line);
    });
    let said = told.recv_timeout(CONNECT_LIMIT).unwrap_or_default();
    if said.trim() != "connected" {
        let _ = child.kill();
        let mut why = String::new();
        if let Some(mut err) = child.stderr.take() {
            let _ = err.read_to_string(&mut why);
        }
        let _ = child.wait();
        return Err(KdeError::Broken(format!(
            "shuttle's KWin helper did not connect: {}",
            if why.trim().is_empty() {
                "it said nothing".to_string()
            } else {
                why.trim().to_string()
            }
        )));
    }
    Ok(Credited {
        wayland: UnixStream::from(w),
        bus: UnixStream::from(b),
        helper: Helper(child),
    })
}

/// The helper's side: connects the sockets it was given to `wayland` and to the bus at `bus`,
/// says so, and stays until its stdin closes.
pub fn serve(wayland: &Path, bus: &str) -> Result<(), KdeError> {
    connect_fd(WAYLAND_FD, &path_address(wayland)?)
        .map_err(|e| KdeError::Broken(format!("{}: {e}", wayland.display())))?;
    connect_fd(BUS_FD, &bus_address(bus)?).map_err(|e| KdeError::Broken(format!("{bus}: {e}")))?;
    // Not the helper's to use: the daemon holds them.
    // SAFETY: these descriptors were handed to this process for this and nothing else.
    unsafe {
        libc::close(WAYLAND_FD);
        libc::close(BUS_FD);
    }
    println!("connected");
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    Ok(())
}

fn socket() -> Result<OwnedFd, KdeError> {
    // SAFETY: a plain socket call; its result is checked.
    let fd = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(KdeError::Broken(format!(
            "cannot make a socket: {}",
            std::io::Error::last_os_error()
        )));
    }
    // SAFETY: a new descriptor this function alone owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// A unix socket address: a path, or an abstract name (a leading NUL).
fn sockaddr(
    name: &[u8],
    is_abstract: bool,
) -> Result<(libc::sockaddr_un, libc::socklen_t), KdeError> {
    // SAFETY: an all-zero sockaddr_un is valid.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let start = usize::from(is_abstract);
    if start + name.len() >= addr.sun_path.len() {
        return Err(KdeError::Broken("a socket address too long".into()));
    }
    for (i, &byte) in name.iter().enumerate() {
        addr.sun_path[start + i] = byte as libc::c_char;
    }
    let len =
        std::mem::size_of::<libc::sa_family_t>() + start + name.len() + usize::from(!is_abstract);
    Ok((addr, len as libc::socklen_t))
}

fn path_address(path: &Path) -> Result<(libc::sockaddr_un, libc::socklen_t), KdeError> {
    sockaddr(path.as_os_str().as_encoded_bytes(), false)
}

/// The socket of a D-Bus address: `unix:path=...` or `unix:abstract=...`, its other keys
/// (`guid`) aside.
fn bus_address(address: &str) -> Result<(libc::sockaddr_un, libc::socklen_t), KdeError> {
    let unix = address
        .split(';')
        .find_map(|a| a.strip_prefix("unix:"))
        .ok_or_else(|| KdeError::Broken(format!("the bus address {address} is not a unix one")))?;
    for pair in unix.split(',') {
        if let Some(path) = pair.strip_prefix("path=") {
            return sockaddr(unescape(path).as_slice(), false);
        }
        if let Some(name) = pair.strip_prefix("abstract=") {
            return sockaddr(unescape(name).as_slice(), true);
        }
    }
    Err(KdeError::Broken(format!(
        "the bus address {address} names no path or abstract socket"
    )))
}

/// A D-Bus address value with its `%XX` escapes undone.
fn unescape(value: &str) -> Vec<u8> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = value.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

fn connect_fd(
    fd: RawFd,
    (addr, len): &(libc::sockaddr_un, libc::socklen_t),
) -> std::io::Result<()> {
    // SAFETY: `addr` is a valid sockaddr_un of `len` bytes.
    let done = unsafe { libc::connect(fd, (addr as *const libc::sockaddr_un).cast(), *len) };
    if done < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_addresses_name_their_socket() {
        let (addr, len) = bus_address("unix:path=/run/user/1000/bus,guid=abc").unwrap();
        let path: Vec<u8> = addr.sun_path[..len as usize - 3]
            .iter()
            .map(|&c| c as u8)
            .collect();
        assert_eq!(path, b"/run/user/1000/bus");
        let (addr, _) = bus_address("unix:abstract=/tmp/dbus-X%2cY").unwrap();
        assert_eq!(addr.sun_path[0], 0);
        assert_eq!(addr.sun_path[1] as u8, b'/');
        assert!(bus_address("tcp:host=localhost,port=1").is_err());
        assert_eq!(unescape("a%2cb%"), b"a,b%");
    }
}
