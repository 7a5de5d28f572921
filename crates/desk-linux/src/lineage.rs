//! Which processes came from this one: the process groups and sessions it started for agents
//! (apps it launched, each in a session of its own; script runs and services, each in a
//! process group of its own), and their children.
//!
//! A process counts as started here when it descends from this process, or when its process
//! group or session is one noted here. The second test finds what the first loses: a child
//! whose parent exited is adopted by init, but it keeps its group and session. A noted leader
//! that exited still names its group or session: the kernel gives no new process a pid that a
//! live group or session still uses, so a live member of that id is one of ours. A leader
//! whose pid now belongs to a newer process is told apart by its start time.
//!
//! A process that leaves both on purpose (a new session, then its parent's exit) is kept by the
//! third: the daemon's keeper ([`note_keeper`]) is a child subreaper, so such an orphan becomes
//! the keeper's child instead of init's, and its descent still tells.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};

/// Leaders kept at most; past it the oldest are forgotten.
const KEPT: usize = 4096;

/// The group and session leaders noted, with their start times.
static LEADERS: Mutex<Vec<Leader>> = Mutex::new(Vec::new());

/// The keeper: this process's parent, which adopts the orphans of its descendants; 0 for none.
static KEEPER: AtomicU32 = AtomicU32::new(0);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Leader {
    pid: u32,
    started: u64,
}

use crate::proc::{Stat, stat};

/// Notes `pid`, which leads a process group or a session this process just started.
pub fn note_leader(pid: u32) {
    let Some(started) = stat(pid).map(|s| s.started) else {
        return;
    };
    let mut leaders = LEADERS.lock().unwrap_or_else(PoisonError::into_inner);
    if leaders.len() >= KEPT {
        leaders.remove(0);
    }
    leaders.push(Leader { pid, started });
}

/// Notes `pid`, this process's parent and a child subreaper: the orphans of this process's
/// descendants become its children, so its descendants (but this process) came from here too.
pub fn note_keeper(pid: u32) {
    KEEPER.store(pid, Ordering::Relaxed);
}

/// Whether process `pid` came from this process: a descendant of it (not itself), a process its
/// keeper adopted, or a member of a group or session it noted.
pub fn started_here(pid: u32) -> bool {
    let own = std::process::id();
    let keeper = KEEPER.load(Ordering::Relaxed);
    if pid == own || pid == keeper {
        return false;
    }
    let Some(peer) = stat(pid) else {
        return false;
    };
    if descends(peer, own) || (keeper > 1 && descends(peer, keeper)) {
        return true;
    }
    let leaders = LEADERS.lock().unwrap_or_else(PoisonError::into_inner);
    [peer.group, peer.session].into_iter().any(|id| {
        leaders
            .iter()
            .filter(|l| l.pid == id)
            .any(|l| stat(id).is_none_or(|now| now.started == l.started))
    })
}

/// Whether the process `stat` describes has `ancestor` among its ancestors.
fn descends(mut stat: Stat, ancestor: u32) -> bool {
    // Bounded: a chain read while processes exit and pids are reused could loop.
    for _ in 0..128 {
        if stat.parent == ancestor {
            return true;
        }
        if stat.parent <= 1 {
            return false;
        }
        match self::stat(stat.parent) {
            Some(parent) => stat = parent,
            None => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};

    use super::*;

    #[test]
    fn this_process_and_strangers_are_not_started_here() {
        assert!(!started_here(std::process::id()));
        assert!(!started_here(1));
        assert!(!started_here(u32::MAX));
    }

    #[test]
    fn an_orphan_of_a_noted_group_is_started_here() {
        // A group leader that starts a grandchild and exits: the grandchild is adopted by
        // init, so only its group tells.
        let mut leader = Command::new("sh")
            .args(["-c", "sleep 30 >/dev/null 2>&1 & echo $!"])
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let child = leader.id();
        note_leader(child);
        let mut out = String::new();
        std::io::Read::read_to_string(leader.stdout.as_mut().unwrap(), &mut out).unwrap();
        let orphan: u32 = out.trim().parse().unwrap();
        leader.wait().unwrap();
        assert!(
            !descends(stat(orphan).unwrap(), std::process::id()),
            "its parent is gone, so it no longer descends from this process"
        );
        assert!(started_here(orphan), "an orphan in a noted group");
        // SAFETY: a process this test started, still running.
        unsafe { libc::kill(orphan as i32, libc::SIGKILL) };
    }
}
