//! Input through Mutter's RemoteDesktop API, what gnome-remote-desktop uses: a session that
//! presses keys by keysym, presses buttons, turns the wheel and moves the pointer to a point
//! of a screen-cast stream. Each monitor gets a stream, so a desk point can be given as a point
//! of the monitor under it; the stream's PipeWire node is where [`crate::cast`] reads the
//! monitor's pixels.

use std::collections::HashMap;
use std::time::Duration;

use desk_core::geometry::Rect;
use zbus::blocking::Connection;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

use crate::shell::GnomeError;

const REMOTE: &str = "org.gnome.Mutter.RemoteDesktop";
const REMOTE_SESSION: &str = "org.gnome.Mutter.RemoteDesktop.Session";
const CAST: &str = "org.gnome.Mutter.ScreenCast";
const CAST_SESSION: &str = "org.gnome.Mutter.ScreenCast.Session";
const CAST_STREAM: &str = "org.gnome.Mutter.ScreenCast.Stream";
const DISPLAY_CONFIG: &str = "org.gnome.Mutter.DisplayConfig";

/// How long Mutter may take to name each stream's PipeWire node once the session starts.
const NODE_WAIT: Duration = Duration::from_secs(3);

/// How long the first input waits after the session starts: Mutter makes its virtual devices
/// then, and apps take a moment to see the new keyboard's keymap.
const DEVICE_GRACE: Duration = Duration::from_millis(200);

/// The key pressed once when the session starts: the first key of a new virtual keyboard is
/// lost (seen on Mutter 43, whatever the wait before it), and a Shift alone types nothing.
const PRIMER: u32 = 0xffe1;

/// Linux input event codes of the pointer's buttons.
pub mod button {
    pub const LEFT: i32 = 0x110;
    pub const RIGHT: i32 = 0x111;
    pub const MIDDLE: i32 = 0x112;
}

/// The wheel's axes, as Mutter numbers them.
#[derive(Debug, Clone, Copy)]
pub enum Axis {
    Vertical = 0,
    Horizontal = 1,
}

/// A monitor in the desk's coordinates, and the stream that names it to the pointer.
#[derive(Debug, Clone)]
pub struct Monitor {
    pub connector: String,
    pub rect: Rect,
    stream: OwnedObjectPath,
    /// The stream's PipeWire node, once Mutter has named it.
    pub node: Option<u32>,
}

/// A running RemoteDesktop session.
pub struct Remote {
    connection: Connection,
    session: OwnedObjectPath,
    monitors: Vec<Monitor>,
}

fn failed(what: &str) -> impl Fn(zbus::Error) -> GnomeError + '_ {
    move |e| GnomeError::Failed {
        what: what.to_string(),
        reason: match e {
            zbus::Error::MethodError(name, text, _) => {
                format!("{name}: {}", text.unwrap_or_default())
            }
            other => other.to_string(),
        },
    }
}

fn body<T: for<'d> zbus::zvariant::DynamicDeserialize<'d>>(
    message: zbus::Message,
    what: &str,
) -> Result<T, GnomeError> {
    message
        .body()
        .deserialize()
        .map_err(|e| GnomeError::Broken(format!("{what} answered {e}")))
}

type Mode = (
    String,
    i32,
    i32,
    f64,
    f64,
    Vec<f64>,
    HashMap<String, OwnedValue>,
);
type PhysicalMonitor = (
    (String, String, String, String),
    Vec<Mode>,
    HashMap<String, OwnedValue>,
);
type LogicalMonitor = (
    i32,
    i32,
    f64,
    u32,
    bool,
    Vec<(String, String, String, String)>,
    HashMap<String, OwnedValue>,
);
type State = (
    u32,
    Vec<PhysicalMonitor>,
    Vec<LogicalMonitor>,
    HashMap<String, OwnedValue>,
);

