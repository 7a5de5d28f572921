//! Which way an action's input goes under `[daemon] input`: on the person's own pointer and
//! keyboard, or from the agent's own devices ([`Background`]), behind the person's back.
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

/// What an action sends, as far as the way its input goes is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// Keys or text, to a window the call named (`named`) or to whatever has the focus.
    Keyboard { named: bool },
    /// Wheel notches at a point of a window the call named or not, where another window may
    /// cover it (`covered`).
    Wheel { named: bool, covered: bool },
    /// A pointer button pressed on the screen (a click, a drag), a focus change, or screen
    /// pixels aimed at: window managers focus and raise a window any pointer presses in.
    Pointer,
    /// An element's action or selection, which needs no pointer and no keyboard.
    Action,
}

/// Why an action's input cannot go in the background. Each has a code that stays the same,
/// which refusals end with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Background input goes to a named window only.
    Unnamed,
    /// A pointer button press would take the person's focus.
    Pointer,
    /// This desktop has no devices of the agent's own.
    NoAgentDevices,
    /// Another window covers the point, and background input does not raise windows.
    Covered,
}

impl Refusal {
    /// Its code: `unnamed-window`, `pointer-press`, `no-agent-devices`, `covered`.
    pub fn code(self) -> &'static str {
        match self {
            Self::Unnamed => "unnamed-window",
            Self::Pointer => "pointer-press",
            Self::NoAgentDevices => "no-agent-devices",
            Self::Covered => "covered",
        }
    }

    /// The refusal of background keyboard or wheel input, `what` naming it.
    pub fn error(self, what: &str) -> DeskError {
        match self {
            Self::Unnamed => DeskError::Invalid(format!(
                "{what} in the background goes to a named window: pass window (its id or title) \
                 or pid"
            )),
            Self::NoAgentDevices => DeskError::Unsupported(
                "this desktop cannot send input in the background: that needs the person's \
                 own X display with XInput 2.2 (a private display or Wayland gives the agent no \
                 pointer and keyboard of its own); set [daemon] input = \"foreground\" or \
                 \"auto\""
                    .into(),
            ),
            Self::Pointer => DeskError::Unsupported(format!(
                "{what} is not sent in the background: window managers focus and raise a window \
                 that any pointer presses a button in, which would take the person's focus; \
                 press or act on the element by its id (its action runs in the background), or \
                 ask the person to set [daemon] input = \"auto\", which clicks in the foreground"
            )),
            Self::Covered => DeskError::Changed(format!(
                "{what}: the window is covered there, and input in the background does not raise \
                 windows"
            )),
        }
    }
}

/// The way an action's input goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// On the person's pointer and keyboard; `said` when the result must say so (under
    /// auto, for input that could not go in the background).
    Front { said: bool },
    /// From the agent's own devices (or, for an action, by the element alone).
    Behind,
    /// Nowhere: nothing is sent, for this reason.
    Refused(Refusal),
}

/// Decides, once per action, how its input goes under `mode`, on a desktop that can give the
/// agent devices of its own (`own_devices`) or not. Pure: what the desktop looks like is in
/// `input`.
pub fn decide(mode: InputMode, own_devices: bool, input: Input) -> Decision {
    if mode == InputMode::Foreground {
        return Decision::Front { said: false };
    }
    let refusal = match input {
        Input::Action => return Decision::Behind,
        Input::Pointer => Some(Refusal::Pointer),
        Input::Keyboard { named: false } | Input::Wheel { named: false, .. } => {
            Some(Refusal::Unnamed)
        }
        Input::Wheel { covered: true, .. } => Some(Refusal::Covered),
        Input::Keyboard { .. } | Input::Wheel { .. } if !own_devices => {
            Some(Refusal::NoAgentDevices)
        }
        Input::Keyboard { .. } | Input::Wheel { .. } => None,
    };
    match (refusal, mode) {
        (None, _) => Decision::Behind,
        (Some(_), InputMode::Auto) => Decision::Front { said: true },
        (Some(refusal), _) => Decision::Refused(refusal),
    }
}

