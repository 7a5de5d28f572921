//! Keeping what a process holds (the model keys, the environment it started with) out of reach
//! of the person's other processes, among them everything an agent starts.
//!
//! A process of the same user may read another's `/proc/PID/environ` and `/proc/PID/mem`, and
//! ptrace it, unless the target is not *dumpable*. Taking a key out of the environment is not
//! enough: `environ` shows the environment the process started with, and the key stays on the
//! heap. A non-dumpable process refuses all three to anyone without `CAP_SYS_PTRACE` (root, or
//! a debugger the person starts as root), and no core file of it is written.

use std::io;

/// Makes this process non-dumpable. Call it first, before a key or a config is read; children
/// keep the flag until they exec another program, which resets it.
pub fn seal() -> io::Result<()> {
    // SAFETY: prctl with PR_SET_DUMPABLE only sets a flag of this process.
    if unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether this process is sealed.
pub fn sealed() -> bool {
    // SAFETY: prctl with PR_GET_DUMPABLE only reads a flag of this process.
    unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) == 0 }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_sealed_process_says_so() {
        // Sealing the test process itself would change it for every other test: a child does it.
        // SAFETY: fork in a test whose child only calls async-signal-safe functions and exits.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let code = match (super::seal(), super::sealed()) {
                (Ok(()), true) => 0,
                _ => 1,
            };
            // SAFETY: _exit ends the child at once, running nothing of the parent's.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: waits for the child forked above.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    }
}