/// The monitors Mutter shows, each its connector and its rectangle in the layout.
fn monitors(connection: &Connection) -> Result<Vec<(String, Rect)>, GnomeError> {
    let what = "reading the monitors (DisplayConfig.GetCurrentState)";
    let reply = connection
        .call_method(
            Some(DISPLAY_CONFIG),
            "/org/gnome/Mutter/DisplayConfig",
            Some(DISPLAY_CONFIG),
            "GetCurrentState",
            &(),
        )
        .map_err(failed(what))?;
    let (_, physical, logical, properties): State = body(reply, what)?;
    // Layout mode 1: logical monitors are sized in logical pixels (the mode over the scale).
    let logical_sizes = properties
        .get("layout-mode")
        .and_then(|v| u32::try_from(v).ok())
        == Some(1);
    let mut found = Vec::new();
    for (x, y, scale, _, _, connectors, _) in logical {
        let Some((connector, ..)) = connectors.first() else {
            continue;
        };
        let Some((_, modes, _)) = physical.iter().find(|(id, ..)| &id.0 == connector) else {
            continue;
        };
        let current = modes.iter().find(|mode| {
            mode.6
                .get("is-current")
                .and_then(|v| bool::try_from(v).ok())
                .unwrap_or(false)
        });
        let Some((_, w, h, ..)) = current else {
            continue;
        };
        let (w, h) = if logical_sizes && scale > 0.0 {
            (
                (f64::from(*w) / scale).round() as u32,
                (f64::from(*h) / scale).round() as u32,
            )
        } else {
            (*w as u32, *h as u32)
        };
        found.push((connector.clone(), Rect { x, y, w, h }));
    }
    if found.is_empty() {
        return Err(GnomeError::Failed {
            what: what.into(),
            reason: "Mutter shows no monitor".into(),
        });
    }
    Ok(found)
}

/// The PipeWire nodes Mutter names for streams on `connection`'s bus, as (stream, node), heard
/// on a thread that ends at the bus's end.
fn stream_nodes(
    connection: &Connection,
) -> Result<std::sync::mpsc::Receiver<(OwnedObjectPath, u32)>, GnomeError> {
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface(CAST_STREAM)
        .and_then(|b| b.member("PipeWireStreamAdded"))
        .map_err(|e| GnomeError::Broken(e.to_string()))?
        .build();
    let signals = zbus::blocking::MessageIterator::for_match_rule(rule, connection, Some(16))
        .map_err(|e| GnomeError::Broken(format!("subscribing to the streams' nodes: {e}")))?;
    let (tell, told) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("gnome-cast-nodes".into())
        .spawn(move || {
            for message in signals {
                let Ok(message) = message else { break };
                let (Some(path), Ok((node,))) = (
                    message
                        .header()
                        .path()
                        .map(|p| OwnedObjectPath::from(p.to_owned())),
                    message.body().deserialize::<(u32,)>(),
                ) else {
                    continue;
                };
                if tell.send((path, node)).is_err() {
                    break;
                }
            }
        })
        .map_err(|e| GnomeError::Broken(format!("cannot start a thread: {e}")))?;
    Ok(told)
}

