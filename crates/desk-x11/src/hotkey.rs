//! The kill hotkey: a key combination grabbed on the root window, so that pressing it reaches
//! shuttle whichever window has the focus, even while an action is typing.
//!
//! A thread of its own waits on a connection of its own. The combination is grabbed with and
//! without Caps Lock and Num Lock, which would otherwise make it miss, and grabbed again when
//! the keyboard mapping changes.

use std::sync::Arc;
use std::thread::JoinHandle;

use crate::patient::Conn;
use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{ConnectionExt as _, GrabMode, Keycode, ModMask, Window as Xid};

use super::keymap::Keymap;
use crate::errors::{connect_error, lost, reply_error};
use desk::DeskError;
use desk::keys;

const NUM_LOCK: u32 = 0xff7f;

/// A grabbed hotkey; dropping it lets the key go.
pub struct Hotkey {
    conn: Arc<Conn>,
    wake: Xid,
    thread: Option<JoinHandle<()>>,
}

/// The key and modifiers a combination comes to on this keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Grab {
    code: Keycode,
    modifiers: u16,
    num_lock: u16,
}

impl Hotkey {
    /// Grabs `combo` (such as `super+shift+Escape`) on `display`'s root window and calls
    /// `pressed` on every press. Fails when the combination is not on the keyboard or another
    /// program already grabbed it.
    pub fn grab(
        display: &str,
        combo: &str,
        pressed: impl Fn() + Send + 'static,
    ) -> Result<Self, DeskError> {
        let keysyms = keys::parse_combo(combo)?.keysyms;
        let (conn, screen_num) =
            crate::patient::connect(display).map_err(|e| connect_error(display, e))?;
        let conn = Arc::new(conn);
        let root = conn.setup().roots[screen_num].root;
        let grab = resolve(&conn, &keysyms, combo)?;
        take(&conn, root, grab, combo)?;
        // A window of our own to receive the wake-up that ends the thread.
        let wake = super::wake::window(&conn, root)?;
        conn.flush().map_err(lost)?;
        // Set up: from now on the connection only waits for presses, for as long as it takes.
        conn.stream().wait_forever();
        let thread_conn = conn.clone();
        let combo = combo.to_string();
        let thread = std::thread::Builder::new()
            .name("shuttle-hotkey".into())
            .spawn(move || watch(&thread_conn, root, wake, &keysyms, grab, &combo, pressed))
            .map_err(|e| DeskError::Invalid(format!("cannot start the hotkey thread: {e}")))?;
        Ok(Self {
            conn,
            wake,
            thread: Some(thread),
        })
    }
}

impl desk::Hotkey for Hotkey {
    fn alive(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }
}

impl Drop for Hotkey {
    fn drop(&mut self) {
        let sent = super::wake::send(&self.conn, self.wake);
        if let Some(thread) = self.thread.take()
            && sent
        {
            let _ = thread.join();
        }
    }
}

/// Waits for presses until woken; the grab ends with the connection.
fn watch(
    conn: &Conn,
    root: Xid,
    wake: Xid,
    keysyms: &[u32],
    mut grab: Grab,
    combo: &str,
    pressed: impl Fn(),
) {
    loop {
        let Ok(event) = conn.wait_for_event() else {
            tracing::warn!("the kill hotkey's display connection broke; the hotkey is gone");
            return;
        };
        match event {
            Event::KeyPress(e) if e.detail == grab.code => {
                tracing::info!(%combo, "kill hotkey pressed");
                pressed();
            }
            Event::MappingNotify(_) => {
                // The keyboard changed: the combination may sit on other keys now.
                let regrabbed = resolve(conn, keysyms, combo).and_then(|next| {
                    if next != grab {
                        let _ = conn.ungrab_key(grab.code, root, ModMask::ANY);
                        take(conn, root, next, combo)?;
                        grab = next;
                    }
                    Ok(())
                });
                if let Err(e) = regrabbed {
                    tracing::warn!(error = %e, "could not grab the kill hotkey again after a keyboard change");
                }
            }
            Event::ClientMessage(e) if e.window == wake => return,
            _ => {}
        }
    }
}

/// The keycode and modifier mask of `keysyms` (modifiers first, the key last).
fn resolve(conn: &Conn, keysyms: &[u32], combo: &str) -> Result<Grab, DeskError> {
    let keymap = Keymap::read(conn)?;
    let modmap = conn
        .get_modifier_mapping()
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("the modifier mapping", e))?;
    let per = usize::from(modmap.keycodes_per_modifier());
    let mask_of = |keysym: u32| -> Option<u16> {
        let (code, _) = keymap.find(keysym)?;
        modmap
            .keycodes
            .chunks(per.max(1))
            .position(|codes| codes.contains(&code))
            .map(|index| 1u16 << index)
    };
    let (&key, modifier_keys) = keysyms
        .split_last()
        .ok_or_else(|| DeskError::Invalid("the kill hotkey is empty".into()))?;
    let mut modifiers = 0;
    for &modifier in modifier_keys {
        modifiers |= mask_of(modifier).ok_or_else(|| {
            DeskError::Invalid(format!(
                "kill_hotkey {combo:?}: {} is not a modifier on this keyboard; choose another combination",
                keys::keysym_name(modifier)
            ))
        })?;
    }
    let (code, shifted) = keymap.find(key).ok_or_else(|| {
        DeskError::Invalid(format!(
            "kill_hotkey {combo:?}: {} is not on this keyboard; choose another key",
            keys::keysym_name(key)
        ))
    })?;
    if shifted {
        modifiers |= u16::from(ModMask::SHIFT);
    }
    Ok(Grab {
        code,
        modifiers,
        num_lock: mask_of(NUM_LOCK).unwrap_or(0),
    })
}

/// Grabs the key with every combination of Caps Lock and Num Lock added.
fn take(conn: &Conn, root: Xid, grab: Grab, combo: &str) -> Result<(), DeskError> {
    let lock = u16::from(ModMask::LOCK);
    let mut extras = vec![0, lock];
    if grab.num_lock != 0 {
        extras.extend([grab.num_lock, grab.num_lock | lock]);
    }
    for extra in extras {
        conn.grab_key(
            false,
            root,
            ModMask::from(grab.modifiers | extra),
            grab.code,
            GrabMode::ASYNC,
            GrabMode::ASYNC,
        )
        .map_err(lost)?
        .check()
        .map_err(|e| match e {
            x11rb::errors::ReplyError::X11Error(_) => DeskError::Invalid(format!(
                "cannot grab the kill hotkey {combo:?}: another program already uses it as a \
                 shortcut; set another kill_hotkey in config.toml"
            )),
            other => reply_error("grabbing the kill hotkey", other),
        })?;
    }
    Ok(())
}
