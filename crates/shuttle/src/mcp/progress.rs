//! Progress notifications for a call, when the client asked for them with a progress token:
//! from [`FIRST`] on, every [`EVERY`] and whenever the daemon sends news of the call (a
//! launch's stages, typing's count, a script's `desk.progress`). `progress` is the seconds the
//! call has run, rising with every notification; the message says the latest news.

use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use tokio::sync::mpsc::UnboundedReceiver;

/// When a call that is still running first reports progress, and how often after that.
const FIRST: Duration = Duration::from_millis(500);
const EVERY: Duration = Duration::from_secs(1);
/// News goes out at once unless a notification went this recently; then it waits for the next
/// tick, so typing's news every few dozen characters does not flood the client.
const GAP: Duration = Duration::from_millis(200);

/// One call's progress, as told to its client.
pub struct Progress<'a> {
    context: &'a RequestContext<RoleServer>,
    token: Option<ProgressToken>,
    /// The verb the agent called, as it named it.
    what: String,
    started: Instant,
    /// The latest news, and whether the client has been told it.
    latest: Option<String>,
    told_latest: bool,
    /// When the last notification went.
    sent: Option<Instant>,
    /// The progress the last notification carried, or would have: one cut short may have gone.
    last: f64,
}

impl<'a> Progress<'a> {
    /// The progress of tool `name`'s call, sent on the wire as `wire_tool`.
    pub fn new(context: &'a RequestContext<RoleServer>, name: &str, wire_tool: &str) -> Self {
        Self {
            context,
            token: context.meta.get_progress_token(),
            // desk's verbs go as desk_VERB on the wire.
            what: wire_tool.strip_prefix("desk_").unwrap_or(name).to_string(),
            started: Instant::now(),
            latest: None,
            told_latest: false,
            sent: None,
            last: 0.0,
        }
    }

    /// Whether the client asked for progress.
    pub fn asked(&self) -> bool {
        self.token.is_some()
    }

    /// Tells the client how the call goes, from `news`; never ends.
    pub async fn run(&mut self, news: &mut UnboundedReceiver<String>) {
        if !self.asked() {
            return std::future::pending().await;
        }
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + FIRST, EVERY);
        loop {
            let due = tokio::select! {
                _ = ticks.tick() => true,
                Some(line) = news.recv() => {
                    self.heard(line);
                    self.started.elapsed() >= FIRST
                        && self.sent.is_none_or(|at| at.elapsed() >= GAP)
                }
            };
            if due {
                self.notify().await;
            }
        }
    }

    /// Once the call has its answer: the news the client was not told yet, when it has been
    /// told anything (a call too short to report stays silent).
    pub async fn finish(&mut self, news: &mut UnboundedReceiver<String>) {
        while let Ok(line) = news.try_recv() {
            self.heard(line);
        }
        if self.sent.is_some() && !self.told_latest {
            self.notify().await;
        }
    }

    fn heard(&mut self, line: String) {
        self.latest = Some(line);
        self.told_latest = false;
    }

    async fn notify(&mut self) {
        let Some(token) = self.token.clone() else {
            return;
        };
        let elapsed = self.started.elapsed().as_secs_f64();
        let progress = ((elapsed * 1000.0).round() / 1000.0).max(self.last + 0.001);
        self.last = progress;
        let seconds = (elapsed * 10.0).round() / 10.0;
        let message = match &self.latest {
            Some(line) => format!("{}: {line} ({seconds} s)", self.what),
            None => format!("{}: running for {seconds} s", self.what),
        };
        let note = ProgressNotificationParam::new(token, progress).with_message(message);
        // A client that stopped listening is no reason to stop the call.
        let _ = self.context.peer.notify_progress(note).await;
        // Only once it went: a send cut short by the answer is sent again by `finish`.
        self.sent = Some(Instant::now());
        self.told_latest = true;
    }
}