impl Remote {
    /// Starts a session on `connection`, with a stream per monitor.
    pub fn start(connection: &Connection) -> Result<Self, GnomeError> {
        let what = "starting a RemoteDesktop session";
        let reply = connection
            .call_method(
                Some(REMOTE),
                "/org/gnome/Mutter/RemoteDesktop",
                Some(REMOTE),
                "CreateSession",
                &(),
            )
            .map_err(failed(what))?;
        let (session,): (OwnedObjectPath,) = body(reply, what)?;
        let reply = connection
            .call_method(
                Some(REMOTE),
                session.as_str(),
                Some("org.freedesktop.DBus.Properties"),
                "Get",
                &(REMOTE_SESSION, "SessionId"),
            )
            .map_err(failed(what))?;
        let id: OwnedValue = body(reply, what)?;
        let id = String::try_from(id).map_err(|e| GnomeError::Broken(e.to_string()))?;
        let mut properties: HashMap<&str, Value> = HashMap::new();
        properties.insert("remote-desktop-session-id", Value::from(id.as_str()));
        let reply = connection
            .call_method(
                Some(CAST),
                "/org/gnome/Mutter/ScreenCast",
                Some(CAST),
                "CreateSession",
                &(properties,),
            )
            .map_err(failed("starting a ScreenCast session"))?;
        let (cast,): (OwnedObjectPath,) = body(reply, what)?;
        let nodes = stream_nodes(connection)?;
        let mut with_streams = Vec::new();
        for (connector, rect) in monitors(connection)? {
            let what = format!("recording monitor {connector}");
            let reply = connection
                .call_method(
                    Some(CAST),
                    cast.as_str(),
                    Some(CAST_SESSION),
                    "RecordMonitor",
                    &(connector.as_str(), HashMap::<&str, Value>::new()),
                )
                .map_err(failed(&what))?;
            let (stream,): (OwnedObjectPath,) = body(reply, &what)?;
            with_streams.push(Monitor {
                connector,
                rect,
                stream,
                node: None,
            });
        }
        connection
            .call_method(
                Some(REMOTE),
                session.as_str(),
                Some(REMOTE_SESSION),
                "Start",
                &(),
            )
            .map_err(failed(what))?;
        let deadline = std::time::Instant::now() + NODE_WAIT;
        while with_streams.iter().any(|m| m.node.is_none()) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let Ok((stream, node)) = nodes.recv_timeout(left) else {
                tracing::warn!("Mutter named no PipeWire node for some screen-cast streams");
                break;
            };
            if let Some(monitor) = with_streams.iter_mut().find(|m| m.stream == stream) {
                monitor.node = Some(node);
            }
        }
        std::thread::sleep(DEVICE_GRACE);
        let remote = Self {
            connection: connection.clone(),
            session,
            monitors: with_streams,
        };
        remote.keysym(PRIMER, true)?;
        remote.keysym(PRIMER, false)?;
        std::thread::sleep(DEVICE_GRACE);
        Ok(remote)
    }

    /// The monitors, in the desk's coordinates.
    pub fn monitors(&self) -> &[Monitor] {
        &self.monitors
    }

    fn notify<B>(&self, method: &str, args: &B) -> Result<(), GnomeError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        self.connection
            .call_method(
                Some(REMOTE),
                self.session.as_str(),
                Some(REMOTE_SESSION),
                method,
                args,
            )
            .map(drop)
            .map_err(|e| match e {
                zbus::Error::MethodError(name, text, _)
                    if name.as_str() == "org.freedesktop.DBus.Error.UnknownObject"
                        || name.as_str() == "org.freedesktop.DBus.Error.UnknownMethod" =>
                {
                    GnomeError::Broken(format!(
                        "Mutter ended the RemoteDesktop session ({})",
                        text.unwrap_or_default()
                    ))
                }
                other => failed(method)(other),
            })
    }

    /// Presses (`true`) or releases a key by its keysym; Mutter finds it in the keyboard
    /// layout in use, and drops a keysym the layout lacks.
    pub fn keysym(&self, keysym: u32, pressed: bool) -> Result<(), GnomeError> {
        self.notify("NotifyKeyboardKeysym", &(keysym, pressed))
    }

    /// Presses or releases a pointer button (a Linux event code, see [`button`]).
    pub fn button(&self, code: i32, pressed: bool) -> Result<(), GnomeError> {
        self.notify("NotifyPointerButton", &(code, pressed))
    }

    /// Turns the wheel `steps` notches (down or right when positive).
    pub fn wheel(&self, axis: Axis, steps: i32) -> Result<(), GnomeError> {
        self.notify("NotifyPointerAxisDiscrete", &(axis as u32, steps))
    }

    /// Moves the pointer to desk point (x, y), which must be on a monitor.
    pub fn move_to(&self, x: i32, y: i32) -> Result<(), GnomeError> {
        let Some(monitor) = self.monitors.iter().find(|m| m.rect.contains_point(x, y)) else {
            return Err(GnomeError::Failed {
                what: format!("moving the pointer to {x},{y}"),
                reason: "no monitor shows that point".into(),
            });
        };
        self.notify(
            "NotifyPointerMotionAbsolute",
            &(
                monitor.stream.as_str(),
                f64::from(x - monitor.rect.x),
                f64::from(y - monitor.rect.y),
            ),
        )
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.connection.call_method(
            Some(REMOTE),
            self.session.as_str(),
            Some(REMOTE_SESSION),
            "Stop",
            &(),
        );
    }
}
