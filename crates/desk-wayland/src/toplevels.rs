//! The toplevel windows, as `zwlr_foreign_toplevel_manager_v1` tells them: a handle per
//! window, then its title, app id and states, each batch ended by `done`.

use wayland_client::{Connection, Dispatch, Proxy, QueueHandle, event_created_child};
use wayland_protocols_wlr::foreign_toplevel::v1::client::{
    zwlr_foreign_toplevel_handle_v1::{self as handle, ZwlrForeignToplevelHandleV1},
    zwlr_foreign_toplevel_manager_v1::{self as manager, ZwlrForeignToplevelManagerV1},
};

use crate::session::{Session, WaylandError};

/// A window the compositor shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Toplevel {
    /// Its title.
    pub title: String,
    /// Its app id (the Wayland counterpart of X11's class).
    pub app_id: String,
    /// Whether it has the focus.
    pub activated: bool,
    /// Whether it is maximized.
    pub maximized: bool,
    /// Whether it is minimized.
    pub minimized: bool,
    /// Whether it is fullscreen.
    pub fullscreen: bool,
}

/// What the manager's and the handles' events built so far.
#[derive(Default)]
struct Listing {
    /// Each handle and what it said, in the order the compositor announced them.
    windows: Vec<(ZwlrForeignToplevelHandleV1, Toplevel, bool)>,
}

impl Dispatch<ZwlrForeignToplevelManagerV1, ()> for Listing {
    fn event(
        listing: &mut Self,
        _: &ZwlrForeignToplevelManagerV1,
        event: manager::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let manager::Event::Toplevel { toplevel } = event {
            listing.windows.push((toplevel, Toplevel::default(), false));
        }
    }

    event_created_child!(Listing, ZwlrForeignToplevelManagerV1, [
        manager::EVT_TOPLEVEL_OPCODE => (ZwlrForeignToplevelHandleV1, ()),
    ]);
}

impl Dispatch<ZwlrForeignToplevelHandleV1, ()> for Listing {
    fn event(
        listing: &mut Self,
        handle: &ZwlrForeignToplevelHandleV1,
        event: handle::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let Some((_, window, closed)) = listing
            .windows
            .iter_mut()
            .find(|(h, ..)| h.id() == handle.id())
        else {
            return;
        };
        match event {
            handle::Event::Title { title } => window.title = title,
            handle::Event::AppId { app_id } => window.app_id = app_id,
            handle::Event::State { state } => {
                // An array of u32 states, in native byte order.
                let states: Vec<u32> = state
                    .chunks_exact(4)
                    .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                let has = |s: handle::State| states.contains(&(s as u32));
                window.activated = has(handle::State::Activated);
                window.maximized = has(handle::State::Maximized);
                window.minimized = has(handle::State::Minimized);
                window.fullscreen = has(handle::State::Fullscreen);
            }
            handle::Event::Closed => *closed = true,
            _ => {}
        }
    }
}

impl Session {
    /// The windows the compositor shows now, in the order it announced them.
    pub fn toplevels(&self) -> Result<Vec<Toplevel>, WaylandError> {
        let mut queue = self.conn.new_event_queue::<Listing>();
        let qh = queue.handle();
        let manager: ZwlrForeignToplevelManagerV1 =
            self.globals
                .bind(&qh, 1..=3, ())
                .map_err(|_| WaylandError::Missing {
                    protocol: "zwlr_foreign_toplevel_manager_v1",
                    needed_for: "listing windows",
                })?;
        let mut listing = Listing::default();
        // The first round trip brings the handles, the second what each says.
        for _ in 0..2 {
            queue
                .roundtrip(&mut listing)
                .map_err(|e| WaylandError::Broken(e.to_string()))?;
        }
        manager.stop();
        let windows = listing
            .windows
            .into_iter()
            .filter(|(_, _, closed)| !closed)
            .map(|(handle, window, _)| {
                handle.destroy();
                window
            })
            .collect();
        Ok(windows)
    }
}
