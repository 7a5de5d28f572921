//! How a call ended: the gate saw whether any input went out, so it decides the outcome.

use desk_core::call::Kind;
use desk_core::outcome::{Control, Outcome};
use serde_json::json;

use super::desk::Desk;
use crate::done::Done;
use crate::error::{DeskError, Link};

/// A call that ran: how it ended and, when it produced one, its result.
#[derive(Debug)]
pub struct Ran {
    /// How it ended.
    pub outcome: Outcome,
    /// The result to answer with: a completed call's, or a dry run's plan.
    pub done: Option<Done>,
    /// The state the call left the desktop connection in: unless sound, the next call must
    /// connect afresh.
    pub link: Link,
}

impl Desk {
    /// The outcome of a call of `kind` that ended with `result`.
    pub fn finish(&self, kind: Kind, result: Result<Done, DeskError>) -> Ran {
        let link = result.as_ref().err().map_or(Link::Sound, DeskError::link);
        let (outcome, done) = match result {
            Ok(done) => (Outcome::Completed, Some(done)),
            Err(DeskError::DryRun(would)) => {
                let plan = json!({
                    "dry_run": true,
                    "would": would,
                    "note": "dry run is on ([safety] dry_run): every check passed and nothing \
                             was sent; report the plan rather than retrying"
                });
                let reason = format!("dry run: would {would}");
                (
                    Outcome::refused_by(Control::DryRun, reason),
                    Some(Done::json(plan)),
                )
            }
            Err(e) => (self.failure(kind, &e), None),
        };
        Ran {
            outcome,
            done,
            link,
        }
    }

    fn failure(&self, kind: Kind, e: &DeskError) -> Outcome {
        let stopped = self.caller.cancel.is_stopped();
        let reason = if stopped {
            format!("stopped by the user: {e}")
        } else {
            e.to_string()
        };
        let by = if stopped {
            Some(Control::Stop)
        } else {
            e.control()
        };
        match (kind, by) {
            (Kind::Act, by) => Outcome::action_failed(self.sent.get(), by, reason),
            (_, Some(by)) => Outcome::refused_by(by, reason),
            (_, None) => Outcome::Failed { reason },
        }
    }
}
