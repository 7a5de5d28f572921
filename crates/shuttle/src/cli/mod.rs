//! The shell side of shuttle: `shuttle desk VERB`, `status`, `stop`, `resume`, `config check`,
//! `journal`, `watch`, `doctor` and `setup`.

pub mod config;
pub mod daemon;
pub mod desk;
pub mod doctor;
pub mod journal;
pub mod setup;
pub mod watch;

/// Exit status for an error reply or an unreachable daemon.
pub const EXIT_FAILED: u8 = 1;
/// Exit status for a command line that could not be understood.
pub const EXIT_USAGE: u8 = 2;

/// Prints a result on stdout. A reader that went away (`shuttle desk ... | head`) is not an
/// error: the call itself succeeded.
pub fn print_result(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
