//! Picking the one window a call names.
//!
//! A `window` argument is a window id, an exact title, or a title substring; `pid` narrows the
//! choice to one process. An id matches however another tool spells it: `0x00a00003` (wmctrl)
//! and `10485763` (xdotool) both name the window `windows` lists as `0xa00003`. A name that two windows match alike is refused with the candidates:
//! acting on the wrong window is worse than asking again.

use crate::window::Window;

/// Why no single window could be picked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    /// Neither `window` nor `pid` was given.
    #[error("name a window: pass `window` (an id or title from `windows`) or `pid`")]
    NoTarget,
    /// No window has this id (any more).
    #[error("window {query} does not exist (any more); call `windows` for the current list")]
    NoSuchId {
        /// The `window` argument.
        query: String,
    },
    /// Nothing matches the name.
    #[error("no window matches {query:?}{}; call `windows` for the current list", list_titles(.titles))]
    NotFound {
        /// The `window` argument.
        query: String,
        /// Titles of the windows that were considered.
        titles: Vec<String>,
    },
    /// The process has no window.
    #[error("process {pid} has no window on this desk; call `windows` for the current list")]
    NoWindowForPid {
        /// The `pid` argument.
        pid: u32,
    },
    /// Several windows match alike.
    #[error(
        "{query:?} matches {} windows alike: {}; pass the id, or a longer title only one window has",
        .candidates.len(), list_candidates(.candidates)
    )]
    Ambiguous {
        /// The `window` argument.
        query: String,
        /// `(id, title)` of each match.
        candidates: Vec<(String, String)>,
    },
}

fn list_titles(titles: &[String]) -> String {
    if titles.is_empty() {
        return " (no windows are open)".into();
    }
    let shown: Vec<String> = titles.iter().take(12).map(|t| format!("{t:?}")).collect();
    let more = titles.len().saturating_sub(shown.len());
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(" among {}{tail}", shown.join(", "))
}

fn list_candidates(candidates: &[(String, String)]) -> String {
    candidates
        .iter()
        .map(|(id, title)| format!("{id} {}", crate::app_text::Quoted(title)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Picks the window `window` and `pid` name in `windows` (listed topmost first).
///
/// With `pid` alone, the process's active window, else its topmost one.
pub fn pick_window<'w>(
    windows: &'w [Window],
    window: Option<&str>,
    pid: Option<u32>,
) -> Result<&'w Window, MatchError> {
    let of_pid = |w: &&Window| pid.is_none_or(|p| w.pid == Some(p));
    let Some(query) = window else {
        let pid = pid.ok_or(MatchError::NoTarget)?;
        let mut own = windows.iter().filter(of_pid).peekable();
        let first = own
            .peek()
            .copied()
            .ok_or(MatchError::NoWindowForPid { pid })?;
        return Ok(own.find(|w| w.active).unwrap_or(first));
    };
    let number = id_number(query);
    let same_id = |w: &&Window| w.id == query || number.is_some() && id_number(&w.id) == number;
    if let Some(w) = windows.iter().filter(of_pid).find(same_id) {
        return Ok(w);
    }
    let lower = query.to_lowercase();
    let tiers: [&dyn Fn(&Window) -> bool; 3] =
        [&|w| w.title == query, &|w| w.title.contains(query), &|w| {
            w.title.to_lowercase().contains(&lower)
        }];
    for matches in tiers {
        let hits: Vec<&Window> = windows
            .iter()
            .filter(of_pid)
            .filter(|w| matches(w))
            .collect();
        match hits.as_slice() {
            [] => continue,
            [one] => return Ok(one),
            many => {
                return Err(MatchError::Ambiguous {
                    query: query.into(),
                    candidates: many
                        .iter()
                        .map(|w| (w.id.clone(), w.title.clone()))
                        .collect(),
                });
            }
        }
    }
    if looks_like_id(query) {
        return Err(MatchError::NoSuchId {
            query: query.into(),
        });
    }
    Err(MatchError::NotFound {
        query: query.into(),
        titles: windows
            .iter()
            .filter(of_pid)
            .map(|w| w.title.clone())
            .collect(),
    })
}

/// The number a window id spells: `0x` and hex digits, or decimal digits.
fn id_number(id: &str) -> Option<u64> {
    match id.strip_prefix("0x").or_else(|| id.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) => id.parse().ok(),
        None => None,
    }
}

