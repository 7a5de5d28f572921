//! The role traits of the desk ([`desk::Display`], [`desk::Input`]) over a sway session: the
//! layout and the window requests through sway's IPC, pixels through screencopy, keys and
//! text through the virtual keyboard, the pointer through the virtual pointer, the clipboard
//! through wlr-data-control.
//!
//! What Wayland cannot tell is said, not guessed: an app cannot be asked whether it has read
//! the input (`ping` answers unasked, so replies carry `app_answer: "unknown"`), and a window's
//! own pixels cannot be told from what covers it.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
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

use crate::capture::OutputCopy;
use crate::clipboard::Clipboard;
use crate::events::WindowStream;
use crate::keyboard::Keyboard;
use crate::marker::Marker;
use crate::pointer::{Pointer, PointerButton, Wheel};
use crate::session::{Session, WaylandError, desk_protocols};
use crate::sway::{OutputPlace, Sway, SwayWindow, capture_obstacle, marker_obstacle};

/// The `system` a Wayland display reports in `status`.
pub const SYSTEM: &str = "wayland";

/// The protocols this desk uses (sway's IPC stands in for the toplevel list, which carries no
/// positions).
const USED: [&str; 4] = [
    "zwlr_screencopy_manager_v1",
    "zwp_virtual_keyboard_manager_v1",
    "zwlr_virtual_pointer_manager_v1",
    "zwlr_data_control_manager_v1",
];

/// How long apps get to bind the keyboard and pointer a seat gains with ours.
const SEAT_GRACE: Duration = Duration::from_millis(250);

/// How many characters go out between two checks of the focus and of a cancel.
const TYPING_BATCH: usize = 32;

/// A sway session, driven as a desk.
pub struct WaylandBackend {
    name: String,
    session: Session,
    sway: Arc<Sway>,
    events: WindowStream,
    keyboard: Mutex<Option<Keyboard>>,
    pointer: Mutex<Option<Pointer>>,
    lacking: Vec<String>,
    /// Why the acting marker is not drawn, when it is not (several outputs, a scaled or turned
    /// one).
    marker_obstacle: Option<String>,
    socket: Option<PathBuf>,
    clipboard: Clipboard,
    /// Made on first use; `None` inside when the compositor cannot show it.
    marker: OnceLock<Option<Marker>>,
}

impl WaylandBackend {
    /// Connects to the compositor at `socket` (named `name` in replies) and to sway's IPC at
    /// `ipc`.
    pub fn connect(name: &str, socket: Option<&Path>, ipc: &Path) -> Result<Self, DeskError> {
        let session = match socket {
            Some(path) => Session::connect_to(path),
            None => Session::connect(),
        }
        .map_err(unreachable)?;
        let sway = Arc::new(Sway::connect(ipc).map_err(unreachable)?);
        let events = WindowStream::start(&sway).map_err(unreachable)?;
        let mut lacking = lacking(&session.advertised());
        let outputs = sway.outputs().map_err(unreachable)?;
        if let Some(why) = capture_obstacle(&outputs) {
            lacking.push(format!("screenshots are refused: {why}"));
        }
        let marker_obstacle = marker_obstacle(&outputs);
        if let Some(why) = &marker_obstacle {
            lacking.push(format!("the acting marker is not drawn: {why}"));
        }
        // Made now, before the first input: apps bind their keyboard and pointer only once
        // the seat has one, on their own time. When ours are the seat's first, they get a
        // moment to; a failure shows on the first verb that needs the device.
        let keyboard = session.keyboard();
        let pointer = session.pointer();
        if keyboard.as_ref().is_ok_and(|k| k.first_of_its_kind())
            || pointer.as_ref().is_ok_and(|p| p.first_of_its_kind())
        {
            std::thread::sleep(SEAT_GRACE);
        }
        Ok(Self {
            name: name.to_string(),
            session,
            sway,
            events,
            keyboard: Mutex::new(keyboard.ok()),
            pointer: Mutex::new(pointer.ok()),
            lacking,
            marker_obstacle,
            socket: socket.map(Path::to_path_buf),
            clipboard: Clipboard::at(socket),
            marker: OnceLock::new(),
        })
    }

