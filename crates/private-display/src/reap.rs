//! Finding and ending what belongs to a private display: its own processes (one process
//! group, led by the X server) and the apps that run on it (their environment names its
//! DISPLAY), started after its X server. `end` signals only what it found at its start, again
//! checked by start time, so a process that reused a pid, or a display started since on the
//! same number, is never touched.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// What a private display recorded about itself, enough to end it after a crash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The display's name, such as `:100`.
    pub display: String,
    /// The process group of the X server, the window manager and the buses (the X server's pid).
    pub group: i32,
    /// The X server's start time, in clock ticks after boot (`/proc/PID/stat` field 22).
    pub started: u64,
    /// A directory of the display's own that goes with it: a headless sway's runtime directory
    /// (outside the state directory, as another user may need to own it), a GNOME Shell's (its
    /// sockets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<std::path::PathBuf>,
    /// The user its server runs as when not the daemon's (sway under root runs as nobody).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<u32>,
    /// The boot it was made in (`/proc/sys/kernel/random/boot_id`): after a reboot its pids
    /// and start times name other processes, so nothing is ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot: Option<String>,
}

/// This boot's id.
pub(crate) fn boot_id() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|id| id.trim().to_string())
}

impl Record {
    /// Removes what the display left on disk outside its state directory.
    pub(crate) fn remove_runtime(&self) {
        if let Some(dir) = &self.runtime {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A process as `/proc/PID/stat` describes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Stat {
    pub group: i32,
    pub started: u64,
}

/// Parses a `/proc/PID/stat` line: the process group (field 5) and start time (field 22).
/// The command name (field 2) may hold spaces and parentheses, so fields are counted from
/// the last `)`.
pub(crate) fn parse_stat(line: &str) -> Option<Stat> {
    let rest = &line[line.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(Stat {
        group: fields.get(2)?.parse().ok()?,
        started: fields.get(19)?.parse().ok()?,
    })
}

/// Whether `pid` runs (a zombie nobody reaped yet does not).
pub(crate) fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|line| {
            let state = line[line.rfind(')')? + 1..].trim_start().chars().next()?;
            Some(state != 'Z' && state != 'X')
        })
        .unwrap_or(false)
}

pub(crate) fn stat(pid: i32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Whether an environment block (`/proc/PID/environ`: NUL-separated) sets DISPLAY, or
/// WAYLAND_DISPLAY for a Wayland seat (named by its socket's path), to `display`.
pub(crate) fn names_display(environ: &[u8], display: &str) -> bool {
    let x11 = format!("DISPLAY={display}");
    let wayland = format!("WAYLAND_DISPLAY={display}");
    environ
        .split(|b| *b == 0)
        .any(|var| var == x11.as_bytes() || var == wayland.as_bytes())
}

/// The running processes of this user that belong to `record`'s display, with their start
/// times.
pub(crate) fn members(record: &Record) -> Vec<(i32, u64)> {
    if record.boot.is_some() && record.boot != boot_id() {
        return Vec::new();
    }
    // SAFETY: getuid cannot fail.
    let me = unsafe { libc::getuid() };
    let own = std::process::id() as i32;
    // A group id is a pid while its leader lives; a leader that started at another time means
    // the id was reused, and the group is someone else's.
    let group_ours =
        !running(record.group) || stat(record.group).is_some_and(|s| s.started == record.started);
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        // The daemon's own processes, and a seat's server run as another user (sway refuses
        // root, so a root daemon runs it as nobody).
        let owner_ok = owned_by(&entry.path(), me)
            || record.owner.is_some_and(|uid| owned_by(&entry.path(), uid));
        if pid == own || !owner_ok {
            continue;
        }
        let Some(stat) = stat(pid) else { continue };
        if stat.started < record.started || !running(pid) {
            continue;
        }
        let in_group = group_ours && stat.group == record.group;
        let on_display = || {
            std::fs::read(entry.path().join("environ"))
                .is_ok_and(|environ| names_display(&environ, &record.display))
        };
        if in_group || on_display() {
            found.push((pid, stat.started));
        }
    }
    found
}

fn owned_by(proc_dir: &Path, uid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(proc_dir).is_ok_and(|m| m.uid() == uid)
}

/// Ends every process of `record`'s display: SIGTERM, then SIGKILL to those still running
/// after `grace`. Only the processes found at the start are signalled, each checked again by
/// its start time, so a display started meanwhile on the same number is never touched.
/// `reap_children` collects the caller's own exited children while it waits. Answers how
/// many processes there were.
pub fn end(record: &Record, grace: Duration, mut reap_children: impl FnMut()) -> usize {
    let found = members(record);
    let same = |&(pid, started): &(i32, u64)| {
        running(pid) && stat(pid).is_some_and(|s| s.started == started)
    };
    for (pid, _) in &found {
        // SAFETY: signalling a pid just checked to be ours and the display's.
        unsafe { libc::kill(*pid, libc::SIGTERM) };
    }
    let deadline = Instant::now() + grace;
    loop {
        reap_children();
        if !found.iter().any(same) || Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for (pid, _) in found.iter().filter(|p| same(p)) {
        // SAFETY: as above, the same process (same start time); it ignored SIGTERM.
        unsafe { libc::kill(*pid, libc::SIGKILL) };
    }
    found.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_count_from_the_last_parenthesis() {
        let line = "4242 (my (odd) name) S 1 4200 4200 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1000 10";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                group: 4200,
                started: 987654
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn the_display_must_match_exactly() {
        let environ = b"HOME=/h\0DISPLAY=:100\0PATH=/bin\0";
        assert!(names_display(environ, ":100"));
        assert!(!names_display(environ, ":10"));
        assert!(!names_display(b"XDISPLAY=:100\0", ":100"));
        assert!(names_display(
            b"WAYLAND_DISPLAY=/run/s/wayland-1\0",
            "/run/s/wayland-1"
        ));
        assert!(!names_display(
            b"WAYLAND_DISPLAY=/run/s/wayland-10\0",
            "/run/s/wayland-1"
        ));
    }

    #[test]
    fn this_process_reads_its_own_stat() {
        let me = stat(std::process::id() as i32).unwrap();
        assert!(me.started > 0);
    }
}
