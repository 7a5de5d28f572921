//! The shell side of shuttle: `shuttle desk VERB` and `shuttle status`.

pub mod desk;
pub mod status;

/// Exit status for an error reply or an unreachable daemon.
pub const EXIT_FAILED: u8 = 1;
/// Exit status for a command line that could not be understood.
pub const EXIT_USAGE: u8 = 2;