    /// Shows (`true`) or, after a linger, hides the marker that tells the person an agent is
    /// acting.
    pub fn indicate(&self, acting: bool) {
        if self.marker_obstacle.is_some() {
            return;
        }
        let marker = self
            .marker
            .get_or_init(|| match Marker::start(self.socket.as_deref()) {
                Ok(marker) => Some(marker),
                Err(e) => {
                    tracing::warn!(error = %e, "could not create the acting marker");
                    None
                }
            });
        if let Some(marker) = marker {
            marker.set(acting);
        }
    }

    /// Where the marker is drawn, once it exists.
    pub fn overlays(&self) -> Vec<Rect> {
        match (self.marker.get(), self.sway.layout()) {
            (Some(Some(_)), Ok(layout)) => vec![Marker::rect(layout)],
            _ => Vec::new(),
        }
    }

    /// sway's IPC, for the hotkey and the accessibility positions.
    pub fn sway(&self) -> Arc<Sway> {
        self.sway.clone()
    }

    fn windows_now(&self) -> Result<Vec<SwayWindow>, DeskError> {
        self.sway.windows().map_err(desk_error)
    }

    fn find(&self, id: &str) -> Result<SwayWindow, DeskError> {
        let con: i64 = id.parse().map_err(|_| {
            DeskError::Invalid(format!(
                "{id:?} is not a window id of this Wayland desk (they are sway container ids, \
                 such as \"7\"); call `windows` for the current list"
            ))
        })?;
        self.windows_now()?
            .into_iter()
            .find(|w| w.id == con)
            .ok_or_else(|| DeskError::WindowGone { id: id.to_string() })
    }

    fn keyboard(&self) -> Result<MutexGuard<'_, Option<Keyboard>>, DeskError> {
        let mut keyboard = self.keyboard.lock().unwrap_or_else(PoisonError::into_inner);
        if keyboard.is_none() {
            *keyboard = Some(self.session.keyboard().map_err(desk_error)?);
        }
        Ok(keyboard)
    }

    fn with_pointer<T>(
        &self,
        act: impl FnOnce(&mut Pointer, Rect) -> Result<T, WaylandError>,
    ) -> Result<T, DeskError> {
        let layout = self.sway.layout().map_err(desk_error)?;
        let mut pointer = self.pointer.lock().unwrap_or_else(PoisonError::into_inner);
        if pointer.is_none() {
            *pointer = Some(self.session.pointer().map_err(desk_error)?);
        }
        let pointer = pointer.as_mut().expect("made above");
        act(pointer, layout).map_err(desk_error)
    }

    fn focused_id(&self) -> Result<Option<String>, DeskError> {
        Ok(self
            .windows_now()?
            .into_iter()
            .find(|w| w.focused)
            .map(|w| w.id.to_string()))
    }
}

/// What a compositor advertising `advertised` (interface, version) makes this desk refuse,
/// and why.
fn lacking(advertised: &[(String, u32)]) -> Vec<String> {
    desk_protocols(advertised)
        .into_iter()
        .filter(|p| p.version.is_none() && USED.contains(&p.interface))
        .map(|p| {
            format!(
                "{} are refused: the compositor does not offer {}",
                p.needed_for, p.interface
            )
        })
        .collect()
}

/// Moves the pointer to desk point (x, y) of `layout`.
fn move_in(pointer: &mut Pointer, layout: Rect, x: i32, y: i32) -> Result<(), WaylandError> {
    let (dx, dy) = (x - layout.x, y - layout.y);
    if dx < 0 || dy < 0 {
        return Err(WaylandError::Refused(format!(
            "a pointer move to {x},{y}, outside the layout"
        )));
    }
    pointer.move_to(dx as u32, dy as u32, (layout.w, layout.h))
}

fn unreachable(e: WaylandError) -> DeskError {
    DeskError::Unreachable {
        system: SYSTEM,
        reason: e.to_string(),
    }
}

/// The desk's error for what the Wayland side said.
pub fn desk_error(e: WaylandError) -> DeskError {
    match e {
        WaylandError::Connect(_) => unreachable(e),
        WaylandError::Broken(reason) => DeskError::Disconnected {
            system: SYSTEM,
            reason,
        },
        WaylandError::Missing { .. } => DeskError::Unsupported(e.to_string()),
        WaylandError::Refused(what) => DeskError::Rejected {
            system: SYSTEM,
            what,
            reason: "nothing was done".into(),
        },
    }
}

