//! An agent's own devices on the person's X display: a master pointer and keyboard pair of the
//! agent's own, made with XInput 2's hierarchy requests. Input sent through it comes from the
//! pair's own XTEST devices, so it moves the agent's cursor and goes to the agent keyboard's
//! focus, never the person's pointer or focus.
//!
//! XTEST sends core events through the client pointer of the connection that asks (and the
//! keyboard paired with it), so the devices have a connection of its own whose client pointer is
//! the agent's. A pair outlives the connection that made it, so it is named
//! `shuttle-agent-PID-N` after the daemon's pid: [`reap`] removes those of daemons that died.

use x11rb::connection::{Connection, RequestConnection};
use x11rb::errors::ReplyError;
use x11rb::protocol::ErrorKind;
use x11rb::protocol::xinput::{
    self, ChangeMode, ConnectionExt as _, DeviceType, HierarchyChange, HierarchyChangeData,
    HierarchyChangeDataAddMaster, HierarchyChangeDataRemoveMaster,
};
use x11rb::protocol::xproto::{self, ConnectionExt as _};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

use std::sync::{Arc, Mutex, MutexGuard};

use desk::DeskError;

/// The prefix of every agent pair's name; the daemon's pid follows.
const PREFIX: &str = "shuttle-agent-";

/// A master pointer and keyboard of the agent's own, removed when dropped.
pub struct AgentDevices {
    conn: RustConnection,
    root: xproto::Window,
    pointer: u16,
    keyboard: u16,
}

/// An error making the devices.
fn failed(what: &str, e: impl std::fmt::Display) -> DeskError {
    DeskError::Unsupported(format!(
        "cannot make the agent's own pointer and keyboard on this display ({what}: {e}); \
         background input needs XInput 2.2"
    ))
}

/// An error using devices that were made; the backend makes new ones on the next call.
fn broke(what: &str, e: impl std::fmt::Display) -> DeskError {
    DeskError::Rejected {
        system: "x11",
        what: format!("{what} on the agent's own devices"),
        reason: format!("{e}; the next call makes them anew"),
    }
}

/// Where the pair numbers of this process start: a pid a daemon that died had may come
/// round again, and its pairs must not be taken for this daemon's.
fn first_number() -> u32 {
    static FIRST: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *FIRST.get_or_init(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |t| t.subsec_micros())
    })
}

impl AgentDevices {
    /// Makes the pair on `display`.
    pub fn create(display: &str) -> Result<Self, DeskError> {
        static MADE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = first_number() + MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (conn, screen) = x11rb::connect(Some(display)).map_err(|e| failed("connecting", e))?;
        let root = conn.setup().roots[screen].root;
        if conn
            .extension_information(xinput::X11_EXTENSION_NAME)
            .map_err(|e| failed("asking for XInput", e))?
            .is_none()
        {
            return Err(failed("XInput", "the X server does not offer it"));
        }
        let version = conn
            .xinput_xi_query_version(2, 2)
            .map_err(|e| failed("XInput's version", e))?
            .reply()
            .map_err(|e| failed("XInput's version", e))?;
        if (version.major_version, version.minor_version) < (2, 2) {
            return Err(failed(
                "XInput",
                format!(
                    "the X server offers {}.{}",
                    version.major_version, version.minor_version
                ),
            ));
        }
        let name = format!("{PREFIX}{}-{n}", std::process::id());
        let padded = name.len().div_ceil(4) * 4;
        let add = HierarchyChange {
            len: ((8 + padded) / 4) as u16,
            data: HierarchyChangeData::AddMaster(HierarchyChangeDataAddMaster {
                send_core: true,
                enable: true,
                name: name.clone().into_bytes(),
            }),
        };
        conn.xinput_xi_change_hierarchy(&[add])
            .map_err(|e| failed("adding the pair", e))?
            .check()
            .map_err(|e| failed("adding the pair", e))?;
        let (pointer, keyboard) =
            masters(&conn, &name)?.ok_or_else(|| failed("adding the pair", "it did not appear"))?;
        let devices = Self {
            conn,
            root,
            pointer,
            keyboard,
        };
        devices
            .conn
            .xinput_xi_set_client_pointer(x11rb::NONE, devices.pointer)
            .map_err(|e| failed("taking its pointer", e))?
            .check()
            .map_err(|e| failed("taking its pointer", e))?;
        Ok(devices)
    }

