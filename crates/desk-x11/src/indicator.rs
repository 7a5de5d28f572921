//! The marker that shows an agent is acting: a small red square in the screen's top right
//! corner, shown while an action runs and for a moment after.
//!
//! It is an override-redirect window, so the window manager neither decorates nor focuses it,
//! and its input shape is empty, so clicks pass through it to whatever is below. A thread of
//! its own, on a connection of its own, maps it, keeps it on top and hides it after the linger.

use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use crate::patient::Conn;
use desk_core::geometry::Rect;
use x11rb::connection::Connection;
use x11rb::protocol::shape::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{
    ConfigureWindowAux, ConnectionExt as _, CreateWindowAux, PropMode, StackMode, WindowClass,
};
use x11rb::wrapper::ConnectionExt as _;

/// The square's side, inside its border.
const SIDE: u16 = 14;
/// The white border that keeps it visible on red.
const BORDER: u16 = 2;
/// Its distance from the screen's edges.
const MARGIN: i32 = 4;
/// Red, in a 24-bit TrueColor visual.
const RED: u32 = 0x00e0_1b24;
const WHITE: u32 = 0x00ff_ffff;
/// How often it re-raises itself while shown, over windows raised since.
const RAISE_EVERY: Duration = Duration::from_millis(200);

/// The marker's handle: tell it when actions start and end.
pub(super) struct Indicator {
    tell: Sender<bool>,
    rect: Rect,
}

impl Indicator {
    /// Creates the (hidden) marker on `display`, whose screen is `screen` wide.
    pub(super) fn start(display: &str, screen: Rect) -> Option<Self> {
        let side = u32::from(SIDE + 2 * BORDER);
        let rect = Rect::new(screen.w as i32 - side as i32 - MARGIN, MARGIN, side, side);
        let (conn, screen_num) = crate::patient::connect(display).ok()?;
        let window = create(&conn, screen_num, rect).ok()?;
        let (tell, told) = mpsc::channel();
        std::thread::Builder::new()
            .name("shuttle-indicator".into())
            .spawn(move || show_while_acting(conn, window, told))
            .ok()?;
        Some(Self { tell, rect })
    }

    /// An action started (`true`) or ended.
    pub(super) fn set(&self, acting: bool) {
        let _ = self.tell.send(acting);
    }

    /// Where it is drawn, border included.
    pub(super) fn rect(&self) -> Rect {
        self.rect
    }
}

fn create(conn: &Conn, screen_num: usize, rect: Rect) -> Result<u32, Box<dyn std::error::Error>> {
    let root = conn.setup().roots[screen_num].root;
    let window = conn.generate_id()?;
    conn.create_window(
        x11rb::COPY_DEPTH_FROM_PARENT,
        window,
        root,
        rect.x as i16,
        rect.y as i16,
        SIDE,
        SIDE,
        BORDER,
        WindowClass::INPUT_OUTPUT,
        x11rb::COPY_FROM_PARENT,
        &CreateWindowAux::new()
            .override_redirect(1)
            .background_pixel(RED)
            .border_pixel(WHITE),
    )?;
    // An empty input shape: the pointer goes straight through to the window below.
    conn.shape_rectangles(
        shape::SO::SET,
        shape::SK::INPUT,
        x11rb::protocol::xproto::ClipOrdering::UNSORTED,
        window,
        0,
        0,
        &[],
    )?;
    conn.change_property8(
        PropMode::REPLACE,
        window,
        x11rb::protocol::xproto::AtomEnum::WM_NAME,
        x11rb::protocol::xproto::AtomEnum::STRING,
        b"shuttle: an agent is acting",
    )?;
    conn.flush()?;
    Ok(window)
}

/// The marker's thread: shows it while acting (re-raising it over windows raised since),
/// hides it a linger after, until the handle is dropped or the display goes away.
fn show_while_acting(conn: Conn, window: u32, told: Receiver<bool>) {
    desk::marker::show_while_acting(&told, RAISE_EVERY, |acting| {
        if acting {
            raise(&conn, window)
        } else {
            conn.unmap_window(window)
                .map(drop)
                .and_then(|()| conn.flush())
                .map_err(Into::into)
        }
    });
}

fn raise(conn: &Conn, window: u32) -> Result<(), Box<dyn std::error::Error>> {
    conn.map_window(window)?;
    conn.configure_window(
        window,
        &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE),
    )?;
    conn.flush()?;
    Ok(())
}
