//! Typing exact text through `zwp_virtual_keyboard_v1`. A virtual keyboard carries a keymap
//! of shuttle's own, so every character gets a key: each batch of text uploads a keymap that
//! puts the batch's characters on keys of their own, then presses and releases them. Nobody
//! else's layout is touched, and a character no layout has is typed like any other.

use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use wayland_client::protocol::wl_seat::{self, WlSeat};
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle, WEnum};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
    zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1,
    zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
};

use crate::session::{Session, WaylandError, timestamp};

/// The most distinct characters a keymap holds: keycodes 9 to 255.
const BATCH: usize = 240;
/// The first keycode given out (8 is the lowest XKB allows; evdev's code is 8 less).
const FIRST_KEYCODE: u32 = 9;
/// `zwp_virtual_keyboard_v1.keymap`'s format: an XKB keymap, as text.
const XKB_V1: u32 = 1;

/// What the seat said: whether it has a keyboard, which it has once the virtual one exists.
#[derive(Default)]
pub(crate) struct Typing {
    has_keyboard: bool,
}

impl Dispatch<WlSeat, ()> for Typing {
    fn event(
        typing: &mut Self,
        _: &WlSeat,
        event: wl_seat::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_seat::Event::Capabilities {
            capabilities: WEnum::Value(capabilities),
        } = event
        {
            typing.has_keyboard = capabilities.contains(wl_seat::Capability::Keyboard);
        }
    }
}

macro_rules! ignore_events {
    ($($proxy:ty),*) => {$(
        impl Dispatch<$proxy, ()> for Typing {
            fn event(_: &mut Self, _: &$proxy, _: <$proxy as wayland_client::Proxy>::Event,
                _: &(), _: &Connection, _: &QueueHandle<Self>) {}
        }
    )*};
}
ignore_events!(ZwpVirtualKeyboardManagerV1, ZwpVirtualKeyboardV1);

/// A virtual keyboard on the compositor's seat. Make it once, before the first typing, and keep
/// it: a headless seat gains its keyboard only when the first virtual one is made, and the apps
/// then bind theirs on their own time, so keys sent at once can reach an app that has no
/// keyboard yet and be lost.
pub struct Keyboard {
    queue: EventQueue<Typing>,
    keyboard: ZwpVirtualKeyboardV1,
    typing: Typing,
}

impl Session {
    /// A virtual keyboard of shuttle's own on the compositor's first seat, once the seat says
    /// it has a keyboard.
    pub fn keyboard(&self) -> Result<Keyboard, WaylandError> {
        let queue = self.conn.new_event_queue::<Typing>();
        let qh = queue.handle();
        let missing = |protocol| WaylandError::Missing {
            protocol,
            needed_for: "keys and typing",
        };
        let manager: ZwpVirtualKeyboardManagerV1 = self
            .globals
            .bind(&qh, 1..=1, ())
            .map_err(|_| missing("zwp_virtual_keyboard_manager_v1"))?;
        let seat: WlSeat = self
            .globals
            .bind(&qh, 1..=7, ())
            .map_err(|_| missing("wl_seat"))?;
        let keyboard = manager.create_virtual_keyboard(&seat, &qh, ());
        let mut keyboard = Keyboard {
            queue,
            keyboard,
            typing: Typing::default(),
        };
        while !keyboard.typing.has_keyboard {
            keyboard.sync()?;
        }
        Ok(keyboard)
    }
}

impl Keyboard {
    /// Types `text` exactly: each batch of characters gets a keymap, then its keys.
    pub fn type_text(&mut self, text: &str) -> Result<(), WaylandError> {
        let chars: Vec<char> = text.chars().collect();
        let mut start = 0;
        while start < chars.len() {
            let (keys, end) = batch(&chars[start..]);
            let names: Vec<String> = keys.iter().map(|&c| keysym_name(c)).collect();
            self.upload(&keymap(&names))?;
            for &c in &chars[start..start + end] {
                let index = keys.iter().position(|&k| k == c).unwrap_or_default();
                let code = FIRST_KEYCODE + index as u32 - 8;
                self.keyboard.key(timestamp(), code, 1);
                self.keyboard.key(timestamp(), code, 0);
            }
            self.sync()?;
            start += end;
        }
        Ok(())
    }