    /// The agent keyboard's focus goes to `window`; the person's stays where it is. A window
    /// that is gone, or not on the screen, is refused as such.
    pub fn focus(&self, window: xproto::Window) -> Result<(), DeskError> {
        let id = format!("0x{window:x}");
        match self
            .conn
            .xinput_xi_set_focus(window, x11rb::CURRENT_TIME, self.keyboard)
            .map_err(|e| broke("focusing", e))?
            .check()
        {
            Ok(()) => Ok(()),
            Err(ReplyError::X11Error(e)) if e.error_kind == ErrorKind::Window => {
                Err(DeskError::WindowGone { id })
            }
            Err(ReplyError::X11Error(e)) if e.error_kind == ErrorKind::Match => {
                Err(DeskError::Unfit(format!(
                    "window {id} is not on the screen (minimized, or on another desktop), and \
                     background input cannot give it the focus without showing it; ask the \
                     person to show it, or use foreground input"
                )))
            }
            Err(e) => Err(broke("focusing", e)),
        }
    }

    /// The window the agent keyboard's focus is on (0: none).
    pub fn focused(&self) -> Result<xproto::Window, DeskError> {
        Ok(self
            .conn
            .xinput_xi_get_focus(self.keyboard)
            .map_err(|e| broke("reading its focus", e))?
            .reply()
            .map_err(|e| broke("reading its focus", e))?
            .focus)
    }

    /// Presses (`down`) or releases the key `keycode` on the agent's keyboard.
    pub fn key(&self, keycode: u8, down: bool) -> Result<(), DeskError> {
        let kind = if down {
            xproto::KEY_PRESS_EVENT
        } else {
            xproto::KEY_RELEASE_EVENT
        };
        self.fake(kind, keycode, 0, 0)
    }

    /// Moves the agent's pointer to (x, y) of the screen.
    pub fn move_to(&self, x: i16, y: i16) -> Result<(), DeskError> {
        self.fake(xproto::MOTION_NOTIFY_EVENT, 0, x, y)
    }

    /// Presses (`down`) or releases `button` of the agent's pointer.
    pub fn button(&self, button: u8, down: bool) -> Result<(), DeskError> {
        let kind = if down {
            xproto::BUTTON_PRESS_EVENT
        } else {
            xproto::BUTTON_RELEASE_EVENT
        };
        self.fake(kind, button, 0, 0)
    }

    /// Where the agent's pointer is on the screen.
    pub fn pointer_at(&self) -> Result<(i32, i32), DeskError> {
        let at = self
            .conn
            .xinput_xi_query_pointer(self.root, self.pointer)
            .map_err(|e| broke("reading its pointer", e))?
            .reply()
            .map_err(|e| broke("reading its pointer", e))?;
        // Fixed point, 16.16.
        Ok((at.root_x >> 16, at.root_y >> 16))
    }

    /// Waits until the server has handled everything sent.
    pub fn sync(&self) -> Result<(), DeskError> {
        self.conn
            .get_input_focus()
            .map_err(|e| broke("a round trip", e))?
            .reply()
            .map(drop)
            .map_err(|e| broke("a round trip", e))
    }

    fn fake(&self, kind: u8, detail: u8, x: i16, y: i16) -> Result<(), DeskError> {
        self.send(kind, detail, x, y)?;
        self.flush()
    }

    /// Queues one XTEST event from the pair (`kind` an X event type, `detail` a keycode or
    /// button); [`AgentDevices::flush`] sends what is queued.
    pub fn send(&self, kind: u8, detail: u8, x: i16, y: i16) -> Result<(), DeskError> {
        self.conn
            .xtest_fake_input(kind, detail, x11rb::CURRENT_TIME, self.root, x, y, 0)
            .map_err(|e| broke("sending input", e))?;
        Ok(())
    }

    /// Sends what is queued.
    pub fn flush(&self) -> Result<(), DeskError> {
        self.conn.flush().map_err(|e| broke("sending input", e))
    }
}

/// An error looking after pairs left behind.
fn refused(what: &str, e: impl std::fmt::Display) -> DeskError {
    DeskError::Rejected {
        system: "x11",
        what: what.into(),
        reason: e.to_string(),
    }
}

/// Removes the pairs on the display of `conn` that daemons no longer running left behind,
/// and any that carry this process's own pid (a daemon that died had it before); returns how
/// many. Called before this process makes a pair.
pub fn reap(conn: &impl Connection) -> Result<usize, DeskError> {
    let devices = conn
        .xinput_xi_query_device(xinput::Device::ALL_MASTER)
        .map_err(|e| refused("listing input devices", e))?
        .reply()
        .map_err(|e| refused("listing input devices", e))?
        .infos;
    let mut removed = 0;
    for device in devices {
        if device.type_ != DeviceType::MASTER_POINTER {
            continue;
        }
        let name = String::from_utf8_lossy(&device.name);
        let Some(pid) = owner(&name) else {
            continue;
        };
        if pid != std::process::id() && std::path::Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        remove(conn, device.deviceid)?;
        removed += 1;
    }
    Ok(removed)
}

/// The pid of the daemon that made the pair whose pointer is named `name`, if shuttle did.
fn owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?.strip_suffix(" pointer")?;
    let (pid, n) = rest.split_once('-')?;
    n.parse::<u32>().ok()?;
    pid.parse().ok()
}

