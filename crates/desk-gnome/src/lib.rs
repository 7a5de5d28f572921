//! The GNOME desk: Mutter gives ordinary clients no window list and no input protocol, so the
//! desk is built from what GNOME does give. `docs/gnome.md` has the design and what remains.
//!
//! - [`extension`]: shuttle's GNOME Shell extension (its JavaScript is in `extension/`), in the
//!   form the Shell in use loads.
//! - [`shell`]: the extension over the session bus: windows, window requests, pixels, text
//!   committed through the input method.
//! - [`remote`]: keys, the pointer and the wheel through a Mutter RemoteDesktop session.
//! - [`cast`]: the monitors' pixels from that session's screen-cast streams, over PipeWire.
//! - [`events`]: the window news, from the extension's signals.
//! - [`hotkey`]: the kill hotkey, grabbed by the extension.
//! - [`backend`]: `GnomeBackend`, the desk's `Display` and `Input` over them.

pub mod backend;
pub mod cast;
pub mod events;
pub mod extension;
pub mod hotkey;
pub mod remote;
pub mod shell;

pub use backend::GnomeBackend;
pub use shell::{GnomeError, GnomeWindow, Shell};
