//! The daemon's keeper: the parent of `shuttle serve`'s daemon, which adopts whatever the
//! daemon's descendants leave behind, so that nothing the daemon starts for an agent leaves its
//! process tree, however it detaches (a new session, a double fork). The person's controls ask
//! that tree who is calling ([`crate::platform::started_for_agent`]).
//!
//! Linux gives an orphan to its nearest ancestor that is a child subreaper. The daemon cannot be
//! that ancestor itself: it would have to reap orphans it never started, and a `waitpid(-1)`
//! would take the exit statuses its own children's waiters expect. So `shuttle serve` forks
//! before anything else: the parent, one thread that only waits for signals, is the subreaper
//! and reaps; the child is the daemon. The keeper hands the signals that end a daemon on to it
//! and exits with its status; the daemon is killed with the keeper, so killing either is the
//! same crash, whose leftovers the next daemon ends.

use std::io;

/// Signals the keeper passes on to the daemon.
const PASSED_ON: [libc::c_int; 6] = [
    libc::SIGTERM,
    libc::SIGINT,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
];

/// Forks the keeper off. Returns in the child, the daemon, with the keeper's pid; the keeper
/// itself never returns, and exits when the daemon does, with its status.
///
/// # Safety
///
/// The process must have one thread: the keeper goes on after `fork` without exec.
pub unsafe fn split() -> io::Result<u32> {
    // SAFETY (for the block): plain system calls on this process's own signal mask and flags,
    // with values built here; the caller guarantees one thread.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in PASSED_ON.into_iter().chain([libc::SIGCHLD]) {
            libc::sigaddset(&mut set, signal);
        }
        // Blocked before the fork, so a signal sent meanwhile waits for the keeper's loop.
        let mut previous: libc::sigset_t = std::mem::zeroed();
        if libc::sigprocmask(libc::SIG_BLOCK, &set, &mut previous) != 0 {
            return Err(io::Error::last_os_error());
        }
        let undo = |previous: &libc::sigset_t| {
            let e = io::Error::last_os_error();
            libc::sigprocmask(libc::SIG_SETMASK, previous, std::ptr::null_mut());
            e
        };
        if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
            return Err(undo(&previous));
        }
        let keeper = libc::getpid();
        match libc::fork() {
            -1 => {
                let e = undo(&previous);
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
                Err(e)
            }
            0 => {
                // The daemon: the subreaper flag is not inherited. It dies with its keeper, and
                // a keeper already gone before this line is seen through the new parent.
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                if libc::getppid() != keeper {
                    libc::raise(libc::SIGKILL);
                }
                libc::sigprocmask(libc::SIG_SETMASK, &previous, std::ptr::null_mut());
                Ok(keeper as u32)
            }
            daemon => keep(daemon, &set),
        }
    }
}

/// The keeper's loop: passes signals on, reaps, and exits as the daemon did.
fn keep(daemon: libc::pid_t, set: &libc::sigset_t) -> ! {
    loop {
        // SAFETY: waits for one of the signals blocked in `split`.
        let signal = unsafe { libc::sigwaitinfo(set, std::ptr::null_mut()) };
        if signal == libc::SIGCHLD {
            reap(daemon);
        } else if signal > 0 {
            // SAFETY: signals the daemon, our own child, which is reaped only in `reap`.
            unsafe { libc::kill(daemon, signal) };
        }
    }
}

/// Reaps every child that ended: adopted orphans, and the daemon, whose end ends the keeper.
fn reap(daemon: libc::pid_t) {
    loop {
        let mut status = 0;
        // SAFETY: waits for any child of this single-threaded process, without blocking.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if pid <= 0 {
            return;
        }
        if pid == daemon {
            let code = if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else if libc::WIFSIGNALED(status) {
                128 + libc::WTERMSIG(status)
            } else {
                1
            };
            // SAFETY: ends the keeper at once: its buffers are copies of the daemon's, which
            // flushes its own.
            unsafe { libc::_exit(code) };
        }
    }
}
