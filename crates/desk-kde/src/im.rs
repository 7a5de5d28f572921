//! Exact text through KWin's input method protocol (`zwp_input_method_v1`). KWin offers it only
//! to the program it starts itself (`kwin_wayland --inputmethod`): on a seat that program is
//! shuttle's own [`serve`], which commits the text the daemon sends into the text field that
//! has the focus, whatever the keyboard layout. The two speak over a unix socket in the seat's
//! directory: one line each way per request, the text as a JSON string, the answer `1` when
//! a field took it, `0` when no field takes committed text (the daemon then types keys), and
//! `?` when KWin broke off after the text went out.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use wayland_client::globals::registry_queue_init;
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle};
use wayland_protocols::wp::input_method::zv1::client::zwp_input_method_context_v1::{
    self, ZwpInputMethodContextV1,
};
use wayland_protocols::wp::input_method::zv1::client::zwp_input_method_v1::{
    self, ZwpInputMethodV1,
};

use crate::kwin::KdeError;

/// The variable that tells the input method where to listen; KWin hands its environment on.
pub const SOCKET_ENV: &str = "SHUTTLE_KWIN_INPUT_METHOD";

/// How long the daemon waits for the input method's answer.
const ANSWER_LIMIT: Duration = Duration::from_secs(2);

/// How long the input method waits for the rest of a line it began to read.
const LINE_LIMIT: Duration = Duration::from_secs(1);

/// The text field the input method is active in: its context, and the serial of its latest
/// state, which a commit must name.
#[derive(Default)]
struct State {
    context: Option<ZwpInputMethodContextV1>,
    serial: u32,
}

/// The input method KWin starts: connects through the socket KWin hands over
/// (`WAYLAND_SOCKET`) and serves the daemon on `socket` until KWin ends it. One thread polls
/// both: an event one thread reads for a queue another waits on would not wake that one.
pub fn serve(socket: &Path) -> Result<(), KdeError> {
    let broken = |what: &str, e: &dyn std::fmt::Display| KdeError::Broken(format!("{what}: {e}"));
    let wayland = "KWin's input method connection";
    let conn = Connection::connect_to_env().map_err(|e| broken(wayland, &e))?;
    let (globals, mut queue) =
        registry_queue_init::<State>(&conn).map_err(|e| broken("KWin's globals", &e))?;
    let _method: ZwpInputMethodV1 = globals
        .bind(&queue.handle(), 1..=1, ())
        .map_err(|_| broken("KWin", &"it offered no zwp_input_method_v1"))?;
    let mut state = State::default();
    let _ = std::fs::remove_file(socket);
    let listener =
        UnixListener::bind(socket).map_err(|e| broken(&socket.display().to_string(), &e))?;
    // The daemon keeps one connection; a new one takes its place.
    let mut client: Option<(BufReader<UnixStream>, UnixStream)> = None;
    loop {
        queue
            .dispatch_pending(&mut state)
            .map_err(|e| broken(wayland, &e))?;
        conn.flush().map_err(|e| broken(wayland, &e))?;
        let Some(guard) = conn.prepare_read() else {
            continue;
        };
        let mut fds = vec![
            pollfd(guard.connection_fd().as_fd().as_raw_fd()),
            pollfd(listener.as_raw_fd()),
        ];
        if let Some((reader, _)) = &client {
            fds.push(pollfd(reader.get_ref().as_raw_fd()));
        }
        // SAFETY: `fds` holds valid descriptors for the length given.
        if unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) } < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(broken("poll", &e));
        }
        let ready = |i: usize| fds.get(i).is_some_and(|f| f.revents != 0);
        if ready(0) {
            match guard.read() {
                Ok(_) => {}
                Err(wayland_client::backend::WaylandError::Io(e))
                    if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(broken(wayland, &e)),
            }
            // What KWin said (a field activated or left) counts before the daemon's request.
            queue
                .dispatch_pending(&mut state)
                .map_err(|e| broken(wayland, &e))?;
        } else {
            drop(guard);
        }
        // A client that stops half way through a line is dropped rather than waited for.
        if ready(1)
            && let Ok((stream, _)) = listener.accept()
            && stream.set_read_timeout(Some(LINE_LIMIT)).is_ok()
            && let Ok(out) = stream.try_clone()
        {
            client = Some((BufReader::new(stream), out));
        }
        if ready(2)
            && let Some((reader, out)) = &mut client
        {
            let mut line = String::new();
            let answered = match reader.read_line(&mut line) {
                Ok(0) | Err(_) => false,
                Ok(_) => {
                    let answer = match serde_json::from_str::<String>(line.trim_end()) {
                        Ok(text) => commit(&mut queue, &mut state, &text),
                        Err(_) => b"0\n",
                    };
                    out.write_all(answer).is_ok()
                }
            };
            if !answered {
                client = None;
            }
        }
    }
}

