//! Which way an action's input goes under `[daemon] input`: on the person's own pointer and
//! keyboard, or from the agent's seat ([`Background`]), behind the person's back.
//!
//! Under `background` an action that cannot go that way is refused and nothing is sent; under
//! `auto` it goes in the foreground instead and its result says `"input": "foreground"`.

use std::sync::Arc;

use desk_core::results::{InputWay, Route, Unverified};

use super::admitted::lands_on;
use super::desk::{Desk, Spot};
use super::policy::InputMode;
use crate::error::DeskError;
use crate::intent::Target;
use crate::system::Background;

/// How one action's input goes.
pub enum Way {
    /// On the person's pointer and keyboard; the route is what the result says about it.
    Foreground(Route),
    /// From the agent's own seat.
    Background(Arc<dyn Background>),
}

impl Desk {
    /// How this action's input goes. `refusal` is why this action cannot go in the
    /// background (a window it must name and does not, a click); `None` when it can.
    pub fn way(&self, refusal: Option<DeskError>) -> Result<Way, DeskError> {
        let mode = self.policy.input;
        if mode == InputMode::Foreground {
            return Ok(Way::Foreground(Route::default()));
        }
        match (&self.backend.background, refusal) {
            (_, Some(refusal)) => self.in_front(refusal).map(Way::Foreground),
            (Some(background), None) => Ok(Way::Background(background.clone())),
            (None, None) => self
                .in_front(DeskError::Unsupported(
                    "this desktop cannot send input in the background: that needs the person's \
                     own X display with XInput 2.2 (a private display or Wayland has no second \
                     seat); set [daemon] input = \"foreground\" or \"auto\""
                        .into(),
                ))
                .map(Way::Foreground),
        }
    }

    /// The route of input that goes in the foreground although it could not go in the
    /// background (`refusal` says why): refused under background input, said under auto.
    pub fn in_front(&self, refusal: DeskError) -> Result<Route, DeskError> {
        match self.policy.input {
            InputMode::Foreground => Ok(Route::default()),
            InputMode::Auto => Ok(Route {
                input: Some(InputWay::Foreground),
                unverified: None,
            }),
            InputMode::Background => Err(refusal),
        }
    }

    /// Why pointer input at `spot` cannot go in the background: another window is on top of
    /// its window there, and background input does not raise windows. `None` when it shows.
    pub fn covered(&self, spot: &Spot) -> Result<Option<DeskError>, DeskError> {
        let (x, y) = (spot.x, spot.y);
        let now = self.top_at(x, y)?;
        if lands_on(&now, &spot.on) {
            return Ok(None);
        }
        Ok(Some(DeskError::Changed(format!(
            "{} is under {} at ({x}, {y}), and input in the background does not raise windows: \
             scroll at a point where it shows",
            spot.target(),
            now.target(Target::Background)
        ))))
    }

    /// The window with the person's keyboard focus, to compare after background input.
    pub fn persons_focus(&self) -> Option<String> {
        self.focused().ok()?.id().map(String::from)
    }

    /// `route`, marked unverified when the person's focus is no longer on `before`: a window
    /// manager that focuses the window under any pointer moved it, and the agent should know.
    pub fn kept_focus(&self, before: Option<String>, route: Route) -> Route {
        let after = self.persons_focus();
        if after == before {
            return route;
        }
        let name = |id: Option<String>| id.unwrap_or_else(|| "no window".into());
        let moved = format!(
            "the person's focus moved from {} to {} while this ran (a window manager that \
             focuses the window under any pointer does that)",
            name(before),
            name(after)
        );
        let unverified = match route.unverified {
            Some(sent) => Unverified {
                effect: format!("{}; {moved}", sent.effect),
                ..sent
            },
            None => Unverified {
                effect: moved,
                note: "tell the person their focus moved, and check their window before going \
                       on"
                .into(),
                escalation: "ask the person for [daemon] input = \"foreground\", or for a \
                             window manager that focuses on click"
                    .into(),
            },
        };
        Route {
            unverified: Some(unverified),
            ..route
        }
    }

    /// Whether a press runs the node's action rather than clicking it: input goes in the
    /// background (or may, under auto), and an action needs no pointer.
    pub fn presses_behind(&self) -> bool {
        self.policy.input != InputMode::Foreground
    }
}

/// The route of text typed in the background, judged by the field with the app's focus before
/// (`before`) and after (`after`), each its node id and text: verified when it is the same
/// field and it shows `text` once more than it did.
pub fn typed_behind(
    effect: String,
    text: &str,
    before: Option<(String, String)>,
    after: Option<(String, String)>,
) -> Route {
    match (before, after) {
        (Some((was, old)), Some((is, new)))
            if was == is && new.matches(text).count() > old.matches(text).count() =>
        {
            confirmed_behind()
        }
        _ => behind(effect),
    }
}

/// The route of background input whose effect was seen: a node's action that its toolkit
/// said it ran, or text read back from its field.
pub fn confirmed_behind() -> Route {
    Route {
        input: Some(InputWay::Background),
        unverified: None,
    }
}

/// The refusal of background input that names no window: it goes to a named window only.
pub fn unnamed(window: Option<&str>, pid: Option<u32>, what: &str) -> Option<DeskError> {
    (window.is_none() && pid.is_none()).then(|| {
        DeskError::Invalid(format!(
            "{what} in the background goes to a named window: pass window (its id or title) or \
             pid"
        ))
    })
}

/// The route of input sent in the background: `effect` says what went where. Nothing reads
/// the app back, so the result says to.
pub fn behind(effect: String) -> Route {
    Route {
        input: Some(InputWay::Background),
        unverified: Some(Unverified {
            effect,
            note: "read the window back before relying on it, and do not send it again \
                   unchecked: an app may ignore a second keyboard or pointer"
                .into(),
            escalation: "press or set the element by its id, or ask the person for \
                         [daemon] input = \"auto\""
                .into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(id: &str, text: &str) -> Option<(String, String)> {
        Some((id.into(), text.into()))
    }

    #[test]
    fn typing_is_verified_only_when_the_same_field_shows_the_text_once_more() {
        let verified = |before, after| {
            typed_behind("e".into(), "ab", before, after)
                .unverified
                .is_none()
        };
        assert!(verified(field("f", "x"), field("f", "xab")));
        assert!(verified(field("f", "ab"), field("f", "abab")));
        assert!(!verified(field("f", "ab"), field("f", "ab")), "nothing new");
        assert!(
            !verified(field("f", "x"), field("g", "xab")),
            "another field"
        );
        assert!(!verified(None, field("f", "ab")), "no field before");
        assert!(!verified(field("f", "x"), None), "no field after");
    }
}
