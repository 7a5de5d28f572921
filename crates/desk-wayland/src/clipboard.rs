//! The clipboard through wlr-data-control (`zwlr_data_control_manager_v1`), which sway and KWin
//! offer to any client: a clipboard manager's view of the selection, read and set without a
//! window or the focus. As on X11, each read and each write has a connection of its own, and a
//! write's connection stays on a thread of its own, serving the clip until another client takes
//! the clipboard.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use desk::clip::{
    GNOME_FILES, PNG, TEXT_TYPES, URI_LIST, decode, file_lists, latin1, limit, too_big, types,
};
use desk::{Clip, DeskError};
use desk_core::call::ClipFormat;
use wayland_client::backend::ObjectId;
use wayland_client::globals::registry_queue_init;
use wayland_client::protocol::wl_seat::WlSeat;
use wayland_client::{Connection, Dispatch, EventQueue, Proxy, QueueHandle, event_created_child};
use wayland_protocols_wlr::data_control::v1::client::{
    zwlr_data_control_device_v1::{self, ZwlrDataControlDeviceV1},
    zwlr_data_control_manager_v1::ZwlrDataControlManagerV1,
    zwlr_data_control_offer_v1::{self, ZwlrDataControlOfferV1},
    zwlr_data_control_source_v1::{self, ZwlrDataControlSourceV1},
};

/// The protocol the clipboard needs.
pub const PROTOCOL: &str = "zwlr_data_control_manager_v1";

/// How long the clipboard's owner gets to send what a read asks for.
const READ_WAIT: Duration = Duration::from_secs(3);
/// How long an app that asked for the clipboard may take no byte before it is given up on.
const SEND_STALL: Duration = Duration::from_secs(10);

fn failed(what: &str, e: impl std::fmt::Display) -> DeskError {
    DeskError::Unreachable {
        system: "wayland",
        reason: format!("clipboard: {what}: {e}"),
    }
}

/// The clipboard of the compositor at a Wayland socket.
#[derive(Debug, Clone)]
pub struct Clipboard {
    /// `None`: the one `WAYLAND_DISPLAY` names.
    socket: Option<PathBuf>,
}

impl Clipboard {
    /// The clipboard of the compositor listening at `socket` (`None`: at `WAYLAND_DISPLAY`).
    pub fn at(socket: Option<&Path>) -> Self {
        Self {
            socket: socket.map(Path::to_path_buf),
        }
    }

    /// What the clipboard holds in `format`; `None` when it is empty or holds none of that
    /// format.
    pub fn read(&self, format: ClipFormat) -> Result<Option<Clip>, DeskError> {
        let client = Client::connect(self.socket.as_deref())?;
        let Some(offer) = client.state.selection.clone() else {
            return Ok(None);
        };
        let offered = client
            .state
            .types
            .get(&offer.id())
            .map_or(&[][..], Vec::as_slice);
        let Some(&kind) = types(format)
            .iter()
            .find(|w| offered.iter().any(|o| o == *w))
        else {
            return Ok(None);
        };
        let (from, to) = pipe()?;
        offer.receive(kind.to_string(), to.as_fd());
        client
            .conn
            .flush()
            .map_err(|e| failed("asking the owner", e))?;
        // Only the owner may hold the writing end now, or the read never ends.
        drop(to);
        let bytes = read_all(from, limit(format))?;
        if bytes.is_empty() {
            // The owner offered the type and sent nothing of it.
            return Ok(None);
        }
        Ok(Some(decode(format, kind == "STRING", bytes)))
    }

    /// Sets the clipboard to `clip`, served by a thread of its own until another client takes
    /// the clipboard.
    pub fn write(&self, clip: Clip) -> Result<(), DeskError> {
        let mut client = Client::connect(self.socket.as_deref()).map_err(DeskError::unsent)?;
        let qh = client.queue.handle();
        let source = client.manager.create_data_source(&qh, ());
        client.state.serving = offers(&clip);
        drop(clip);
        for (kind, _) in &client.state.serving {
            source.offer(kind.to_string());
        }
        client.device.set_selection(Some(&source));
        client.sync()?;
        if client.state.ended {
            return Err(failed(
                "setting it",
                "the compositor ended the clipboard at once; try again",
            ));
        }
        std::thread::Builder::new()
            .name("clipboard".into())
            .spawn(move || {
                let Client {
                    mut queue,
                    mut state,
                    ..
                } = client;
                while !state.ended && queue.blocking_dispatch(&mut state).is_ok() {}
            })
            .map_err(|e| failed("a thread", e))?;
        Ok(())
    }
}

