//! What each caller has been told about the windows, so that every reply can carry what changed
//! since that caller's previous reply: a dialog that opened after one reply went out is in the
//! next, whoever asked in between.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use desk_core::window::Window;

/// The most callers remembered; the one told longest ago is forgotten first (it then starts
/// afresh, as a new caller does).
const CALLERS: usize = 256;

/// What one caller was last told.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// The display's event stream it was told from.
    pub stream: u64,
    /// The count of the stream's latest event when it was told.
    pub last: u64,
    /// The windows it was told of (as it may see them); `None` before its first reply.
    pub windows: Option<Vec<Window>>,
    /// When its latest action started.
    pub acted: Option<Instant>,
    /// When it was last told (the book forgets first the caller told longest ago).
    pub told: Option<Instant>,
}

/// Every caller's [`Seen`], shared by the daemon's calls.
#[derive(Debug, Default)]
pub struct WindowNews {
    seen: Mutex<HashMap<String, Seen>>,
}

impl WindowNews {
    fn book(&self) -> std::sync::MutexGuard<'_, HashMap<String, Seen>> {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What `caller` was last told (a default for a new caller).
    pub fn seen(&self, caller: &str) -> Seen {
        self.book().get(caller).cloned().unwrap_or_default()
    }

    /// Notes that `caller`'s action started `at`.
    pub fn acted(&self, caller: &str, at: Instant) {
        let mut book = self.book();
        let seen = book.entry(caller.to_string()).or_default();
        seen.acted = Some(at);
        seen.told.get_or_insert(at);
        forget_oldest(&mut book);
    }

    /// Records what `caller` has now been told.
    pub fn told(&self, caller: &str, mut seen: Seen) {
        seen.told = Some(Instant::now());
        let mut book = self.book();
        book.insert(caller.to_string(), seen);
        forget_oldest(&mut book);
    }
}

fn forget_oldest(book: &mut HashMap<String, Seen>) {
    while book.len() > CALLERS {
        let oldest = book
            .iter()
            .min_by_key(|(_, seen)| seen.told)
            .map(|(caller, _)| caller.clone());
        match oldest {
            Some(caller) => book.remove(&caller),
            None => return,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_is_remembered_and_the_book_stays_bounded() {
        let news = WindowNews::default();
        assert!(news.seen("a").windows.is_none());
        let at = Instant::now();
        news.acted("a", at);
        news.told(
            "a",
            Seen {
                windows: Some(Vec::new()),
                ..news.seen("a")
            },
        );
        let a = news.seen("a");
        assert_eq!((a.acted, a.windows.map(|w| w.len())), (Some(at), Some(0)));
        for n in 0..CALLERS + 10 {
            news.told(&format!("c{n}"), Seen::default());
        }
        assert_eq!(news.book().len(), CALLERS);
        assert!(
            news.seen("a").windows.is_none(),
            "the oldest caller is forgotten first"
        );
    }
}
