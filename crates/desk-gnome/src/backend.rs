//! The role traits of the desk ([`desk::Display`], [`desk::Input`]) over a GNOME session: the
//! windows, window requests and pixels through shuttle's Shell extension, keys, the pointer
//! and the wheel through a RemoteDesktop session, and text committed through the input method
//! where the focused field takes it (exact whatever the keyboard layout), else typed as keys;
//! the clipboard through the extension too.
//!
//! What GNOME cannot tell is said, not guessed: an app cannot be asked whether it has read its
//! input (`settle` answers `false`).

use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use desk::clip;
use desk::drag::Step;
use desk::image::{RgbImage, shrink};
use desk::{
    Cancel, Clip, DeskError, Display, DisplayInfo, FrameChange, Input, Pong, WindowEvents,
    WindowState,
};
use desk_core::call::{Button, ClipFormat, Direction};
use desk_core::geometry::Rect;
use desk_core::window::{Window, role};

use crate::cast::Cast;
use crate::events::WindowStream;
use crate::remote::{Axis, Remote, button};
use crate::shell::{GnomeError, GnomeWindow, Shell, kind};

/// The `system` a GNOME display reports in `status`: its apps draw to Wayland.
pub const SYSTEM: &str = "wayland";

/// How many characters go out between two checks of the focus and of a cancel.
const TYPING_BATCH: usize = 32;

/// How often the marker is raised again while an agent acts, over windows raised since.
const MARKER_REFRESH: Duration = Duration::from_millis(500);

/// A GNOME session, driven as a desk.
pub struct GnomeBackend {
    name: String,
    shell: Arc<Shell>,
    remote: Remote,
    /// Each monitor's stream read over PipeWire, with where the monitor is; empty where
    /// PipeWire could not be read, and shots come from the Shell instead.
    casts: Vec<(Rect, Cast)>,
    events: WindowStream,
    /// Tells the marker's thread when actions start and end; made on first use.
    marker: OnceLock<Mutex<Sender<bool>>>,
    /// Where the marker is drawn while it shows.
    marked: Arc<Mutex<Option<Rect>>>,
    /// The last shrunken look at a streamed rectangle, given again while its stream sends no
    /// new frame (`still` looks every few milliseconds; Mutter sends a frame only on damage).
    looked: Mutex<Option<Look>>,
}

/// A shrunken look at `rect`, `width` pixels wide, cut from frame `seq` of monitor `monitor`'s
/// stream.
struct Look {
    rect: Rect,
    width: u32,
    monitor: usize,
    seq: u64,
    image: RgbImage,
}

impl GnomeBackend {
    /// The pixels of `rect` from the stream of the monitor that holds all of it, with that
    /// monitor's place in `casts` and the frame's number; `None` where no stream does.
    fn streamed(&self, rect: Rect) -> Option<(usize, u64, RgbImage)> {
        self.casts
            .iter()
            .enumerate()
            .find_map(|(i, (monitor, cast))| {
                let inside = rect.x >= monitor.x
                    && rect.y >= monitor.y
                    && rect.x + rect.w as i32 <= monitor.x + monitor.w as i32
                    && rect.y + rect.h as i32 <= monitor.y + monitor.h as i32;
                let local = Rect {
                    x: rect.x - monitor.x,
                    y: rect.y - monitor.y,
                    ..rect
                };
                let (seq, image) = inside
                    .then(|| cast.pixels((monitor.w, monitor.h), local))
                    .flatten()?;
                Some((i, seq, image))
            })
    }