/// The types `clip` is offered in, with their bytes.
fn offers(clip: &Clip) -> Vec<(&'static str, Arc<Vec<u8>>)> {
    match clip {
        Clip::Text(text) => {
            // STRING (Latin-1) is made when asked for, as few apps ask.
            let utf8 = Arc::new(text.clone().into_bytes());
            TEXT_TYPES
                .iter()
                .map(|&kind| (kind, utf8.clone()))
                .collect()
        }
        Clip::Png(png) => vec![(PNG, Arc::new(png.clone()))],
        Clip::Files(files) => {
            let (list, gnome) = file_lists(files);
            vec![
                (URI_LIST, Arc::new(list.into_bytes())),
                (GNOME_FILES, Arc::new(gnome.into_bytes())),
            ]
        }
    }
}

/// A connection with the data-control device of its seat.
struct Client {
    conn: Connection,
    queue: EventQueue<State>,
    state: State,
    manager: ZwlrDataControlManagerV1,
    device: ZwlrDataControlDeviceV1,
}

/// What the compositor said: the offers and their types, the selection, and whether our
/// source or device has ended.
#[derive(Default)]
struct State {
    types: HashMap<ObjectId, Vec<String>>,
    selection: Option<ZwlrDataControlOfferV1>,
    serving: Vec<(&'static str, Arc<Vec<u8>>)>,
    ended: bool,
}

impl Client {
    fn connect(socket: Option<&Path>) -> Result<Self, DeskError> {
        let conn = match socket {
            Some(path) => UnixStream::connect(path)
                .map_err(|e| failed(&format!("cannot connect to {}", path.display()), e))
                .and_then(|stream| {
                    Connection::from_socket(stream).map_err(|e| failed("cannot connect", e))
                })?,
            None => Connection::connect_to_env().map_err(|e| failed("cannot connect", e))?,
        };
        let (globals, queue) =
            registry_queue_init::<State>(&conn).map_err(|e| failed("the globals", e))?;
        let qh = queue.handle();
        // Version 1: the clipboard alone, with no primary selection to follow.
        let manager: ZwlrDataControlManagerV1 = globals.bind(&qh, 1..=1, ()).map_err(|_| {
            DeskError::Unsupported(format!(
                "the compositor does not offer {PROTOCOL}, which the clipboard needs (sway and \
                 KWin do); copy and paste with keys (ctrl+c, ctrl+v) instead"
            ))
        })?;
        let seat: WlSeat = globals.bind(&qh, 1..=7, ()).map_err(|_| {
            DeskError::Unsupported(
                "the compositor offers no wl_seat, which has the clipboard; copy and paste with \
                 keys (ctrl+c, ctrl+v) instead"
                    .into(),
            )
        })?;
        let device = manager.get_data_device(&seat, &qh, ());
        let mut client = Self {
            conn,
            queue,
            state: State::default(),
            manager,
            device,
        };
        client.sync()?;
        Ok(client)
    }

    /// Waits until the compositor has handled every request and sent what it has to say.
    fn sync(&mut self) -> Result<(), DeskError> {
        self.queue
            .roundtrip(&mut self.state)
            .map(drop)
            .map_err(|e| failed("the compositor", e))
    }
}

fn pipe() -> Result<(OwnedFd, OwnedFd), DeskError> {
    let mut fds = [0; 2];
    // SAFETY: two ints for pipe2 to fill.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(failed("a pipe", std::io::Error::last_os_error()));
    }
    // SAFETY: pipe2 made both, and nothing else owns them.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Everything the owner writes to `from` until it closes it, within [`READ_WAIT`] and `limit`.
fn read_all(from: OwnedFd, limit: usize) -> Result<Vec<u8>, DeskError> {
    let deadline = Instant::now() + READ_WAIT;
    let mut file = std::fs::File::from(from);
    let mut bytes = Vec::new();
    let mut chunk = vec![0; 64 * 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut fd = libc::pollfd {
            fd: file.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one live pollfd, for at most the time left.
        let ready = unsafe { libc::poll(&mut fd, 1, left.as_millis() as i32) };
        if ready < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(failed("reading", e));
        }
        if ready == 0 {
            return Err(failed(
                "reading",
                format!(
                    "the app that holds the clipboard did not finish sending it within {} s",
                    READ_WAIT.as_secs()
                ),
            ));
        }
        match file.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(failed("reading", e)),
        }
        if bytes.len() > limit {
            return Err(too_big(bytes.len(), limit));
        }
    }
}

