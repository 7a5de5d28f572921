//! `shuttle watch`: an agent's private display, shown live in a window on the person's display.
//!
//! The viewer copies the agent's screen into its window whenever the agent's X server reports
//! damage (the DAMAGE extension, bounding boxes merged until the events stop coming), and
//! repaints on expose. View-only by default: the window takes no input. With `control`, the
//! person's pointer and keys in the window are replayed on the agent's display through XTest,
//! at the same coordinates (the window shows the screen at 1:1) and the same keycodes (both
//! servers use the standard evdev keycodes).
//!
//! A window on the person's own display, rather than a VNC server: nothing listens on a port
//! or socket that another user could reach, no viewer has to be installed, and only who can
//! already open windows on the person's display can see it.

use std::os::fd::AsRawFd;
use std::time::Duration;

use desk::DeskError;
use x11rb::connection::Connection;
use x11rb::image::Image;
use x11rb::protocol::Event;
use x11rb::protocol::damage::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{
    self, AtomEnum, ConnectionExt as _, CreateGCAux, CreateWindowAux, EventMask, PropMode,
    WindowClass,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

/// Rows copied per request.
const BAND_ROWS: usize = 64;

/// What to watch, and where.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// The agent's display, such as `:101`.
    pub source: String,
    /// The person's display, where the viewer window opens.
    pub viewer: String,
    /// The viewer window's title.
    pub title: String,
    /// Replay the person's input in the window on the agent's display.
    pub control: bool,
}

/// How watching ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchEnd {
    /// The person closed the viewer window.
    Closed,
    /// The agent's display went away.
    SourceGone,
}

/// A rectangle being merged from damage reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Pending {
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.x1 <= self.x0 || self.y1 <= self.y0
    }

    fn add(&mut self, x: i32, y: i32, w: i32, h: i32) {
        if w <= 0 || h <= 0 {
            return;
        }
        if self.is_empty() {
            *self = Self {
                x0: x,
                y0: y,
                x1: x + w,
                y1: y + h,
            };
        } else {
            self.x0 = self.x0.min(x);
            self.y0 = self.y0.min(y);
            self.x1 = self.x1.max(x + w);
            self.y1 = self.y1.max(y + h);
        }
    }

    /// Clipped to a `width` x `height` screen.
    fn clipped(&self, width: i32, height: i32) -> Self {
        Self {
            x0: self.x0.max(0),
            y0: self.y0.max(0),
            x1: self.x1.min(width),
            y1: self.y1.min(height),
        }
    }
}

fn failed(what: &str, e: impl std::fmt::Display) -> DeskError {
    DeskError::Unreachable {
        system: "x11",
        reason: format!("watch: {what}: {e}"),
    }
}