    /// Connects to the GNOME session on the session bus at `bus` (the environment's when
    /// `None`), named `name` in replies: claims shuttle's extension, starts a RemoteDesktop
    /// session and reads its monitors' streams through the PipeWire socket `pipewire` (the
    /// environment's when `None`).
    pub fn connect(
        name: &str,
        bus: Option<&str>,
        pipewire: Option<PathBuf>,
    ) -> Result<Self, DeskError> {
        let shell = Shell::connect(bus).map_err(unreachable)?;
        let events = WindowStream::start(shell.connection()).map_err(unreachable)?;
        let remote = Remote::start(shell.connection()).map_err(unreachable)?;
        let casts = remote
            .monitors()
            .iter()
            .filter_map(|m| {
                let cast = Cast::start(m.node?, pipewire.clone());
                match cast {
                    Ok(cast) => {
                        tracing::info!(monitor = %m.connector, "shots of this monitor come from its screen-cast stream");
                        Some((m.rect, cast))
                    }
                    Err(e) => {
                        tracing::warn!(monitor = %m.connector, error = %e, "shots of this monitor come from the Shell");
                        None
                    }
                }
            })
            .collect();
        // The first pointer event of a new session is lost too (see `remote::PRIMER`): a move
        // to where the pointer already is takes its place.
        let (x, y) = shell.pointer().map_err(unreachable)?;
        remote.move_to(x, y).map_err(unreachable)?;
        Ok(Self {
            name: name.to_string(),
            shell: Arc::new(shell),
            remote,
            casts,
            events,
            marker: OnceLock::new(),
            marked: Arc::new(Mutex::new(None)),
            looked: Mutex::new(None),
        })
    }

    /// Shows (`true`) or, after a linger, hides the marker that tells the person an agent is
    /// acting: a red square the extension draws at the screen's top right corner.
    pub fn indicate(&self, acting: bool) {
        let tell = self.marker.get_or_init(|| {
            let (tell, told) = channel();
            let (shell, marked) = (self.shell.clone(), self.marked.clone());
            let started = std::thread::Builder::new()
                .name("gnome-marker".into())
                .spawn(move || {
                    desk::marker::show_while_acting(&told, MARKER_REFRESH, |shown| {
                        let rect = shell.marker(shown)?;
                        *marked.lock().unwrap_or_else(PoisonError::into_inner) = rect;
                        Ok::<(), GnomeError>(())
                    });
                });
            if let Err(e) = started {
                tracing::warn!(error = %e, "could not start the acting marker's thread");
            }
            Mutex::new(tell)
        });
        let _ = tell
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .send(acting);
    }

    /// Where the marker is drawn while it shows.
    pub fn overlays(&self) -> Vec<Rect> {
        self.marked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .copied()
            .collect()
    }

    /// The extension, for the accessibility positions.
    pub fn shell(&self) -> &Shell {
        &self.shell
    }

    fn all(&self) -> Result<Vec<GnomeWindow>, DeskError> {
        self.shell.windows().map_err(desk_error)
    }

    fn top_level(&self) -> Result<Vec<GnomeWindow>, DeskError> {
        Ok(self
            .all()?
            .into_iter()
            .filter(GnomeWindow::top_level)
            .collect())
    }

    fn find(&self, id: &str) -> Result<GnomeWindow, DeskError> {
        let wanted: u64 = id.parse().map_err(|_| {
            DeskError::Invalid(format!(
                "{id:?} is not a window id of this GNOME desk (they are Mutter's window ids, \
                 such as \"184949979\"); call `windows` for the current list"
            ))
        })?;
        self.top_level()?
            .into_iter()
            .find(|w| w.id == wanted)
            .ok_or_else(|| DeskError::WindowGone { id: id.to_string() })
    }

    fn focused_id(&self) -> Result<Option<String>, DeskError> {
        Ok(self
            .top_level()?
            .into_iter()
            .find(|w| w.focused)
            .map(|w| w.id.to_string()))
    }

    fn act(&self, id: &str, action: &str, frame: [i32; 4]) -> Result<(), DeskError> {
        let window = self.find(id)?;
        self.shell.act(window.id, action, frame).map_err(desk_error)
    }

    /// Types a run of characters as keys, each found in the keyboard layout by Mutter.
    fn keys(&self, text: &str) -> Result<(), DeskError> {
        for ch in text.chars() {
            let keysym = desk::keys::char_keysym(ch).ok_or_else(|| {
                DeskError::Unsupported(format!("{ch:?} has no key to type it with"))
            })?;
            self.remote.keysym(keysym, true).map_err(desk_error)?;
            self.remote.keysym(keysym, false).map_err(desk_error)?;
        }
        Ok(())
    }

