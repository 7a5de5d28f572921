//! The role traits of the desk ([`desk::Display`], [`desk::Input`]) over a KDE Plasma session on
//! Wayland: windows and window requests through KWin scripts, pixels through ScreenShot2,
//! keys, the pointer and the wheel through fake input, text committed through shuttle's input
//! method where KWin runs it and the focused field takes it (exact whatever the layout), else
//! typed as the keys of KWin's layout, and the clipboard through wlr-data-control.
//!
//! What KWin cannot tell is said, not guessed: an app cannot be asked whether it has read its
//! input (`settle` answers `false`), and typed as keys, what the layout lacks is refused
//! before anything is sent.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use desk::drag::Step;
use desk::image::{RgbImage, shrink};
use desk::{
    Cancel, Clip, DeskError, Display, DisplayInfo, FrameChange, Input, Pong, WindowEvents,
    WindowState,
};
use desk_core::call::{Button, ClipFormat, Direction};
use desk_core::geometry::Rect;
use desk_core::window::{Window, role};
use desk_wayland::Clipboard;

use crate::credit::{Credited, Helper};
use crate::fake::{FakeInput, Missing, button};
use crate::im::{Commit, InputMethod};
use crate::kwin::{KWin, KdeError, KdeWindow};
use crate::shot;

/// The `system` a KDE display reports in `status`: its apps draw to Wayland.
pub const SYSTEM: &str = "wayland";

/// How many characters go out between two checks of the focus and of a cancel.
const TYPING_BATCH: usize = 32;

/// A KDE Plasma session, driven as a desk.
pub struct KdeBackend {
    name: String,
    kwin: KWin,
    input: FakeInput,
    /// shuttle's input method in KWin, where KWin runs it.
    text: Option<InputMethod>,
    /// The process KWin credits the desk's sockets to, kept while they are.
    helper: Mutex<Helper>,
    clipboard: Clipboard,
    /// The screen, as KWin last said.
    screen: Mutex<Rect>,
    /// Whether KWin served ScreenShot2 when the desk connected (status says so; a shot asks
    /// anew).
    shots: bool,
}

impl KdeBackend {
    /// Connects to the KWin whose Wayland socket and session bus `sockets` are connected to
    /// (by a helper KWin can identify), named `name` in replies; its scripts are written under
    /// `scripts`, a directory of the daemon's own. Text is committed through the input method
    /// listening at `input_method`, where KWin runs shuttle's; the clipboard is `clipboard`.
    pub fn connect(
        name: &str,
        sockets: Credited,
        scripts: &Path,
        input_method: Option<PathBuf>,
        clipboard: Clipboard,
    ) -> Result<Self, DeskError> {
        let Credited {
            wayland,
            bus,
            helper,
        } = sockets;
        let kwin = KWin::over_stream(bus, scripts).map_err(unreachable)?;
        kwin.start_news().map_err(unreachable)?;
        let input = FakeInput::over(wayland).map_err(unreachable)?;
        let listing = kwin.windows().map_err(unreachable)?;
        // The first event of a new device primes it; a move to where the pointer is.
        input
            .move_to(listing.cursor[0], listing.cursor[1])
            .map_err(unreachable)?;
        let shots = shot::served(kwin.connection());
        let backend = Self {
            name: name.to_string(),
            shots,
            kwin,
            input,
            text: input_method.map(InputMethod::at),
            helper: Mutex::new(helper),
            clipboard,
            screen: Mutex::new(Rect {
                x: 0,
                y: 0,
                w: 0,
                h: 0,
            }),
        };
        backend.refresh_screen(&listing);
        Ok(backend)
    }

    fn refresh_screen(&self, listing: &crate::kwin::Listing) {
        let [x, y, w, h] = listing.screen;
        *self.screen.lock().unwrap_or_else(PoisonError::into_inner) = Rect {
            x,
            y,
            w: w.max(0) as u32,
            h: h.max(0) as u32,
        };
    }

    /// Every window KWin manages, the desk's or not.
    pub fn all(&self) -> Result<Vec<KdeWindow>, DeskError> {
        let listing = self.kwin.windows().map_err(desk_error)?;
        self.refresh_screen(&listing);
        Ok(listing.windows)
    }

