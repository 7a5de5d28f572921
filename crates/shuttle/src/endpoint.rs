//! Where the daemon listens, and the checks that keep that place private.
//!
//! The socket lives in a directory only its user can enter (0700), so nobody else can even
//! reach it; the socket itself is 0600 and the daemon also checks each peer's uid. With
//! `[daemon] socket_group`, the group may enter the directory (0710) and use the socket (0660),
//! and the daemon admits the group's members too.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Environment variable that overrides the endpoint for every shuttle process.
pub const SOCKET_ENV: &str = "SHUTTLE_SOCKET";

/// A problem with the endpoint's location.
#[derive(Debug, thiserror::Error)]
pub enum EndpointError {
    /// No path could be worked out.
    #[error("cannot place the desk socket: neither {SOCKET_ENV}, XDG_CACHE_HOME nor HOME is set")]
    NoHome,
    /// The directory is not private.
    #[error(
        "refusing socket directory {dir}: {problem}; it must be a directory owned by you (uid {uid}) \
         with mode 0700: fix it with `chmod 700 {dir}`, or point {SOCKET_ENV} at a socket in a \
         private directory"
    )]
    NotPrivate {
        /// The directory.
        dir: String,
        /// What is wrong with it.
        problem: String,
        /// The user's uid.
        uid: u32,
    },
    /// The directory could not be created or read.
    #[error("cannot prepare socket directory {dir}: {reason}")]
    Io {
        /// The directory.
        dir: String,
        /// The OS error.
        reason: String,
    },
}

/// The socket path: `$SHUTTLE_SOCKET`, else `$XDG_CACHE_HOME/loomhand/shuttle/desk.sock`, else
/// `~/.cache/loomhand/shuttle/desk.sock`.
pub fn socket_path() -> Result<PathBuf, EndpointError> {
    if let Some(path) = non_empty_env(SOCKET_ENV) {
        return Ok(PathBuf::from(path));
    }
    let cache = match non_empty_env("XDG_CACHE_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(non_empty_env("HOME").ok_or(EndpointError::NoHome)?).join(".cache"),
    };
    Ok(cache.join("loomhand/shuttle/desk.sock"))
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The directory holding `socket`.
pub fn socket_dir(socket: &Path) -> &Path {
    socket.parent().unwrap_or(Path::new("."))
}

/// Creates the socket's directory (mode 0700) if it is missing, opens it to `group` (mode 0710,
/// group-owned) when one is given, then checks it is private.
pub fn prepare_dir(socket: &Path, group: Option<u32>) -> Result<(), EndpointError> {
    let dir = socket_dir(socket);
    if !dir.exists() {
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| io_error(dir, e))?;
    }
    if let Some(gid) = group {
        std::os::unix::fs::chown(dir, None, Some(gid)).map_err(|e| io_error(dir, e))?;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o710))
            .map_err(|e| io_error(dir, e))?;
    }
    check_dir(socket, group)
}

/// Checks that the socket's directory is owned by this user and closed to everyone else (but
/// `group`, which may enter it).
pub fn check_dir(socket: &Path, group: Option<u32>) -> Result<(), EndpointError> {
    let dir = socket_dir(socket);
    let meta = fs::metadata(dir).map_err(|e| io_error(dir, e))?;
    let uid = current_uid();
    let not_private = |problem: String| EndpointError::NotPrivate {
        dir: dir.display().to_string(),
        problem,
        uid,
    };
    if !meta.is_dir() {
        return Err(not_private("it is not a directory".into()));
    }
    if meta.uid() != uid {
        return Err(not_private(format!("it is owned by uid {}", meta.uid())));
    }
    let mode = meta.permissions().mode() & 0o777;
    let closed = match group {
        Some(gid) => meta.gid() == gid && mode & 0o067 == 0,
        None => mode & 0o077 == 0,
    };
    if !closed {
        return Err(not_private(format!(
            "its mode is {mode:04o}, open to others"
        )));
    }
    Ok(())
}

/// The user a client must find listening on `socket`: itself, when the directory is its own
/// and private; else the directory's owner (a daemon that opened its socket to a group), when
/// nobody but that owner can put a socket there.
pub fn expected_listener(socket: &Path) -> Result<u32, EndpointError> {
    let dir = socket_dir(socket);
    let meta = fs::metadata(dir).map_err(|e| io_error(dir, e))?;
    let (me, owner) = (current_uid(), meta.uid());
    let mode = meta.permissions().mode() & 0o777;
    // Only the owner may be able to put a socket there; a group may at most enter.
    let open = if owner == me {
        mode & 0o067 != 0
    } else {
        mode & 0o022 != 0
    };
    let problem = if !meta.is_dir() {
        Some("it is not a directory".to_string())
    } else if open {
        Some(format!("its mode is {mode:04o}, open to others"))
    } else {
        None
    };
    match problem {
        Some(problem) => Err(EndpointError::NotPrivate {
            dir: dir.display().to_string(),
            problem,
            uid: me,
        }),
        None => Ok(owner),
    }
}