    /// Hands the compositor `keymap`, and waits until it has it.
    fn upload(&mut self, keymap: &str) -> Result<(), WaylandError> {
        let mut bytes = keymap.as_bytes().to_vec();
        bytes.push(0);
        let fd = shared_text(&bytes)?;
        self.keyboard.keymap(XKB_V1, fd.as_fd(), bytes.len() as u32);
        self.sync()
    }

    /// Waits until the compositor has handled every request sent.
    fn sync(&mut self) -> Result<(), WaylandError> {
        self.queue
            .roundtrip(&mut self.typing)
            .map(drop)
            .map_err(|e| WaylandError::Broken(e.to_string()))
    }
}

/// The distinct characters of the longest start of `chars` that fits one keymap, and how many
/// characters that start holds.
fn batch(chars: &[char]) -> (Vec<char>, usize) {
    let mut keys: Vec<char> = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        if !keys.contains(&c) {
            if keys.len() == BATCH {
                return (keys, i);
            }
            keys.push(c);
        }
    }
    (keys, chars.len())
}

/// An XKB keymap with `keys` (keysym names) on keycodes from [`FIRST_KEYCODE`] up, one level
/// each.
fn keymap(keys: &[String]) -> String {
    let mut codes = String::new();
    let mut symbols = String::new();
    for (i, keysym) in keys.iter().enumerate() {
        let code = FIRST_KEYCODE as usize + i;
        codes += &format!("    <K{code}> = {code};\n");
        symbols += &format!("    key <K{code}> {{ [ {keysym} ] }};\n");
    }
    format!(
        "xkb_keymap {{\n  xkb_keycodes \"shuttle\" {{\n    minimum = 8;\n    maximum = 255;\n{codes}  }};\n  \
         xkb_types \"shuttle\" {{ include \"complete\" }};\n  \
         xkb_compat \"shuttle\" {{ include \"complete\" }};\n  \
         xkb_symbols \"shuttle\" {{\n{symbols}  }};\n}};\n"
    )
}

/// The XKB name of the keysym that types `c`: a key's own name for the characters apps read as
/// keys (Return, Tab, BackSpace), else its Unicode name.
fn keysym_name(c: char) -> String {
    match c {
        '\n' => "Return".into(),
        '\t' => "Tab".into(),
        '\u{8}' => "BackSpace".into(),
        c => format!("U{:04X}", c as u32),
    }
}

/// Unnamed memory holding `bytes`, for the compositor to read.
fn shared_text(bytes: &[u8]) -> Result<OwnedFd, WaylandError> {
    let failed = |e: std::io::Error| WaylandError::Refused(format!("a keymap's memory ({e})"));
    // SAFETY: a valid C string and flags; the returned descriptor is checked.
    let raw = unsafe { libc::memfd_create(c"shuttle-keymap".as_ptr(), libc::MFD_CLOEXEC) };
    if raw < 0 {
        return Err(failed(std::io::Error::last_os_error()));
    }
    // SAFETY: `raw` is a descriptor just opened and owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let mut file = std::fs::File::from(fd.try_clone().map_err(failed)?);
    std::io::Write::write_all(&mut file, bytes).map_err(failed)?;
    Ok(fd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_holds_each_character_once_and_stops_where_the_keymap_is_full() {
        let (keys, taken) = batch(&['a', 'b', 'a', 'é']);
        assert_eq!((keys, taken), (vec!['a', 'b', 'é'], 4));
        let many: Vec<char> = (0..300)
            .map(|i| char::from_u32(0x4e00 + i).unwrap())
            .collect();
        let (keys, taken) = batch(&many);
        assert_eq!((keys.len(), taken), (BATCH, BATCH));
    }

    #[test]
    fn the_keymap_names_each_key_by_its_keysym() {
        let names: Vec<String> = ['é', '\n', '日'].map(keysym_name).to_vec();
        let text = keymap(&names);
        assert!(text.contains("<K9> = 9;"), "{text}");
        assert!(text.contains("key <K9> { [ U00E9 ] };"), "{text}");
        assert!(text.contains("key <K10> { [ Return ] };"), "{text}");
        assert!(text.contains("key <K11> { [ U65E5 ] };"), "{text}");
    }
}