    fn top_level(&self) -> Result<Vec<KdeWindow>, DeskError> {
        let mut windows: Vec<KdeWindow> = self
            .all()?
            .into_iter()
            .filter(KdeWindow::top_level)
            .collect();
        // Topmost first, as the desk lists windows.
        windows.sort_by_key(|w| std::cmp::Reverse(w.stacking));
        Ok(windows)
    }

    fn find(&self, id: &str) -> Result<KdeWindow, DeskError> {
        self.top_level()?
            .into_iter()
            .find(|w| w.id == id)
            .ok_or_else(|| DeskError::WindowGone { id: id.to_string() })
    }

    fn focused_id(&self) -> Result<Option<String>, DeskError> {
        Ok(self
            .top_level()?
            .into_iter()
            .find(|w| w.active)
            .map(|w| w.id))
    }

    fn act(&self, id: &str, verb: &str) -> Result<(), DeskError> {
        let window = self.find(id)?;
        self.kwin.act(verb, &window.id).map_err(desk_error)
    }

    /// The keys for `keysyms`, refused as a whole, before anything is sent, when the layout
    /// lacks one; `what` says what was asked in the refusal.
    fn keys_for(&self, keysyms: &[u32], what: &str) -> Result<Vec<(u32, Vec<u32>)>, DeskError> {
        self.input.keys_for(keysyms).map_err(|missing| {
            match missing {
                Missing::NoKeymap(why) => DeskError::Unsupported(format!(
                    "{what} cannot be sent: {}; KWin gives a keyboard's keymap to a client once \
                     its seat has a keyboard",
                    why.unwrap_or_else(|| "KWin sent no keymap".into())
                )),
                Missing::Key(keysym) => DeskError::Unsupported(format!(
                    "{what} cannot be sent: KWin's keyboard layout has no key for {}, and fake \
                     input presses only the layout's keys; use set_value to put such text in a \
                     field",
                    describe(keysym)
                )),
            }
            .unsent()
        })
    }

    /// The desk's error for a screenshot KWin refused or failed: KWin checks each one against
    /// the helper its sockets are credited to, so a helper that ended breaks the connection.
    fn shot_error(&self, e: KdeError) -> DeskError {
        if self
            .helper
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .running()
        {
            return desk_error(e);
        }
        DeskError::Disconnected {
            system: SYSTEM,
            reason: "shuttle's KWin helper (shuttle kwin-connect), which KWin credits the \
                     desk's sockets to, has ended"
                .into(),
        }
    }

    /// Types `run` as keys of KWin's layout, refused as a whole where it lacks one.
    fn keys(&self, run: &str) -> Result<(), DeskError> {
        let keysyms = run
            .chars()
            .map(|ch| {
                desk::keys::char_keysym(ch).ok_or_else(|| {
                    DeskError::Unsupported(format!("{ch:?} has no key to type it with")).unsent()
                })
            })
            .collect::<Result<Vec<u32>, DeskError>>()?;
        let what = desk_core::app_text::Quoted(run).to_string();
        let taps = self.keys_for(&keysyms, &what)?;
        self.input.tap(&taps).map_err(desk_error)
    }

    /// Types `text`: control characters (newline, tab) as keys, the rest committed through the
    /// input method where the focused field takes it, else as keys. Answers how many
    /// characters went out before an error.
    fn type_batch(&self, text: &str) -> Result<usize, (usize, DeskError)> {
        let mut sent = 0;
        for (control, run) in desk::typing::runs(text) {
            let committed = match &self.text {
                Some(text) if !control => match text.commit(run) {
                    Commit::Taken => true,
                    Commit::NotTaken => false,
                    Commit::Unreached(reason) => {
                        tracing::warn!(%reason, "typed as keys: shuttle's input method is out of reach");
                        false
                    }
                    Commit::Unknown(reason) => {
                        return Err((
                            sent,
                            DeskError::Stalled {
                                system: SYSTEM,
                                reason: format!(
                                    "{reason}, which may have landed; look before typing it \
                                     again"
                                ),
                            },
                        ));
                    }
                },
                _ => false,
            };
            if !committed {
                self.keys(run).map_err(|e| (sent, e))?;
            }
            sent += run.chars().count();
        }
        Ok(sent)
    }
}

