//! The Linux parts of a desk, shared by every display server shuttle drives there (X11 today,
//! Wayland next): accessibility over AT-SPI ([`atspi`]), what `/proc` says about processes
//! ([`proc`]), Chromium's ways ([`chromium`]), starting apps detached from the daemon
//! ([`launch`]), telling the processes it started from the person's ([`lineage`]), and asking
//! the person at their terminal ([`terminal`]).
//! [`LinuxApps`] is the [`desk::Apps`] of a Linux desktop.

pub mod atspi;
pub mod chromium;
pub mod launch;
pub mod lineage;
pub mod open;
pub mod placed;
pub mod proc;
pub mod sandbox;
pub mod terminal;
pub mod toolkits;

use desk::{AccessibilityOff, Apps, DeskError, Ending, Launched, Opener, Sandbox};

/// The processes of a Linux desktop.
#[derive(Debug, Default, Clone)]
pub struct LinuxApps {
    /// What apps it launches get instead of the daemon's environment: set these, remove those.
    env: launch::Env,
    /// What its apps reach from a sandbox.
    room: sandbox::Room,
}

impl LinuxApps {
    /// Apps launched with the daemon's environment, or in a sandbox in `room`.
    pub fn inherit(room: sandbox::Room) -> Self {
        Self {
            env: launch::Env::default(),
            room,
        }
    }

    /// Apps launched with `set` over the daemon's environment and without `remove` (a private
    /// display's DISPLAY, XAUTHORITY and buses), or in a sandbox in `room`.
    pub fn with_env(set: Vec<(String, String)>, remove: Vec<String>, room: sandbox::Room) -> Self {
        Self {
            env: launch::Env { set, remove },
            room,
        }
    }
}

impl Apps for LinuxApps {
    fn names(&self, pid: u32) -> Vec<String> {
        proc::names_of(pid)
    }

    fn own_pid(&self) -> u32 {
        std::process::id()
    }

    fn launch(
        &self,
        app: &str,
        args: &[String],
        sandbox: Option<&Sandbox>,
    ) -> Result<Launched, DeskError> {
        launch::spawn(app, args, &self.env, sandbox.map(|s| (s, &self.room)))
    }

    fn descends_from(&self, pid: u32, ancestor: u32) -> bool {
        proc::descends_from(pid, ancestor)
    }

    fn accessibility_off(&self, pid: u32) -> Option<AccessibilityOff> {
        if self.chromium_without_accessibility(pid) {
            Some(AccessibilityOff::Chromium)
        } else if toolkits::gtk2_without_accessibility(pid) {
            Some(AccessibilityOff::Gtk2 {
                installed: toolkits::gtk2_modules_installed(),
            })
        } else {
            None
        }
    }

    fn chromium_without_accessibility(&self, pid: u32) -> bool {
        chromium::is_chromium_process(pid) && !chromium::started_with_accessibility(pid)
    }

    fn running(&self, pid: u32) -> bool {
        proc::running(pid)
    }

    fn cpu_time(&self, pid: u32) -> Option<std::time::Duration> {
        proc::cpu_time(pid)
    }

    fn end(&self, pid: u32, ending: Ending) -> Result<(), DeskError> {
        let signal = match ending {
            Ending::Terminate => libc::SIGTERM,
            Ending::Kill => libc::SIGKILL,
        };
        // SAFETY: kill only signals; the desk checked that `pid` owns a window it admitted.
        if unsafe { libc::kill(pid as i32, signal) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        Err(DeskError::Invalid(format!("cannot signal process {pid}: {e}")).unsent())
    }

    fn opener(&self, target: &str) -> Result<Opener, DeskError> {
        open::opener(target)
    }
}
