//! [`Desk`]: the desktop as one call may see it, and the gate its actions pass.
//!
//! Reads come back filtered: [`Desk::windows`] lists only windows of allowed apps, and what is
//! found at a point or holding the focus comes back as a [`Seen`], where a foreign window is
//! only a [`Target`] to refuse, never a [`Window`] a verb could put in a result. shuttle's own
//! windows count as foreign. A refusal names a foreign window only when an action aims at it
//! (the person's journal then says what was kept from whom); a read that meets one learns
//! nothing of it, not even whether a name matched it.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use desk_core::app_text::Quoted;
use desk_core::call::Kind;
use desk_core::geometry::Rect;
use desk_core::matching::{MatchError, pick_window};
use desk_core::outcome::Control;
use desk_core::results::Route;
use desk_core::window::{Window, role};

use super::admitted::Admitted;
use super::nodes::Nodes;
use super::policy::{Policy, is_auth_prompt};
use super::way::Way;
use crate::cancel::Cancel;
use crate::error::DeskError;
use crate::image::RgbImage;
use crate::intent::{Intent, Target};
use crate::system::{Answer, Asks, Backend, Clip, Opener, Question, Sandbox, WindowState};
use desk_core::call::ClipFormat;

/// Who makes a call, and how it may be stopped.
#[derive(Debug, Clone, Default)]
pub struct Caller {
    /// The agent, as the request names it (`""` from the CLI).
    pub agent: String,
    /// The call's own override of the auth guard (`allow_auth: true`).
    pub allow_auth: bool,
    /// Raised when the caller goes away or the person stops shuttle.
    pub cancel: Cancel,
    /// Where the call tells how far it got, for a caller that asked.
    pub progress: crate::progress::Progress,
    /// The vision verbs' sessions, which outlive the call.
    pub sessions: Arc<crate::vision::Sessions>,
    /// What each caller was last told about the windows, which outlives the call.
    pub news: Arc<crate::news::WindowNews>,
    /// The trees each caller was last shown, which outlive the call.
    pub trees: Arc<crate::trees::TreeMemory>,
}

/// The whole screen's pixels, for a call the allowlist has already let see them; `Send`, so
/// a verb can capture on one thread while it reads the accessibility tree on another.
pub struct ScreenSource {
    display: Arc<dyn crate::system::Display>,
}

impl ScreenSource {
    /// A rectangle of the screen shrunk to `width` pixels wide (as it is when no wider).
    pub fn capture_scaled(&self, rect: Rect, width: u32) -> Result<RgbImage, DeskError> {
        if width >= rect.w {
            self.display.capture(rect)
        } else {
            self.display.capture_scaled(rect, width)
        }
    }
}

/// A window found at a point or holding the focus, as far as the caller may know it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// A window of an allowed app.
    Window(Window),
    /// A window the caller may not see or touch: described for a refusal, nothing more.
    Foreign(Target),
    /// No window: the desktop background, or no focus.
    Nothing,
}

impl Seen {
    /// The window's id, for telling whether what is there changed.
    pub fn id(&self) -> Option<&str> {
        match self {
            Seen::Window(window) => Some(&window.id),
            Seen::Foreign(Target::Window { id, .. }) => Some(id),
            Seen::Foreign(_) | Seen::Nothing => None,
        }
    }

    /// The window, when the caller may see it.
    pub fn window(&self) -> Option<&Window> {
        match self {
            Seen::Window(window) => Some(window),
            _ => None,
        }
    }

    /// What input here would land on; `nothing` says what no window means here.
    pub fn target(&self, nothing: Target) -> Target {
        match self {
            Seen::Window(window) => Target::window(window),
            Seen::Foreign(target) => target.clone(),
            Seen::Nothing => nothing,
        }
    }
}

/// Where pointer input is aimed: a desk point, and what must be on top there when it goes out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spot {
    /// Desk x.
    pub x: i32,
    /// Desk y.
    pub y: i32,
    /// What receives the input there.
    pub on: Seen,
    /// Whether the call named the window, so it may be raised where another one covers it.
    pub raise: bool,
}

