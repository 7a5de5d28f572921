//! X errors as shuttle's errors: a connection lost, stalled or refused, and a request the
//! server rejected, each naming what was asked.

use desk::DeskError;
use x11rb::errors::{ConnectError, ConnectionError, ReplyError};

/// The windowing system, as errors and `status` name it.
pub(crate) const SYSTEM: &str = "x11";

pub(crate) fn connect_error(display: &str, e: ConnectError) -> DeskError {
    DeskError::Unreachable {
        system: SYSTEM,
        reason: format!(
            "cannot connect to X display {display}: {e}; check that the X server is running and \
             DISPLAY is right"
        ),
    }
}

pub(crate) fn disconnected(e: impl std::fmt::Display) -> DeskError {
    DeskError::Disconnected {
        system: SYSTEM,
        reason: e.to_string(),
    }
}

pub(crate) fn lost(e: ConnectionError) -> DeskError {
    match &e {
        ConnectionError::IoError(io) if io.kind() == std::io::ErrorKind::TimedOut => {
            DeskError::Stalled {
                system: SYSTEM,
                reason: io.to_string(),
            }
        }
        _ => disconnected(e),
    }
}

pub(crate) fn rejected(what: &str, reason: String) -> DeskError {
    DeskError::Rejected {
        system: SYSTEM,
        what: what.into(),
        reason,
    }
}

pub(crate) fn reply_error(what: &str, e: ReplyError) -> DeskError {
    match e {
        ReplyError::ConnectionError(e) => lost(e),
        ReplyError::X11Error(x) => rejected(what, format!("{:?}", x.error_kind)),
    }
}
