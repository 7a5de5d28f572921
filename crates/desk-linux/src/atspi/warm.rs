//! The warm tree: window trees read lately, answered again while nothing says they changed.
//!
//! Reading a big window costs hundreds of milliseconds however little changed since the last
//! read. So the connection registers for the apps' object and window events and counts, per
//! app, the events it hears; a tree read is kept with that count, the window's extents and
//! the number of children each of its nodes reported. The next read of the same window with
//! the same wants is answered from it when the count and the extents are the same and every
//! node still reports as many children: GTK 3 sends no event when an app packs a child into
//! a box, so the counts are what catches that.
//!
//! The event count must be current when it is compared: an event the app sent before the
//! read was asked for may still be on its way. So each check first asks the app for the
//! window's extents over the bus (its reply comes after every event it sent earlier, through
//! the same bus daemon, in order), then sends a marker signal to this connection itself, and
//! waits until the listener has heard the marker: by then it has counted everything the bus
//! sent before the reply. Any doubt (no listener, the marker late, a node that cannot be
//! asked, an app of a toolkit not checked to send its events) reads the tree fresh.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use atspi::CoordType;
use atspi::proxy::registry::RegistryProxy;
use futures::StreamExt;

use super::ids::NodeRef;
use super::{AtSpi, tree};
use desk::DeskError;
use desk::accessibility::{Tree, Want};

/// The most trees kept; the oldest read goes first.
const KEPT_TREES: usize = 8;
/// How long a check waits for its marker before it reads the tree fresh.
const MARK_WAIT: Duration = Duration::from_millis(250);
/// The events the apps are asked to send: every object and window event.
const EVENTS: [&str; 2] = ["object:", "window:"];
/// Where the marker signal comes from.
const MARK_PATH: &str = "/net/shuttle/Warm";
const MARK_INTERFACE: &str = "net.shuttle.Warm";
const MARK_MEMBER: &str = "Mark";
/// How many messages may wait for the listener. A full queue drops nothing: the connection
/// stops reading until the listener catches up, so a check then waits out [`MARK_WAIT`] and
/// the tree is read fresh.
const QUEUE: usize = 16_384;
/// Toolkits (their names, and the start of their versions) whose apps send events for what
/// changes in their trees, checked against them: a label's new text, a child added and
/// removed, a window closed. GTK 3 includes LibreOffice, whose front end it is here. Apps of
/// other toolkits (GTK 4, Qt, the browsers) are read fresh every time.
const SENDS_EVENTS: [(&str, &str); 1] = [("gtk", "3.")];

/// What the listener heard, and what is known of the apps it heard from.
#[derive(Default)]
struct Heard {
    /// Events heard, by the sending app's bus name; an app is forgotten once its name leaves
    /// the bus.
    events: HashMap<String, u64>,
    /// The last marker heard.
    mark: u64,
    /// Whether the listener still runs.
    listening: bool,
}

/// A tree as read, and what held when it was read.
struct Kept {
    root: NodeRef,
    want: Want,
    /// The app's event count when the read began.
    events: u64,
    /// The window's extents (x, y, width, height) then.
    extents: (i32, i32, i32, i32),
    /// The number of children each lasting node reported.
    counts: Vec<(NodeRef, i32)>,
    tree: Tree,
}

/// The listener's count and the trees kept.
pub(super) struct Warm {
    heard: Arc<Mutex<Heard>>,
    marks_sent: Mutex<u64>,
    kept: Mutex<Vec<Kept>>,
}

impl Warm {
    /// Registers for the apps' events on `conn` and starts the listener; `None` when the
    /// registry refuses or the listener cannot start (then every tree is read fresh).
    pub(super) async fn start(conn: &zbus::Connection) -> Option<Self> {
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .build();
        let mut stream = zbus::MessageStream::for_match_rule(rule, conn, Some(QUEUE))
            .await
            .map_err(|e| tracing::info!(error = %e, "no accessibility event listener"))
            .ok()?;
        let registry = RegistryProxy::new(conn)
            .await
            .map_err(|e| tracing::info!(error = %e, "no accessibility registry"))
            .ok()?;
        for event in EVENTS {
            if let Err(e) = registry.register_event(event).await {
                tracing::info!(error = %e, event, "the registry refused an event registration");
                return None;
            }
        }
        let heard = Arc::new(Mutex::new(Heard {
            listening: true,
            ..Heard::default()
        }));
        let listener = Arc::downgrade(&heard);
        conn.executor()
            .spawn(
                async move {
                    while let Some(Ok(message)) = stream.next().await {
                        let Some(heard) = listener.upgrade() else {
                            return;
                        };
                        let mut heard = heard.lock().unwrap_or_else(|e| e.into_inner());
                        let header = message.header();
                        if header.interface().is_some_and(|i| i == MARK_INTERFACE) {
                            if let Ok(mark) = message.body().deserialize::<u64>() {
                                heard.mark = heard.mark.max(mark);
                            }
                        } else if header.member().is_some_and(|m| m == "NameOwnerChanged") {
                            if let Ok((name, _, new)) =
                                message.body().deserialize::<(String, String, String)>()
                                && new.is_empty()
                            {
                                heard.events.remove(&name);
                            }
                        } else if let Some(sender) = header.sender() {
                            *heard.events.entry(sender.to_string()).or_default() += 1;
                        }
                    }
                    if let Some(heard) = listener.upgrade() {
                        heard.lock().unwrap_or_else(|e| e.into_inner()).listening = false;
                    }
                },
                "shuttle accessibility events",
            )
            .detach();
        Some(Self {
            heard,
            marks_sent: Mutex::new(0),
            kept: Mutex::default(),
        })
    }

