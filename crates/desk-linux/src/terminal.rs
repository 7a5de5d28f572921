//! Asking the person at a terminal: the controlling terminal of the process that called, found
//! through `/proc`, where a question is written and its answer read; and who holds the other
//! side of a pseudo-terminal, since whoever holds it types what the terminal reads.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::proc;

/// The longest answer read.
const ANSWER_MAX: usize = 64;

/// The controlling terminal of process `pid`, as a device file (`/dev/pts/3`, `/dev/tty2`);
/// `None` when it has none (a daemon, a process in a session of its own) or it is gone.
pub fn controlling(pid: u32) -> Option<PathBuf> {
    let device = proc::stat(pid)?.tty;
    if device == 0 {
        return None;
    }
    let is_it = |path: &Path| {
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device() && m.rdev() == device)
    };
    // Pseudo-terminals are numbered by their minor (and major) number; look there first.
    let (major, minor) = (libc::major(device), libc::minor(device));
    if (136..=143).contains(&major) {
        let path = PathBuf::from(format!("/dev/pts/{}", (major - 136) * 256 + minor));
        if is_it(&path) {
            return Some(path);
        }
    }
    ["/dev/pts", "/dev"]
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flat_map(|entries| entries.flatten().map(|e| e.path()))
        .find(|path| is_it(path))
}

/// Among the processes `suspects` picks, one that may type into `terminal`: it holds the master
/// side of that pseudo-terminal, or its descriptors cannot be read (a process that made itself
/// non-dumpable hides them). `None` when none does, and for a terminal that is not a
/// pseudo-terminal (a console has no other side).
pub fn typed_into_by(terminal: &Path, suspects: impl Fn(u32) -> bool) -> Option<u32> {
    let index: u32 = terminal
        .strip_prefix("/dev/pts")
        .ok()?
        .to_str()?
        .parse()
        .ok()?;
    let processes = std::fs::read_dir("/proc").ok()?;
    processes
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| suspects(pid))
        .find(|&pid| holds_master(pid, index).unwrap_or(true))
}

/// Whether process `pid` holds the master side of `/dev/pts/<index>`; `None` when its
/// descriptors cannot be read. A process that is gone holds nothing.
fn holds_master(pid: u32, index: u32) -> Option<bool> {
    let fds = match std::fs::read_dir(format!("/proc/{pid}/fd")) {
        Ok(fds) => fds,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Some(false),
        Err(_) => return None,
    };
    let wanted = format!("tty-index:\t{index}");
    Some(fds.flatten().any(|fd| {
        let is_master = std::fs::read_link(fd.path())
            .is_ok_and(|to| to == Path::new("/dev/ptmx") || to == Path::new("/dev/pts/ptmx"));
        is_master
            && std::fs::read_to_string(format!(
                "/proc/{pid}/fdinfo/{}",
                fd.file_name().to_string_lossy()
            ))
            .is_ok_and(|info| info.lines().any(|line| line == wanted))
    }))
}

/// Writes `prompt` on `terminal` and reads one line of answer, waiting up to `limit`; `None`
/// when no line came. What was typed before the prompt is thrown away, so only an answer typed
/// after it counts.
pub fn ask(terminal: &Path, prompt: &str, limit: Duration) -> io::Result<Option<String>> {
    let mut file = File::options()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
        .open(terminal)?;
    let fd = file.as_raw_fd();
    // SAFETY: isatty and tcflush act on a descriptor this function owns.
    if unsafe { libc::isatty(fd) } != 1 {
        return Err(io::Error::other(format!(
            "{} is not a terminal",
            terminal.display()
        )));
    }
    // SAFETY: as above.
    unsafe { libc::tcflush(fd, libc::TCIFLUSH) };
    file.write_all(prompt.as_bytes())?;
    let deadline = Instant::now() + limit;
    let mut answer = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(None);
        }
        let mut poll = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: polls one descriptor this function owns, through a struct on its stack.
        if unsafe { libc::poll(&mut poll, 1, ms.max(1)) } < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if poll.revents & (libc::POLLHUP | libc::POLLERR) != 0 {
            return Ok(None);
        }
        let mut byte = [0u8; 64];
        match file.read(&mut byte) {
            Ok(0) => return Ok(None),
            Ok(n) => answer.extend_from_slice(&byte[..n]),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            Err(e) => return Err(e),
        }
        if let Some(end) = answer.iter().position(|&b| b == b'\n' || b == b'\r') {
            answer.truncate(end);
            return Ok(Some(String::from_utf8_lossy(&answer).trim().to_string()));
        }
        if answer.len() > ANSWER_MAX {
            return Ok(Some(String::new()));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::FromRawFd;
    use std::os::unix::process::CommandExt;

    use super::*;

    /// A new pseudo-terminal: its master side, and the path of its other side.
    fn pty() -> (File, PathBuf) {
        // SAFETY: opens a new master, whose descriptor the File then owns; the calls after it
        // act on that descriptor, and ptsname_r writes into a buffer on this stack.
        unsafe {
            let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
            assert!(fd >= 0);
            assert_eq!(libc::grantpt(fd), 0);
            assert_eq!(libc::unlockpt(fd), 0);
            let mut name = [0 as libc::c_char; 128];
            assert_eq!(libc::ptsname_r(fd, name.as_mut_ptr(), name.len()), 0);
            let path = std::ffi::CStr::from_ptr(name.as_ptr())
                .to_str()
                .unwrap()
                .into();
            (File::from_raw_fd(fd), path)
        }
    }

    #[test]
    fn a_process_in_a_session_of_its_own_has_no_terminal() {
        assert_eq!(controlling(u32::MAX), None);
        let mut alone = std::process::Command::new("sleep");
        alone.arg("5");
        // SAFETY: setsid is async-signal-safe.
        unsafe {
            alone.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        let mut alone = alone.spawn().unwrap();
        assert_eq!(controlling(alone.id()), None);
        let _ = alone.kill();
        let _ = alone.wait();
    }

    #[test]
    fn only_an_answer_typed_after_the_prompt_counts() {
        let (mut master, terminal) = pty();
        // Typed before the question: thrown away.
        master.write_all(b"yes\r").unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let typist = std::thread::spawn(move || {
            // The terminal echoes what was typed: read on until the prompt shows.
            let mut shown = Vec::new();
            while !String::from_utf8_lossy(&shown).contains("resume?") {
                let mut more = [0u8; 64];
                let n = master.read(&mut more).unwrap();
                shown.extend_from_slice(&more[..n]);
            }
            master.write_all(b"no\r").unwrap();
            master
        });
        let answer = ask(&terminal, "resume? ", Duration::from_secs(5)).unwrap();
        assert_eq!(answer.as_deref(), Some("no"));
        drop(typist.join().unwrap());
    }

    #[test]
    fn the_holder_of_a_terminals_other_side_is_found_among_the_suspects() {
        let (master, terminal) = pty();
        let own = std::process::id();
        assert_eq!(typed_into_by(&terminal, |pid| pid == own), Some(own));
        assert_eq!(typed_into_by(&terminal, |_| false), None);
        let (_other, elsewhere) = pty();
        drop(master);
        assert_eq!(typed_into_by(&terminal, |pid| pid == own), None);
        assert_eq!(typed_into_by(&elsewhere, |pid| pid == own), Some(own));
        assert_eq!(typed_into_by(Path::new("/dev/tty2"), |_| true), None);
    }

    #[test]
    fn no_answer_in_time_is_none() {
        let (_master, terminal) = pty();
        let answer = ask(&terminal, "resume? ", Duration::from_millis(100)).unwrap();
        assert_eq!(answer, None);
    }
}
