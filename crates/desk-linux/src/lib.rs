//! The Linux parts of a desk, shared by every display server shuttle drives there (X11 today,
//! Wayland next): accessibility over AT-SPI ([`atspi`]), what `/proc` says about processes
//! ([`proc`]), Chromium's ways ([`chromium`]), and starting apps detached from the daemon ([`launch`]). [`LinuxApps`] is the
//! [`desk::Apps`] of a Linux desktop.

pub mod atspi;
pub mod chromium;
pub mod launch;
pub mod proc;

use desk::{Apps, DeskError, Launched};

/// The processes of a Linux desktop.
#[derive(Debug, Default, Clone, Copy)]
pub struct LinuxApps;

impl Apps for LinuxApps {
    fn names(&self, pid: u32) -> Vec<String> {
        proc::names_of(pid)
    }

    fn own_pid(&self) -> u32 {
        std::process::id()
    }

    fn launch(&self, app: &str, args: &[String]) -> Result<Launched, DeskError> {
        launch::spawn(app, args)
    }

    fn descends_from(&self, pid: u32, ancestor: u32) -> bool {
        proc::descends_from(pid, ancestor)
    }

    fn chromium_based(&self, pid: u32) -> bool {
        chromium::is_chromium_process(pid)
    }
}
