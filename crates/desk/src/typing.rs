//! Typing in batches, shared by the backends that type on a keyboard of their own: between two
//! batches the call may have been cancelled, or the focus may have left the window the text is
//! for, and typing stops there, saying how much went out.

use desk_core::app_text::Quoted;
use desk_core::window::Window;

use crate::cancel::Cancel;
use crate::error::DeskError;
use crate::progress::Progress;

/// Types `text` in batches of `size` characters with `send`, which answers how many of a batch
/// went out: all of them, or fewer with the error that stopped it. Before each batch it checks
/// `cancel` and, after the first, that `focused` still has the focus (`focus_now` answers the
/// focused window's id); after each it tells `progress`. Answers how many characters were
/// typed.
pub fn in_batches(
    text: &str,
    size: usize,
    focused: Option<&Window>,
    cancel: &Cancel,
    progress: &Progress,
    focus_now: impl Fn() -> Result<Option<String>, DeskError>,
    mut send: impl FnMut(&str) -> Result<usize, (usize, DeskError)>,
) -> Result<usize, DeskError> {
    let chars: Vec<char> = text.chars().collect();
    let total = chars.len();
    let mut typed = 0;
    for batch in chars.chunks(size) {
        if cancel.is_cancelled() {
            return Err(DeskError::Cancelled {
                done: format!("{typed} of {total} characters were typed"),
            });
        }
        if let Some(window) = focused
            && typed > 0
        {
            let now = focus_now()?;
            if now.as_deref() != Some(window.id.as_str()) {
                return Err(DeskError::TypingEnded {
                    why: format!(
                        "the focus left window {} {} (it is now on {})",
                        window.id,
                        Quoted(&window.title),
                        now.as_deref().unwrap_or("no window")
                    ),
                    typed,
                    total,
                });
            }
        }
        let batch: String = batch.iter().collect();
        match send(&batch) {
            Ok(sent) => {
                typed += sent;
                progress.typed(typed, total);
            }
            Err((sent, e)) if typed + sent > 0 => {
                return Err(DeskError::TypingEnded {
                    why: e.unwrapped().to_string(),
                    typed: typed + sent,
                    total,
                });
            }
            Err((_, e)) => return Err(e),
        }
    }
    Ok(typed)
}

/// `text` cut into runs of control characters (typed as keys) and of the rest.
pub fn runs(text: &str) -> Vec<(bool, &str)> {
    let control = |c: char| matches!(c, '\n' | '\r' | '\t');
    let mut runs = Vec::new();
    let mut start = 0;
    let mut current = None;
    for (at, ch) in text.char_indices() {
        let this = control(ch);
        if current.is_some_and(|c| c != this) {
            runs.push((current.unwrap_or(false), &text[start..at]));
            start = at;
        }
        current = Some(this);
    }
    if let Some(c) = current {
        runs.push((c, &text[start..]));
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_cut_into_runs_of_control_characters_and_the_rest() {
        assert_eq!(runs(""), Vec::<(bool, &str)>::new());
        assert_eq!(runs("héllo"), [(false, "héllo")]);
        assert_eq!(
            runs("a\n\tb€\nc"),
            [
                (false, "a"),
                (true, "\n\t"),
                (false, "b€"),
                (true, "\n"),
                (false, "c")
            ]
        );
        assert_eq!(runs("\nx"), [(true, "\n"), (false, "x")]);
    }
}