fn record(w: &SwayWindow) -> Window {
    Window {
        id: w.id.to_string(),
        title: w.title.clone(),
        role: match w.window_type.as_deref() {
            Some("dialog") => role::DIALOG,
            Some("splash") => role::SPLASH,
            _ => role::WINDOW,
        }
        .to_string(),
        pid: w.pid,
        active: w.focused,
        app: None,
        shell: false,
        owner: None,
        modal: None,
        blocks: None,
    }
}

impl Display for WaylandBackend {
    fn info(&self) -> DisplayInfo {
        DisplayInfo {
            system: SYSTEM,
            display: self.name.clone(),
            capture: "screencopy",
            window_pixels: false,
            confirms: false,
            lacking: self.lacking.clone(),
        }
    }

    fn windows(&self) -> Result<Vec<Window>, DeskError> {
        Ok(self.windows_now()?.iter().map(record).collect())
    }

    fn screen(&self) -> Result<Rect, DeskError> {
        self.sway.layout().map_err(desk_error)
    }

    fn window_at(&self, x: i32, y: i32) -> Result<Option<Window>, DeskError> {
        Ok(self
            .windows_now()?
            .iter()
            .find(|w| w.shown && w.frame.contains_point(x, y))
            .map(record))
    }

    fn window_rect(&self, id: &str) -> Result<Option<Rect>, DeskError> {
        let window = self.find(id)?;
        Ok(window.shown.then_some(window.content))
    }

    /// The outputs under `rect` copied, each at one pixel per layout point (a scaled one
    /// shrunk), and put together where the layout has them.
    fn capture(&self, rect: Rect) -> Result<RgbImage, DeskError> {
        let outputs = self.sway.outputs().map_err(desk_error)?;
        if let Some(why) = capture_obstacle(&outputs) {
            return Err(DeskError::Unsupported(format!(
                "screenshots are refused on this Wayland desktop: {why}"
            )));
        }
        let under = |name: &str| {
            outputs
                .iter()
                .any(|o| o.name == name && o.rect.intersect(&rect).is_some())
        };
        let copies = self.session.capture_outputs(under).map_err(desk_error)?;
        Ok(put_together(rect, &outputs, &copies))
    }

    fn capture_scaled(&self, rect: Rect, width: u32) -> Result<RgbImage, DeskError> {
        Ok(shrink(&self.capture(rect)?, width))
    }

    /// Wayland gives no window's own pixels, so the screen's serve while nothing covers the
    /// window; a covered one is refused, naming what covers it.
    fn capture_window(&self, id: &str, area: Rect) -> Result<Option<RgbImage>, DeskError> {
        let windows = self.windows_now()?;
        let Some(at) = windows.iter().position(|w| w.id.to_string() == id) else {
            return Err(DeskError::WindowGone { id: id.to_string() });
        };
        let window = &windows[at];
        if !window.shown {
            return Err(DeskError::Unsupported(format!(
                "window {id} {:?} is not on the screen (hidden, or on a workspace not shown), \
                 and Wayland gives no window's own pixels; focus it first",
                window.title
            )));
        }
        let wanted = Rect {
            x: window.content.x + area.x,
            y: window.content.y + area.y,
            ..area
        };
        if let Some(cover) = windows[..at]
            .iter()
            .find(|w| w.shown && w.frame.intersect(&wanted).is_some())
        {
            return Err(DeskError::Unsupported(format!(
                "window {id} {:?} is partly covered by window {} {:?}, and Wayland gives no \
                 window's own pixels; focus it first, or shoot the screen",
                window.title, cover.id, cover.title
            )));
        }
        self.capture(wanted).map(Some)
    }

    fn fingerprint(&self) -> Result<u64, DeskError> {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for w in self.windows_now()? {
            (
                w.id, w.shown, w.focused, w.frame.x, w.frame.y, w.frame.w, w.frame.h,
            )
                .hash(&mut hasher);
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
            minimized: window.hidden,
            maximized: window.fullscreen,
        })
    }

    fn frame_extents(&self, id: &str) -> Result<[u32; 4], DeskError> {
        let SwayWindow { frame, content, .. } = self.find(id)?;
        Ok(frame.insets(&content))
    }

    fn read_clipboard(&self, format: ClipFormat) -> Result<Option<Clip>, DeskError> {
        self.clipboard.read(format)
    }
}

