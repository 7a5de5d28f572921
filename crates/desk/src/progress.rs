//! News of a running call, for a caller that asked for it: what a launch has reached, how much
//! of a text went out. Best effort: a caller that stopped listening loses news, never the call.

use std::fmt;
use std::sync::Arc;

/// Where a call tells its news; by default nowhere.
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<dyn Fn(String) + Send + Sync>>);

impl Progress {
    /// News told to `sink`, one line at a time.
    pub fn to(sink: impl Fn(String) + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(sink)))
    }

    /// Tells the line `news` makes, made only when someone listens. In shuttle's words: never
    /// app text.
    pub fn tell(&self, news: impl FnOnce() -> String) {
        if let Some(sink) = &self.0 {
            sink(news());
        }
    }

    /// Tells how much of a text has gone out.
    pub fn typed(&self, typed: usize, total: usize) {
        self.tell(|| format!("typed {typed} of {total} characters"));
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(told)"
        } else {
            "Progress(untold)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn news_is_made_only_for_a_listener() {
        Progress::default().tell(|| unreachable!("nobody listens"));
        let heard = Arc::new(Mutex::new(Vec::new()));
        let ear = heard.clone();
        let progress = Progress::to(move |line| ear.lock().unwrap().push(line));
        progress.typed(32, 100);
        assert_eq!(*heard.lock().unwrap(), ["typed 32 of 100 characters"]);
    }
}