/// The id of group `name`.
pub fn group_id(name: &str) -> Result<u32, String> {
    let text = fs::read_to_string("/etc/group")
        .map_err(|e| format!("cannot read /etc/group to find group {name:?}: {e}"))?;
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split(':');
            let group = fields.next()?;
            let gid = fields.nth(1)?.parse().ok()?;
            (group == name).then_some(gid)
        })
        .next()
        .ok_or_else(|| {
            format!("there is no group {name:?} in /etc/group; create it or fix socket_group")
        })
}

/// Whether process `pid` has `gid` among its groups.
pub fn in_group(pid: i32, gid: u32) -> bool {
    let Ok(status) = fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    status.lines().any(|line| {
        let ids = match (line.strip_prefix("Groups:"), line.strip_prefix("Gid:")) {
            (Some(ids), _) | (None, Some(ids)) => ids,
            _ => return false,
        };
        ids.split_whitespace().any(|id| id.parse() == Ok(gid))
    })
}

fn io_error(dir: &Path, e: std::io::Error) -> EndpointError {
    EndpointError::Io {
        dir: dir.display().to_string(),
        reason: e.to_string(),
    }
}

/// This process's effective uid.
pub fn current_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The lock file beside the socket that one daemon at a time holds.
pub fn lock_path(socket: &Path) -> PathBuf {
    let mut name = socket.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    socket.with_file_name(name)
}

/// An exclusive hold on the endpoint, kept for the daemon's lifetime.
#[derive(Debug)]
pub struct DaemonLock {
    _file: File,
}

/// The outcome of trying to become the endpoint's daemon.
#[derive(Debug)]
pub enum Claim {
    /// This process now owns the endpoint.
    Won(DaemonLock),
    /// Another daemon holds it; its pid when it wrote one.
    Held(Option<u32>),
}

/// Takes the endpoint's lock without waiting, recording our pid in it.
pub fn claim(socket: &Path) -> std::io::Result<Claim> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(lock_path(socket))?;
    // SAFETY: flock on a descriptor we own; the lock lives as long as the file stays open.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    if !locked {
        let mut pid = String::new();
        file.read_to_string(&mut pid)?;
        return Ok(Claim::Held(pid.trim().parse().ok()));
    }
    file.set_len(0)?;
    file.rewind()?;
    write!(file, "{}", std::process::id())?;
    Ok(Claim::Won(DaemonLock { _file: file }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("shuttle-endpoint-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn creates_a_private_directory() {
        let dir = scratch("create");
        let socket = dir.join("a/b/desk.sock");
        prepare_dir(&socket, None).unwrap();
        let mode = fs::metadata(socket_dir(&socket))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o700);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn refuses_a_directory_open_to_others() {
        let dir = scratch("open");
        fs::create_dir_all(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        let err = prepare_dir(&dir.join("desk.sock"), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("its mode is 0755, open to others"), "{err}");
        assert!(err.contains("chmod 700"), "{err}");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn one_claim_at_a_time() {
        let dir = scratch("lock");
        let socket = dir.join("desk.sock");
        prepare_dir(&socket, None).unwrap();
        let first = claim(&socket).unwrap();
        assert!(matches!(first, Claim::Won(_)));
        match claim(&socket).unwrap() {
            Claim::Held(pid) => assert_eq!(pid, Some(std::process::id())),
            Claim::Won(_) => panic!("a second claim must not win"),
        }
        drop(first);
        assert!(matches!(claim(&socket).unwrap(), Claim::Won(_)));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_group_may_enter_but_not_write() {
        let dir = scratch("group");
        let socket = dir.join("s/desk.sock");
        let gid = fs::metadata("/proc/self").unwrap().gid();
        prepare_dir(&socket, Some(gid)).unwrap();
        let meta = fs::metadata(socket_dir(&socket)).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o710);
        assert_eq!(meta.gid(), gid);
        assert_eq!(expected_listener(&socket).unwrap(), current_uid());
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn groups_are_read() {
        assert!(group_id("root").is_ok_and(|gid| gid == 0));
        assert!(
            group_id("no-such-group-here")
                .unwrap_err()
                .contains("no group")
        );
        let me = std::process::id() as i32;
        let gid = fs::metadata("/proc/self").unwrap().gid();
        assert!(in_group(me, gid));
    }

    #[test]
    fn lock_sits_beside_the_socket() {
        assert_eq!(
            lock_path(Path::new("/r/desk.sock")),
            PathBuf::from("/r/desk.sock.lock")
        );
    }
}
