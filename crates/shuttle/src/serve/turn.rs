//! The desk turn: desk actions run one at a time, so two agents never type at once.
//!
//! Waiters are served in arrival order (tokio's mutex is fair). A caller that cannot get the turn
//! within the configured wait (`[daemon] turn_wait_ms`, 15 s by default) fails with `desk busy`
//! instead of piling up behind a long action.

use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use tokio::sync::{Mutex, OwnedMutexGuard};

/// The turn, and who holds it.
#[derive(Debug, Default)]
pub struct Turn {
    lock: Arc<Mutex<()>>,
    holder: Arc<StdMutex<Option<Holder>>>,
}

/// Who has the turn, for `status` and the busy message.
#[derive(Debug, Clone)]
struct Holder {
    agent: String,
    tool: String,
}

/// Holding the turn; dropping it passes the turn on. It owns what it needs, so it can move to
/// the thread that runs the action and be dropped only when the action has really ended.
pub struct TurnGuard {
    holder: Arc<StdMutex<Option<Holder>>>,
    _guard: OwnedMutexGuard<()>,
}

impl Drop for TurnGuard {
    fn drop(&mut self) {
        *lock(&self.holder) = None;
    }
}

fn lock(holder: &StdMutex<Option<Holder>>) -> std::sync::MutexGuard<'_, Option<Holder>> {
    holder.lock().unwrap_or_else(|e| e.into_inner())
}

impl Turn {
    fn holder(&self) -> std::sync::MutexGuard<'_, Option<Holder>> {
        lock(&self.holder)
    }

    /// Waits up to `wait` for the turn.
    pub async fn take(&self, agent: &str, tool: &str, wait: Duration) -> Result<TurnGuard, String> {
        match tokio::time::timeout(wait, self.lock.clone().lock_owned()).await {
            Ok(guard) => {
                *self.holder() = Some(Holder {
                    agent: agent.into(),
                    tool: tool.into(),
                });
                Ok(TurnGuard {
                    holder: self.holder.clone(),
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

    const TURN_WAIT: Duration = Duration::from_secs(15);

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
