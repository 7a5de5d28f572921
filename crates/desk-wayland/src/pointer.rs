//! Pointer input through `zwlr_virtual_pointer_v1`: moves to a point of the output, given with
//! the output's extent, and button presses. Like the keyboard, it is made once and kept
//! (the `device` module says why).
//!
//! sway changes its layout in transactions that end when every window has drawn at its new
//! size, and routes input by the layout on the screen, while its IPC already tells the next
//! one: a click right after a window maps can meet the old layout. A caller clicks what it has
//! seen on the screen, or waits for the screen to be still first.

use wayland_client::protocol::wl_pointer::ButtonState;
use wayland_client::protocol::wl_seat;
use wayland_protocols_wlr::virtual_pointer::v1::client::{
    zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1,
    zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1,
};

use crate::device::{Device, Seat};
use crate::session::{Session, WaylandError, timestamp};

/// Linux's code for the left button (`BTN_LEFT`).
const BUTTON_LEFT: u32 = 0x110;

ignore_events!(Seat: ZwlrVirtualPointerManagerV1, ZwlrVirtualPointerV1);

/// A virtual pointer on the compositor's seat, made once and kept (the `device` module says
/// why).
pub struct Pointer {
    device: Device,
    pointer: ZwlrVirtualPointerV1,
}

impl Session {
    /// A virtual pointer of shuttle's own on the compositor's first seat, once the seat says
    /// it has a pointer.
    pub fn pointer(&self) -> Result<Pointer, WaylandError> {
        let needed_for = "clicks, scrolls and drags";
        let (device, pointer) =
            self.device(wl_seat::Capability::Pointer, needed_for, |qh, seat| {
                let manager: ZwlrVirtualPointerManagerV1 = self
                    .globals
                    .bind(qh, 1..=2, ())
                    .map_err(|_| WaylandError::Missing {
                        protocol: "zwlr_virtual_pointer_manager_v1",
                        needed_for,
                    })?;
                Ok(manager.create_virtual_pointer(Some(seat), qh, ()))
            })?;
        Ok(Pointer { device, pointer })
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
        self.device.sync()
    }
}
