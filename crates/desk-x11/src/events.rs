//! The window event stream: a thread with a connection of its own records, as they happen, the
//! windows that join and leave the window manager's list (`_NET_CLIENT_LIST`), take a new title,
//! become active, or are being made and mapped. A reply can then say what changed since the
//! caller's previous one, however late the change came, without watching for it.
//!
//! The events go into a [`WindowLog`], which keeps only the latest few thousand.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use desk::{DeskError, WindowEventKind, WindowEvents, WindowLog};
use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    AtomEnum, ChangeWindowAttributesAux, ConnectionExt as _, EventMask, Window as Xid, WindowClass,
};

use crate::patient::Conn;

use super::windows::format_id;
use crate::errors::{connect_error, lost, reply_error};

/// The names the stream reads.
#[derive(Clone, Copy)]
struct Names {
    client_list: u32,
    active: u32,
    net_name: u32,
}

/// A running stream; dropping it ends the thread.
pub(crate) struct Stream {
    log: Arc<Mutex<WindowLog>>,
    conn: Arc<Conn>,
    wake: Xid,
    thread: Option<JoinHandle<()>>,
}

impl Stream {
    /// Starts recording the window events of `display`.
    pub(crate) fn start(display: &str) -> Result<Self, DeskError> {
        let (conn, screen) =
            crate::patient::connect(display).map_err(|e| connect_error(display, e))?;
        let conn = Arc::new(conn);
        let root = conn.setup().roots[screen].root;
        let atom = |name: &[u8]| -> Result<u32, DeskError> {
            Ok(conn
                .intern_atom(false, name)
                .map_err(lost)?
                .reply()
                .map_err(|e| reply_error("an atom", e))?
                .atom)
        };
        let names = Names {
            client_list: atom(b"_NET_CLIENT_LIST")?,
            active: atom(b"_NET_ACTIVE_WINDOW")?,
            net_name: atom(b"_NET_WM_NAME")?,
        };
        conn.change_window_attributes(
            root,
            &ChangeWindowAttributesAux::new()
                .event_mask(EventMask::PROPERTY_CHANGE | EventMask::SUBSTRUCTURE_NOTIFY),
        )
        .map_err(lost)?;
        // A window of our own to receive the wake-up that ends the thread.
        let wake = super::wake::window(&conn, root)?;
        let known = clients(&conn, root, names)?;
        for &client in &known {
            watch_client(&conn, client);
        }
        conn.flush().map_err(lost)?;
        let log = Arc::new(Mutex::new(WindowLog::new()));
        // From now on the connection waits for events for as long as it takes.
        conn.stream().wait_forever();
        let thread = {
            let (conn, log) = (conn.clone(), log.clone());
            std::thread::Builder::new()
                .name("shuttle-window-events".into())
                .spawn(move || record(&conn, root, wake, names, known, &log))
                .map_err(|e| {
                    DeskError::Invalid(format!("cannot start the window events thread: {e}"))
                })?
        };
        Ok(Self {
            log,
            conn,
            wake,
            thread: Some(thread),
        })
    }

    /// The events after count `after`.
    pub(crate) fn after(&self, after: u64) -> WindowEvents {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .after(after)
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        super::wake::send(&self.conn, self.wake);
        // Not joined: a thread waiting on a frozen server must not hold up the daemon.
        drop(self.thread.take());
    }
}

/// The window manager's list of managed windows.
fn clients(conn: &Conn, root: Xid, names: Names) -> Result<HashSet<Xid>, DeskError> {
    let reply = conn
        .get_property(
            false,
            root,
            names.client_list,
            AtomEnum::WINDOW,
            0,
            u32::MAX,
        )
        .map_err(lost)?
        .reply()
        .map_err(|e| reply_error("the client list", e))?;
    Ok(reply.value32().map(Iterator::collect).unwrap_or_default())
}

/// Asks for `client`'s property changes (its title). A window already gone answers with an
/// error event, which the thread ignores.
fn watch_client(conn: &Conn, client: Xid) {
    let _ = conn.change_window_attributes(
        client,
        &ChangeWindowAttributesAux::new().event_mask(EventMask::PROPERTY_CHANGE),
    );
}

/// Whether `window` can ever show: an input-only window (the one a clipboard owner makes,
/// shuttle's own included) never does, and one already gone will not.
fn draws(conn: &Conn, window: Xid) -> bool {
    conn.get_window_attributes(window)
        .ok()
        .and_then(|cookie| cookie.reply().ok())
        .is_some_and(|attributes| attributes.class != WindowClass::INPUT_ONLY)
}

/// Records events until woken or the connection breaks.
fn record(
    conn: &Conn,
    root: Xid,
    wake: Xid,
    names: Names,
    mut known: HashSet<Xid>,
    log: &Mutex<WindowLog>,
) {
    let push = |kind, window: Option<Xid>| {
        log.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(kind, window.map(format_id));
    };
    loop {
        let Ok(event) = conn.wait_for_event() else {
            tracing::warn!("the window events connection broke; replies report no more changes");
            return;
        };
        match event {
            Event::ClientMessage(e) if e.window == wake => return,
            Event::PropertyNotify(e) if e.window == root && e.atom == names.client_list => {
                let Ok(now) = clients(conn, root, names) else {
                    continue;
                };
                for &gone in known.difference(&now) {
                    push(WindowEventKind::Closed, Some(gone));
                }
                for &new in now.difference(&known) {
                    watch_client(conn, new);
                    push(WindowEventKind::Opened, Some(new));
                }
                let _ = conn.flush();
                known = now;
            }
            Event::PropertyNotify(e) if e.window == root && e.atom == names.active => {
                push(WindowEventKind::Activated, None);
            }
            Event::PropertyNotify(e)
                if known.contains(&e.window)
                    && (e.atom == names.net_name || e.atom == u32::from(AtomEnum::WM_NAME)) =>
            {
                push(WindowEventKind::Retitled, Some(e.window));
            }
            Event::CreateNotify(e)
                if e.parent == root && e.window != wake && draws(conn, e.window) =>
            {
                push(WindowEventKind::Appearing, None);
            }
            Event::MapNotify(e) if e.event == root => push(WindowEventKind::Appearing, None),
            _ => {}
        }
    }
}