/// Shows `options.source` in a window on `options.viewer` until the person closes the window
/// or the source display ends. `ready` is called once the window shows the first full copy.
pub fn watch(options: &WatchOptions, ready: impl FnOnce(u32)) -> Result<WatchEnd, DeskError> {
    let connect_source = || {
        x11rb::connect(Some(&options.source)).map_err(|e| {
            failed(
                &format!("cannot connect to the agent's display {}", options.source),
                e,
            )
        })
    };
    // Damage events on one connection, pixel reads on another, so the events are never held
    // up behind a screen's worth of image replies.
    let (src, src_screen) = connect_source()?;
    let (pixels, _) = connect_source()?;
    let (dst, dst_screen) = x11rb::connect(Some(&options.viewer)).map_err(|e| {
        failed(
            &format!("cannot connect to your display {}", options.viewer),
            e,
        )
    })?;
    let src_root = src.setup().roots[src_screen].clone();
    let dst_root = dst.setup().roots[dst_screen].clone();
    if src_root.root_depth != dst_root.root_depth {
        return Err(failed(
            "the displays differ",
            format!(
                "the agent's display is {} bits deep and yours {}",
                src_root.root_depth, dst_root.root_depth
            ),
        ));
    }
    let (width, height) = (src_root.width_in_pixels, src_root.height_in_pixels);

    src.damage_query_version(1, 1)
        .map_err(|e| failed("DAMAGE", e))?
        .reply()
        .map_err(|e| failed("the agent's display has no DAMAGE extension", e))?;
    let damage = src.generate_id().map_err(|e| failed("an id", e))?;
    src.damage_create(damage, src_root.root, damage::ReportLevel::BOUNDING_BOX)
        .map_err(|e| failed("DAMAGE", e))?;
    src.flush().map_err(|e| failed("the agent's display", e))?;

    let window = dst.generate_id().map_err(|e| failed("an id", e))?;
    let mut events = EventMask::EXPOSURE | EventMask::STRUCTURE_NOTIFY;
    if options.control {
        events |= EventMask::BUTTON_PRESS
            | EventMask::BUTTON_RELEASE
            | EventMask::POINTER_MOTION
            | EventMask::KEY_PRESS
            | EventMask::KEY_RELEASE
            | EventMask::FOCUS_CHANGE;
    }
    dst.create_window(
        x11rb::COPY_DEPTH_FROM_PARENT,
        window,
        dst_root.root,
        0,
        0,
        width,
        height,
        0,
        WindowClass::INPUT_OUTPUT,
        0,
        &CreateWindowAux::new()
            .background_pixel(dst_root.black_pixel)
            .event_mask(events),
    )
    .map_err(|e| failed("the viewer window", e))?;
    let atom = |name: &[u8]| -> Result<u32, DeskError> {
        Ok(dst
            .intern_atom(false, name)
            .map_err(|e| failed("an atom", e))?
            .reply()
            .map_err(|e| failed("an atom", e))?
            .atom)
    };
    let (protocols, delete, net_name, utf8) = (
        atom(b"WM_PROTOCOLS")?,
        atom(b"WM_DELETE_WINDOW")?,
        atom(b"_NET_WM_NAME")?,
        atom(b"UTF8_STRING")?,
    );
    let title = options.title.as_bytes();
    let set = |property, kind, data: &[u8]| {
        dst.change_property8(PropMode::REPLACE, window, property, kind, data)
            .map_err(|e| failed("the viewer window", e))
    };
    set(
        u32::from(AtomEnum::WM_NAME),
        u32::from(AtomEnum::STRING),
        title,
    )?;
    set(net_name, utf8, title)?;
    dst.change_property32(
        PropMode::REPLACE,
        window,
        protocols,
        AtomEnum::ATOM,
        &[delete],
    )
    .map_err(|e| failed("the viewer window", e))?;
    if !options.control {
        // View-only: the window manager is told the window wants no keyboard focus.
        let hints = [1u32, 0, 0, 0, 0, 0, 0, 0, 0];
        dst.change_property32(
            PropMode::REPLACE,
            window,
            AtomEnum::WM_HINTS,
            AtomEnum::WM_HINTS,
            &hints,
        )
        .map_err(|e| failed("the viewer window", e))?;
    }
    let gc = dst.generate_id().map_err(|e| failed("an id", e))?;
    dst.create_gc(gc, window, &CreateGCAux::new())
        .map_err(|e| failed("the viewer window", e))?;
    dst.map_window(window)
        .map_err(|e| failed("the viewer window", e))?;
    dst.flush().map_err(|e| failed("your display", e))?;

    let full = Pending {
        x0: 0,
        y0: 0,
        x1: i32::from(width),
        y1: i32::from(height),
    };
    let copy = |rect: Pending| -> Result<(), DeskError> {
        let rect = rect.clipped(i32::from(width), i32::from(height));
        if rect.is_empty() {
            return Ok(());
        }
        // In bands: one reply of a whole screen is 8 MB, which a busy server trickles out.
        for top in (rect.y0..rect.y1).step_by(BAND_ROWS) {
            let rows = (rect.y1 - top).min(BAND_ROWS as i32);
            let (image, _) = Image::get(
                &pixels,
                src_root.root,
                rect.x0 as i16,
                top as i16,
                (rect.x1 - rect.x0) as u16,
                rows as u16,
            )
            .map_err(|e| failed(&format!("reading the agent's screen at {rect:?}"), e))?;
            image
                .put(&dst, window, gc, rect.x0 as i16, top as i16)
                .map_err(|e| failed("drawing the viewer window", e))?;
        }
        dst.flush().map_err(|e| failed("your display", e))
    };

    let mut ready = Some(ready);
    let mut mapped = false;
    // Keys replayed down on the agent's display, to let go when the viewer loses the focus
    // (their releases then go elsewhere) or ends.
    let mut held: Vec<u8> = Vec::new();
    let end = 'watch: loop {
        let mut pending = Pending::default();
        loop {
            let event = match src.poll_for_event() {
                Ok(Some(event)) => event,
                Ok(None) => break,
                Err(_) => break 'watch WatchEnd::SourceGone,
            };
            if let Event::DamageNotify(notify) = event {
                let area = notify.area;
                pending.add(
                    i32::from(area.x),
                    i32::from(area.y),
                    i32::from(area.width),
                    i32::from(area.height),
                );
            }
        }
        if !pending.is_empty() {
            // Reset before reading, so damage during the copy is reported again.
            src.damage_subtract(damage, x11rb::NONE, x11rb::NONE)
                .map_err(|e| failed("DAMAGE", e))?;
            src.flush().map_err(|e| failed("the agent's display", e))?;
            if mapped {
                copy(pending)?;
            }
        }
        loop {
            let event = match dst.poll_for_event() {
                Ok(Some(event)) => event,
                Ok(None) => break,
                Err(e) => return Err(failed("your display", e)),
            };
            match event {
                Event::Expose(expose) if expose.count == 0 => {
                    copy(full)?;
                    mapped = true;
                    if let Some(ready) = ready.take() {
                        ready(window);
                    }
                }
                Event::ClientMessage(message)
                    if message.type_ == protocols && message.data.as_data32()[0] == delete =>
                {
                    break 'watch WatchEnd::Closed;
                }
                Event::DestroyNotify(_) => break 'watch WatchEnd::Closed,
                Event::MotionNotify(e) if options.control => replay(
                    &src,
                    src_root.root,
                    xproto::MOTION_NOTIFY_EVENT,
                    0,
                    e.event_x,
                    e.event_y,
                )?,
                Event::ButtonPress(e) if options.control => {
                    replay(
                        &src,
                        src_root.root,
                        xproto::MOTION_NOTIFY_EVENT,
                        0,
                        e.event_x,
                        e.event_y,
                    )?;
                    replay(
                        &src,
                        src_root.root,
                        xproto::BUTTON_PRESS_EVENT,
                        e.detail,
                        0,
                        0,
                    )?
                }
                Event::ButtonRelease(e) if options.control => replay(
                    &src,
                    src_root.root,
                    xproto::BUTTON_RELEASE_EVENT,
                    e.detail,
                    0,
                    0,
                )?,
                Event::KeyPress(e) if options.control => {
                    replay(&src, src_root.root, xproto::KEY_PRESS_EVENT, e.detail, 0, 0)?;
                    held.push(e.detail);
                }
                Event::KeyRelease(e) if options.control => {
                    replay(
                        &src,
                        src_root.root,
                        xproto::KEY_RELEASE_EVENT,
                        e.detail,
                        0,
                        0,
                    )?;
                    held.retain(|k| *k != e.detail);
                }
                Event::FocusOut(_) if options.control => {
                    for key in held.drain(..) {
                        replay(&src, src_root.root, xproto::KEY_RELEASE_EVENT, key, 0, 0)?;
                    }
                }
                _ => {}
            }
        }
        if !wait_readable(&[src.stream().as_raw_fd(), dst.stream().as_raw_fd()]) {
            break 'watch WatchEnd::SourceGone;
        }
    };
    for key in held {
        let _ = replay(&src, src_root.root, xproto::KEY_RELEASE_EVENT, key, 0, 0);
    }
    Ok(end)
}