    /// Types `text`: control characters (newline, tab) as keys, the rest committed through the
    /// input method, or as keys where the focused field takes no committed text and every
    /// character is plain ASCII (which every layout has). Answers how many characters went out
    /// before an error.
    fn type_batch(&self, text: &str) -> Result<usize, (usize, DeskError)> {
        let mut sent = 0;
        for (control, run) in desk::typing::runs(text) {
            let count = run.chars().count();
            let done = if control {
                self.keys(run)
            } else {
                match self.shell.commit(run).map_err(desk_error) {
                    Ok(true) => Ok(()),
                    Ok(false) if run.chars().all(|c| c.is_ascii_graphic() || c == ' ') => {
                        self.keys(run)
                    }
                    Ok(false) => Err(DeskError::Unsupported(format!(
                        "{} cannot be typed here: the focused window takes no text from the \
                         input method (an X11 app, or no text field has the focus), and GNOME \
                         types as keys only what the keyboard layout has; click into a text \
                         field first, or use set_value",
                        desk_core::app_text::Quoted(run)
                    ))
                    .unsent()),
                    Err(e) => Err(e),
                }
            };
            done.map_err(|e| (sent, e))?;
            sent += count;
        }
        Ok(sent)
    }
}

fn unreachable(e: GnomeError) -> DeskError {
    DeskError::Unreachable {
        system: SYSTEM,
        reason: e.to_string(),
    }
}

/// The desk's error for what the GNOME side said.
pub fn desk_error(e: GnomeError) -> DeskError {
    match e {
        GnomeError::Bus { .. } | GnomeError::NoExtension | GnomeError::Version { .. } => {
            unreachable(e)
        }
        GnomeError::Claimed(_) | GnomeError::Broken(_) => DeskError::Disconnected {
            system: SYSTEM,
            reason: e.to_string(),
        },
        GnomeError::Failed { what, reason } => DeskError::Rejected {
            system: SYSTEM,
            what,
            reason,
        },
    }
}

fn record(w: &GnomeWindow) -> Window {
    Window {
        id: w.id.to_string(),
        title: w.title.clone(),
        role: match w.kind {
            kind::DIALOG | kind::MODAL_DIALOG => role::DIALOG,
            kind::SPLASHSCREEN => role::SPLASH,
            _ => role::WINDOW,
        }
        .to_string(),
        pid: w.process(),
        active: w.focused,
        app: None,
        shell: false,
        owner: (w.transient != 0).then(|| w.transient.to_string()),
        modal: None,
        blocks: None,
    }
}

fn popup(w: &GnomeWindow) -> Window {
    Window {
        role: role::POPUP.to_string(),
        ..record(w)
    }
}

impl Display for GnomeBackend {
    fn info(&self) -> DisplayInfo {
        DisplayInfo {
            system: SYSTEM,
            display: self.name.clone(),
            // Every monitor read from its stream, or the Shell's screenshots.
            capture: if !self.casts.is_empty() && self.casts.len() == self.remote.monitors().len() {
                "pipewire"
            } else {
                "gnome-shell"
            },
            window_pixels: true,
            confirms: false,
            lacking: Vec::new(),
        }
    }

    fn windows(&self) -> Result<Vec<Window>, DeskError> {
        Ok(self.top_level()?.iter().map(record).collect())
    }

    fn screen(&self) -> Result<Rect, DeskError> {
        let monitors = self.remote.monitors();
        let (mut left, mut top, mut right, mut bottom) = (i32::MAX, i32::MAX, i64::MIN, i64::MIN);
        for m in monitors {
            left = left.min(m.rect.x);
            top = top.min(m.rect.y);
            right = right.max(m.rect.right());
            bottom = bottom.max(m.rect.bottom());
        }
        Ok(Rect {
            x: left,
            y: top,
            w: (right - i64::from(left)) as u32,
            h: (bottom - i64::from(top)) as u32,
        })
    }