/// The image of layout rectangle `rect` from the `copies` of `outputs`: each copy at one pixel
/// per layout point, where its output sits; black where no output is.
fn put_together(rect: Rect, outputs: &[OutputPlace], copies: &[OutputCopy]) -> RgbImage {
    let mut image = RgbImage {
        width: rect.w,
        height: rect.h,
        pixels: vec![0; rect.w as usize * rect.h as usize * 3],
    };
    for copy in copies {
        // A compositor that names no outputs has one that matters: the only one.
        let output = match &copy.name {
            Some(name) => outputs.iter().find(|o| &o.name == name),
            None => outputs.first().filter(|_| outputs.len() == 1),
        };
        let Some(output) = output else {
            continue;
        };
        let pixels = if copy.image.width > output.rect.w {
            shrink(&copy.image, output.rect.w)
        } else {
            copy.image.clone()
        };
        // The part of the output under `rect`, in the output's pixels.
        let part = crop(
            &pixels,
            Rect {
                x: rect.x - output.rect.x,
                y: rect.y - output.rect.y,
                ..rect
            },
        );
        let (left, top) = (
            (output.rect.x - rect.x).max(0) as usize,
            (output.rect.y - rect.y).max(0) as usize,
        );
        for row in 0..part.height as usize {
            let to = ((top + row) * rect.w as usize + left) * 3;
            let from = row * part.width as usize * 3;
            let len = (part.width as usize * 3).min(image.pixels.len().saturating_sub(to));
            image.pixels[to..to + len].copy_from_slice(&part.pixels[from..from + len]);
        }
    }
    image
}

/// The part of `image` under `rect`, clipped to it.
fn crop(image: &RgbImage, rect: Rect) -> RgbImage {
    let left = rect.x.clamp(0, image.width as i32) as u32;
    let top = rect.y.clamp(0, image.height as i32) as u32;
    let right = (rect.right().clamp(0, i64::from(image.width))) as u32;
    let bottom = (rect.bottom().clamp(0, i64::from(image.height))) as u32;
    let (width, height) = (right.saturating_sub(left), bottom.saturating_sub(top));
    let mut pixels = Vec::with_capacity((width * height * 3) as usize);
    for y in top..top + height {
        let start = ((y * image.width + left) * 3) as usize;
        pixels.extend_from_slice(&image.pixels[start..start + (width * 3) as usize]);
    }
    RgbImage {
        width,
        height,
        pixels,
    }
}

impl Input for WaylandBackend {
    fn request_focus(&self, id: &str) -> Result<(), DeskError> {
        let window = self.find(id)?;
        self.sway
            .command(&format!("[con_id={}] focus", window.id))
            .map_err(desk_error)
    }