fn pollfd(fd: std::os::fd::RawFd) -> libc::pollfd {
    libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }
}

/// Commits `text` into the field active once KWin has said all it had to, answering once KWin
/// has handled it: `1`, `0` when no field is active, `?` when KWin broke off after the text
/// went out.
fn commit(queue: &mut EventQueue<State>, state: &mut State, text: &str) -> &'static [u8] {
    if queue.roundtrip(state).is_err() {
        return b"0\n";
    }
    let Some(context) = &state.context else {
        return b"0\n";
    };
    context.commit_string(state.serial, text.to_string());
    match queue.roundtrip(state) {
        Ok(_) => b"1\n",
        Err(_) => b"?\n",
    }
}

desk_wayland::ignore_registry!(State);

impl Dispatch<ZwpInputMethodV1, ()> for State {
    fn event(
        state: &mut Self,
        _: &ZwpInputMethodV1,
        event: zwp_input_method_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            zwp_input_method_v1::Event::Activate { id } => {
                if let Some(old) = state.context.replace(id) {
                    old.destroy();
                }
                state.serial = 0;
            }
            zwp_input_method_v1::Event::Deactivate { context } => {
                if state.context.as_ref() == Some(&context) {
                    *state = State::default();
                }
                context.destroy();
            }
            _ => {}
        }
    }

    wayland_client::event_created_child!(State, ZwpInputMethodV1, [
        zwp_input_method_v1::EVT_ACTIVATE_OPCODE => (ZwpInputMethodContextV1, ()),
    ]);
}

impl Dispatch<ZwpInputMethodContextV1, ()> for State {
    fn event(
        state: &mut Self,
        context: &ZwpInputMethodContextV1,
        event: zwp_input_method_context_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let zwp_input_method_context_v1::Event::CommitState { serial } = event
            && state.context.as_ref() == Some(context)
        {
            state.serial = serial;
        }
    }
}

/// What a commit came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Commit {
    /// The focused field took the text.
    Taken,
    /// No field takes committed text: nothing was sent.
    NotTaken,
    /// The input method could not be reached: nothing was sent.
    Unreached(String),
    /// The text went out, and whether it landed is not known.
    Unknown(String),
}

/// The daemon's side: the input method's socket.
pub struct InputMethod {
    path: PathBuf,
    stream: Mutex<Option<(BufReader<UnixStream>, UnixStream)>>,
}

impl InputMethod {
    /// The input method listening at `path`; connected on first use, and again after it broke.
    pub fn at(path: PathBuf) -> Self {
        Self {
            path,
            stream: Mutex::new(None),
        }
    }

    /// Commits `text` into the focused text field.
    pub fn commit(&self, text: &str) -> Commit {
        let mut stream = self.stream.lock().unwrap_or_else(PoisonError::into_inner);
        let said = |e: std::io::Error| {
            format!(
                "shuttle's input method in KWin ({}): {e}",
                self.path.display()
            )
        };
        if stream.is_none() {
            let connected = UnixStream::connect(&self.path)
                .and_then(|out| {
                    out.set_read_timeout(Some(ANSWER_LIMIT))?;
                    Ok((BufReader::new(out.try_clone()?), out))
                })
                .map_err(said);
            match connected {
                Ok(pair) => *stream = Some(pair),
                Err(reason) => return Commit::Unreached(reason),
            }
        }
        let (reader, out) = stream.as_mut().expect("connected above");
        let mut line = serde_json::to_string(text).unwrap_or_default();
        line.push('\n');
        // A line the input method did not read whole is dropped there, uncommitted.
        if let Err(e) = out.write_all(line.as_bytes()) {
            *stream = None;
            return Commit::Unreached(said(e));
        }
        let mut answer = String::new();
        let read = reader.read_line(&mut answer);
        let commit = match (read, answer.trim()) {
            (Ok(_), "1") => Commit::Taken,
            (Ok(_), "0") => Commit::NotTaken,
            (Ok(_), "?") => Commit::Unknown(format!(
                "KWin broke off after shuttle's input method committed {}",
                desk_core::app_text::Quoted(text)
            )),
            (Ok(_), other) => Commit::Unknown(format!(
                "shuttle's input method answered {other:?} after it was sent {}",
                desk_core::app_text::Quoted(text)
            )),
            (Err(e), _) => Commit::Unknown(format!(
                "{} after it was sent {}",
                said(e),
                desk_core::app_text::Quoted(text)
            )),
        };
        if !matches!(commit, Commit::Taken | Commit::NotTaken) {
            *stream = None;
        }
        commit
    }
}