impl Spot {
    /// What the input lands on, for admission.
    pub fn target(&self) -> Target {
        self.on.target(Target::Background)
    }
}

/// One call's view of the desktop under its policy.
pub struct Desk {
    pub(super) backend: Backend,
    pub(super) policy: Arc<Policy>,
    pub(super) caller: Caller,
    /// Whether the call acts, rather than only looks.
    acting: bool,
    /// Whether input went out: a failed action that sent some is `unknown`, not `refused`.
    pub(super) sent: Cell<bool>,
    /// The names of processes asked about during the call, so each is read once.
    names: RefCell<HashMap<u32, Vec<String>>>,
}

impl Desk {
    /// The desktop `backend` under `policy`, for one call of `kind` by `caller`.
    pub fn new(backend: Backend, policy: Arc<Policy>, caller: Caller, kind: Kind) -> Self {
        Self {
            backend,
            policy,
            caller,
            acting: kind == Kind::Act,
            sent: Cell::new(false),
            names: RefCell::default(),
        }
    }

    /// The call's cancel flag, for long waits.
    pub fn cancel(&self) -> &Cancel {
        &self.caller.cancel
    }

    /// Where the call tells how far it got.
    pub fn progress(&self) -> &crate::progress::Progress {
        &self.caller.progress
    }

    /// The sandbox the apps agents launch run in, if any.
    pub fn sandbox(&self) -> Option<&Sandbox> {
        self.policy.sandbox.as_ref()
    }

    fn names(&self, pid: u32) -> Vec<String> {
        self.names
            .borrow_mut()
            .entry(pid)
            .or_insert_with(|| self.backend.apps.names(pid))
            .clone()
    }

    /// Whether the caller may see and touch windows of process `pid`; the error says why not.
    fn allows(&self, pid: Option<u32>) -> Result<(), String> {
        if pid == Some(self.backend.apps.own_pid()) {
            return Err("that is shuttle's own window".into());
        }
        if self.policy.apps.is_none() {
            return Ok(());
        }
        let names = pid.map(|pid| self.names(pid));
        self.policy.allows_app(names.as_deref())
    }

    /// The allowlist's refusal of `target`, for a process it does not allow.
    fn refusal(target: &Target, why: &str) -> DeskError {
        DeskError::refused(Control::Allowlist, format!("{target}: {why}"))
    }

    /// Refuses a process outside the allowlist; `what` names what belongs to it.
    pub(super) fn check_pid(&self, pid: u32, what: &str) -> Result<(), DeskError> {
        let why = match self.allows(Some(pid)) {
            Ok(()) => return Ok(()),
            Err(why) if self.acting => why,
            Err(_) => self.outside().into(),
        };
        Err(DeskError::refused(
            Control::Allowlist,
            format!("{what}: {why}"),
        ))
    }

