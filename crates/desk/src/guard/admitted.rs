//! [`Admitted`]: an action the safety controls let through, and the only way to send input.
//!
//! Each input method first checks that what it sends to was admitted, then that it is still
//! where the input lands, right before the input goes out: keys go to the window that had the
//! focus when the action was admitted (a confirm dialog may have stood open meanwhile), and
//! pointer input lands only where the admitted window is the topmost window at the point,
//! raising a window the call named when another covers it. Only then does it mark the call as
//! having sent input.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use desk_core::app_text::Quoted;
use desk_core::call::{Button, Direction};
use desk_core::outcome::Control;
use desk_core::results::{AppAnswer, Route};
use desk_core::window::Window;

use super::desk::{Desk, Seen, Spot};
use super::nodes::ActingNodes;
use super::way::{self, Way};
use crate::error::DeskError;
use crate::intent::{Intent, Target};
use crate::keys::KeyCombo;
use crate::system::{Background, Clip, Ending, FrameChange, Launched, Pong};

/// How long a focus request may take to show.
const FOCUS_WAIT: Duration = Duration::from_secs(1);
/// How long a window that has no size on the screen yet (it opened a moment ago, such as a
/// dialog a shortcut asked for) may take to show before it is given the focus: a window
/// manager gives the focus only to a shown window.
const SHOW_WAIT: Duration = Duration::from_secs(3);
/// How long after an app's answer it is asked again, to see whether the input started work.
const GRACE: Duration = Duration::from_millis(5);
/// An answer within this long says the app is idle.
const PROMPT: Duration = Duration::from_millis(25);
/// The longest one ping is waited for before the wait looks at the cancel.
const ASK_STEP: Duration = Duration::from_millis(250);
use desk_core::a11y::role::PASSWORD_TEXT as PASSWORD_ROLE;
use desk_core::window::role::POPUP;

/// An admitted action: it may send input to its intent's targets, and nowhere else, the way
/// admission decided ([`super::way`]).
pub struct Admitted<'d> {
    desk: &'d Desk,
    intent: Intent,
    /// How its keys, text and wheel go: on the person's devices, or from the agent's own devices.
    way: Way,
    /// Under background input, the window that had the person's focus at admission, to tell
    /// whether it moved.
    persons: Option<String>,
    /// Under background input, the field with the app's focus before typing, and its text.
    before: RefCell<Option<(String, String)>>,
}

impl<'d> Admitted<'d> {
    pub(super) fn new(desk: &'d Desk, intent: Intent, way: Way) -> Self {
        let persons = match way {
            Way::Background(_) => desk.persons_focus(),
            Way::Foreground(_) => None,
        };
        Self {
            desk,
            intent,
            way,
            persons,
            before: RefCell::new(None),
        }
    }

    /// What the result says of where the input went: the route decided for the foreground;
    /// in the background, `effect` (what went where) unverified, and whether the person's
    /// focus moved.
    pub fn route(&self, effect: impl FnOnce() -> String) -> Route {
        match &self.way {
            Way::Foreground(route) => route.clone(),
            Way::Background(_) => self
                .desk
                .kept_focus(self.persons.clone(), way::behind(effect())),
        }
    }

    /// The route of `text` typed into `window`: in the background, verified when the field
    /// with the app's focus shows it once more than before ([`way::typed_behind`]).
    pub fn typed_route(&self, text: &str, window: Option<&Window>, effect: String) -> Route {
        match (&self.way, window) {
            (Way::Background(_), Some(window)) => {
                let route = way::typed_behind(
                    effect,
                    text,
                    self.before.borrow().clone(),
                    self.field_text(window),
                );
                self.desk.kept_focus(self.persons.clone(), route)
            }
            _ => self.route(|| effect),
        }
    }

    /// The agent's own devices, when the input goes in the background.
    fn behind(&self) -> Option<&dyn Background> {
        match &self.way {
            Way::Background(devices) => Some(&**devices),
            Way::Foreground(_) => None,
        }
    }

    /// Whether `target` is one the action was admitted for.
    fn admits(&self, target: &Target) -> bool {
        self.intent
            .targets
            .iter()
            .any(|admitted| match (admitted, target) {
                (Target::Window { id: a, .. }, Target::Window { id: b, .. }) => {
                    !a.is_empty() && a == b
                }
                (a, b) => a == b,
            })
    }