/// `0x` and hex digits: how window ids look. No title is searched for such a name in vain.
fn looks_like_id(query: &str) -> bool {
    query
        .strip_prefix("0x")
        .is_some_and(|hex| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(id: &str, title: &str, pid: u32, active: bool) -> Window {
        Window {
            id: id.into(),
            title: title.into(),
            role: "window".into(),
            pid: Some(pid),
            active,
            app: None,
            shell: false,
            owner: None,
            modal: None,
            blocks: None,
        }
    }

    fn desk() -> Vec<Window> {
        vec![
            win("0x1", "Notes — draft", 10, false),
            win("0x2", "Notes", 10, true),
            win("0x3", "Terminal", 20, false),
            win("0x4", "Terminal 2", 30, false),
            win("0x5", "Report.odt", 40, false),
        ]
    }

    fn pick(window: Option<&str>, pid: Option<u32>) -> Result<String, MatchError> {
        let d = desk();
        pick_window(&d, window, pid).map(|w| w.id.clone())
    }

    #[test]
    fn id_then_exact_then_substring_then_any_case() {
        assert_eq!(pick(Some("0x3"), None).unwrap(), "0x3");
        assert_eq!(pick(Some("Notes"), None).unwrap(), "0x2");
        assert_eq!(pick(Some("draft"), None).unwrap(), "0x1");
        assert_eq!(pick(Some("report"), None).unwrap(), "0x5");
        assert_eq!(pick(Some("Terminal"), None).unwrap(), "0x3");
    }

    #[test]
    fn ids_match_however_other_tools_spell_them() {
        let windows = vec![
            win("0xa00003", "Editor", 1, false),
            win("0x5", "2024", 2, false),
        ];
        for spelling in ["0xa00003", "0x00a00003", "0XA00003", "10485763"] {
            assert_eq!(
                pick_window(&windows, Some(spelling), None).unwrap().id,
                "0xa00003"
            );
        }
        assert_eq!(pick_window(&windows, Some("2024"), None).unwrap().id, "0x5");
        assert!(pick_window(&windows, Some("0x00a00004"), None).is_err());
    }

    #[test]
    fn alike_matches_are_refused_with_candidates() {
        let err = pick(Some("Termin"), None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "\"Termin\" matches 2 windows alike: 0x3 ⟪\"Terminal\"⟫, 0x4 ⟪\"Terminal 2\"⟫; \
             pass the id, or a longer title only one window has"
        );
    }

    #[test]
    fn pid_narrows_and_picks_the_active_window() {
        assert_eq!(pick(Some("Termin"), Some(30)).unwrap(), "0x4");
        assert_eq!(pick(None, Some(10)).unwrap(), "0x2");
        assert_eq!(pick(None, Some(20)).unwrap(), "0x3");
        assert_eq!(
            pick(Some("0x3"), Some(30)).unwrap_err(),
            MatchError::NoSuchId {
                query: "0x3".into()
            }
        );
        assert_eq!(
            pick(Some("Term"), Some(10)).unwrap_err(),
            MatchError::NotFound {
                query: "Term".into(),
                titles: vec!["Notes — draft".into(), "Notes".into()],
            }
        );
        assert_eq!(
            pick(None, Some(99)).unwrap_err(),
            MatchError::NoWindowForPid { pid: 99 }
        );
    }

    #[test]
    fn nothing_named_or_nothing_found() {
        assert_eq!(pick(None, None).unwrap_err(), MatchError::NoTarget);
        let err = pick(Some("Browser"), None).unwrap_err().to_string();
        assert!(
            err.starts_with("no window matches \"Browser\" among \"Notes — draft\""),
            "{err}"
        );
        let empty: Vec<Window> = Vec::new();
        let err = pick_window(&empty, Some("x"), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("(no windows are open)"), "{err}");
    }
}
