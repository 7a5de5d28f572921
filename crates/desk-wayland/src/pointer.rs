//! Pointer input through `zwlr_virtual_pointer_v1`: moves to a point of the output, given with
//! the output's extent, and button presses. Like the keyboard, it is made once and kept: the
//! seat gains its pointer only with the first virtual one.
//!
//! sway changes its layout in transactions that end when every window has drawn at its new
//! size, and routes input by the layout on the screen, while its IPC already tells the next
//! one: a click right after a window maps can meet the old layout. A caller clicks what it has
//! seen on the screen, or waits for the screen to be still first.

use wayland_client::protocol::wl_pointer::ButtonState;
use wayland_client::protocol::wl_seat::{self, WlSeat};
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle, WEnum};
use wayland_protocols_wlr::virtual_pointer::v1::client::{
    zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1,
    zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1,
};

use crate::session::{Session, WaylandError, timestamp};

/// Linux's code for the left button (`BTN_LEFT`).
const BUTTON_LEFT: u32 = 0x110;

/// What the seat said: whether it has a pointer, which it has once the virtual one exists.
#[derive(Default)]
pub(crate) struct Pointing {
    has_pointer: bool,
}

impl Dispatch<WlSeat, ()> for Pointing {
    fn event(
        pointing: &mut Self,
        _: &WlSeat,
        event: wl_seat::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_seat::Event::Capabilities {
            capabilities: WEnum::Value(capabilities),
        } = event
        {
            pointing.has_pointer = capabilities.contains(wl_seat::Capability::Pointer);
        }
    }
}

macro_rules! ignore_events {
    ($($proxy:ty),*) => {$(
        impl Dispatch<$proxy, ()> for Pointing {
            fn event(_: &mut Self, _: &$proxy, _: <$proxy as wayland_client::Proxy>::Event,
                _: &(), _: &Connection, _: &QueueHandle<Self>) {}
        }
    )*};
}
ignore_events!(ZwlrVirtualPointerManagerV1, ZwlrVirtualPointerV1);

/// A virtual pointer on the compositor's seat.
pub struct Pointer {
    queue: EventQueue<Pointing>,
    pointer: ZwlrVirtualPointerV1,
    pointing: Pointing,
}

impl Session {
    /// A virtual pointer of shuttle's own on the compositor's first seat, once the seat says
    /// it has a pointer.
    pub fn pointer(&self) -> Result<Pointer, WaylandError> {
        let queue = self.conn.new_event_queue::<Pointing>();
        let qh = queue.handle();
        let missing = |protocol| WaylandError::Missing {
            protocol,
            needed_for: "clicks, scrolls and drags",
        };
        let manager: ZwlrVirtualPointerManagerV1 = self
            .globals
            .bind(&qh, 1..=2, ())
            .map_err(|_| missing("zwlr_virtual_pointer_manager_v1"))?;
        let seat: WlSeat = self
            .globals
            .bind(&qh, 1..=7, ())
            .map_err(|_| missing("wl_seat"))?;
        let pointer = manager.create_virtual_pointer(Some(&seat), &qh, ());
        let mut pointer = Pointer {
            queue,
            pointer,
            pointing: Pointing::default(),
        };
        while !pointer.pointing.has_pointer {
            pointer.sync()?;
        }
        Ok(pointer)
    }
}

impl Pointer {
    /// Moves to (`x`, `y`) of an output `extent` (width, height) pixels large, and clicks the
    /// left button there.
    pub fn click(&mut self, x: u32, y: u32, extent: (u32, u32)) -> Result<(), WaylandError> {
        if x >= extent.0 || y >= extent.1 {
            return Err(WaylandError::Refused(format!(
                "a click at {x},{y}, outside the {}x{} output",
                extent.0, extent.1
            )));
        }
        self.pointer
            .motion_absolute(timestamp(), x, y, extent.0, extent.1);
        self.pointer.frame();
        for state in [ButtonState::Pressed, ButtonState::Released] {
            self.pointer.button(timestamp(), BUTTON_LEFT, state);
            self.pointer.frame();
        }
        self.sync()
    }

    /// Waits until the compositor has handled every request sent.
    fn sync(&mut self) -> Result<(), WaylandError> {
        self.queue
            .roundtrip(&mut self.pointing)
            .map(drop)
            .map_err(|e| WaylandError::Broken(e.to_string()))
    }
}
