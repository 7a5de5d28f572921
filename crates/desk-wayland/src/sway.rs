//! sway's IPC: what no wlroots protocol carries. Where each window is, whose process it is,
//! what is stacked over what, and the requests that move, focus or close a window. Hyprland
//! has an IPC of its own and would be another module beside this one.

use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use desk_core::geometry::Rect;
use swayipc::{Connection, Node, NodeLayout, NodeType, ShellType};

use crate::session::WaylandError;

/// How long sway may take to answer a request.
const ANSWER_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The workspace sway keeps its hidden scratchpad windows on.
const SCRATCHPAD: &str = "__i3_scratch";

/// One window as sway lays it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwayWindow {
    /// sway's container id, which names the window in commands (`[con_id=N]`).
    pub id: i64,
    /// Its title.
    pub title: String,
    /// Its app id (xdg-shell) or class (XWayland).
    pub app_id: String,
    /// Its process.
    pub pid: Option<u32>,
    /// Where it is, decorations (title bar, borders) included, in layout coordinates.
    pub frame: Rect,
    /// Where its own surface is, in layout coordinates.
    pub content: Rect,
    /// Whether it has the focus.
    pub focused: bool,
    /// Whether the screen shows it (its workspace is shown, and no tab hides it).
    pub shown: bool,
    /// Whether it floats over the tiled windows.
    pub floating: bool,
    /// Whether it fills its output.
    pub fullscreen: bool,
    /// Whether it is an X11 window under XWayland, whose accessibility positions are the
    /// screen's already (a native one's are its own surface's).
    pub xwayland: bool,
    /// Whether it is hidden in the scratchpad, sway's counterpart of minimized.
    pub hidden: bool,
    /// For an XWayland window, its X11 type (`dialog`, `normal`, ...).
    pub window_type: Option<String>,
}

/// An active output as sway lays it out.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputPlace {
    /// Its name (HEADLESS-1, DP-2).
    pub name: String,
    /// Where it sits, in layout coordinates (logical pixels).
    pub rect: Rect,
    /// Its pixels per layout point.
    pub scale: f64,
    /// How it is turned, when it is (90, flipped).
    pub turned: Option<String>,
}

/// Why captures are refused on `outputs`, when they are: a turned output's copy would need
/// turning back, which shuttle does not do.
pub fn capture_obstacle(outputs: &[OutputPlace]) -> Option<String> {
    outputs.iter().find_map(|o| {
        o.turned.as_ref().map(|t| {
            format!(
                "output {} is turned ({t}), and captures read only unturned outputs",
                o.name
            )
        })
    })
}

/// Why the acting marker is not drawn on `outputs`, when it is not: it is drawn on one
/// unscaled, unturned output.
pub fn marker_obstacle(outputs: &[OutputPlace]) -> Option<String> {
    match outputs {
        [one] if one.scale != 1.0 => Some(format!(
            "output {} is scaled {}, and the marker is drawn only on an unscaled one",
            one.name, one.scale
        )),
        [_] => capture_obstacle(outputs),
        several => Some(format!(
            "{} outputs are active, and the marker is drawn on one alone",
            several.len()
        )),
    }
}

/// A connection to sway's IPC socket. Requests take turns on it.
pub struct Sway {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl Sway {
    /// The IPC socket the session names (`SWAYSOCK`), when it names one.
    pub fn socket_from_env() -> Option<PathBuf> {
        std::env::var_os("SWAYSOCK")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
    }

    /// Connects to the IPC socket at `path`.
    pub fn connect(path: &Path) -> Result<Self, WaylandError> {
        Ok(Self {
            path: path.to_path_buf(),
            conn: Mutex::new(open(path)?),
        })
    }

    /// The socket it is connected to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The windows, topmost first: on shown workspaces a fullscreen window, then the floating
    /// ones (the latest raised first), then the tiled ones; then the windows not shown.
    pub fn windows(&self) -> Result<Vec<SwayWindow>, WaylandError> {
        let tree = self.ask(|c| c.get_tree(), "the layout (get_tree)")?;
        let shown: Vec<String> = self
            .ask(|c| c.get_workspaces(), "the workspaces")?
            .into_iter()
            .filter(|w| w.visible)
            .map(|w| w.name)
            .collect();
        let mut found = Vec::new();
        for output in &tree.nodes {
            for workspace in &output.nodes {
                let name = workspace.name.as_deref().unwrap_or_default();
                let on_screen = shown.iter().any(|s| s == name);
                let hidden = name == SCRATCHPAD;
                let mut tiled = Vec::new();
                collect(workspace, on_screen, false, hidden, &mut tiled);
                let mut floating = Vec::new();
                for node in workspace.floating_nodes.iter().rev() {
                    collect(node, on_screen && !hidden, true, hidden, &mut floating);
                }
                found.extend(floating);
                found.extend(tiled);
            }
        }
        // Stable: the order within each group stays.
        found.sort_by_key(|w| (!w.shown, !w.fullscreen));
        Ok(found)
    }

    /// The rectangle the active outputs span together, in layout coordinates.
    pub fn layout(&self) -> Result<Rect, WaylandError> {
        let rects: Vec<Rect> = self.outputs()?.into_iter().map(|o| o.rect).collect();
        let (Some(left), Some(top)) = (
            rects.iter().map(|r| r.x).min(),
            rects.iter().map(|r| r.y).min(),
        ) else {
            return Err(WaylandError::Refused(
                "the layout: sway has no active output".into(),
            ));
        };
        let right = rects.iter().map(Rect::right).max().unwrap_or(left.into());
        let bottom = rects.iter().map(Rect::bottom).max().unwrap_or(top.into());
        Ok(Rect {
            x: left,
            y: top,
            w: (right - i64::from(left)) as u32,
            h: (bottom - i64::from(top)) as u32,
        })
    }

