//! What an X display offers shuttle, read without changing anything: for `shuttle doctor`.

use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::xinput::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};
use x11rb::protocol::{shm, xtest};

use desk::DeskError;

use crate::errors::{connect_error, lost, reply_error};

/// An X display, as `shuttle doctor` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The server's vendor string.
    pub vendor: String,
    /// The first screen's size in pixels.
    pub width: u16,
    pub height: u16,
    /// Whether XTest is there: without it no input can be sent.
    pub xtest: bool,
    /// Whether MIT-SHM is there: without it captures go through the socket, slower.
    pub shm: bool,
    /// Whether XInput 2.2 is there: background input makes agents' own devices with it.
    pub xinput2: bool,
    /// The window manager's name (`_NET_SUPPORTING_WM_CHECK`), when one runs.
    pub window_manager: Option<String>,
}

/// Connects to `display` and reads what it offers.
pub fn probe(display: &str) -> Result<Probe, DeskError> {
    let (conn, screen) = crate::patient::connect(display).map_err(|e| connect_error(display, e))?;
    let root = conn.setup().roots[screen].root;
    let (width, height) = (
        conn.setup().roots[screen].width_in_pixels,
        conn.setup().roots[screen].height_in_pixels,
    );
    let vendor = String::from_utf8_lossy(&conn.setup().vendor).into_owned();
    let has = |name| {
        conn.extension_information(name)
            .map(|info| info.is_some())
            .map_err(lost)
    };
    let xtest = has(xtest::X11_EXTENSION_NAME)?;
    let shm = has(shm::X11_EXTENSION_NAME)?;
    let xinput2 = has(xinput::X11_EXTENSION_NAME)?
        && conn
            .xinput_xi_query_version(2, 2)
            .map_err(lost)?
            .reply()
            .is_ok_and(|v| (v.major_version, v.minor_version) >= (2, 2));
    // Only atoms that exist: asking must not add any to the server.
    let atom = |name: &[u8]| -> Result<u32, DeskError> {
        Ok(conn
            .intern_atom(true, name)
            .map_err(lost)?
            .reply()
            .map_err(|e| reply_error("an atom", e))?
            .atom)
    };
    let check = atom(b"_NET_SUPPORTING_WM_CHECK")?;
    let wm_window = if check == 0 {
        None
    } else {
        conn.get_property(false, root, check, AtomEnum::WINDOW, 0, 1)
            .map_err(lost)?
            .reply()
            .map_err(|e| reply_error("the window manager's check window", e))?
            .value32()
            .and_then(|mut v| v.next())
            .filter(|&w| w != 0)
    };
    let window_manager = match wm_window {
        None => None,
        Some(window) => {
            let (name, utf8) = (atom(b"_NET_WM_NAME")?, atom(b"UTF8_STRING")?);
            let named = conn
                .get_property(false, window, name, utf8, 0, 64)
                .map_err(lost)?
                .reply()
                .ok()
                .map(|r| String::from_utf8_lossy(&r.value).into_owned())
                .filter(|n| !n.is_empty());
            Some(named.unwrap_or_else(|| "a window manager".into()))
        }
    };
    Ok(Probe {
        vendor,
        width,
        height,
        xtest,
        shm,
        xinput2,
        window_manager,
    })
}
