//! The sessions of the vision verbs: named, per caller by default, ended for good.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use desk_core::geometry::Rect;

use crate::error::DeskError;

/// A screenshot a session was shown: its size and how it maps onto the screen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shot {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Screen pixels per screenshot pixel.
    pub scale: f64,
    /// The long edge it was asked for (0: full size), which the next screenshot reuses.
    pub max_edge: u32,
}

/// An element of a `computer_state`, as it was when listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// Its accessibility node id.
    pub node: String,
    /// The window it is in.
    pub window: String,
    /// Its role, such as `push button`.
    pub role: String,
    /// Its accessible name.
    pub name: String,
    /// Where it was on the screen; `None` when its app gives no position (GTK 4 before 4.10),
    /// so it is acted on through accessibility rather than at a point.
    pub bounds: Option<Rect>,
}

/// What one session holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Session {
    /// The latest screenshot it was shown.
    pub shot: Option<Shot>,
    /// The elements of its latest `computer_state`, by index.
    pub elements: Vec<Element>,
}

/// Every session, shared by the daemon's calls.
#[derive(Debug, Default)]
pub struct Sessions {
    book: Mutex<Book>,
}

#[derive(Debug, Default)]
struct Book {
    open: HashMap<String, Session>,
    ended: HashSet<String>,
    /// Each caller's current default session.
    defaults: HashMap<String, String>,
    /// The latest screenshot any session was shown, and that session's name.
    latest: Option<(String, Shot)>,
}

impl Sessions {
    fn book(&self) -> std::sync::MutexGuard<'_, Book> {
        // A panic elsewhere cannot leave the book half-written: every change is one insert.
        self.book.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The session a call uses: `named`, else `agent`'s default (one shared by callers with no
    /// agent id). An ended name is refused; an ended default is replaced by a new name.
    pub fn resolve(&self, agent: &str, named: Option<&str>) -> Result<String, DeskError> {
        let mut book = self.book();
        if let Some(name) = named {
            if book.ended.contains(name) {
                return Err(DeskError::Invalid(format!(
                    "session {name:?} has ended and cannot be used again; leave session out to \
                     use your default one, or name a new session"
                )));
            }
            return Ok(name.to_string());
        }
        if let Some(current) = book.defaults.get(agent) {
            return Ok(current.clone());
        }
        let base = if agent.is_empty() { "default" } else { agent };
        let mut name = base.to_string();
        let mut n = 1;
        while book.ended.contains(&name) {
            n += 1;
            name = format!("{base}#{n}");
        }
        book.defaults.insert(agent.to_string(), name.clone());
        Ok(name)
    }

    /// What session `name` holds now (empty when it holds nothing yet).
    pub fn get(&self, name: &str) -> Session {
        self.book().open.get(name).cloned().unwrap_or_default()
    }

    /// Records the screenshot session `name` was shown.
    pub fn shown(&self, name: &str, shot: Shot) {
        let mut book = self.book();
        book.latest = Some((name.to_string(), shot));
        book.open.entry(name.to_string()).or_default().shot = Some(shot);
    }

    /// Records the elements of session `name`'s latest state.
    pub fn listed(&self, name: &str, elements: Vec<Element>) {
        self.book()
            .open
            .entry(name.to_string())
            .or_default()
            .elements = elements;
    }

    /// The latest screenshot session `name` was shown: what its x,y are pixels of.
    pub fn shot_of(&self, name: &str) -> Option<Shot> {
        self.book().open.get(name).and_then(|s| s.shot)
    }

    /// The latest screenshot of session `name`, else of any session still open.
    pub fn scale_of(&self, name: &str) -> Option<Shot> {
        let book = self.book();
        book.open
            .get(name)
            .and_then(|s| s.shot)
            .or(book.latest.as_ref().map(|(_, shot)| *shot))
    }

    /// Ends session `name`: forgets it and refuses its name from now on. Says whether it held
    /// anything.
    pub fn end(&self, name: &str) -> bool {
        let mut book = self.book();
        book.ended.insert(name.to_string());
        book.defaults.retain(|_, current| current != name);
        if book.latest.as_ref().is_some_and(|(of, _)| of == name) {
            book.latest = None;
        }
        book.open.remove(name).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shot(scale: f64) -> Shot {
        Shot {
            width: 1024,
            height: 576,
            scale,
            max_edge: 1024,
        }
    }

    #[test]
    fn callers_get_their_own_default() {
        let sessions = Sessions::default();
        assert_eq!(sessions.resolve("a1", None).unwrap(), "a1");
        assert_eq!(sessions.resolve("", None).unwrap(), "default");
        assert_eq!(sessions.resolve("a1", Some("s")).unwrap(), "s");
        sessions.shown("a1", shot(2.0));
        assert_eq!(sessions.scale_of("a1").unwrap().scale, 2.0);
        // A session that was shown nothing reads any session's latest scale, but maps no
        // point by it.
        assert_eq!(sessions.scale_of("other").unwrap().scale, 2.0);
        assert_eq!(sessions.shot_of("other"), None);
        sessions.end("a1");
        assert_eq!(
            sessions.scale_of("other"),
            None,
            "an ended session's scale is forgotten"
        );
    }

    #[test]
    fn an_ended_name_is_refused_for_good_and_the_default_moves_on() {
        let sessions = Sessions::default();
        let first = sessions.resolve("a1", None).unwrap();
        sessions.shown(&first, shot(1.5));
        assert!(sessions.end(&first));
        let e = sessions
            .resolve("a1", Some(&first))
            .unwrap_err()
            .to_string();
        assert!(e.contains("has ended"), "{e}");
        let next = sessions.resolve("a1", None).unwrap();
        assert_eq!(next, "a1#2");
        assert_eq!(sessions.get(&next), Session::default());
        assert!(!sessions.end("never-used"));
        assert!(sessions.resolve("", Some("never-used")).is_err());
    }
}