    /// What a read learns of a window it may not see.
    fn outside(&self) -> &'static str {
        if self.policy.apps.is_some() {
            "it belongs to no app the allowlist ([safety] apps) lets you see"
        } else {
            "it is shuttle's own"
        }
    }

    /// `window` as far as the caller may know it.
    pub(super) fn seen(&self, window: Window) -> Seen {
        match self.allows(window.pid) {
            Ok(()) => Seen::Window(window),
            Err(_) => Seen::Foreign(Target::window(&window)),
        }
    }

    /// Every window, topmost first, each named by its app as the allowlist names it (the
    /// first name its process goes by): one identity for showing and for allowing.
    fn listed(&self) -> Result<Vec<Window>, DeskError> {
        Ok(self
            .backend
            .display
            .windows()?
            .into_iter()
            .map(|w| self.named(w))
            .collect())
    }

    fn named(&self, mut window: Window) -> Window {
        window.app = window
            .pid
            .and_then(|pid| self.names(pid).into_iter().next());
        window
    }

    /// The windows the caller may see, topmost first.
    pub fn windows(&self) -> Result<Vec<Window>, DeskError> {
        Ok(self.visible(self.listed()?))
    }

    /// Of `windows`, those the caller may see.
    pub fn visible(&self, windows: Vec<Window>) -> Vec<Window> {
        windows
            .into_iter()
            .filter(|w| self.allows(w.pid).is_ok())
            .collect()
    }

    /// The window `window` and `pid` name, among the windows the caller may see. An action
    /// aimed at a window outside the allowlist is refused naming it; a read that names none
    /// the caller may see is refused the same way whether or not a foreign window matched.
    pub fn pick(&self, window: Option<&str>, pid: Option<u32>) -> Result<Window, DeskError> {
        let all = self.listed()?;
        let visible = self.visible(all.clone());
        let missed = match pick_window(&visible, window, pid) {
            Ok(picked) => return Ok(picked.clone()),
            Err(e @ (MatchError::Ambiguous { .. } | MatchError::NoTarget)) => return Err(e.into()),
            Err(e) => e,
        };
        if self.acting {
            if let Ok(foreign) = pick_window(&all, window, pid) {
                let why = self.allows(foreign.pid).err().unwrap_or_default();
                return Err(Self::refusal(&Target::window(foreign), &why));
            }
            return Err(missed.into());
        }
        let Some(_) = &self.policy.apps else {
            return Err(missed.into());
        };
        let named = match (window, pid) {
            (Some(name), _) => format!("{name:?}"),
            (None, Some(pid)) => format!("process {pid}"),
            (None, None) => "nothing".into(),
        };
        let titles: Vec<String> = visible
            .iter()
            .map(|w| Quoted(&w.title).to_string())
            .collect();
        Err(DeskError::refused(
            Control::Allowlist,
            format!(
                "no window of an app the allowlist lets you see matches {named} ([safety] apps: \
                 {}); the windows you may use: {}",
                self.policy.allowlist(),
                if titles.is_empty() {
                    "none".into()
                } else {
                    titles.join(", ")
                }
            ),
        ))
    }

    /// The window that has the keyboard focus.
    pub fn focused(&self) -> Result<Seen, DeskError> {
        Ok(self
            .listed()?
            .into_iter()
            .find(|w| w.active)
            .map_or(Seen::Nothing, |w| self.seen(w)))
    }

    /// The window that has the keyboard focus, refused when it is not the caller's to see.
    pub fn focused_window(&self) -> Result<Option<Window>, DeskError> {
        match self.focused()? {
            Seen::Window(window) => Ok(Some(window)),
            Seen::Foreign(target) => Err(self.refusal_of(&target, "the focused window")),
            Seen::Nothing => Ok(None),
        }
    }

    /// Why a window the caller may not see (a [`Seen::Foreign`]) is refused; `place` says
    /// where it was met, for a read, which learns nothing more.
    pub fn refusal_of(&self, target: &Target, place: &str) -> DeskError {
        if !self.acting {
            return DeskError::refused(Control::Allowlist, format!("{place}: {}", self.outside()));
        }
        self.check_target(target)
            .err()
            .unwrap_or_else(|| Self::refusal(target, "it is not the caller's to see"))
    }

    /// The window input at the desk point reaches: the topmost there, frames and menus
    /// included.
    pub fn top_at(&self, x: i32, y: i32) -> Result<Seen, DeskError> {
        Ok(self
            .backend
            .display
            .window_at(x, y)?
            .map_or(Seen::Nothing, |w| self.seen(self.named(w))))
    }

    /// The topmost app window whose client area holds the desk point, passing over panels and
    /// the desktop itself, for reading what is there.
    pub fn top_app_at(&self, x: i32, y: i32) -> Result<Seen, DeskError> {
        for window in self.listed()? {
            if window.shell || role::SHELL.contains(&window.role.as_str()) {
                continue;
            }
            if let Some(rect) = self.backend.display.window_rect(&window.id)?
                && rect.contains_point(x, y)
            {
                return Ok(self.seen(window));
            }
        }
        Ok(Seen::Nothing)
    }

    /// Whether an app can be asked if it has read the input sent to it (see
    /// [`crate::DisplayInfo::confirms`]).
    pub fn confirms(&self) -> bool {
        self.backend.display.info().confirms
    }

    /// The screen: the rectangle desk coordinates live in.
    pub fn screen(&self) -> Result<Rect, DeskError> {
        self.backend.display.screen()
    }

    /// Where `window` is on the screen, or `None` when it is not shown.
    pub fn window_rect(&self, window: &Window) -> Result<Option<Rect>, DeskError> {
        self.backend.display.window_rect(&window.id)
    }

    /// Where `window` is on the screen, refusing a window that is not shown.
    pub fn rect_of(&self, window: &Window) -> Result<Rect, DeskError> {
        self.window_rect(window)?
            .ok_or_else(|| DeskError::WindowHidden {
                id: window.id.clone(),
                title: window.title.clone(),
            })
    }

    /// A value that changes when windows open, close or restack.
    pub fn fingerprint(&self) -> Result<u64, DeskError> {
        self.backend.display.fingerprint()
    }

    /// The display's window events after count `after` (`u64::MAX`: none, only where the
    /// stream stands). Only their times and the ids of windows the caller may see reach a
    /// reply: [`Desk::windows`] decides what is listed.
    pub fn window_events(&self, after: u64) -> crate::system::WindowEvents {
        self.backend.display.window_events(after)
    }

    /// What each caller was last told about the windows.
    pub fn news(&self) -> &crate::news::WindowNews {
        &self.caller.news
    }

    /// The trees each caller was last shown.
    pub fn trees(&self) -> &crate::trees::TreeMemory {
        &self.caller.trees
    }

    /// The pixels of a rectangle of the screen: refused under the app allowlist, since they
    /// would show other apps.
    pub fn capture_screen(&self, rect: Rect) -> Result<RgbImage, DeskError> {
        if self.policy.apps.is_some() {
            return Err(DeskError::refused(
                Control::Allowlist,
                "a shot of the screen or a rectangle of it is refused under the app allowlist \
                 ([safety] apps), since it would show other apps; pass window to shoot a window \
                 of an allowed app",
            ));
        }
        self.backend.display.capture(rect)
    }

    /// The screen's pixels for `what`, which sees the whole screen, readable from another
    /// thread: refused under the app allowlist.
    pub fn screen_source(&self, what: &str) -> Result<ScreenSource, DeskError> {
        self.require_whole_screen(what)?;
        Ok(ScreenSource {
            display: self.backend.display.clone(),
        })
    }

    /// Refuses `what` under the app allowlist: it sees or acts on the whole screen, other
    /// apps' windows included.
    pub fn require_whole_screen(&self, what: &str) -> Result<(), DeskError> {
        if self.policy.apps.is_some() {
            return Err(DeskError::refused(
                Control::Allowlist,
                format!(
                    "{what} is refused under the app allowlist ([safety] apps), since it sees and \
                     acts on the whole screen; use snapshot, press and the other window verbs on \
                     an allowed app's windows"
                ),
            ));
        }
        Ok(())
    }

    /// The vision verbs' sessions.
    pub fn sessions(&self) -> &crate::vision::Sessions {
        &self.caller.sessions
    }

    /// Who is calling (`""` from the CLI).
    pub fn agent(&self) -> &str {
        &self.caller.agent
    }

    /// The pixels of `window` itself in `area` (window coordinates), never another window's
    /// drawn over it; refused where the display cannot tell them from the screen's.
    pub fn capture_window(&self, window: &Window, area: Rect) -> Result<RgbImage, DeskError> {
        self.backend
            .display
            .capture_window(&window.id, area)?
            .ok_or_else(|| {
                DeskError::Unsupported(
                    "this desktop cannot read a window's own pixels (on X11 the Composite \
                     extension is missing), so a window shot could show other windows drawn over \
                     it; shoot the screen or a rectangle of it instead"
                        .into(),
                )
            })
    }

    /// Watches `rect` of the screen shrunk to `width` pixels wide, to tell whether anything
    /// moves. Under the app allowlist only the allowed windows' parts of the screen are
    /// watched, so a change elsewhere tells the caller nothing.
    pub fn watch(&self, rect: Rect, width: u32) -> Result<Watch<'_>, DeskError> {
        let keep = match self.policy.apps {
            Some(_) => {
                let scale = f64::from(width) / f64::from(rect.w.max(1));
                let down = |v: i64| (v.max(0) as f64 * scale).floor() as u32;
                let up = |v: i64| (v.max(0) as f64 * scale).ceil() as u32;
                let mut keep = Vec::new();
                for window in self.windows()? {
                    if let Some(r) = self.window_rect(&window)? {
                        let (x0, y0) = (down(i64::from(r.x)), down(i64::from(r.y)));
                        keep.push((x0, y0, up(r.right()), up(r.bottom())));
                    }
                }
                Some(keep)
            }
            None => None,
        };
        Ok(Watch {
            desk: self,
            rect,
            width,
            keep,
        })
    }

    /// Parts of the screen shuttle draws on itself (the marker).
    pub fn overlays(&self) -> Vec<Rect> {
        self.backend.presence.overlays()
    }

    /// The CPU time process `pid` has used so far, when it can be read.
    pub fn cpu_time(&self, pid: u32) -> Option<std::time::Duration> {
        self.backend.apps.cpu_time(pid)
    }

    /// Whether process `pid` is `ancestor` or one of its descendants.
    pub fn descends_from(&self, pid: u32, ancestor: u32) -> bool {
        self.backend.apps.descends_from(pid, ancestor)
    }

    /// Refuses a clipboard verb where `[safety] clipboard` keeps the clipboard off.
    pub fn clipboard_allowed(&self) -> Result<(), DeskError> {
        match &self.policy.no_clipboard {
            Some(reason) => Err(DeskError::refused(Control::Clipboard, reason.clone())),
            None => Ok(()),
        }
    }

    /// What the clipboard holds in `format`.
    pub fn read_clipboard(&self, format: ClipFormat) -> Result<Option<Clip>, DeskError> {
        self.clipboard_allowed()?;
        self.backend.display.read_clipboard(format)
    }

    /// Whether `window` is minimized or maximized.
    pub fn window_state(&self, window: &Window) -> Result<WindowState, DeskError> {
        self.backend.display.window_state(&window.id)
    }

    /// The decorations around `window`: left, right, top, bottom.
    pub fn frame_extents(&self, window: &Window) -> Result<[u32; 4], DeskError> {
        self.backend.display.frame_extents(&window.id)
    }

    /// Whether process `pid` still runs.
    pub fn running(&self, pid: u32) -> bool {
        self.backend.apps.running(pid)
    }

    /// The default app for a file or URL.
    pub fn opener(&self, target: &str) -> Result<Opener, DeskError> {
        self.backend.apps.opener(target)
    }

    /// Why process `pid` keeps its accessibility off although `launch` would turn it on.
    pub fn accessibility_off(&self, pid: u32) -> Option<crate::system::AccessibilityOff> {
        self.backend.apps.accessibility_off(pid)
    }

    /// Whether process `pid` is a Chromium-based app started without its accessibility.
    pub fn chromium_without_accessibility(&self, pid: u32) -> bool {
        self.backend.apps.chromium_without_accessibility(pid)
    }

    /// The accessibility tree, under the allowlist.
    pub fn nodes(&self) -> Nodes<'_> {
        Nodes::new(self, self.backend.accessibility.clone())
    }

    /// Puts an action to the safety controls: read-only, the allowlist and the auth guard on
    /// each target, dry run, then the person at the desktop in confirm mode. What comes back
    /// may send input to those targets and nowhere else.
    pub fn admit(&self, intent: Intent) -> Result<Admitted<'_>, DeskError> {
        self.admit_by(intent, Way::Foreground(Route::default()))
    }

    /// [`Desk::admit`], for input that goes `way` (decided by [`Desk::way`]).
    pub fn admit_by(&self, intent: Intent, way: Way) -> Result<Admitted<'_>, DeskError> {
        if self.caller.cancel.is_cancelled() {
            return Err(DeskError::Cancelled {
                done: "it stopped before any input".into(),
            });
        }
        if self.policy.read_only {
            return Err(DeskError::refused(
                Control::ReadOnly,
                super::policy::read_only_refusal(&intent.describe()),
            ));
        }
        for target in &intent.targets {
            self.check_target(target)?;
            if self.policy.guards_auth(self.caller.allow_auth) {
                self.check_auth_dialog(target)?;
            }
        }
        if self.policy.dry_run {
            return Err(DeskError::DryRun(intent.describe()));
        }
        if let Some(timeout) = self.policy.confirm {
            self.confirm(&intent, timeout)?;
        }
        Ok(Admitted::new(self, intent, way))
    }

    /// The allowlist's verdict on one target.
    fn check_target(&self, target: &Target) -> Result<(), DeskError> {
        match target {
            Target::Window { pid, .. } => {
                self.allows(*pid).map_err(|why| Self::refusal(target, &why))
            }
            Target::Background | Target::NoFocus if self.policy.apps.is_some() => {
                Err(DeskError::refused(
                    Control::Allowlist,
                    format!(
                        "the input would land on {target}, which is no window of an allowed app \
                         ([safety] apps: {})",
                        self.policy.allowlist()
                    ),
                ))
            }
            Target::Background | Target::NoFocus => Ok(()),
            Target::Program(program) => self.policy.allows_program(program),
        }
    }

    /// The auth guard's verdict on one target: no input into authentication dialogs.
    fn check_auth_dialog(&self, target: &Target) -> Result<(), DeskError> {
        let Target::Window { title, pid, .. } = target else {
            return Ok(());
        };
        let names = pid.map(|pid| self.names(pid)).unwrap_or_default();
        if is_auth_prompt(&names, title) {
            return Err(DeskError::refused(
                Control::AuthGuard,
                format!(
                    "{target} is an authentication dialog and the auth guard is on; pass \
                     allow_auth: true only if the person at the desktop asked you to answer it"
                ),
            ));
        }
        Ok(())
    }

    fn confirm(&self, intent: &Intent, timeout: std::time::Duration) -> Result<(), DeskError> {
        let question = Question {
            asks: Asks::Act,
            agent: self.caller.agent.clone(),
            action: intent.describe(),
            text: intent.text.clone(),
            timeout,
        };
        let cancel = &self.caller.cancel;
        let person = |reason: String| DeskError::refused(Control::Person, reason);
        // Confirm mode refuses what it cannot ask: the backend only says why it could not.
        let answer = self.backend.presence.ask(&question, cancel).map_err(|e| {
            person(format!(
                "{e}; confirm mode refuses what it cannot ask the person (confirm mode)"
            ))
        })?;
        match answer {
            Answer::Allow => Ok(()),
            Answer::Deny => Err(person(
                "the person at the desktop denied it (confirm mode)".into(),
            )),
            Answer::Closed if cancel.is_cancelled() => Err(DeskError::Cancelled {
                done: "it stopped while the person was being asked, before any input".into(),
            }),
            Answer::Closed => Err(person(
                "the person at the desktop closed the confirm dialog without allowing it \
                 (confirm mode)"
                    .into(),
            )),
            Answer::NoAnswer => Err(person(format!(
                "the person at the desktop did not answer within {} s, which counts as deny \
                 (confirm mode)",
                timeout.as_secs()
            ))),
        }
    }
}

/// A shrunken view of the screen for telling whether anything moves; its pixels are never
/// handed to the caller.
pub struct Watch<'d> {
    desk: &'d Desk,
    rect: Rect,
    width: u32,
    /// Under the allowlist, the parts (shrunken x0, y0, x1, y1) left visible; the rest is black.
    keep: Option<Vec<(u32, u32, u32, u32)>>,
}

impl Watch<'_> {
    /// The next capture.
    pub fn next(&self) -> Result<RgbImage, DeskError> {
        let mut image = self
            .desk
            .backend
            .display
            .capture_scaled(self.rect, self.width)?;
        if let Some(keep) = &self.keep {
            let width = image.width;
            for (i, pixel) in image.pixels.chunks_exact_mut(3).enumerate() {
                let (x, y) = (i as u32 % width, i as u32 / width);
                let kept = keep
                    .iter()
                    .any(|&(x0, y0, x1, y1)| x >= x0 && x < x1 && y >= y0 && y < y1);
                if !kept {
                    pixel.fill(0);
                }
            }
        }
        Ok(image)
    }
}
