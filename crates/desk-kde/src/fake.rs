//! Keys, the pointer and the wheel through KWin's `org_kde_kwin_fake_input`, which KWin offers
//! to the programs a desktop file authorises (`X-KDE-Wayland-Interfaces`). The device is made
//! when the desk connects and kept: apps bind their keyboard and pointer once the seat has
//! them, so input sent on a device made for it could reach an app that has none yet.
//!
//! Keys go out as key codes that KWin reads through its keymap, which this connection's
//! `wl_keyboard` receives and [`Keys`] reads.

use std::os::fd::OwnedFd;
use std::os::unix::fs::FileExt;
use std::os::unix::net::UnixStream;
use std::sync::{Mutex, PoisonError};

use wayland_client::globals::registry_queue_init;
use wayland_client::protocol::{wl_keyboard, wl_seat};
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle, WEnum};
use wayland_protocols_plasma::fake_input::client::org_kde_kwin_fake_input::OrgKdeKwinFakeInput;

use crate::keymap::Keys;
use crate::kwin::KdeError;

/// The fake input interface's name, as a desktop file authorises it.
pub const INTERFACE: &str = "org_kde_kwin_fake_input";

/// Linux's button codes.
pub mod button {
    pub const LEFT: u32 = 0x110;
    pub const RIGHT: u32 = 0x111;
    pub const MIDDLE: u32 = 0x112;
}

/// How far one notch of a wheel scrolls, as libinput reports it.
const NOTCH: f64 = 15.0;

/// What the compositor's events change.
#[derive(Default)]
struct State {
    capabilities: Option<wl_seat::Capability>,
    keys: Option<Keys>,
    /// A keymap that did not compile, said when a key is wanted.
    unreadable: Option<String>,
}

/// The fake input device.
pub struct FakeInput {
    inner: Mutex<Inner>,
}

struct Inner {
    queue: EventQueue<State>,
    state: State,
    fake: OrgKdeKwinFakeInput,
    _keyboard: Option<wl_keyboard::WlKeyboard>,
}