    /// The active outputs, where each sits in the layout, its scale and whether it is turned.
    pub fn outputs(&self) -> Result<Vec<OutputPlace>, WaylandError> {
        let outputs = self.ask(|c| c.get_outputs(), "the outputs")?;
        Ok(outputs
            .into_iter()
            .filter(|o| o.active)
            .map(|o| OutputPlace {
                rect: Rect {
                    x: o.rect.x,
                    y: o.rect.y,
                    w: o.rect.width.max(0) as u32,
                    h: o.rect.height.max(0) as u32,
                },
                scale: o.scale.unwrap_or(1.0),
                turned: o.transform.filter(|t| t != "normal"),
                name: o.name,
            })
            .collect())
    }

    /// Runs sway command `command` (`[con_id=7] focus`), failing with sway's own reason.
    pub fn command(&self, command: &str) -> Result<(), WaylandError> {
        let outcomes = self.ask(|c| c.run_command(command), "a command")?;
        for outcome in outcomes {
            outcome.map_err(|e| WaylandError::Refused(format!("`{command}`: {e}")))?;
        }
        Ok(())
    }

    /// A new connection on the same socket, for an event subscription, with a handle that
    /// ends it from another thread.
    pub fn another(&self) -> Result<(Connection, UnixStream), WaylandError> {
        let stream = connect_stream(&self.path)?;
        let handle = stream
            .try_clone()
            .map_err(|e| WaylandError::Broken(format!("sway's IPC socket: {e}")))?;
        Ok((Connection::from(stream), handle))
    }

    /// Asks `what` over the connection, reconnecting once when the connection broke.
    fn ask<T>(
        &self,
        request: impl Fn(&mut Connection) -> swayipc::Fallible<T>,
        what: &str,
    ) -> Result<T, WaylandError> {
        let mut conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        match request(&mut conn) {
            Ok(answer) => Ok(answer),
            Err(swayipc::Error::Io(_)) => {
                *conn = open(&self.path)?;
                request(&mut conn).map_err(|e| broken(what, e))
            }
            Err(e) => Err(broken(what, e)),
        }
    }
}

fn broken(what: &str, e: swayipc::Error) -> WaylandError {
    WaylandError::Broken(format!("sway's IPC did not give {what}: {e}"))
}

fn connect_stream(path: &Path) -> Result<UnixStream, WaylandError> {
    UnixStream::connect(path).map_err(|e| {
        WaylandError::Connect(format!(
            "sway's IPC socket {}: {e}; SWAYSOCK must name the running sway's socket",
            path.display()
        ))
    })
}

/// A connection for requests: a sway that stops answering fails the request after
/// [`ANSWER_LIMIT`] instead of holding every verb.
fn open(path: &Path) -> Result<Connection, WaylandError> {
    let stream = connect_stream(path)?;
    stream
        .set_read_timeout(Some(ANSWER_LIMIT))
        .and_then(|()| stream.set_write_timeout(Some(ANSWER_LIMIT)))
        .map_err(|e| WaylandError::Broken(format!("sway's IPC socket: {e}")))?;
    Ok(Connection::from(stream))
}

/// Adds the windows under `node` (its tiled children; sway keeps floating windows on the
/// workspace, which the caller reads) to `found`. `shown` says whether `node` itself shows.
fn collect(node: &Node, shown: bool, floating: bool, hidden: bool, found: &mut Vec<SwayWindow>) {
    if matches!(node.node_type, NodeType::Con | NodeType::FloatingCon) && node.pid.is_some() {
        found.push(window(node, shown, floating, hidden));
        return;
    }
    // A tabbed or stacked container shows only its focused child.
    let one_shows = matches!(node.layout, NodeLayout::Tabbed | NodeLayout::Stacked);
    let front = node.focus.first().copied();
    for child in &node.nodes {
        let child_shown = shown && (!one_shows || Some(child.id) == front);
        collect(child, child_shown, floating, hidden, found);
    }
}

fn window(node: &Node, shown: bool, floating: bool, hidden: bool) -> SwayWindow {
    let rect = |r: swayipc::Rect| Rect {
        x: r.x,
        y: r.y,
        w: r.width.max(0) as u32,
        h: r.height.max(0) as u32,
    };
    // sway's rect leaves out the title bar, which deco_rect gives just above it.
    let mut frame = rect(node.rect);
    let title = node.deco_rect.height.max(0);
    frame.y -= title;
    frame.h += title as u32;
    let inner = node.window_rect;
    let properties = node.window_properties.as_ref();
    SwayWindow {
        id: node.id,
        title: node.name.clone().unwrap_or_default(),
        app_id: node
            .app_id
            .clone()
            .or_else(|| properties.and_then(|p| p.class.clone()))
            .unwrap_or_default(),
        pid: node.pid.and_then(|p| u32::try_from(p).ok()),
        frame,
        content: Rect {
            x: node.rect.x + inner.x,
            y: node.rect.y + inner.y,
            w: inner.width.max(0) as u32,
            h: inner.height.max(0) as u32,
        },
        focused: node.focused,
        shown: shown && !hidden,
        floating,
        fullscreen: node.fullscreen_mode.is_some_and(|m| m != 0),
        xwayland: matches!(node.shell, Some(ShellType::Xwayland)),
        hidden,
        window_type: properties.and_then(|p| p.window_type.clone()),
    }
}
