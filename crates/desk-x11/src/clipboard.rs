//! The CLIPBOARD selection: reading it in a format, and owning it to serve what an agent wrote
//! until another client takes it (ICCCM, with INCR transfers for what does not fit one
//! request). Each read and each write has a connection of its own, so selection events never
//! mix with the desk's.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use desk::clip::{decode, file_lists, latin1, limit, too_big};
use desk::{Clip, DeskError};
use desk_core::call::ClipFormat;
use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ChangeWindowAttributesAux, ConnectionExt as _, CreateWindowAux, EventMask,
    GetPropertyReply, PropMode, Property, SELECTION_NOTIFY_EVENT, SelectionNotifyEvent,
    Window as Xid, WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

/// How long the clipboard's owner gets to answer a read.
const READ_WAIT: Duration = Duration::from_secs(3);
/// Bytes per INCR chunk.
const CHUNK: usize = 32 * 1024;

x11rb::atom_manager! {
    /// The atoms of the selection protocol and its formats.
    Atoms: AtomsCookie {
        CLIPBOARD,
        TARGETS,
        TIMESTAMP,
        INCR,
        UTF8_STRING,
        TEXT,
        TEXT_PLAIN_UTF8: b"text/plain;charset=utf-8",
        IMAGE_PNG: b"image/png",
        URI_LIST: b"text/uri-list",
        GNOME_FILES: b"x-special/gnome-copied-files",
        SHUTTLE_CLIP: b"_SHUTTLE_CLIPBOARD",
    }
}

fn failed(what: &str, e: impl std::fmt::Display) -> DeskError {
    DeskError::Unreachable {
        system: "x11",
        reason: format!("clipboard: {what}: {e}"),
    }
}

/// A connection, its atoms, and a window of its own to receive selections on.
struct Client {
    conn: RustConnection,
    atoms: Atoms,
    window: Xid,
}