impl FakeInput {
    /// Makes the device on the compositor connection `stream` and reads the keymap.
    pub fn over(stream: UnixStream) -> Result<Self, KdeError> {
        let broken =
            |e: &dyn std::fmt::Display| KdeError::Broken(format!("KWin's Wayland socket: {e}"));
        let conn = Connection::from_socket(stream).map_err(|e| broken(&e))?;
        let (globals, mut queue) = registry_queue_init::<State>(&conn).map_err(|e| broken(&e))?;
        let qh = queue.handle();
        let fake: OrgKdeKwinFakeInput =
            globals
                .bind(&qh, 4..=4, ())
                .map_err(|_| KdeError::Unauthorised {
                    what: format!("input ({INTERFACE}, version 4)"),
                    exe: crate::own_exe().unwrap_or_else(|| "shuttle's path".into()),
                })?;
        fake.authenticate("shuttle".into(), "an agent's input on this desktop".into());
        let seat: wl_seat::WlSeat = globals
            .bind(&qh, 1..=7, ())
            .map_err(|_| broken(&"it offers no wl_seat"))?;
        let mut state = State::default();
        queue.roundtrip(&mut state).map_err(|e| broken(&e))?;
        let keyboard = state
            .capabilities
            .is_some_and(|c| c.contains(wl_seat::Capability::Keyboard))
            .then(|| seat.get_keyboard(&qh, ()));
        queue.roundtrip(&mut state).map_err(|e| broken(&e))?;
        Ok(Self {
            inner: Mutex::new(Inner {
                queue,
                state,
                fake,
                _keyboard: keyboard,
            }),
        })
    }

    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> Result<R, KdeError>) -> Result<R, KdeError> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let result = f(&mut inner)?;
        // Answers once KWin has handled every request sent.
        let Inner { queue, state, .. } = &mut *inner;
        queue
            .roundtrip(state)
            .map_err(|e| KdeError::Broken(format!("KWin's fake input: {e}")))?;
        Ok(result)
    }

    /// The key and held modifiers for each keysym, all found before any is pressed; the first
    /// the layout lacks is the error.
    pub fn keys_for(&self, keysyms: &[u32]) -> Result<Vec<(u32, Vec<u32>)>, Missing> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let Inner { queue, state, .. } = &mut *inner;
        // A keymap KWin sent since (a layout switched) is read first.
        let _ = queue.dispatch_pending(state);
        let Some(keys) = &state.keys else {
            return Err(Missing::NoKeymap(state.unreadable.clone()));
        };
        keysyms
            .iter()
            .map(|&k| {
                keys.key(k)
                    .map(|(code, held)| (code, held.to_vec()))
                    .ok_or(Missing::Key(k))
            })
            .collect()
    }

    /// Presses (`true`) or releases evdev key `code`.
    pub fn key(&self, code: u32, down: bool) -> Result<(), KdeError> {
        self.with(|inner| {
            inner.fake.keyboard_key(code, u32::from(down));
            Ok(())
        })
    }

    /// Taps each key in `taps` in turn, holding its modifiers around it.
    pub fn tap(&self, taps: &[(u32, Vec<u32>)]) -> Result<(), KdeError> {
        self.with(|inner| {
            for (code, held) in taps {
                for &h in held {
                    inner.fake.keyboard_key(h, 1);
                }
                inner.fake.keyboard_key(*code, 1);
                inner.fake.keyboard_key(*code, 0);
                for &h in held.iter().rev() {
                    inner.fake.keyboard_key(h, 0);
                }
            }
            Ok(())
        })
    }

    /// Moves the pointer to `(x, y)` on the screen.
    pub fn move_to(&self, x: i32, y: i32) -> Result<(), KdeError> {
        self.with(|inner| {
            inner
                .fake
                .pointer_motion_absolute(f64::from(x), f64::from(y));
            Ok(())
        })
    }

    /// Presses (`true`) or releases button `code`.
    pub fn button(&self, code: u32, down: bool) -> Result<(), KdeError> {
        self.with(|inner| {
            inner.fake.button(code, u32::from(down));
            Ok(())
        })
    }

    /// Turns the wheel one notch: `vertical` or not, `step` -1 (up, left) or 1.
    pub fn wheel(&self, vertical: bool, step: i32) -> Result<(), KdeError> {
        self.with(|inner| {
            let axis = if vertical { 0 } else { 1 };
            inner.fake.axis(axis, NOTCH * f64::from(step));
            Ok(())
        })
    }
}

/// Why a key cannot be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// KWin sent no keymap, or one that did not compile.
    NoKeymap(Option<String>),
    /// The layout has no key for this keysym.
    Key(u32),
}

desk_wayland::ignore_registry!(State);

impl Dispatch<OrgKdeKwinFakeInput, ()> for State {
    fn event(
        _: &mut Self,
        _: &OrgKdeKwinFakeInput,
        _: <OrgKdeKwinFakeInput as wayland_client::Proxy>::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<wl_seat::WlSeat, ()> for State {
    fn event(
        state: &mut Self,
        _: &wl_seat::WlSeat,
        event: wl_seat::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_seat::Event::Capabilities {
            capabilities: WEnum::Value(c),
        } = event
        {
            state.capabilities = Some(c);
        }
    }
}

impl Dispatch<wl_keyboard::WlKeyboard, ()> for State {
    fn event(
        state: &mut Self,
        _: &wl_keyboard::WlKeyboard,
        event: wl_keyboard::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_keyboard::Event::Keymap { fd, size, .. } = event {
            match read_keymap(fd, size as usize) {
                Some(keys) => {
                    state.keys = Some(keys);
                    state.unreadable = None;
                }
                None => state.unreadable = Some("KWin's keymap did not compile".into()),
            }
        }
    }
}

/// Reads the keymap KWin sent; at its offset, since other clients may share the file.
fn read_keymap(fd: OwnedFd, size: usize) -> Option<Keys> {
    let file = std::fs::File::from(fd);
    let mut bytes = vec![0; size];
    let mut read = 0;
    while read < size {
        match file.read_at(&mut bytes[read..], read as u64) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(_) => return None,
        }
    }
    bytes.truncate(read);
    Keys::from_text(&String::from_utf8_lossy(&bytes))
}