impl KdeWindow {
    /// A window an agent works with: KWin's furniture (desktop, panels) left out, and popups,
    /// which KWin does not manage.
    pub fn top_level(&self) -> bool {
        self.managed && !self.special && self.kind != "popup"
    }

    /// Where it is, with what KWin draws around it.
    pub fn outer(&self) -> Rect {
        rect(self.frame)
    }

    /// Its app's own area: the buffer inside a decoration KWin draws, the frame inside the
    /// shadows an app draws around itself (so, either way, where both are).
    pub fn content(&self) -> Rect {
        let (frame, buffer) = (rect(self.frame), rect(self.buffer));
        frame.intersect(&buffer).unwrap_or(frame)
    }

    /// Its buffer, with the shadows its app draws.
    pub fn surface(&self) -> Rect {
        rect(self.buffer)
    }

    /// Its process, when KWin knows it.
    pub fn process(&self) -> Option<u32> {
        u32::try_from(self.pid).ok().filter(|&p| p > 0)
    }
}

fn rect([x, y, w, h]: [i32; 4]) -> Rect {
    Rect {
        x,
        y,
        w: w.max(0) as u32,
        h: h.max(0) as u32,
    }
}

/// A keysym as the person knows it: its character, or its name.
fn describe(keysym: u32) -> String {
    match desk::keys::keysym_char(keysym) {
        Some(ch) => format!("{ch:?}"),
        None => desk::keys::keysym_name(keysym),
    }
}

fn unreachable(e: KdeError) -> DeskError {
    DeskError::Unreachable {
        system: SYSTEM,
        reason: e.to_string(),
    }
}

/// The desk's error for what the KDE side said.
pub fn desk_error(e: KdeError) -> DeskError {
    match e {
        KdeError::Bus { .. }
        | KdeError::NoKWin
        | KdeError::Version { .. }
        | KdeError::Unauthorised { .. } => unreachable(e),
        KdeError::NoScreenshots => DeskError::Unsupported(e.to_string()),
        KdeError::Broken(_) => DeskError::Disconnected {
            system: SYSTEM,
            reason: e.to_string(),
        },
        KdeError::Failed { what, reason } => DeskError::Rejected {
            system: SYSTEM,
            what,
            reason,
        },
    }
}

fn record(w: &KdeWindow) -> Window {
    Window {
        id: w.id.clone(),
        title: w.title.clone(),
        role: match w.kind.as_str() {
            "dialog" => role::DIALOG,
            "splash" => role::SPLASH,
            _ => role::WINDOW,
        }
        .to_string(),
        pid: w.process(),
        active: w.active,
        app: None,
        shell: false,
        owner: w.transient_for.clone(),
        modal: None,
        blocks: None,
    }
}

impl Display for KdeBackend {
    fn info(&self) -> DisplayInfo {
        let shots = self.shots;
        let mut lacking = vec![format!(
            "text goes through shuttle's input method into a field that takes it, else as keys \
             of KWin's layout, which refuse the characters it lacks (KWin {})",
            self.kwin.version()
        )];
        if !shots {
            lacking.push(KdeError::NoScreenshots.to_string());
        }
        DisplayInfo {
            system: SYSTEM,
            display: self.name.clone(),
            capture: if shots { "kwin-screenshot2" } else { "none" },
            window_pixels: shots,
            confirms: false,
            lacking,
        }
    }

    fn windows(&self) -> Result<Vec<Window>, DeskError> {
        Ok(self.top_level()?.iter().map(record).collect())
    }