    /// Whether process `pid` owns one of the admitted targets.
    pub(super) fn admits_app(&self, pid: u32) -> bool {
        self.intent
            .targets
            .iter()
            .any(|t| matches!(t, Target::Window { pid: Some(p), .. } if *p == pid))
    }

    /// Refuses input to something the action was not admitted for: a verb that asks for it
    /// is a bug, and nothing goes out.
    pub(super) fn require(&self, admitted: bool, what: &str) -> Result<(), DeskError> {
        if admitted {
            return Ok(());
        }
        Err(DeskError::Invalid(format!(
            "{what} was not part of the action the safety controls admitted ({}); this is a bug \
             in shuttle, please report it",
            self.intent.describe()
        )))
    }

    /// Lets one input primitive through, unless the call was cancelled meanwhile. `sends` marks
    /// input an app receives (a key, a click, an action), as opposed to moving the pointer or
    /// the focus.
    fn pass(&self, what: &str, sends: bool) -> Result<(), DeskError> {
        if self.desk.caller.cancel.is_cancelled() {
            return Err(DeskError::Cancelled {
                done: format!("it stopped before {what}"),
            });
        }
        if sends {
            self.desk.sent.set(true);
        }
        Ok(())
    }

    /// Sends input an app receives: marks the call as having sent input, unless the backend
    /// says none of it went out after all.
    pub(super) fn sending<T>(
        &self,
        what: &str,
        send: impl FnOnce() -> Result<T, DeskError>,
    ) -> Result<T, DeskError> {
        let before = self.desk.sent.get();
        self.pass(what, true)?;
        match send() {
            Err(e @ DeskError::Unsent(_)) => {
                self.desk.sent.set(before);
                Err(e.unwrapped())
            }
            other => other,
        }
    }

    /// Gives `window` the keyboard focus, raising it, and checks that it has it.
    pub fn focus(&self, window: &Window) -> Result<(), DeskError> {
        self.require(self.admits(&Target::window(window)), "focusing a window")?;
        let display = &self.desk.backend.display;
        if display.has_focus(&window.id)? {
            return Ok(());
        }
        let unshown = || {
            display
                .window_rect(&window.id)
                .map(|rect| rect.is_some_and(|r| r.w == 0 || r.h == 0))
        };
        let deadline = Instant::now() + SHOW_WAIT;
        while unshown()? && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        if self.activate(window, || display.has_focus(&window.id))? {
            return Ok(());
        }
        let windows = display.windows()?;
        if !windows.iter().any(|w| w.id == window.id) {
            return Err(DeskError::WindowGone {
                id: window.id.clone(),
            });
        }
        let focused = windows.into_iter().find(|w| w.active);
        let active = match focused.map_or(Seen::Nothing, |w| self.desk.seen(w)) {
            Seen::Window(w) if w.id == window.id => {
                "this window, but the keyboard focus did not follow; the app may not accept it yet"
                    .into()
            }
            Seen::Window(w) => format!("{} {}", w.id, Quoted(&w.title)),
            Seen::Foreign(target) => target.to_string(),
            Seen::Nothing => "none".into(),
        };
        let active = if unshown()? {
            format!(
                "{active}; this window is not on the screen yet after {} s",
                SHOW_WAIT.as_secs()
            )
        } else {
            active
        };
        Err(DeskError::FocusRefused {
            id: window.id.clone(),
            title: window.title.clone(),
            active,
        })
    }

    /// Refuses input on the person's own pointer or keyboard (`what`) under background input;
    /// nothing has gone out yet when it does.
    fn in_front(&self, what: &str) -> Result<(), DeskError> {
        self.desk
            .in_front(DeskError::Unsupported(format!(
                "{what} would use the person's own pointer or keyboard, which [daemon] input = \
                 \"background\" keeps agents off; name the window for keys, typing and the \
                 wheel, press elements by id, or ask the person for input = \"auto\""
            )))
            .map(drop)
    }