    fn request_close(&self, id: &str) -> Result<(), DeskError> {
        let window = self.find(id)?;
        self.sway
            .command(&format!("[con_id={}] kill", window.id))
            .map_err(desk_error)
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
        let mut keyboard = self.keyboard()?;
        let keyboard = keyboard.as_mut().expect("made by keyboard()");
        keyboard.press_keys(keysyms).map_err(desk_error)
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
            |batch| {
                let mut keyboard = self.keyboard().map_err(|e| (0, e))?;
                keyboard
                    .as_mut()
                    .expect("made by keyboard()")
                    .type_text(batch)
                    .map_err(|e| (0, desk_error(e)))?;
                Ok(batch.chars().count())
            },
        )
    }

    fn move_pointer(&self, x: i32, y: i32) -> Result<(), DeskError> {
        self.with_pointer(|pointer, layout| move_in(pointer, layout, x, y))
    }

    fn click(&self, button: Button, count: u8) -> Result<(), DeskError> {
        let button = match button {
            Button::Left => PointerButton::Left,
            Button::Right => PointerButton::Right,
            Button::Middle => PointerButton::Middle,
        };
        self.with_pointer(|pointer, _| pointer.click_here(button, count))
    }

    fn scroll(&self, direction: Direction, amount: u32, cancel: &Cancel) -> Result<(), DeskError> {
        let wheel = match direction {
            Direction::Up => Wheel::Up,
            Direction::Down => Wheel::Down,
            Direction::Left => Wheel::Left,
            Direction::Right => Wheel::Right,
        };
        let mut done = 0;
        self.with_pointer(|pointer, _| {
            while done < amount && !cancel.is_cancelled() {
                pointer.notch(wheel)?;
                done += 1;
            }
            Ok(())
        })?;
        if done < amount {
            return Err(DeskError::Cancelled {
                done: format!("{done} of {amount} notches were scrolled"),
            });
        }
        Ok(())
    }

    fn drag(&self, from: (i32, i32), to: (i32, i32), cancel: &Cancel) -> Result<(), DeskError> {
        self.with_pointer(|pointer, layout| {
            Ok(desk::drag::in_steps(from, to, cancel, |step| {
                match step {
                    Step::Move(x, y) => move_in(pointer, layout, x, y),
                    Step::Press => pointer.button(PointerButton::Left, true),
                    Step::Release => pointer.button(PointerButton::Left, false),
                }
                .map_err(desk_error)
            }))
        })?
    }

    fn ping(&self, _window: &Window, _limit: Duration) -> Pong {
        // Wayland cannot ask another client whether it has read its input.
        Pong::Unasked
    }

    fn release(&self) -> Result<(), DeskError> {
        Ok(())
    }

    fn request_frame(&self, id: &str, change: FrameChange) -> Result<(), DeskError> {
        let window = self.find(id)?;
        let con = format!("[con_id={}]", window.id);
        let command = match change {
            FrameChange::Set {
                x,
                y,
                width,
                height,
            } => {
                // sway places and sizes the whole frame; the desk asks for the app's area.
                let asked = change
                    .outer(window.frame, window.content)
                    .expect("a Set change has a frame");
                let mut parts = vec![format!("{con} floating enable")];
                // Sized first: sway resizes a floating window about its centre.
                if width.is_some() || height.is_some() {
                    parts.push(format!("{con} resize set {} px {} px", asked.w, asked.h));
                }
                if x.is_some() || y.is_some() {
                    parts.push(format!(
                        "{con} move absolute position {} {}",
                        asked.x, asked.y
                    ));
                }
                parts.join("; ")
            }
            FrameChange::Minimize => format!("{con} move scratchpad"),
            FrameChange::Maximize => format!("{con} fullscreen enable"),
            FrameChange::Restore if window.hidden => {
                format!("{con} scratchpad show; {con} floating disable; {con} focus")
            }
            FrameChange::Restore => format!("{con} fullscreen disable; {con} focus"),
        };
        self.sway.command(&command).map_err(desk_error)
    }

    fn write_clipboard(&self, clip: Clip) -> Result<(), DeskError> {
        self.clipboard.write(clip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_put_together_where_the_layout_has_them_a_scaled_one_shrunk() {
        let output = |name: &str, x: i32, w: u32, scale: f64| OutputPlace {
            name: name.into(),
            rect: Rect::new(x, 0, w, 1),
            scale,
            turned: None,
        };
        let outputs = [output("left", 0, 2, 1.0), output("right", 2, 1, 2.0)];
        let filled = |width: u32, height: u32, value: u8| RgbImage {
            width,
            height,
            pixels: vec![value; (width * height * 3) as usize],
        };
        // The right output's copy has two pixels a point.
        let copies = [
            OutputCopy {
                name: Some("left".into()),
                image: filled(2, 1, 10),
            },
            OutputCopy {
                name: Some("right".into()),
                image: filled(2, 2, 200),
            },
        ];
        let whole = put_together(Rect::new(0, 0, 4, 1), &outputs, &copies);
        assert_eq!(whole.pixels, [[10; 3], [10; 3], [200; 3], [0; 3]].concat());
        let across = put_together(Rect::new(1, 0, 2, 1), &outputs, &copies);
        assert_eq!(across.pixels, [[10; 3], [200; 3]].concat());
    }

    #[test]
    fn a_missing_protocol_names_the_verbs_it_refuses_and_a_list_it_does_not_use_is_no_loss() {
        let offered = |names: &[&str]| -> Vec<(String, u32)> {
            names.iter().map(|n| (n.to_string(), 1)).collect()
        };
        assert!(lacking(&offered(&USED)).is_empty());
        let no_pointer = lacking(&offered(&[
            "zwlr_screencopy_manager_v1",
            "zwp_virtual_keyboard_manager_v1",
            "zwlr_data_control_manager_v1",
        ]));
        assert_eq!(
            no_pointer,
            [
                "clicks, scrolls and drags are refused: the compositor does not offer \
              zwlr_virtual_pointer_manager_v1"
            ]
        );
    }

    #[test]
    fn a_crop_keeps_the_part_inside_the_image() {
        let image = RgbImage {
            width: 4,
            height: 2,
            pixels: (0..24).collect(),
        };
        let part = crop(&image, Rect::new(3, 1, 5, 5));
        assert_eq!((part.width, part.height), (1, 1));
        assert_eq!(part.pixels, [21, 22, 23]);
    }
}