    fn screen(&self) -> Result<Rect, DeskError> {
        Ok(*self.screen.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn window_at(&self, x: i32, y: i32) -> Result<Option<Window>, DeskError> {
        Ok(self
            .top_level()?
            .iter()
            .find(|w| !w.minimized && w.outer().contains_point(x, y))
            .map(record))
    }

    fn window_rect(&self, id: &str) -> Result<Option<Rect>, DeskError> {
        let window = self.find(id)?;
        Ok((!window.minimized).then(|| window.content()))
    }

    fn capture(&self, rect: Rect) -> Result<RgbImage, DeskError> {
        shot::area(self.kwin.connection(), rect).map_err(|e| self.shot_error(e))
    }

    fn capture_scaled(&self, rect: Rect, width: u32) -> Result<RgbImage, DeskError> {
        Ok(shrink(&self.capture(rect)?, width))
    }

    fn capture_window(&self, id: &str, area: Rect) -> Result<Option<RgbImage>, DeskError> {
        let window = self.find(id)?;
        let image =
            shot::window(self.kwin.connection(), &window.id).map_err(|e| self.shot_error(e))?;
        // KWin's image starts at the buffer, shadows and all, or at the frame; `area` counts
        // from the app's own area.
        let content = window.content();
        // An image of neither size, or one the area does not fit, is of a window that changed
        // since it was listed: it is not placed by guess.
        let changed = || {
            DeskError::Changed(format!(
                "window {id} changed its size while it was shot; shoot it again"
            ))
        };
        let origin = [window.surface(), window.outer()]
            .into_iter()
            .find(|r| (r.w, r.h) == (image.width, image.height))
            .ok_or_else(changed)?;
        let x = (area.x + content.x - origin.x).max(0) as u32;
        let y = (area.y + content.y - origin.y).max(0) as u32;
        image
            .cut(x, y, area.w, area.h)
            .map(Some)
            .ok_or_else(changed)
    }

    fn fingerprint(&self) -> Result<u64, DeskError> {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for w in self.top_level()? {
            (&w.id, w.minimized, w.active, w.frame).hash(&mut hasher);
        }
        Ok(hasher.finish())
    }

    fn window_events(&self, after: u64) -> WindowEvents {
        self.kwin.events_after(after)
    }

    fn has_focus(&self, id: &str) -> Result<bool, DeskError> {
        Ok(self.find(id)?.active)
    }

    fn window_state(&self, id: &str) -> Result<WindowState, DeskError> {
        let window = self.find(id)?;
        Ok(WindowState {
            minimized: window.minimized,
            maximized: window.maximized,
        })
    }

    fn frame_extents(&self, id: &str) -> Result<[u32; 4], DeskError> {
        let window = self.find(id)?;
        Ok(window.outer().insets(&window.content()))
    }

    fn read_clipboard(&self, format: ClipFormat) -> Result<Option<Clip>, DeskError> {
        self.clipboard.read(format)
    }
}

impl Input for KdeBackend {
    fn request_focus(&self, id: &str) -> Result<(), DeskError> {
        self.act(id, "activate")
    }

    fn request_close(&self, id: &str) -> Result<(), DeskError> {
        self.act(id, "close")
    }

    fn press_keys(
        &self,
        keysyms: &[u32],
        _focused: Option<&Window>,
        cancel: &Cancel,
    ) -> Result<(), DeskError> {
        if cancel.is_cancelled() {
            return Err(DeskError::Cancelled {
                done: "no key was pressed".into(),
            });
        }
        let names: Vec<String> = keysyms.iter().map(|&k| describe(k)).collect();
        let keys = self.keys_for(keysyms, &names.join("+"))?;
        // Each key with the modifiers its level needs, a modifier two keys share held once.
        let mut codes = Vec::new();
        for (code, held) in &keys {
            for &c in held.iter().chain(std::iter::once(code)) {
                if !codes.contains(&c) {
                    codes.push(c);
                }
            }
        }
        desk::keys::chord(&codes, |code, down| {
            self.input.key(code, down).map_err(desk_error)
        })
    }

    fn type_text(
        &self,
        text: &str,
        focused: Option<&Window>,
        cancel: &Cancel,
        progress: &desk::Progress,
    ) -> Result<usize, DeskError> {
        desk::typing::in_batches(
            text,
            TYPING_BATCH,
            focused,
            cancel,
            progress,
            || self.focused_id(),
            |batch| self.type_batch(batch),
        )
    }

    fn move_pointer(&self, x: i32, y: i32) -> Result<(), DeskError> {
        self.input.move_to(x, y).map_err(desk_error)
    }

    fn click(&self, button: Button, count: u8) -> Result<(), DeskError> {
        let code = match button {
            Button::Left => button::LEFT,
            Button::Right => button::RIGHT,
            Button::Middle => button::MIDDLE,
        };
        for _ in 0..count {
            self.input.button(code, true).map_err(desk_error)?;
            self.input.button(code, false).map_err(desk_error)?;
        }
        Ok(())
    }

    fn scroll(&self, direction: Direction, amount: u32, cancel: &Cancel) -> Result<(), DeskError> {
        let (vertical, step) = match direction {
            Direction::Up => (true, -1),
            Direction::Down => (true, 1),
            Direction::Left => (false, -1),
            Direction::Right => (false, 1),
        };
        desk::wheel::in_notches(amount, cancel, || {
            self.input.wheel(vertical, step).map_err(desk_error)
        })
    }

    fn drag(&self, from: (i32, i32), to: (i32, i32), cancel: &Cancel) -> Result<(), DeskError> {
        desk::drag::in_steps(from, to, cancel, |step| {
            match step {
                Step::Move(x, y) => self.input.move_to(x, y),
                Step::Press => self.input.button(button::LEFT, true),
                Step::Release => self.input.button(button::LEFT, false),
            }
            .map_err(desk_error)
        })
    }

    fn ping(&self, _window: &Window, _limit: Duration) -> Pong {
        // KWin gives no way to ask another client whether it has read its input.
        Pong::Unasked
    }

    fn release(&self) -> Result<(), DeskError> {
        Ok(())
    }

    fn request_frame(&self, id: &str, change: FrameChange) -> Result<(), DeskError> {
        match change {
            FrameChange::Set { .. } => {
                let window = self.find(id)?;
                let asked = change
                    .outer(window.outer(), window.content())
                    .expect("a Set change has a frame");
                self.kwin
                    .set_frame(
                        &window.id,
                        [asked.x, asked.y, asked.w as i32, asked.h as i32],
                    )
                    .map_err(desk_error)
            }
            FrameChange::Minimize => self.act(id, "minimize"),
            FrameChange::Maximize => self.act(id, "maximize"),
            FrameChange::Restore => self.act(id, "restore"),
        }
    }

    fn write_clipboard(&self, clip: Clip) -> Result<(), DeskError> {
        self.clipboard.write(clip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(frame: [i32; 4], buffer: [i32; 4]) -> KdeWindow {
        KdeWindow {
            id: "a".into(),
            pid: 7,
            title: "t".into(),
            app: "x".into(),
            kind: "normal".into(),
            frame,
            buffer,
            active: false,
            minimized: false,
            maximized: false,
            transient_for: None,
            modal: false,
            stacking: 0,
            managed: true,
            special: false,
        }
    }

    #[test]
    fn a_keysym_is_named_by_its_character_where_it_has_one() {
        assert_eq!(describe(0xe9), "'é'");
        assert_eq!(describe(0x0100_4e00), "'一'");
        assert_eq!(describe(0xff0d), "Return");
    }

    #[test]
    fn an_apps_own_area_is_inside_both_the_decoration_and_the_shadows() {
        // KWin's decoration around the buffer.
        let decorated = window([100, 100, 420, 270], [104, 130, 412, 236]);
        assert_eq!(decorated.content(), rect([104, 130, 412, 236]));
        assert_eq!(
            decorated.outer().insets(&decorated.content()),
            [4, 4, 30, 4]
        );
        // The app's shadows around its frame.
        let shadowed = window([100, 100, 400, 300], [74, 77, 452, 352]);
        assert_eq!(shadowed.content(), rect([100, 100, 400, 300]));
        assert_eq!(
            window([0, 0, 10, 10], [0, 0, 10, 10]).content(),
            rect([0, 0, 10, 10])
        );
    }
}
