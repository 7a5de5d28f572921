//! The Wayland desk for wlroots compositors (sway, Hyprland, river, labwc, Wayfire), built
//! over the protocols they give ordinary clients. Work in progress for issue 28: so far the
//! session's globals, the toplevel windows (`zwlr_foreign_toplevel_manager_v1`), a capture
//! of an output (`zwlr_screencopy_manager_v1`), typing (`zwp_virtual_keyboard_v1`) and clicks
//! (`zwlr_virtual_pointer_v1`); `docs/wayland.md` has the whole design.
//!
//! - [`session`]: the connection, what the compositor advertises, and which of the protocols
//!   the desk builds on are there (`shuttle doctor` reports them).
//! - [`toplevels`]: the windows, with title, app id and state.
//! - [`capture`]: an output's pixels, copied into shared memory.
//! - [`keyboard`]: exact text typed on a virtual keyboard with a keymap of its own.
//! - [`pointer`](mod@pointer): clicks through a virtual pointer.

/// Implements `Dispatch` for objects whose events `$state` has no use for.
macro_rules! ignore_events {
    ($state:ty: $($proxy:ty),* $(,)?) => {$(
        impl wayland_client::Dispatch<$proxy, ()> for $state {
            fn event(
                _: &mut Self,
                _: &$proxy,
                _: <$proxy as wayland_client::Proxy>::Event,
                _: &(),
                _: &wayland_client::Connection,
                _: &wayland_client::QueueHandle<Self>,
            ) {
            }
        }
    )*};
}

pub mod backend;
pub mod capture;
mod device;
pub mod events;
pub mod hotkey;
pub mod keyboard;
pub mod marker;
pub mod placed;
pub mod pointer;
pub mod session;
mod shm;
pub mod sway;
pub mod toplevels;

pub use backend::WaylandBackend;
pub use placed::Placed;
pub use session::{DeskProtocol, Session, WaylandError, desk_protocols};
pub use sway::Sway;
pub use toplevels::Toplevel;