    fn window_at(&self, x: i32, y: i32) -> Result<Option<Window>, DeskError> {
        Ok(self
            .all()?
            .iter()
            .find(|w| w.shown && w.outer().contains_point(x, y) && (w.popup || w.top_level()))
            .map(|w| if w.top_level() { record(w) } else { popup(w) }))
    }

    fn window_rect(&self, id: &str) -> Result<Option<Rect>, DeskError> {
        let window = self.find(id)?;
        Ok(window.shown.then(|| window.content()))
    }

    fn capture(&self, rect: Rect) -> Result<RgbImage, DeskError> {
        match self.streamed(rect) {
            Some((_, _, image)) => Ok(image),
            None => self.shell.shot(None, rect).map_err(desk_error),
        }
    }

    fn capture_scaled(&self, rect: Rect, width: u32) -> Result<RgbImage, DeskError> {
        let mut looked = self.looked.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(look) = looked.as_ref()
            && look.rect == rect
            && look.width == width
            && self.casts[look.monitor].1.seq() == Some(look.seq)
        {
            return Ok(look.image.clone());
        }
        let Some((monitor, seq, image)) = self.streamed(rect) else {
            return Ok(shrink(
                &self.shell.shot(None, rect).map_err(desk_error)?,
                width,
            ));
        };
        let image = shrink(&image, width);
        *looked = Some(Look {
            rect,
            width,
            monitor,
            seq,
            image: image.clone(),
        });
        Ok(image)
    }

    fn capture_window(&self, id: &str, area: Rect) -> Result<Option<RgbImage>, DeskError> {
        let window = self.find(id)?;
        let (content, buffer) = (window.content(), window.buffer());
        // The window's own pixels are cut from its buffer, which starts at its shadow.
        let inside = Rect {
            x: area.x + content.x - buffer.x,
            y: area.y + content.y - buffer.y,
            ..area
        };
        self.shell
            .shot(Some(window.id), inside)
            .map(Some)
            .map_err(desk_error)
    }

    fn fingerprint(&self) -> Result<u64, DeskError> {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for w in self.top_level()? {
            (w.id, w.shown, w.focused, w.frame).hash(&mut hasher);
        }
        Ok(hasher.finish())
    }

    fn window_events(&self, after: u64) -> WindowEvents {
        self.events.after(after)
    }

    fn has_focus(&self, id: &str) -> Result<bool, DeskError> {
        Ok(self.find(id)?.focused)
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
        let offered = self.shell.clipboard_types().map_err(desk_error)?;
        let Some(kind) = clip::types(format)
            .iter()
            .find(|w| offered.iter().any(|o| o == *w))
        else {
            return Ok(None);
        };
        let bytes = self
            .shell
            .clipboard_content(kind)
            .map_err(desk_error)?
            .filter(|bytes| !bytes.is_empty());
        let Some(bytes) = bytes else {
            return Ok(None);
        };
        let limit = clip::limit(format);
        if bytes.len() > limit {
            return Err(clip::too_big(bytes.len(), limit));
        }
        Ok(Some(clip::decode(format, *kind == "STRING", bytes)))
    }
}

impl Input for GnomeBackend {
    fn request_focus(&self, id: &str) -> Result<(), DeskError> {
        self.act(id, "activate", [0; 4])
    }

