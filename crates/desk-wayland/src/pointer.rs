//! Pointer input through `zwlr_virtual_pointer_v1`: moves to a point of the output, given with
//! the output's extent, and button presses. Like the keyboard, it is made once and kept
//! (the `device` module says why).
//!
//! sway changes its layout in transactions that end when every window has drawn at its new
//! size, and routes input by the layout on the screen, while its IPC already tells the next
//! one: a click right after a window maps can meet the old layout. A caller clicks what it has
//! seen on the screen, or waits for the screen to be still first.

use wayland_client::protocol::wl_pointer::{Axis, AxisSource, ButtonState};
use wayland_client::protocol::wl_seat;
use wayland_protocols_wlr::virtual_pointer::v1::client::{
    zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1,
    zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1,
};

use crate::device::{Device, SeatCaps};
use crate::session::{Session, WaylandError, timestamp};

ignore_events!(SeatCaps: ZwlrVirtualPointerManagerV1, ZwlrVirtualPointerV1);

/// A virtual pointer on the compositor's `wl_seat`, made once and kept (the `device` module says
/// why).
pub struct Pointer {
    device: Device,
    pointer: ZwlrVirtualPointerV1,
    first: bool,
}

impl Session {
    /// A virtual pointer of shuttle's own on the compositor's first `wl_seat`, once the
    /// `wl_seat` says it has a pointer.
    pub fn pointer(&self) -> Result<Pointer, WaylandError> {
        let needed_for = "clicks, scrolls and drags";
        let (device, pointer, first) =
            self.device(wl_seat::Capability::Pointer, needed_for, |qh, wl_seat| {
                let manager: ZwlrVirtualPointerManagerV1 = self
                    .globals
                    .bind(qh, 1..=2, ())
                    .map_err(|_| WaylandError::Missing {
                        protocol: "zwlr_virtual_pointer_manager_v1",
                        needed_for,
                    })?;
                Ok(manager.create_virtual_pointer(Some(wl_seat), qh, ()))
            })?;
        Ok(Pointer {
            device,
            pointer,
            first,
        })
    }
}

/// A button, by Linux's input codes (`BTN_LEFT`, `BTN_RIGHT`, `BTN_MIDDLE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointerButton {
    /// The primary button.
    Left = 0x110,
    /// The secondary button.
    Right = 0x111,
    /// The wheel's button.
    Middle = 0x112,
}

/// Which way the wheel turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wheel {
    /// Away from the person: the view goes up.
    Up,
    /// Towards the person.
    Down,
    /// Left.
    Left,
    /// Right.
    Right,
}

/// How far one notch of the wheel scrolls, in the surface units `wl_pointer.axis` uses (what
/// libinput reports for one notch of a mouse wheel).
const NOTCH: f64 = 15.0;

impl Pointer {
    /// Whether it gave the `wl_seat` its first device of its kind: apps running then bind theirs
    /// only after, each on its own time, and input sent before that is lost to them.
    pub fn first_of_its_kind(&self) -> bool {
        self.first
    }

    /// Moves to (`x`, `y`) of an area `extent` (width, height) pixels large: the compositor
    /// maps it onto its whole layout.
    pub fn move_to(&mut self, x: u32, y: u32, extent: (u32, u32)) -> Result<(), WaylandError> {
        if x >= extent.0 || y >= extent.1 {
            return Err(WaylandError::Refused(format!(
                "a pointer move to {x},{y}, outside the {}x{} layout",
                extent.0, extent.1
            )));
        }
        self.pointer
            .motion_absolute(timestamp(), x, y, extent.0, extent.1);
        self.pointer.frame();
        self.device.sync()
    }

    /// Presses (`down`) or releases `button` where the pointer is.
    pub fn button(&mut self, button: PointerButton, down: bool) -> Result<(), WaylandError> {
        let state = if down {
            ButtonState::Pressed
        } else {
            ButtonState::Released
        };
        self.pointer.button(timestamp(), button as u32, state);
        self.pointer.frame();
        self.device.sync()
    }

    /// Clicks `button` `count` times where the pointer is.
    pub fn click_here(&mut self, button: PointerButton, count: u8) -> Result<(), WaylandError> {
        for _ in 0..count {
            for state in [ButtonState::Pressed, ButtonState::Released] {
                self.pointer.button(timestamp(), button as u32, state);
                self.pointer.frame();
            }
        }
        self.device.sync()
    }

    /// Turns the wheel one notch `wheel`'s way, where the pointer is.
    pub fn notch(&mut self, wheel: Wheel) -> Result<(), WaylandError> {
        let (axis, sign) = match wheel {
            Wheel::Up => (Axis::VerticalScroll, -1),
            Wheel::Down => (Axis::VerticalScroll, 1),
            Wheel::Left => (Axis::HorizontalScroll, -1),
            Wheel::Right => (Axis::HorizontalScroll, 1),
        };
        self.pointer.axis_source(AxisSource::Wheel);
        self.pointer
            .axis_discrete(timestamp(), axis, NOTCH * f64::from(sign), sign);
        self.pointer.frame();
        self.device.sync()
    }

    /// Moves to (`x`, `y`) of an output `extent` (width, height) pixels large, and clicks the
    /// left button there.
    pub fn click(&mut self, x: u32, y: u32, extent: (u32, u32)) -> Result<(), WaylandError> {
        self.move_to(x, y, extent)?;
        self.click_here(PointerButton::Left, 1)
    }
}