/// Writes `bytes` to an app that asked for the clipboard, on a thread of its own so that a
/// slow reader holds up nobody, and gives up on one that takes no byte for [`SEND_STALL`].
fn send(to: OwnedFd, bytes: Arc<Vec<u8>>, as_latin1: bool) {
    let _ = std::thread::Builder::new()
        .name("clipboard-send".into())
        .spawn(move || {
            let text;
            let data: &[u8] = if as_latin1 {
                text = latin1(&bytes);
                &text
            } else {
                &bytes
            };
            // SAFETY: F_GETFL and F_SETFL on a descriptor we own.
            unsafe {
                let flags = libc::fcntl(to.as_raw_fd(), libc::F_GETFL);
                libc::fcntl(to.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
            }
            let mut file = std::fs::File::from(to);
            let mut sent = 0;
            while sent < data.len() {
                let mut fd = libc::pollfd {
                    fd: file.as_raw_fd(),
                    events: libc::POLLOUT,
                    revents: 0,
                };
                // SAFETY: one live pollfd.
                let ready = unsafe { libc::poll(&mut fd, 1, SEND_STALL.as_millis() as i32) };
                if ready == 0 {
                    return;
                }
                match file.write(&data[sent..]) {
                    Ok(n) => sent += n,
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::Interrupted | std::io::ErrorKind::WouldBlock
                        ) => {}
                    Err(_) => return,
                }
            }
        });
}

crate::ignore_registry!(State);

ignore_events!(State: WlSeat, ZwlrDataControlManagerV1);

impl Dispatch<ZwlrDataControlDeviceV1, ()> for State {
    fn event(
        state: &mut Self,
        _: &ZwlrDataControlDeviceV1,
        event: zwlr_data_control_device_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            zwlr_data_control_device_v1::Event::DataOffer { id } => {
                state.types.insert(id.id(), Vec::new());
            }
            zwlr_data_control_device_v1::Event::Selection { id } => {
                if let Some(old) = state.selection.take() {
                    state.types.remove(&old.id());
                    old.destroy();
                }
                state.selection = id;
            }
            zwlr_data_control_device_v1::Event::Finished => state.ended = true,
            _ => {}
        }
    }

    event_created_child!(State, ZwlrDataControlDeviceV1, [
        zwlr_data_control_device_v1::EVT_DATA_OFFER_OPCODE => (ZwlrDataControlOfferV1, ()),
    ]);
}

impl Dispatch<ZwlrDataControlOfferV1, ()> for State {
    fn event(
        state: &mut Self,
        offer: &ZwlrDataControlOfferV1,
        event: zwlr_data_control_offer_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let zwlr_data_control_offer_v1::Event::Offer { mime_type } = event {
            state.types.entry(offer.id()).or_default().push(mime_type);
        }
    }
}

impl Dispatch<ZwlrDataControlSourceV1, ()> for State {
    fn event(
        state: &mut Self,
        source: &ZwlrDataControlSourceV1,
        event: zwlr_data_control_source_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            zwlr_data_control_source_v1::Event::Send { mime_type, fd } => {
                if let Some((kind, bytes)) =
                    state.serving.iter().find(|(kind, _)| *kind == mime_type)
                {
                    send(fd, bytes.clone(), *kind == "STRING");
                }
            }
            zwlr_data_control_source_v1::Event::Cancelled => {
                source.destroy();
                state.serving.clear();
                state.ended = true;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_offered_in_every_text_type_and_files_in_both_lists() {
        let kinds = |clip: &Clip| offers(clip).iter().map(|(k, _)| *k).collect::<Vec<_>>();
        assert_eq!(kinds(&Clip::Text("é".into())), TEXT_TYPES);
        assert_eq!(kinds(&Clip::Png(vec![1])), [PNG]);
        let files = offers(&Clip::Files(vec!["/a b".into()]));
        assert_eq!(files[0].0, URI_LIST);
        assert_eq!(files[0].1.as_slice(), b"file:///a%20b\r\n");
        assert_eq!(files[1].0, GNOME_FILES);
    }
}
