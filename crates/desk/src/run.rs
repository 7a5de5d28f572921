//! Running one desk call: the verb under the policy, the marker while it acts, its outcome.

use std::sync::Arc;

use desk_core::call::{DeskCall, Kind};

use crate::guard::{Caller, Desk, Policy, Ran};
use crate::system::Backend;
use crate::verbs;

/// Runs `call` for `caller` on `backend` under `policy`. Blocking; long calls check the
/// caller's cancel flag as they go.
pub fn run(backend: &Backend, policy: Arc<Policy>, caller: Caller, call: &DeskCall) -> Ran {
    let kind = call.verb().kind();
    let marked = kind == Kind::Act && policy.indicator && !policy.dry_run && !policy.read_only;
    if marked {
        backend.presence.indicate(true);
    }
    let desk = Desk::new(backend.clone(), policy, caller, kind);
    let result = verbs::dispatch(&desk, call);
    if marked {
        backend.presence.indicate(false);
    }
    desk.finish(kind, result)
}