impl Client {
    fn new(display: &str) -> Result<Self, DeskError> {
        let (conn, screen) =
            x11rb::connect(Some(display)).map_err(|e| failed("cannot connect", e))?;
        let root = conn.setup().roots[screen].root;
        let atoms = Atoms::new(&conn)
            .map_err(|e| failed("atoms", e))?
            .reply()
            .map_err(|e| failed("atoms", e))?;
        let window = conn.generate_id().map_err(|e| failed("an id", e))?;
        conn.create_window(
            0,
            window,
            root,
            0,
            0,
            1,
            1,
            0,
            WindowClass::INPUT_ONLY,
            0,
            &CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE),
        )
        .map_err(|e| failed("a window", e))?;
        conn.flush().map_err(|e| failed("flush", e))?;
        Ok(Self {
            conn,
            atoms,
            window,
        })
    }

    /// The first event `pick` takes, skipping the others, within [`READ_WAIT`]; `None` when
    /// none came.
    fn await_event<T>(
        &self,
        mut pick: impl FnMut(Event) -> Option<T>,
    ) -> Result<Option<T>, DeskError> {
        use std::os::fd::AsRawFd;
        let deadline = Instant::now() + READ_WAIT;
        loop {
            while let Some(event) = self
                .conn
                .poll_for_event()
                .map_err(|e| failed("events", e))?
            {
                if let Some(picked) = pick(event) {
                    return Ok(Some(picked));
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            let mut fd = libc::pollfd {
                fd: self.conn.stream().as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one live pollfd, for at most the time left.
            unsafe { libc::poll(&mut fd, 1, left.as_millis().min(1000) as i32) };
        }
    }

    /// Reads `property` of our window and deletes it, which in INCR asks for the next chunk.
    fn take_property(&self, property: Atom) -> Result<GetPropertyReply, DeskError> {
        self.conn
            .get_property(true, self.window, property, AtomEnum::ANY, 0, u32::MAX / 4)
            .map_err(|e| failed("reading", e))?
            .reply()
            .map_err(|e| failed("reading", e))
    }

    /// Asks the owner for `target`; the reply's bytes and type, or `None` when it refuses.
    fn convert(&self, target: Atom, limit: usize) -> Result<Option<(Atom, Vec<u8>)>, DeskError> {
        let a = &self.atoms;
        self.conn
            .convert_selection(
                self.window,
                a.CLIPBOARD,
                target,
                a.SHUTTLE_CLIP,
                x11rb::CURRENT_TIME,
            )
            .map_err(|e| failed("asking the owner", e))?;
        self.conn.flush().map_err(|e| failed("flush", e))?;
        let property = self
            .await_event(|event| match event {
                Event::SelectionNotify(e) if e.requestor == self.window => Some(e.property),
                _ => None,
            })?
            .ok_or_else(|| {
                failed(
                    "reading",
                    format!(
                        "the app that holds the clipboard did not answer within {} s",
                        READ_WAIT.as_secs()
                    ),
                )
            })?;
        if property == x11rb::NONE {
            return Ok(None);
        }
        let reply = self.take_property(property)?;
        if reply.type_ != a.INCR {
            if reply.value.len() > limit {
                return Err(too_big(reply.value.len(), limit));
            }
            return Ok(Some((reply.type_, reply.value)));
        }
        // INCR: each chunk arrives as a new value of the property, which we delete to ask for
        // the next; an empty one ends it.
        self.conn.flush().map_err(|e| failed("flush", e))?;
        let mut data = Vec::new();
        let mut kind = x11rb::NONE;
        loop {
            self.await_event(|event| match event {
                Event::PropertyNotify(e)
                    if e.window == self.window
                        && e.atom == property
                        && e.state == Property::NEW_VALUE =>
                {
                    Some(())
                }
                _ => None,
            })?
            .ok_or_else(|| failed("reading", "the app stopped sending the clipboard midway"))?;
            let chunk = self.take_property(property)?;
            self.conn.flush().map_err(|e| failed("flush", e))?;
            if chunk.value.is_empty() {
                return Ok(Some((kind, data)));
            }
            kind = chunk.type_;
            data.extend_from_slice(&chunk.value);
            if data.len() > limit {
                return Err(too_big(data.len(), limit));
            }
        }
    }

    /// The formats the owner offers, when it says.
    fn targets(&self) -> Result<Option<Vec<Atom>>, DeskError> {
        Ok(self
            .convert(self.atoms.TARGETS, 1 << 20)?
            .map(|(_, bytes)| {
                bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            }))
    }
}

/// What the clipboard of `display` holds in `format`.
pub(crate) fn read(display: &str, format: ClipFormat) -> Result<Option<Clip>, DeskError> {
    let client = Client::new(display)?;
    let a = &client.atoms;
    let owner = client
        .conn
        .get_selection_owner(a.CLIPBOARD)
        .map_err(|e| failed("owner", e))?
        .reply()
        .map_err(|e| failed("owner", e))?
        .owner;
    if owner == x11rb::NONE {
        return Ok(None);
    }
    let wanted: Vec<Atom> = match format {
        ClipFormat::Text => vec![
            a.UTF8_STRING,
            a.TEXT_PLAIN_UTF8,
            u32::from(AtomEnum::STRING),
        ],
        ClipFormat::Image => vec![a.IMAGE_PNG],
        ClipFormat::Files => vec![a.URI_LIST, a.GNOME_FILES],
    };
    let offered = client.targets()?;
    let Some(target) = wanted
        .iter()
        .copied()
        .find(|t| offered.as_ref().is_none_or(|offered| offered.contains(t)))
    else {
        return Ok(None);
    };
    let Some((_, bytes)) = client.convert(target, limit(format))? else {
        return Ok(None);
    };
    Ok(Some(decode(
        format,
        target == u32::from(AtomEnum::STRING),
        bytes,
    )))
}

/// The formats an agent's clip is offered in, with their bytes.
fn offers(atoms: &Atoms, clip: &Clip) -> Vec<(Atom, Arc<Vec<u8>>)> {
    match clip {
        Clip::Text(text) => {
            // STRING (Latin-1) is made when asked for: few apps ask, and a large text would
            // otherwise be held twice.
            let utf8 = Arc::new(text.clone().into_bytes());
            vec![
                (atoms.UTF8_STRING, utf8.clone()),
                (atoms.TEXT_PLAIN_UTF8, utf8.clone()),
                (atoms.TEXT, utf8.clone()),
                (u32::from(AtomEnum::STRING), utf8),
            ]
        }
        Clip::Png(png) => vec![(atoms.IMAGE_PNG, Arc::new(png.clone()))],
        Clip::Files(files) => {
            let (list, gnome) = file_lists(files);
            vec![
                (atoms.URI_LIST, Arc::new(list.into_bytes())),
                (atoms.GNOME_FILES, Arc::new(gnome.into_bytes())),
            ]
        }
    }
}

/// Takes the clipboard of `display` and serves `clip` on a thread of its own until another
/// client takes the clipboard.
pub(crate) fn write(display: &str, clip: Clip) -> Result<(), DeskError> {
    let client = Client::new(display)?;
    let a = client.atoms;
    // ICCCM: take the selection at a real server time, which a property change gives.
    client
        .conn
        .change_property8(
            PropMode::APPEND,
            client.window,
            a.SHUTTLE_CLIP,
            AtomEnum::STRING,
            &[],
        )
        .map_err(|e| failed("a timestamp", e))?;
    client.conn.flush().map_err(|e| failed("flush", e))?;
    let time = client
        .await_event(|event| match event {
            Event::PropertyNotify(e) if e.window == client.window => Some(e.time),
            _ => None,
        })?
        .ok_or_else(|| failed("a timestamp", "the X server sent none"))?;
    client
        .conn
        .set_selection_owner(client.window, a.CLIPBOARD, time)
        .map_err(|e| failed("taking the clipboard", e))?;
    let owner = client
        .conn
        .get_selection_owner(a.CLIPBOARD)
        .map_err(|e| failed("taking the clipboard", e))?
        .reply()
        .map_err(|e| failed("taking the clipboard", e))?
        .owner;
    if owner != client.window {
        return Err(failed(
            "taking the clipboard",
            "the X server kept another owner",
        ));
    }
    let offers = offers(&a, &clip);
    drop(clip);
    std::thread::Builder::new()
        .name("clipboard".into())
        .spawn(move || serve(client, time, offers))
        .map_err(|e| failed("a thread", e))?;
    Ok(())
}

/// An INCR transfer in progress: what is left to send to a requestor's property.
struct Transfer {
    kind: Atom,
    data: Arc<Vec<u8>>,
    sent: usize,
}

/// Answers requests for the clipboard until another client takes it.
fn serve(client: Client, time: u32, offers: Vec<(Atom, Arc<Vec<u8>>)>) {
    let (conn, a) = (&client.conn, &client.atoms);
    let mut transfers: HashMap<(Xid, Atom), Transfer> = HashMap::new();
    loop {
        let Ok(event) = conn.wait_for_event() else {
            return;
        };
        match event {
            Event::SelectionClear(e) if e.owner == client.window => {
                drop(offers);
                drop(transfers);
                // Give what served a large clipboard back to the system now.
                // SAFETY: malloc_trim only returns free heap pages.
                unsafe { libc::malloc_trim(0) };
                return;
            }
            Event::SelectionRequest(request) => {
                let property = if request.property == x11rb::NONE {
                    request.target
                } else {
                    request.property
                };
                let answered = if request.target == a.TARGETS {
                    let mut targets = vec![a.TARGETS, a.TIMESTAMP];
                    targets.extend(offers.iter().map(|(t, _)| *t));
                    conn.change_property32(
                        PropMode::REPLACE,
                        request.requestor,
                        property,
                        AtomEnum::ATOM,
                        &targets,
                    )
                    .is_ok()
                } else if request.target == a.TIMESTAMP {
                    conn.change_property32(
                        PropMode::REPLACE,
                        request.requestor,
                        property,
                        AtomEnum::INTEGER,
                        &[time],
                    )
                    .is_ok()
                } else if let Some((kind, data)) = offers.iter().find(|(t, _)| *t == request.target)
                {
                    let data = &if *kind == u32::from(AtomEnum::STRING) {
                        Arc::new(latin1(data))
                    } else {
                        data.clone()
                    };
                    if data.len() > CHUNK {
                        let watched = conn.change_window_attributes(
                            request.requestor,
                            &ChangeWindowAttributesAux::new()
                                .event_mask(EventMask::PROPERTY_CHANGE),
                        );
                        transfers.insert(
                            (request.requestor, property),
                            Transfer {
                                kind: *kind,
                                data: data.clone(),
                                sent: 0,
                            },
                        );
                        watched.is_ok()
                            && conn
                                .change_property32(
                                    PropMode::REPLACE,
                                    request.requestor,
                                    property,
                                    a.INCR,
                                    &[data.len() as u32],
                                )
                                .is_ok()
                    } else {
                        conn.change_property8(
                            PropMode::REPLACE,
                            request.requestor,
                            property,
                            *kind,
                            data,
                        )
                        .is_ok()
                    }
                } else {
                    false
                };
                let notify = SelectionNotifyEvent {
                    response_type: SELECTION_NOTIFY_EVENT,
                    sequence: 0,
                    time: request.time,
                    requestor: request.requestor,
                    selection: request.selection,
                    target: request.target,
                    property: if answered { property } else { x11rb::NONE },
                };
                let _ = conn.send_event(false, request.requestor, EventMask::NO_EVENT, notify);
                let _ = conn.flush();
            }
            Event::PropertyNotify(e) if e.state == Property::DELETE => {
                let key = (e.window, e.atom);
                let Some(transfer) = transfers.get_mut(&key) else {
                    continue;
                };
                let end = (transfer.sent + CHUNK).min(transfer.data.len());
                let chunk = &transfer.data[transfer.sent..end];
                let _ = conn.change_property8(
                    PropMode::REPLACE,
                    e.window,
                    e.atom,
                    transfer.kind,
                    chunk,
                );
                let _ = conn.flush();
                if chunk.is_empty() {
                    transfers.remove(&key);
                } else {
                    transfer.sent = end;
                }
            }
            _ => {}
        }
    }
}