impl Drop for AgentDevices {
    fn drop(&mut self) {
        // The person's focus stays where it is (tested with openbox): unlike the agent's focus
        // moved to nowhere, removing the pair does not make the window manager pick a window.
        let _ = remove(&self.conn, self.pointer);
    }
}

/// The pair named `name`: its master pointer and keyboard.
fn masters(conn: &RustConnection, name: &str) -> Result<Option<(u16, u16)>, DeskError> {
    let devices = conn
        .xinput_xi_query_device(xinput::Device::ALL_MASTER)
        .map_err(|e| failed("listing devices", e))?
        .reply()
        .map_err(|e| failed("listing devices", e))?
        .infos;
    let find = |kind: DeviceType, suffix: &str| {
        devices
            .iter()
            .find(|d| d.type_ == kind && d.name == format!("{name} {suffix}").as_bytes())
            .map(|d| d.deviceid)
    };
    Ok(find(DeviceType::MASTER_POINTER, "pointer")
        .zip(find(DeviceType::MASTER_KEYBOARD, "keyboard")))
}

fn remove(conn: &impl Connection, pointer: u16) -> Result<(), DeskError> {
    let change = HierarchyChange {
        len: 3,
        data: HierarchyChangeData::RemoveMaster(HierarchyChangeDataRemoveMaster {
            deviceid: pointer,
            return_mode: ChangeMode::FLOAT,
            return_pointer: 0,
            return_keyboard: 0,
        }),
    };
    conn.xinput_xi_change_hierarchy(&[change])
        .map_err(|e| refused("removing an agent's pair", e))?
        .check()
        .map_err(|e| refused("removing an agent's pair", e))
}

/// At most this many agents have devices at once; those used longest ago go first.
const AGENTS_WITH_DEVICES_MAX: usize = 8;

/// The agents' devices on one display, most recently used last. The X requests that make or
/// remove pairs run outside the lock.
#[derive(Default)]
pub(crate) struct DevicesByAgent(Mutex<Vec<(String, Arc<AgentDevices>)>>);

impl DevicesByAgent {
    fn locked(&self) -> MutexGuard<'_, Vec<(String, Arc<AgentDevices>)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The agents that have devices.
    pub(crate) fn names(&self) -> Vec<String> {
        self.locked()
            .iter()
            .map(|(agent, _)| agent.clone())
            .collect()
    }

    /// `agent`'s own devices on `display`, made on first use.
    pub(crate) fn get(&self, agent: &str, display: &str) -> Result<Arc<AgentDevices>, DeskError> {
        let found = {
            let mut all = self.locked();
            let found = all
                .iter()
                .position(|(a, _)| a == agent)
                .map(|i| all.remove(i).1);
            if let Some(devices) = &found {
                all.push((agent.to_string(), devices.clone()));
            }
            found
        };
        if let Some(devices) = found {
            return Ok(devices);
        }
        let devices = Arc::new(AgentDevices::create(display)?);
        let evicted = {
            let mut all = self.locked();
            all.push((agent.to_string(), devices.clone()));
            let over = all.len().saturating_sub(AGENTS_WITH_DEVICES_MAX);
            all.drain(..over).collect::<Vec<_>>()
        };
        drop(evicted);
        Ok(devices)
    }

    /// Removes `agent`'s devices, if it has them; its pair goes with it, outside the lock.
    pub(crate) fn forget(&self, agent: &str) {
        let forgotten = {
            let mut all = self.locked();
            let at = all.iter().position(|(a, _)| a == agent);
            at.map(|i| all.remove(i))
        };
        drop(forgotten);
    }

    /// Forgets `agent`'s devices when `result` says it broke, so the next call makes it anew.
    pub(crate) fn mend<T>(
        &self,
        agent: &str,
        result: Result<T, DeskError>,
    ) -> Result<T, DeskError> {
        if let Err(DeskError::Rejected { .. }) = &result {
            self.forget(agent);
        }
        result
    }

    /// Removes every agent's devices (their pairs with them: the X server would keep them past the
    /// daemon).
    pub(crate) fn clear(&self) {
        let all = std::mem::take(&mut *self.locked());
        drop(all);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_shuttles_pairs_name_an_owner() {
        assert_eq!(owner("shuttle-agent-4242-0 pointer"), Some(4242));
        assert_eq!(owner("shuttle-agent-4242-17 pointer"), Some(4242));
        assert_eq!(owner("shuttle-agent-4242-0 keyboard"), None);
        assert_eq!(owner("shuttle-agent-4242 pointer"), None);
        assert_eq!(owner("Virtual core pointer"), None);
        assert_eq!(owner("shuttle-agent-x-0 pointer"), None);
    }
}