    fn heard(&self) -> std::sync::MutexGuard<'_, Heard> {
        self.heard.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Events heard from the app at bus name `bus` so far.
    fn events_of(&self, bus: &str) -> u64 {
        self.heard().events.get(bus).copied().unwrap_or(0)
    }

    /// Sends a marker to this connection and waits until the listener heard it: then it has
    /// heard every message the bus sent this connection before. False when it did not in
    /// time or the listener stopped.
    async fn caught_up(&self, conn: &zbus::Connection) -> bool {
        let Some(me) = conn.unique_name() else {
            return false;
        };
        let mark = {
            let mut sent = self.marks_sent.lock().unwrap_or_else(|e| e.into_inner());
            *sent += 1;
            *sent
        };
        let emitted = conn
            .emit_signal(
                Some(me.as_str()),
                MARK_PATH,
                MARK_INTERFACE,
                MARK_MEMBER,
                &mark,
            )
            .await;
        if emitted.is_err() {
            return false;
        }
        let deadline = Instant::now() + MARK_WAIT;
        loop {
            {
                let heard = self.heard();
                if !heard.listening {
                    return false;
                }
                if heard.mark >= mark {
                    return true;
                }
            }
            if Instant::now() >= deadline {
                return false;
            }
            async_io::Timer::after(Duration::from_millis(1)).await;
        }
    }

    /// What was kept for `root` and `want`, if the app sent no event since it was read and
    /// the window kept its place: its tree and its nodes' child counts.
    fn kept(
        &self,
        root: &NodeRef,
        want: Want,
        events: u64,
        extents: (i32, i32, i32, i32),
    ) -> Option<(Tree, Vec<(NodeRef, i32)>)> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter()
            .find(|k| k.root == *root && k.want == want)
            .filter(|k| k.events == events && k.extents == extents)
            .map(|k| (k.tree.clone(), k.counts.clone()))
    }

    /// Keeps `tree`, replacing what was kept for the same window and wants.
    fn keep(&self, kept: Kept) {
        let mut all = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        all.retain(|k| !(k.root == kept.root && k.want == kept.want));
        if all.len() >= KEPT_TREES {
            all.remove(0);
        }
        all.push(kept);
    }
}

impl AtSpi {
    /// The tree under `root`: kept from an earlier read while the app reported no change, else
    /// read now (and kept).
    pub(super) async fn warm_tree(&self, root: &NodeRef, want: Want) -> Result<Tree, DeskError> {
        let Some(warm) = self.warm.as_ref() else {
            return Ok(tree::read(self, root, want).await?.tree);
        };
        if !self.sends_events(&root.bus).await {
            return Ok(tree::read(self, root, want).await?.tree);
        }
        // Over the bus, not a direct connection: the reply must come after the app's events.
        let extents = match self
            .component(root)
            .await?
            .get_extents(CoordType::Screen)
            .await
        {
            Ok(extents) => extents,
            Err(_) => return Ok(tree::read(self, root, want).await?.tree),
        };
        if !warm.caught_up(&self.conn).await {
            return Ok(tree::read(self, root, want).await?.tree);
        }
        let events = warm.events_of(&root.bus);
        if let Some((tree, counts)) = warm.kept(root, want, events, extents)
            && tree::counts_hold(self, &counts).await
        {
            tracing::debug!(bus = %root.bus, path = %root.path, "tree answered as kept");
            return Ok(tree);
        }
        let read = tree::read(self, root, want).await?;
        // Only the events of the window's own app are counted: a tree that holds another
        // app's nodes (an embedded process) is not kept, nor one the time limit cut short.
        if !read.complete || read.counts.iter().any(|(node, _)| node.bus != root.bus) {
            return Ok(read.tree);
        }
        warm.keep(Kept {
            root: root.clone(),
            want,
            events,
            extents,
            counts: read.counts,
            tree: read.tree.clone(),
        });
        Ok(read.tree)
    }

    /// Whether the app at bus name `bus` is of a toolkit known to send events.
    async fn sends_events(&self, bus: &str) -> bool {
        self.toolkit(bus).await.is_some_and(|(toolkit, version)| {
            SENDS_EVENTS.iter().any(|(name, major)| {
                toolkit.to_lowercase().contains(name) && version.starts_with(major)
            })
        })
    }
}