/// Replays one input event on the agent's display.
fn replay(
    src: &RustConnection,
    root: xproto::Window,
    kind: u8,
    detail: u8,
    x: i16,
    y: i16,
) -> Result<(), DeskError> {
    src.xtest_fake_input(kind, detail, x11rb::CURRENT_TIME, root, x, y, 0)
        .map_err(|e| failed("replaying your input", e))?;
    src.flush().map_err(|e| failed("the agent's display", e))
}

/// Waits until one of `fds` has something to read, for at most a second; false when one of
/// them hung up.
fn wait_readable(fds: &[i32]) -> bool {
    let mut polled: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let timeout = Duration::from_secs(1).as_millis() as i32;
    // SAFETY: `polled` is a live array of pollfd of the length passed.
    let ready = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, timeout) };
    if ready < 0 {
        // A signal that interrupted the wait is no hang-up.
        return std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted;
    }
    polled
        .iter()
        .all(|p| p.revents & (libc::POLLHUP | libc::POLLERR) == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damage_merges_into_one_bounding_box_clipped_to_the_screen() {
        let mut pending = Pending::default();
        assert!(pending.is_empty());
        pending.add(10, 10, 5, 5);
        pending.add(-4, 12, 2, 30);
        pending.add(0, 0, 0, 9);
        assert_eq!(
            pending,
            Pending {
                x0: -4,
                y0: 10,
                x1: 15,
                y1: 42
            }
        );
        assert_eq!(
            pending.clipped(12, 40),
            Pending {
                x0: 0,
                y0: 10,
                x1: 12,
                y1: 40
            }
        );
    }
}
