//! The Wayland desk for sway, built over its IPC and the protocols wlroots compositors give
//! ordinary clients; `docs/wayland.md` has the design and what remains.
//!
//! - [`backend`]: `WaylandBackend`, the desk's `Display` and `Input` over a sway session.
//! - [`sway`]: the layout, pids, focus, close and frames through sway's IPC.
//! - [`events`]: the window news, from sway's event stream.
//! - [`session`]: the connection, what the compositor advertises, and which of the protocols
//!   the desk builds on are there (`shuttle doctor` reports them).
//! - [`toplevels`]: the windows as `zwlr_foreign_toplevel_manager_v1` lists them.
//! - [`capture`]: an output's pixels, copied into shared memory.
//! - [`clipboard`]: the clipboard through wlr-data-control, on sway and on KWin.
//! - [`keyboard`]: exact text typed on a virtual keyboard with a keymap of its own.
//! - [`pointer`](mod@pointer): clicks, drags and the wheel through a virtual pointer.
//! - [`hotkey`] and [`marker`]: the kill hotkey as a sway binding, and the acting marker.

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

/// Implements `Dispatch` for the registry of a queue made by `registry_queue_init`, whose
/// events `$state` has no use for: the global list it keeps is enough. Exported for the other
/// Wayland desks.
#[macro_export]
macro_rules! ignore_registry {
    ($state:ty) => {
        impl
            wayland_client::Dispatch<
                wayland_client::protocol::wl_registry::WlRegistry,
                wayland_client::globals::GlobalListContents,
            > for $state
        {
            fn event(
                _: &mut Self,
                _: &wayland_client::protocol::wl_registry::WlRegistry,
                _: wayland_client::protocol::wl_registry::Event,
                _: &wayland_client::globals::GlobalListContents,
                _: &wayland_client::Connection,
                _: &wayland_client::QueueHandle<Self>,
            ) {
            }
        }
    };
}

pub mod backend;
pub mod capture;
pub mod clipboard;
mod device;
pub mod events;
pub mod hotkey;
pub mod keyboard;
pub mod marker;
pub mod pointer;
pub mod session;
mod shm;
pub mod sway;
pub mod toplevels;

pub use backend::WaylandBackend;
pub use clipboard::Clipboard;
pub use session::{DeskProtocol, Session, WaylandError, desk_protocols};
pub use sway::Sway;
pub use toplevels::Toplevel;