/// How one action's input goes, as the desk carries it out.
#[derive(Clone)]
pub enum Way {
    /// On the person's pointer and keyboard; the route is what the result says about it.
    Foreground(Route),
    /// From the agent's own devices.
    Background(Arc<dyn Background>),
}

impl Desk {
    /// How this action's input goes ([`decide`]); a refusal is the error `why` gives for its
    /// reason, ending with the reason's code.
    pub fn way(
        &self,
        input: Input,
        why: impl FnOnce(Refusal) -> DeskError,
    ) -> Result<Way, DeskError> {
        let devices = self.backend.background.as_ref();
        match decide(self.policy.input, devices.is_some(), input) {
            Decision::Front { said } => Ok(Way::Foreground(Route {
                input: said.then_some(InputWay::Foreground),
                unverified: None,
            })),
            Decision::Behind => match devices {
                Some(devices) => Ok(Way::Background(devices.clone())),
                // Only an action goes behind with no devices: it runs by its element alone
                // (verbs ask `presses_behind` for it, not this).
                None => Ok(Way::Foreground(confirmed_behind())),
            },
            Decision::Refused(refusal) => Err(coded(why(refusal), refusal)),
        }
    }

    /// The route of input that only ever goes in the foreground (a pointer press, screen
    /// pixels): refused under background input with `refusal`, said under auto.
    pub fn in_front(&self, refusal: DeskError) -> Result<Route, DeskError> {
        match self.way(Input::Pointer, |_| refusal)? {
            Way::Foreground(route) => Ok(route),
            Way::Background(_) => unreachable!("pointer presses never go in the background"),
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
        decide(self.policy.input, false, Input::Action) == Decision::Behind
    }
}

/// `error`, its text ending with the code of `refusal`.
fn coded(error: DeskError, refusal: Refusal) -> DeskError {
    let code = refusal.code();
    match error {
        DeskError::Invalid(text) => DeskError::Invalid(format!("{text} (refusal: {code})")),
        DeskError::Changed(text) => DeskError::Changed(format!("{text} (refusal: {code})")),
        DeskError::Unsupported(text) => DeskError::Unsupported(format!("{text} (refusal: {code})")),
        other => other,
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

    #[test]
    fn the_way_is_decided_once_by_the_mode_the_devices_and_the_input() {
        use Decision::{Behind, Front, Refused};
        use InputMode::{Auto, Background, Foreground};
        let keys = Input::Keyboard { named: true };
        let unnamed = Input::Keyboard { named: false };
        let wheel = Input::Wheel {
            named: true,
            covered: false,
        };
        let covered = Input::Wheel {
            named: true,
            covered: true,
        };
        let front = Front { said: false };
        let said = Front { said: true };
        for input in [keys, unnamed, wheel, covered, Input::Pointer, Input::Action] {
            assert_eq!(decide(Foreground, true, input), front, "{input:?}");
        }
        let cases = [
            (keys, true, Behind, Behind),
            (wheel, true, Behind, Behind),
            (Input::Action, false, Behind, Behind),
            (keys, false, Refused(Refusal::NoAgentDevices), said),
            (unnamed, true, Refused(Refusal::Unnamed), said),
            (covered, true, Refused(Refusal::Covered), said),
            (Input::Pointer, true, Refused(Refusal::Pointer), said),
        ];
        for (input, own_devices, background, auto) in cases {
            assert_eq!(
                decide(Background, own_devices, input),
                background,
                "{input:?} {own_devices}"
            );
            assert_eq!(
                decide(Auto, own_devices, input),
                auto,
                "{input:?} {own_devices}"
            );
        }
        let codes: Vec<&str> = [
            Refusal::Unnamed,
            Refusal::Pointer,
            Refusal::NoAgentDevices,
            Refusal::Covered,
        ]
        .map(Refusal::code)
        .to_vec();
        assert_eq!(
            codes,
            [
                "unnamed-window",
                "pointer-press",
                "no-agent-devices",
                "covered"
            ]
        );
    }

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
