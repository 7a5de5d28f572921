//! The desk turn: desk actions run one at a time, so two agents never type at once.
//!
//! Waiters are served in arrival order (tokio's mutex is fair). A caller that cannot get the turn
//! within [`TURN_WAIT`] fails with `desk busy` instead of piling up behind a long action.

use std::sync::Mutex as StdMutex;
use std::time::Duration;

use tokio::sync::{Mutex, MutexGuard};

/// How long an action waits for its turn.
pub const TURN_WAIT: Duration = Duration::from_secs(15);

/// The turn, and who holds it.
#[derive(Debug, Default)]
pub struct Turn {
    lock: Mutex<()>,
    holder: StdMutex<Option<Holder>>,
}

/// Who has the turn, for `status` and the busy message.
#[derive(Debug, Clone)]
struct Holder {
    agent: String,
    tool: String,
}

/// Holding the turn; dropping it passes the turn on.
pub struct TurnGuard<'t> {
    turn: &'t Turn,
    _guard: MutexGuard<'t, ()>,
}

impl Drop for TurnGuard<'_> {
    fn drop(&mut self) {
        *self.turn.holder() = None;
    }
}

impl Turn {
    fn holder(&self) -> std::sync::MutexGuard<'_, Option<Holder>> {
        self.holder.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits up to `wait` for the turn.
    pub async fn take(
        &self,
        agent: &str,
        tool: &str,
        wait: Duration,
    ) -> Result<TurnGuard<'_>, String> {
        match tokio::time::timeout(wait, self.lock.lock()).await {
            Ok(guard) => {
                *self.holder() = Some(Holder {
                    agent: agent.into(),
                    tool: tool.into(),
                });
                Ok(TurnGuard {
                    turn: self,
                    _guard: guard,
                })
            }
            Err(_) => Err(format!(
                "desk busy: {} has held the desk for over {} s; try again when it is done",
                self.describe_holder()
                    .unwrap_or_else(|| "another action".into()),
                wait.as_secs()
            )),
        }
    }

    /// `desk_type for agent "a1"`, or `None` when the turn is free.
    pub fn describe_holder(&self) -> Option<String> {
        self.holder().as_ref().map(|h| {
            if h.agent.is_empty() {
                format!("{} (from the CLI)", h.tool)
            } else {
                format!("{} for agent {:?}", h.tool, h.agent)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_holder_at_a_time_and_busy_after_the_wait() {
        let turn = Turn::default();
        let first = turn.take("a1", "desk_type", TURN_WAIT).await.unwrap();
        assert_eq!(
            turn.describe_holder().unwrap(),
            "desk_type for agent \"a1\""
        );
        let err = turn
            .take("a2", "desk_click", Duration::from_millis(30))
            .await
            .err()
            .unwrap();
        assert!(
            err.starts_with("desk busy: desk_type for agent \"a1\" has held"),
            "{err}"
        );
        drop(first);
        assert!(turn.describe_holder().is_none());
        assert!(
            turn.take("a2", "desk_click", Duration::from_millis(30))
                .await
                .is_ok()
        );
    }
}