    fn request_close(&self, id: &str) -> Result<(), DeskError> {
        self.act(id, "close", [0; 4])
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
        // A character the layout may lack is committed as text when pressed alone; in a
        // shortcut it is refused, since Mutter would drop it without a word.
        if let [keysym] = keysyms
            && let Some(ch) = beyond_ascii(*keysym)
        {
            return match self.shell.commit(&ch.to_string()).map_err(desk_error)? {
                true => Ok(()),
                false => Err(DeskError::Unsupported(format!(
                    "{ch:?} cannot be pressed here: it may not be on the keyboard layout, and \
                     the focused window takes no text from the input method"
                ))
                .unsent()),
            };
        }
        if let Some(ch) = keysyms.iter().find_map(|&k| beyond_ascii(k)) {
            return Err(DeskError::Unsupported(format!(
                "{ch:?} cannot be part of a shortcut on GNOME: Mutter presses only keys of the \
                 keyboard layout, and drops others without a word; use a key the layout has"
            ))
            .unsent());
        }
        desk::keys::chord(keysyms, |keysym, down| {
            self.remote.keysym(keysym, down).map_err(desk_error)
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
        self.remote.move_to(x, y).map_err(desk_error)
    }

    fn click(&self, button: Button, count: u8) -> Result<(), DeskError> {
        let code = match button {
            Button::Left => button::LEFT,
            Button::Right => button::RIGHT,
            Button::Middle => button::MIDDLE,
        };
        for _ in 0..count {
            self.remote.button(code, true).map_err(desk_error)?;
            self.remote.button(code, false).map_err(desk_error)?;
        }
        Ok(())
    }

    fn scroll(&self, direction: Direction, amount: u32, cancel: &Cancel) -> Result<(), DeskError> {
        let (axis, step) = match direction {
            Direction::Up => (Axis::Vertical, -1),
            Direction::Down => (Axis::Vertical, 1),
            Direction::Left => (Axis::Horizontal, -1),
            Direction::Right => (Axis::Horizontal, 1),
        };
        desk::wheel::in_notches(amount, cancel, || {
            self.remote.wheel(axis, step).map_err(desk_error)
        })
    }

    fn drag(&self, from: (i32, i32), to: (i32, i32), cancel: &Cancel) -> Result<(), DeskError> {
        desk::drag::in_steps(from, to, cancel, |step| {
            match step {
                Step::Move(x, y) => self.remote.move_to(x, y),
                Step::Press => self.remote.button(button::LEFT, true),
                Step::Release => self.remote.button(button::LEFT, false),
            }
            .map_err(desk_error)
        })
    }

    fn ping(&self, _window: &Window, _limit: Duration) -> Pong {
        // GNOME gives no way to ask another client whether it has read its input.
        Pong::Unasked
    }

    fn release(&self) -> Result<(), DeskError> {
        Ok(())
    }

    fn request_frame(&self, id: &str, change: FrameChange) -> Result<(), DeskError> {
        match change {
            FrameChange::Set { .. } => {
                let window = self.find(id)?;
                // Mutter places the frame; the desk asks for the content's place.
                let asked = change
                    .outer(window.outer(), window.content())
                    .expect("a Set change has a frame");
                let frame = [asked.x, asked.y, asked.w as i32, asked.h as i32];
                self.shell
                    .act(window.id, "frame", frame)
                    .map_err(desk_error)
            }
            FrameChange::Minimize => self.act(id, "minimize", [0; 4]),
            FrameChange::Maximize => self.act(id, "maximize", [0; 4]),
            FrameChange::Restore => self.act(id, "restore", [0; 4]),
        }
    }

    fn write_clipboard(&self, held: Clip) -> Result<(), DeskError> {
        match held {
            Clip::Text(text) => self.shell.set_clipboard_text(&text),
            Clip::Png(png) => self.shell.set_clipboard_content(clip::PNG, &png),
            // The Shell offers one type per content: the list every toolkit reads.
            Clip::Files(files) => self
                .shell
                .set_clipboard_content(clip::URI_LIST, clip::file_lists(&files).0.as_bytes()),
        }
        .map_err(desk_error)
    }
}

/// The character a keysym types, when it is one beyond plain ASCII (which a keyboard layout
/// may lack).
fn beyond_ascii(keysym: u32) -> Option<char> {
    desk::keys::keysym_char(keysym).filter(|ch| !ch.is_ascii())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_a_layout_may_lack_are_told_from_keys_every_layout_has() {
        assert_eq!(beyond_ascii(0x61), None);
        assert_eq!(beyond_ascii(0xff0d), None, "Return is a key");
        assert_eq!(beyond_ascii(0xe9), Some('é'));
        assert_eq!(beyond_ascii(0x0100_20ac), Some('€'));
    }
}
