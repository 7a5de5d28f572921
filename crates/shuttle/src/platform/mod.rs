//! The one module that names the backend crates: which desktop this daemon drives, the seats
//! it starts for agents, and the Linux parts under both (processes, terminals, the sandbox).
//!
//! - [`person`]: the person's session, and the desk that drives it under `inherit` (X11, or
//!   their sway or GNOME session natively).
//! - [`x11`]: `LinuxX11`, an X display driven by `desk_x11` with `desk_linux`.
//! - [`wayland`]: `LinuxWayland`, a sway session driven by `desk_wayland`.
//! - [`gnome`]: `LinuxGnome`, a GNOME session on Wayland driven by `desk_gnome`.
//! - [`kde`]: `LinuxKde`, a KDE Plasma session on Wayland (or a headless KWin) driven by
//!   `desk_kde`.
//! - [`seat`]: the kinds of private seat, a file each, and the seats started of them.
//! - [`finding`]: what doctor reports of the person's session, each backend writing its own.
//!
//! A new backend is a crate and a file here beside `x11` and `wayland`, chosen in
//! `PersonsSession::desk`; a new kind of seat is a file in `seat/` and its entry in its list
//! (ARCHITECTURE.md, "Adding a backend").

mod finding;
mod gnome;
mod kde;
mod person;
mod seat;
mod wayland;
mod x11;

pub use finding::{Finding, Level, PER_AGENT_FIX};
pub use gnome::{EXTENSION, GnomeSession, LinuxGnome, extension_dir, install_extension};
pub use kde::{
    KdeSession, LinuxKde, desktop_file, desktop_file_found, desktop_file_path, kwin_connect,
    kwin_input_method, names_this_binary,
};
pub use person::{Person, PersonsDesk, PersonsSession, persons_room};
pub use seat::{PrivateSeat, PrivateSeats, SeatKind, reap_seats};
pub use wayland::{LinuxWayland, WaylandSession};
pub use x11::LinuxX11;

pub use desk_linux::sandbox::Room;
pub use desk_x11::watch::{WatchEnd, WatchOptions, watch};

/// The XDG data directories, the person's first: `$XDG_DATA_HOME` (else `~/.local/share`),
/// then each of `$XDG_DATA_DIRS` (else `/usr/local/share:/usr/share`).
fn data_dirs() -> Vec<std::path::PathBuf> {
    use std::path::PathBuf;
    let home = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")));
    let dirs = std::env::var("XDG_DATA_DIRS")
        .ok()
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
    home.into_iter()
        .chain(dirs.split(':').filter(|d| !d.is_empty()).map(PathBuf::from))
        .collect()
}

/// What `shuttle doctor` reads: the X display, the accessibility bus, the sandbox, and what a
/// kind of seat runs (`SeatKind::needs`); a native session reports itself
/// (`PersonsSession::finding`).
pub mod probe {
    pub use desk_linux::atspi::probe::probe as accessibility;
    pub use desk_linux::atspi::probe::{AppOnBus, BusProbe, enable as enable_accessibility};
    pub use desk_linux::sandbox::probe as sandbox;
    pub use desk_linux::toolkits::{gtk2_installed, gtk2_modules_installed};
    pub use desk_x11::{Probe as DisplayProbe, probe as display};
    pub use private_display::Requirement;
}

/// Makes `command` start detached from this process: in a session of its own, with its input
/// and output going nowhere.
pub fn detach(command: &mut std::process::Command) {
    desk_linux::launch::detach(command);
}

/// Notes `pid`, the leader of a process group the daemon started for an agent (a script run,
/// a plugin's program, a service), so its processes are known as the agent's.
pub fn note_agent_group(pid: u32) {
    desk_linux::lineage::note_leader(pid);
}

/// Whether apps can be launched in a sandbox here: bubblewrap is installed and can make one.
pub fn can_sandbox() -> bool {
    desk_linux::sandbox::probe().bwrap.is_ok()
}

/// Notes the daemon's keeper, which adopts what the daemon's descendants leave behind: its
/// adopted processes are the agent's too.
pub fn note_keeper(pid: u32) {
    desk_linux::lineage::note_keeper(pid);
}

/// Whether process `pid` is one the daemon started for an agent, or a child of one: a script
/// run, a plugin, a service, an app it launched.
pub fn started_for_agent(pid: u32) -> bool {
    desk_linux::lineage::started_here(pid)
}

/// The program process `pid` runs, in one word, for the person to read; `?` when gone.
pub fn process_name(pid: u32) -> String {
    desk_linux::proc::exe_name(pid).unwrap_or_else(|| "?".into())
}

/// The controlling terminal of process `pid`, where the person may be asked; `None` when it
/// has none.
pub fn terminal_of(pid: u32) -> Option<std::path::PathBuf> {
    desk_linux::terminal::controlling(pid)
}

/// A process started for an agent that may type into `terminal`: it holds the other side of
/// that pseudo-terminal (`systemd-run --pty`, `script`, an emulator it launched), or hides its
/// descriptors; `None` when none does.
pub fn terminal_typed_by_agent(terminal: &std::path::Path) -> Option<u32> {
    desk_linux::terminal::typed_into_by(terminal, started_for_agent)
}

/// Asks at `terminal`: writes `prompt`, and answers the line typed after it within `limit`.
pub fn ask_at_terminal(
    terminal: &std::path::Path,
    prompt: &str,
    limit: std::time::Duration,
) -> std::io::Result<Option<String>> {
    desk_linux::terminal::ask(terminal, prompt, limit)
}
