//! The KDE desk: KWin gives ordinary clients no window list, no pixels and no input, but
//! authorises chosen programs for its own interfaces, and runs scripts. `docs/kde.md` has the
//! design and what remains.
//!
//! - [`kwin`]: KWin over the session bus: windows and window requests through scripts it runs
//!   (their JavaScript is in `script/`), and the window news.
//! - [`shot`]: pixels through `org.kde.KWin.ScreenShot2`.
//! - [`fake`]: keys, the pointer and the wheel through `org_kde_kwin_fake_input`.
//! - [`keymap`]: which key of KWin's layout gives each character.
//! - [`im`]: exact text committed through KWin's input method protocol, by an input method of
//!   shuttle's that KWin starts.
//! - [`credit`]: the desk's sockets to KWin, connected by a helper KWin can identify (the
//!   daemon is not dumpable, so KWin cannot read its path).
//! - [`hotkey`]: the kill hotkey, a global shortcut a KWin script registers.
//! - [`backend`]: `KdeBackend`, the desk's `Display` and `Input` over them.
//!
//! KWin authorises a program by a desktop file whose `Exec` is the program's own path;
//! [`desktop_file`] writes the one shuttle needs.

pub mod backend;
pub mod credit;
pub mod fake;
pub mod hotkey;
pub mod im;
pub mod keymap;
pub mod kwin;
pub mod shot;

pub use backend::KdeBackend;
pub use kwin::{KWin, KdeError, KdeWindow};

/// The name of the desktop file that authorises shuttle.
pub const DESKTOP_FILE: &str = "dev.shuttle.desk.desktop";

/// The desktop file that authorises the program at `exe` for KWin's fake input and
/// screenshots, hidden from menus.
pub fn desktop_file(exe: &str) -> String {
    format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Name=shuttle\n\
         Comment=Computer use for AI agents: the daemon that drives this desktop\n\
         Exec={exe}\n\
         NoDisplay=true\n\
         X-KDE-Wayland-Interfaces={}\n\
         X-KDE-DBUS-Restricted-Interfaces={}\n",
        fake::INTERFACE,
        shot::INTERFACE,
    )
}

/// This program's own path, as KWin reads it from /proc to authorise it; `None` when it
/// cannot be read.
pub fn own_exe() -> Option<String> {
    std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .ok()
        .map(|p| p.display().to_string())
}
