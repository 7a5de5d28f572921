//! The desk turn: desk actions run one at a time, so two agents never type at once.
//!
//! Waiters are served in arrival order (tokio's mutex is fair). A caller that cannot get the turn
//! within the configured wait (`[daemon] turn_wait_ms`, 15 s by default) fails with `desk busy`
//! instead of piling up behind a long action.
//!
//! A script run takes the turn for its whole life and owns the desk: its own actions (calls
//! whose agent_id is the run's name) pass, one at a time among themselves, while everyone
//! else's wait for the run to end.

use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use tokio::sync::{Mutex, OwnedMutexGuard};

/// The turn, and who holds it.
#[derive(Debug, Default)]
pub struct Turn {
    lock: Arc<Mutex<()>>,
    holder: Arc<StdMutex<Option<Holder>>>,
    /// One action at a time among a run's own calls.
    owned: Arc<Mutex<()>>,
}

/// Who has the turn, for `status` and the busy message.
#[derive(Debug, Clone)]
struct Holder {
    agent: String,
    tool: String,
    /// A run owns the desk: calls from `agent` pass.
    run: bool,
}

/// Holding the turn; dropping it passes the turn on. It owns what it needs, so it can move to
/// the thread that runs the action and be dropped only when the action has really ended.
pub struct TurnGuard {
    /// The record to clear when this guard held the turn itself (not a run's own action).
    holder: Option<Arc<StdMutex<Option<Holder>>>>,
    _guard: OwnedMutexGuard<()>,
}

impl Drop for TurnGuard {
    fn drop(&mut self) {
        if let Some(holder) = &self.holder {
            *lock(holder) = None;
        }
    }
}

fn lock(holder: &StdMutex<Option<Holder>>) -> std::sync::MutexGuard<'_, Option<Holder>> {
    holder.lock().unwrap_or_else(|e| e.into_inner())
}

impl Turn {
    fn holder(&self) -> std::sync::MutexGuard<'_, Option<Holder>> {
        lock(&self.holder)
    }

    /// Waits up to `wait` for the turn, for one action. An action of the run that owns the desk
    /// passes, one at a time.
    pub async fn take(&self, agent: &str, tool: &str, wait: Duration) -> Result<TurnGuard, String> {
        let owner = self
            .holder()
            .as_ref()
            .is_some_and(|h| h.run && !agent.is_empty() && h.agent == agent);
        if owner {
            return match tokio::time::timeout(wait, self.owned.clone().lock_owned()).await {
                Ok(guard) => Ok(TurnGuard {
                    holder: None,
                    _guard: guard,
                }),
                Err(_) => Err(format!(
                    "desk busy: another action of run {agent:?} has held the desk for over {} s",
                    wait.as_secs()
                )),
            };
        }
        self.take_as(agent, tool, wait, false).await
    }

    /// Waits up to `wait` for the turn, for a run named `agent` that owns the desk until the
    /// guard drops.
    pub async fn take_for_run(
        &self,
        agent: &str,
        tool: &str,
        wait: Duration,
    ) -> Result<TurnGuard, String> {
        self.take_as(agent, tool, wait, true).await
    }

    async fn take_as(
        &self,
        agent: &str,
        tool: &str,
        wait: Duration,
        run: bool,
    ) -> Result<TurnGuard, String> {
        match tokio::time::timeout(wait, self.lock.clone().lock_owned()).await {
            Ok(guard) => {
                *self.holder() = Some(Holder {
                    agent: agent.into(),
                    tool: tool.into(),
                    run,
                });
                Ok(TurnGuard {
                    holder: Some(self.holder.clone()),
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
            } else if h.run {
                format!("{} run {:?}", h.tool, h.agent)
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
    const SHORT: Duration = Duration::from_millis(30);

    #[tokio::test]
    async fn one_holder_at_a_time_and_busy_after_the_wait() {
        let turn = Turn::default();
        let first = turn.take("a1", "desk_type", TURN_WAIT).await.unwrap();
        assert_eq!(
            turn.describe_holder().unwrap(),
            "desk_type for agent \"a1\""
        );
        let err = turn.take("a2", "desk_click", SHORT).await.err().unwrap();
        assert!(
            err.starts_with("desk busy: desk_type for agent \"a1\" has held"),
            "{err}"
        );
        drop(first);
        assert!(turn.describe_holder().is_none());
        assert!(turn.take("a2", "desk_click", SHORT).await.is_ok());
    }

    #[tokio::test]
    async fn a_run_owns_the_desk_and_its_own_actions_pass_one_at_a_time() {
        let turn = Turn::default();
        let run = turn
            .take_for_run("a/run-1", "script_run", SHORT)
            .await
            .unwrap();
        let err = turn.take("a", "desk_click", SHORT).await.err().unwrap();
        assert!(err.contains("script_run run \"a/run-1\""), "{err}");
        let own = turn.take("a/run-1", "desk_click", SHORT).await.unwrap();
        assert!(turn.take("a/run-1", "desk_type", SHORT).await.is_err());
        drop(own);
        drop(turn.take("a/run-1", "desk_type", SHORT).await.unwrap());
        assert!(
            turn.describe_holder().is_some(),
            "a run's action leaves the run's hold"
        );
        drop(run);
        assert!(turn.take("a", "desk_click", SHORT).await.is_ok());
    }
}