    /// Asks the window manager to activate (focus and raise) `window`, then waits up to
    /// [`FOCUS_WAIT`] for `done` to hold.
    fn activate(
        &self,
        window: &Window,
        done: impl Fn() -> Result<bool, DeskError>,
    ) -> Result<bool, DeskError> {
        self.in_front("focusing or raising a window")?;
        self.pass("moving the focus", false)?;
        self.desk
            .backend
            .input
            .request_focus(&window.id)
            .map_err(DeskError::unwrapped)?;
        let deadline = Instant::now() + FOCUS_WAIT;
        loop {
            if done()? {
                return Ok(true);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Asks `window` to close.
    pub fn close(&self, window: &Window) -> Result<(), DeskError> {
        self.require(self.admits(&Target::window(window)), "closing a window")?;
        self.sending("closing a window", || {
            self.desk.backend.input.request_close(&window.id)
        })
    }

    /// Asks the window manager to change `window`'s frame or state.
    pub fn frame(&self, window: &Window, change: FrameChange) -> Result<(), DeskError> {
        self.require(
            self.admits(&Target::window(window)),
            "changing a window's frame",
        )?;
        self.sending("changing a window's frame", || {
            self.desk.backend.input.request_frame(&window.id, change)
        })
    }

    /// Puts `clip` on the clipboard.
    pub fn write_clipboard(&self, clip: Clip) -> Result<(), DeskError> {
        self.desk.clipboard_allowed()?;
        self.sending("writing the clipboard", || {
            self.desk.backend.input.write_clipboard(clip)
        })
    }

    /// Sends the app that owns `window` (process `pid`) the signal `ending`.
    pub fn end(&self, window: &Window, pid: u32, ending: Ending) -> Result<(), DeskError> {
        self.require(
            self.admits(&Target::window(window)) && window.pid == Some(pid),
            "ending an app",
        )?;
        self.sending("ending an app", || self.desk.backend.apps.end(pid, ending))
    }

    /// Checks that keys would still go to `into`, the admitted keyboard target.
    fn keys_land(&self, into: Option<&Window>) -> Result<(), DeskError> {
        let target = into.map_or(Target::NoFocus, Target::window);
        self.require(self.admits(&target), "keyboard input")?;
        self.in_front("keyboard input to the focused window")?;
        if self.desk.focused()?.id() != into.map(|w| w.id.as_str()) {
            return Err(DeskError::Changed(
                "the keyboard focus moved to another window while the action was being checked: \
                 look again, or name the window"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The auth guard's last word before typing: no typing while a password field has the
    /// focus in the app of `into`. Where accessibility cannot tell, typing goes ahead.
    fn check_password_field(&self, into: Option<&Window>) -> Result<(), DeskError> {
        if !self.desk.policy.guards_auth(self.desk.caller.allow_auth) {
            return Ok(());
        }
        let Some(pid) = into.and_then(|w| w.pid) else {
            return Ok(());
        };
        match self.desk.backend.accessibility.focused_in(pid) {
            Ok(Some(node)) if node.role == PASSWORD_ROLE => Err(DeskError::refused(
                Control::AuthGuard,
                format!(
                    "the focused field {} is a password field and the auth guard is on; pass \
                     allow_auth: true only if the person at the desktop asked you to type it",
                    Quoted(&node.name)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Presses a key combination into `into`: the window that has the focus, or, in the
    /// background, the named window, given the agent's keyboard focus.
    pub fn press_keys(&self, combo: &KeyCombo, into: Option<&Window>) -> Result<(), DeskError> {
        if let (Some(devices), Some(into)) = (self.behind(), into) {
            return self.press_keys_behind(devices, combo, into);
        }
        self.keys_land(into)?;
        if combo.types_text() {
            self.check_password_field(into)?;
        }
        self.sending("pressing keys", || {
            self.desk
                .backend
                .input
                .press_keys(&combo.keysyms, into, &self.desk.caller.cancel)
        })
    }

    /// Types `text` into `into`: the window that has the focus, or, in the background, the
    /// named window, given the agent's keyboard focus. Returns how many characters went out.
    pub fn type_text(&self, text: &str, into: Option<&Window>) -> Result<usize, DeskError> {
        if let (Some(devices), Some(into)) = (self.behind(), into) {
            return self.type_text_behind(devices, text, into);
        }
        self.keys_land(into)?;
        self.check_password_field(into)?;
        self.sending("typing", || {
            self.desk.backend.input.type_text(
                text,
                into,
                &self.desk.caller.cancel,
                &self.desk.caller.progress,
            )
        })
    }

    /// Presses a key combination into `into` from the agent's own devices, leaving the person's
    /// focus where it is.
    fn press_keys_behind(
        &self,
        background: &dyn Background,
        combo: &KeyCombo,
        into: &Window,
    ) -> Result<(), DeskError> {
        // The app says which field has its focus only once its window has a keyboard's focus.
        self.aim_behind(background, into)?;
        if combo.types_text() {
            self.check_password_field(Some(into))?;
        }
        self.sending("pressing keys", || {
            background.press_keys(
                self.devices_owner(),
                &combo.keysyms,
                into,
                &self.desk.caller.cancel,
            )
        })
    }

    /// Gives the agent's keyboard focus to `into`, an admitted target, and returns the text of
    /// the field that then has its app's focus, read through accessibility: `None` where it
    /// cannot be read (no field, a password field, an app off the bus).
    fn aim_behind(
        &self,
        background: &dyn Background,
        into: &Window,
    ) -> Result<Option<(String, String)>, DeskError> {
        self.require(self.admits(&Target::window(into)), "keyboard input")?;
        self.pass("moving the agent's focus", false)?;
        background.aim(self.devices_owner(), into)?;
        // The app reads its focus change before it answers.
        self.desk.backend.input.ping(into, FOCUS_WAIT);
        Ok(self.field_text(into))
    }

    /// The text of the field with the focus in `window`'s app, never a password field's.
    fn field_text(&self, window: &Window) -> Option<(String, String)> {
        let pid = window.pid?;
        let node = self.desk.backend.accessibility.focused_in(pid).ok()??;
        if node.role == PASSWORD_ROLE {
            return None;
        }
        Some((node.id, node.value?))
    }

    /// Types `text` into `into` from the agent's own devices; returns how many characters went
    /// out, and keeps the text of the field with the app's focus before (see
    /// [`Admitted::aim_behind`]) for the route.
    fn type_text_behind(
        &self,
        background: &dyn Background,
        text: &str,
        into: &Window,
    ) -> Result<usize, DeskError> {
        // The app says which field has its focus only once its window has a keyboard's focus.
        let before = self.aim_behind(background, into)?;
        *self.before.borrow_mut() = before;
        self.check_password_field(Some(into))?;
        self.sending("typing", || {
            background.type_text(
                self.devices_owner(),
                text,
                into,
                &self.desk.caller.cancel,
                &self.desk.caller.progress,
            )
        })
    }

    /// Turns the agent pointer's wheel at `spot`. Its window must be on top there: input in
    /// the background does not raise windows.
    fn scroll_behind(
        &self,
        background: &dyn Background,
        spot: &Spot,
        direction: Direction,
        amount: u32,
    ) -> Result<(), DeskError> {
        self.require(self.admits(&spot.target()), "pointer input")?;
        if let Some(refusal) = self.desk.covered(spot)? {
            return Err(refusal);
        }
        self.sending("scrolling", || {
            background.scroll(
                self.devices_owner(),
                (spot.x, spot.y),
                direction,
                amount,
                &self.desk.caller.cancel,
            )
        })
    }

    /// Whose devices background input comes from: the agent's (a run's calls are its agent's).
    fn devices_owner(&self) -> &str {
        desk_core::wire::agent_of(self.desk.agent())
    }

    /// Makes sure pointer input at `spot` lands on what was admitted there: the same window
    /// on top, or, for a window the call named, that window raised above whatever covers it.
    fn land(&self, spot: &Spot) -> Result<(), DeskError> {
        self.require(self.admits(&spot.target()), "pointer input")?;
        self.in_front("pointer input")?;
        let (x, y) = (spot.x, spot.y);
        let now = self.desk.top_at(x, y)?;
        if lands_on(&now, &spot.on) {
            return Ok(());
        }
        if let (true, Seen::Window(window)) = (spot.raise, &spot.on) {
            return self.raise(window, x, y);
        }
        Err(DeskError::Changed(format!(
            "what is at ({x}, {y}) changed after it was checked: it is now {}; look again before \
             retrying",
            now.target(Target::Background)
        )))
    }

    /// Raises `window` (activating it, as a click on it would) until it is on top at the desk
    /// point, or refuses naming what stays on top there.
    fn raise(&self, window: &Window, x: i32, y: i32) -> Result<(), DeskError> {
        let on = Seen::Window(window.clone());
        let on_top = || Ok(lands_on(&self.desk.top_at(x, y)?, &on));
        if self.activate(window, on_top)? {
            return Ok(());
        }
        let now = self.desk.top_at(x, y)?;
        Err(DeskError::Changed(format!(
            "{} is covered at ({x}, {y}) by {} even after raising it",
            Target::window(window),
            now.target(Target::Background)
        )))
    }

    /// Clicks `button` `count` times at `spot`.
    pub fn click(&self, spot: &Spot, button: Button, count: u8) -> Result<(), DeskError> {
        self.land(spot)?;
        let input = &self.desk.backend.input;
        self.pass("moving the pointer", false)?;
        input.move_pointer(spot.x, spot.y)?;
        self.sending("clicking", || input.click(button, count))
    }

    /// Turns the wheel `amount` notches at `spot`: on the person's pointer, or, in the
    /// background, the agent's (where its window must show: nothing raises it).
    pub fn scroll(&self, spot: &Spot, direction: Direction, amount: u32) -> Result<(), DeskError> {
        if let Some(devices) = self.behind() {
            return self.scroll_behind(devices, spot, direction, amount);
        }
        self.land(spot)?;
        let input = &self.desk.backend.input;
        self.pass("moving the pointer", false)?;
        input.move_pointer(spot.x, spot.y)?;
        self.sending("scrolling", || {
            input.scroll(direction, amount, &self.desk.caller.cancel)
        })
    }

    /// Drags with the left button from one spot to the other.
    pub fn drag(&self, from: &Spot, to: &Spot) -> Result<(), DeskError> {
        self.land(from)?;
        self.land(to)?;
        self.sending("dragging", || {
            self.desk
                .backend
                .input
                .drag((from.x, from.y), (to.x, to.y), &self.desk.caller.cancel)
        })
    }

    /// Starts the admitted program.
    pub fn launch(&self, app: &str, args: &[String]) -> Result<Launched, DeskError> {
        self.require(
            self.admits(&Target::Program(app.into())),
            "starting a program",
        )?;
        self.sending("starting a program", || {
            let sandbox = self.desk.policy.sandbox.as_ref();
            self.desk.backend.apps.launch(app, args, sandbox)
        })
    }

    /// What the app of `window` answers after the input sent so far, waiting up to `limit`
    /// for it to be idle: its first answer says it has read the input, but what the input
    /// started (a dialog built after a posted event) may keep it busy a moment later. So it is
    /// asked again after [`GRACE`] until it answers within [`PROMPT`]. The kill hotkey or a
    /// cancel cuts the wait, answering busy.
    pub fn app_answer(&self, window: &Window, limit: Duration) -> AppAnswer {
        if !self.desk.confirms() {
            return AppAnswer::Unknown;
        }
        let deadline = Instant::now() + limit;
        let mut answered = false;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.desk.cancel().is_cancelled() {
                return AppAnswer::Busy;
            }
            let asked = Instant::now();
            // In steps, so a cancel is heard; an app that answers late answers the newest ping.
            match self.desk.backend.input.ping(window, left.min(ASK_STEP)) {
                Pong::Answered => {}
                Pong::Silent => continue,
                Pong::Unasked => return AppAnswer::Unknown,
            }
            if answered && asked.elapsed() <= PROMPT {
                return AppAnswer::Read;
            }
            answered = true;
            std::thread::sleep(GRACE);
        }
    }

    /// The auth guard's word on setting `node`'s value: never a password field's, unless the
    /// caller passed allow_auth.
    pub fn guard_field(&self, node: &desk_core::a11y::Node) -> Result<(), DeskError> {
        if node.role == PASSWORD_ROLE && self.desk.policy.guards_auth(self.desk.caller.allow_auth) {
            return Err(DeskError::refused(
                Control::AuthGuard,
                format!(
                    "{:?} is a password field and the auth guard is on; pass allow_auth: true \
                     only if the person at the desktop asked you to fill it",
                    node.name
                ),
            ));
        }
        Ok(())
    }

    /// Actions on accessibility nodes of the admitted apps.
    pub fn nodes(&self) -> ActingNodes<'_> {
        ActingNodes::new(self, self.desk.backend.accessibility.clone())
    }
}

/// Whether input meeting `now` at a point reaches `admitted`: the same window, or a menu or
/// popup of the same app open over it.
pub(super) fn lands_on(now: &Seen, admitted: &Seen) -> bool {
    match (now, admitted) {
        (Seen::Window(now), Seen::Window(admitted)) if now.role == POPUP => {
            now.pid.is_some() && now.pid == admitted.pid
        }
        _ => now.id() == admitted.id(),
    }
}
