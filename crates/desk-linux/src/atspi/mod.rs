//! Accessibility on Linux: AT-SPI over D-Bus, with zbus and the `atspi` proxies.
//!
//! - [`ids`]: node ids, stable for the same object across snapshots.
//! - [`tree`]: reading a window's tree in as few bus round trips as it takes.
//! - [`warm`]: trees read lately, answered again while their apps report no change.
//! - `on_demand`: [`OnDemand`], which connects on first use.
//! - [`probe`]: the bus as `shuttle doctor` reports it, and turning accessibility on.
//! - this module: the connection, the applications, single nodes and the actions, each
//!   per-node call through one helper that parses the id and waits on the bus.
//!
//! Every call has a deadline ([`CALL_TIMEOUT`]): an app that stopped answering makes the call
//! fail with its name and pid, never hang the daemon. Calls run on zbus's own executor; the
//! blocking methods here wait for them, so the desk verbs stay plain blocking code.

mod cells;
mod focus;
mod ids;
mod names;
mod on_demand;
pub mod probe;
mod tree;
mod warm;

pub use on_demand::OnDemand;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use atspi::proxy::accessible::AccessibleProxy;
use atspi::proxy::action::ActionProxy;
use atspi::proxy::application::ApplicationProxy;
use atspi::proxy::component::ComponentProxy;
use atspi::proxy::editable_text::EditableTextProxy;
use atspi::proxy::selection::SelectionProxy;
use atspi::proxy::text::TextProxy;
use atspi::proxy::value::ValueProxy;
use atspi::{CoordType, MatchType, ObjectMatchRule, Role, SortOrder, State};
use desk_core::a11y::Node;
use futures::future::join_all;
use zbus::proxy::CacheProperties;

use desk::DeskError;
use desk::accessibility::{Accessibility, AppWindow, Tree, Want};
use ids::{BusTag, Ids, NodeRef};

/// How long one accessibility call may take before the app counts as not answering.
pub const CALL_TIMEOUT: Duration = Duration::from_millis(1500);
/// The most nodes walked to find the focus in an app that keeps no cache.
const FOCUS_WALK_NODES: usize = 2000;

/// How long finding and connecting to the accessibility bus may take, all steps together.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long a Gecko app's first hit test may answer nothing before it is believed.
const GECKO_HIT_WAIT: Duration = Duration::from_secs(1);

/// The registry's root object, whose children are the applications.
const REGISTRY: &str = "org.a11y.atspi.Registry";
/// The AT-SPI interfaces called by name, here and in the walk.
const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const COMPONENT: &str = "org.a11y.atspi.Component";
const TABLE: &str = "org.a11y.atspi.Table";
const TEXT: &str = "org.a11y.atspi.Text";
/// The interface that picks children of a container.
const SELECTION: &str = "org.a11y.atspi.Selection";
const ACTION: &str = "org.a11y.atspi.Action";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";
const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";

/// A connection to the accessibility bus.
pub struct AtSpi {
    conn: zbus::Connection,
    /// Process ids of application bus names, which never change while the name exists.
    pids: Mutex<HashMap<String, u32>>,
    /// Direct connections to apps, by bus name (`None`: the app offers none). A tree read
    /// sends thousands of calls; going straight to the app spares the bus daemon relaying
    /// each one.
    direct: Mutex<HashMap<String, Option<zbus::Connection>>>,
    /// Short ids for objects with long paths, shared by every connection of the process.
    ids: &'static Ids,
    /// Each app's toolkit and its version (by bus name, which an app keeps for its life), once
    /// the app has said them.
    toolkits: Mutex<HashMap<String, (String, String)>>,
    /// The bus's tag, in front of every node id read on it.
    tag: BusTag,
    /// Trees read lately, answered again while their apps report no change (`None`: the
    /// apps' events cannot be heard, and every tree is read fresh).
    warm: Option<warm::Warm>,
}

impl AtSpi {
    /// Connects to the accessibility bus at `address`, else to the session's (turning
    /// accessibility on for the session first).
    pub fn connect(address: Option<&str>) -> Result<Self, DeskError> {
        let connecting = Box::pin(async {
            let address = match address {
                Some(address) => address.to_string(),
                None => bus_address().await?,
            };
            let conn = zbus::connection::Builder::address(address.as_str())
                .map(|b| b.method_timeout(CALL_TIMEOUT))
                .map_err(no_bus)?
                .build()
                .await
                .map_err(no_bus)?;
            let bus_id: String = conn
                .call_method(
                    Some("org.freedesktop.DBus"),
                    "/org/freedesktop/DBus",
                    Some("org.freedesktop.DBus"),
                    "GetId",
                    &(),
                )
                .await
                .and_then(|reply| reply.body().deserialize())
                .map_err(no_bus)?;
            let warm = warm::Warm::start(&conn).await;
            Ok(Self {
                conn,
                pids: Mutex::default(),
                direct: Mutex::default(),
                ids: Ids::shared(),
                toolkits: Mutex::default(),
                tag: BusTag::of(&bus_id),
                warm,
            })
        });
        // zbus waits without a deadline while connecting: a session or accessibility bus that
        // stopped answering would hang the call.
        let deadline = async_io::Timer::after(CONNECT_TIMEOUT);
        match zbus::block_on(futures::future::select(connecting, deadline)) {
            futures::future::Either::Left((connected, _)) => connected,
            futures::future::Either::Right(_) => Err(DeskError::Accessibility(format!(
                "the session or accessibility bus did not answer within {} s while connecting; \
                 check that dbus and at-spi2-core are running and not stopped",
                CONNECT_TIMEOUT.as_secs()
            ))),
        }
    }

    /// The id to print for `node`: the bus's tag, then the node.
    fn id(&self, node: &NodeRef) -> String {
        self.tag.tag(&self.ids.id(node))
    }

    /// One method call on a node, without building a proxy (the tree walk makes thousands),
    /// straight to the app where it offers a direct connection.
    async fn call<R, B>(
        &self,
        node: &NodeRef,
        interface: &str,
        method: &str,
        body: &B,
    ) -> zbus::Result<R>
    where
        R: for<'de> serde::Deserialize<'de> + zbus::zvariant::Type,
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        if let Some(direct) = self.direct_to(&node.bus).await {
            let reply = direct
                .call_method(
                    None::<&str>,
                    node.path.as_str(),
                    Some(interface),
                    method,
                    body,
                )
                .await;
            match reply {
                // A frozen app: asking again through the bus would only wait twice as long.
                Err(zbus::Error::InputOutput(io)) if io.kind() == std::io::ErrorKind::TimedOut => {
                    self.lock_direct().insert(node.bus.clone(), None);
                    return Err(zbus::Error::InputOutput(io));
                }
                // The app went away or broke the link: ask through the bus, now and from now
                // on, which also tells an app that is gone from one that dropped the link.
                Err(zbus::Error::InputOutput(_)) => {
                    self.lock_direct().insert(node.bus.clone(), None);
                }
                reply => return reply?.body().deserialize::<R>(),
            }
        }
        self.conn
            .call_method(
                Some(node.bus.as_str()),
                node.path.as_str(),
                Some(interface),
                method,
                body,
            )
            .await?
            .body()
            .deserialize::<R>()
    }

    fn lock_direct(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<zbus::Connection>>> {
        self.direct.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The app's direct connection, made on first use when the app offers one.
    async fn direct_to(&self, bus: &str) -> Option<zbus::Connection> {
        if let Some(known) = self.lock_direct().get(bus) {
            return known.clone();
        }
        let address: zbus::Result<String> = async {
            let reply = self
                .conn
                .call_method(
                    Some(bus),
                    ROOT_PATH,
                    Some("org.a11y.atspi.Application"),
                    "GetApplicationBusAddress",
                    &(),
                )
                .await?;
            reply.body().deserialize::<String>()
        }
        .await;
        let direct = match address {
            Ok(address) if is_direct_socket(&address) => {
                zbus::connection::Builder::address(address.as_str())
                    .map(|b| b.p2p().method_timeout(CALL_TIMEOUT))
                    .ok()
                    .map(|b| b.build())
            }
            _ => None,
        };
        // The handshake has no method timeout: an app that froze after answering would hang here.
        let direct = match direct {
            Some(building) => {
                let deadline = async_io::Timer::after(CALL_TIMEOUT);
                match futures::future::select(Box::pin(building), deadline).await {
                    futures::future::Either::Left((built, _)) => built.ok(),
                    futures::future::Either::Right(_) => None,
                }
            }
            None => None,
        };
        self.lock_direct().insert(bus.to_string(), direct.clone());
        direct
    }

    /// A proxy of interface `P` on `node` that reads no properties up front.
    async fn proxy<P>(&self, node: &NodeRef) -> Result<P, DeskError>
    where
        P: From<zbus::Proxy<'static>> + zbus::proxy::Defaults,
    {
        zbus::proxy::Builder::<P>::new(&self.conn)
            .destination(node.bus.clone())
            .and_then(|b| b.path(node.path.clone()))
            .map_err(|e| bad_id(node, &e))?
            .cache_properties(CacheProperties::No)
            .build()
            .await
            .map_err(|e| bad_id(node, &e))
    }

    async fn accessible(&self, node: &NodeRef) -> Result<AccessibleProxy<'static>, DeskError> {
        self.proxy(node).await
    }

    async fn component(&self, node: &NodeRef) -> Result<ComponentProxy<'static>, DeskError> {
        self.proxy(node).await
    }

    async fn action(&self, node: &NodeRef) -> Result<ActionProxy<'static>, DeskError> {
        self.proxy(node).await
    }

    /// Whether `node` has `interface`. Asked before calls a toolkit may lack: Qt answers a
    /// call to an interface an object lacks as if the object were gone.
    async fn has_interface(&self, node: &NodeRef, interface: &str) -> Result<bool, DeskError> {
        let interfaces: Vec<String> = self
            .call(node, ACCESSIBLE, "GetInterfaces", &())
            .await
            .map_err(|e| self.failed(node, "list its interfaces", e))?;
        Ok(interfaces.iter().any(|i| i == interface))
    }

    /// The process behind an application's bus name.
    async fn pid_of_bus(&self, bus: &str) -> Result<u32, DeskError> {
        if let Some(&pid) = self.lock_pids().get(bus) {
            return Ok(pid);
        }
        let dbus = zbus::fdo::DBusProxy::new(&self.conn)
            .await
            .map_err(lost_bus)?;
        let name =
            zbus::names::BusName::try_from(bus).map_err(|e| DeskError::Invalid(e.to_string()))?;
        let pid = dbus
            .get_connection_unix_process_id(name)
            .await
            .map_err(|e| DeskError::Invalid(format!("the app at {bus} is gone ({e})")))?;
        self.lock_pids().insert(bus.to_string(), pid);
        Ok(pid)
    }

    /// The toolkit of the app at `bus` and its version, as it says them; asked once, and again
    /// while asking fails.
    pub(super) async fn toolkit(&self, bus: &str) -> Option<(String, String)> {
        let known = self.lock_toolkits().get(bus).cloned();
        if known.is_some() {
            return known;
        }
        let app = self
            .proxy::<ApplicationProxy<'_>>(&NodeRef::new(bus, ROOT_PATH))
            .await
            .ok()?;
        let (toolkit, version) = futures::join!(app.toolkit_name(), app.version());
        let said = (toolkit.ok()?, version.ok()?);
        self.lock_toolkits().insert(bus.to_string(), said.clone());
        Some(said)
    }

    /// Whether the app at `bus` marks the nodes below its windows `showing` (GTK 4 does not: it
    /// sets `showing` on the window alone). Unknown toolkits are taken to.
    async fn sets_showing(&self, bus: &str) -> bool {
        self.toolkit(bus).await.is_none_or(|t| !is_gtk4(&t))
    }

    /// Whether the app at `bus` is known, by its toolkit's own word, to mark every node that
    /// shows `showing`: only then may a walk skip what is under a node that is not.
    async fn surely_sets_showing(&self, bus: &str) -> bool {
        self.toolkit(bus).await.is_some_and(|t| !is_gtk4(&t))
    }

    fn lock_toolkits(&self) -> std::sync::MutexGuard<'_, HashMap<String, (String, String)>> {
        self.toolkits.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_pids(&self) -> std::sync::MutexGuard<'_, HashMap<String, u32>> {
        self.pids.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The applications on the bus: their root object and process id.
    async fn apps(&self) -> Result<Vec<(NodeRef, u32)>, DeskError> {
        let registry = NodeRef::new(REGISTRY, ROOT_PATH);
        let children = self
            .accessible(&registry)
            .await?
            .get_children()
            .await
            .map_err(|e| self.failed(&registry, "list the applications", e))?;
        let mut apps = Vec::new();
        for child in children {
            let Some(app) = NodeRef::from_object(&child) else {
                continue;
            };
            if let Ok(pid) = self.pid_of_bus(&app.bus).await {
                apps.push((app, pid));
            }
        }
        Ok(apps)
    }

    /// What a failed call means for the user, naming the app when it did not answer.
    fn failed(&self, node: &NodeRef, what: &str, e: zbus::Error) -> DeskError {
        let app = self
            .lock_pids()
            .get(&node.bus)
            .map(|pid| {
                let name = crate::proc::exe_name(*pid).unwrap_or_else(|| "the app".into());
                format!("{name} (pid {pid})")
            })
            .unwrap_or_else(|| format!("the app at {}", node.bus));
        match e {
            zbus::Error::InputOutput(ref io) if io.kind() == std::io::ErrorKind::TimedOut => {
                DeskError::NotAnswering {
                    app,
                    what: what.into(),
                    after_ms: CALL_TIMEOUT.as_millis() as u64,
                }
            }
            zbus::Error::MethodError(ref name, ..) if name.as_str().ends_with("UnknownObject") => {
                DeskError::NodeGone {
                    id: self.id(node),
                    reason: format!("{app} no longer has it"),
                }
            }
            // Every live object answers Properties: a path that does not is gone. LibreOffice
            // drops a sheet's cells soon after they were read.
            zbus::Error::MethodError(ref name, ref message, _)
                if name.as_str().ends_with("UnknownMethod")
                    && message.as_deref().is_some_and(|m| m.contains(PROPERTIES)) =>
            {
                DeskError::NodeGone {
                    id: self.id(node),
                    reason: format!(
                        "{app} no longer has it (some apps drop objects such as a sheet's cells \
                         soon after they are read)"
                    ),
                }
            }
            zbus::Error::MethodError(ref name, ref message, _)
                if app_gone(name.as_str(), message.as_deref()) =>
            {
                DeskError::NodeGone {
                    id: self.id(node),
                    reason: "its app is gone (it quit or restarted)".into(),
                }
            }
            // The error's text is the app's (or its toolkit's) words.
            other => DeskError::Accessibility(format!(
                "cannot {what} in {app}: {}",
                desk_core::app_text::Quoted(&other.to_string())
            )),
        }
    }

    /// The focused object of `app`, by one Collection call that asks the app itself instead of
    /// walking its tree. Only for apps whose containers list their children plainly: the app
    /// searches all of them.
    async fn search_focus(&self, app: &NodeRef) -> Result<Option<NodeRef>, DeskError> {
        // Every criterion needs a match type: the toolkits match nothing on an invalid one,
        // even for an empty set.
        let rule = ObjectMatchRule::builder()
            .states([State::Focused], MatchType::All)
            .attributes(HashMap::new(), MatchType::All)
            .roles(&[], MatchType::All)
            .interfaces(Vec::<atspi::Interface>::new(), MatchType::All)
            .build();
        let found: Vec<atspi::ObjectRefOwned> = self
            .call(
                app,
                "org.a11y.atspi.Collection",
                "GetMatches",
                &(rule, SortOrder::Canonical as u32, 1i32, true),
            )
            .await
            .map_err(|e| self.failed(app, "find its focused object", e))?;
        Ok(found.first().and_then(NodeRef::from_object))
    }
}

impl AtSpi {
    /// Runs `call` on the node `id` names and waits for it: the one shape of every per-node
    /// method (the id parsed once, each bus call within its deadline).
    fn on_node<T>(
        &self,
        id: &str,
        call: impl AsyncFnOnce(NodeRef) -> Result<T, DeskError>,
    ) -> Result<T, DeskError> {
        let node = self.ids.parse(self.tag.untag(id)?)?;
        zbus::block_on(call(node))
    }
}

impl Accessibility for AtSpi {
    fn windows_of(&self, pid: u32) -> Result<Option<Vec<AppWindow>>, DeskError> {
        zbus::block_on(async {
            let Some((app, _)) = self.apps().await?.into_iter().find(|(_, p)| *p == pid) else {
                return Ok(None);
            };
            let children = self
                .accessible(&app)
                .await?
                .get_children()
                .await
                .map_err(|e| self.failed(&app, "list its windows", e))?;
            let mut windows = Vec::new();
            for child in children {
                let Some(node) = NodeRef::from_object(&child) else {
                    continue;
                };
                let proxy = self.accessible(&node).await?;
                let name = proxy
                    .name()
                    .await
                    .map_err(|e| self.failed(&node, "read a window's name", e))?;
                let states = proxy
                    .get_state()
                    .await
                    .map_err(|e| self.failed(&node, "read a window's state", e))?;
                windows.push(AppWindow {
                    id: self.id(&node),
                    name,
                    active: states.contains(State::Active),
                });
            }
            Ok(Some(windows))
        })
    }

    fn tree(&self, root: &str, want: Want) -> Result<Tree, DeskError> {
        self.on_node(root, async |root| self.warm_tree(&root, want).await)
    }

    fn node(&self, id: &str, want: Want) -> Result<Node, DeskError> {
        self.on_node(id, async |node| tree::read_one(self, &node, want).await)
    }

    fn ancestors(&self, id: &str) -> Result<Vec<Node>, DeskError> {
        self.on_node(id, async |mut node| {
            let mut chain = Vec::new();
            for _ in 0..64 {
                let parent = self
                    .accessible(&node)
                    .await?
                    .parent()
                    .await
                    .map_err(|e| self.failed(&node, "read a parent", e))?;
                let Some(parent) = NodeRef::from_object(&parent) else {
                    break;
                };
                let up = tree::read_one(self, &parent, Want::default()).await?;
                // The application itself is not part of any window.
                if up.role == Role::Application.name() {
                    break;
                }
                chain.push(up);
                node = parent;
            }
            Ok(chain)
        })
    }

    fn at_point(&self, root: &str, x: i32, y: i32) -> Result<Option<String>, DeskError> {
        self.on_node(root, async |mut node| {
            // Firefox answers its first hit test with nothing while its parent process asks the
            // page's process for the bounds it then keeps: it is asked again, briefly.
            let patient = self
                .toolkit(&node.bus)
                .await
                .is_some_and(|(toolkit, _)| toolkit == "Gecko");
            let deadline = std::time::Instant::now() + GECKO_HIT_WAIT;
            let mut found = None;
            let mut depth = 0;
            while depth < 64 {
                let child = self
                    .component(&node)
                    .await?
                    .get_accessible_at_point(x, y, CoordType::Screen)
                    .await
                    .map_err(|e| self.failed(&node, "hit-test a point", e))?;
                match NodeRef::from_object(&child) {
                    Some(child) if child != node => {
                        found = Some(self.id(&child));
                        node = child;
                        depth += 1;
                    }
                    // Asked again at the same depth: the waits count against the deadline,
                    // not against how deep the walk may go.
                    None if patient && found.is_none() && std::time::Instant::now() < deadline => {
                        async_io::Timer::after(Duration::from_millis(50)).await;
                    }
                    _ => break,
                }
            }
            Ok(found)
        })
    }

    fn actions(&self, id: &str) -> Result<Vec<String>, DeskError> {
        self.on_node(id, async |node| {
            let proxy = self.action(&node).await?;
            // Asked one by one: Firefox's GetActions answers the key binding where the name
            // belongs.
            let count = match proxy.n_actions().await {
                Ok(count) => count,
                // An object without Action (LibreOffice's shapes) fails the count: none.
                Err(_) if !self.has_interface(&node, ACTION).await? => 0,
                Err(e) => return Err(self.failed(&node, "count actions", e)),
            };
            let names = join_all((0..count).map(|i| proxy.get_name(i))).await;
            names
                .into_iter()
                .map(|name| name.map_err(|e| self.failed(&node, "name an action", e)))
                .collect()
        })
    }

    fn do_action(&self, id: &str, index: usize) -> Result<bool, DeskError> {
        self.on_node(id, async |node| {
            self.action(&node)
                .await?
                .do_action(index as i32)
                .await
                .map_err(|e| self.failed(&node, "run an action", e))
        })
    }

    fn select(&self, id: &str) -> Result<bool, DeskError> {
        self.on_node(id, async |node| {
            let proxy = self.accessible(&node).await?;
            let index = proxy
                .get_index_in_parent()
                .await
                .map_err(|e| self.failed(&node, "find a node's place", e))?;
            let parent = proxy
                .parent()
                .await
                .map_err(|e| self.failed(&node, "read a parent", e))?;
            let parent = NodeRef::from_object(&parent).ok_or_else(|| DeskError::NodeGone {
                id: self.id(&node),
                reason: "it has no parent to select it in".into(),
            })?;
            if !self.has_interface(&parent, SELECTION).await? {
                return Err(DeskError::Unfit(format!(
                    "node {id} cannot be selected: its parent has no Selection"
                ))
                .unsent());
            }
            let selection: SelectionProxy<'_> = self.proxy(&parent).await?;
            selection
                .select_child(index)
                .await
                .map_err(|e| self.failed(&parent, "select a child", e))
        })
    }

    fn grab_focus(&self, id: &str) -> Result<bool, DeskError> {
        self.on_node(id, async |node| {
            self.component(&node)
                .await?
                .grab_focus()
                .await
                .map_err(|e| self.failed(&node, "give it the focus", e))
        })
    }

    fn select_child(&self, container: &str, index: usize) -> Result<bool, DeskError> {
        let index = i32::try_from(index)
            .map_err(|_| DeskError::Unfit(format!("item {index} is beyond any list")))?;
        self.on_node(container, async |node| {
            let no_selection = || {
                DeskError::Unfit(format!(
                    "node {container} cannot pick its items (it has no Selection); press the item \
                     instead"
                ))
                .unsent()
            };
            if !self.has_interface(&node, SELECTION).await? {
                return Err(no_selection());
            }
            let selection: SelectionProxy<'_> = self.proxy(&node).await?;
            match selection.select_child(index).await {
                Err(e) if tree::lacks_interface(&e) => Err(no_selection()),
                other => other.map_err(|e| self.failed(&node, "pick an item", e)),
            }
        })
    }

    fn set_text(&self, id: &str, text: &str) -> Result<bool, DeskError> {
        self.on_node(id, async |node| {
            let editable: EditableTextProxy<'_> = self.proxy(&node).await?;
            match editable.set_text_contents(text).await {
                // The app refused the call itself: nothing changed.
                Err(e) if tree::lacks_interface(&e) => Err(DeskError::Unfit(format!(
                    "node {id} takes no text: set_value works on editable fields, sliders \
                         and spin buttons"
                ))
                .unsent()),
                other => other.map_err(|e| self.failed(&node, "set a field's text", e)),
            }
        })
    }

    fn insert_text(
        &self,
        id: &str,
        position: Option<usize>,
        text: &str,
    ) -> Result<bool, DeskError> {
        let no_text = || {
            DeskError::Unfit(format!(
                "node {id} takes no text: insert_text works on editable fields"
            ))
            .unsent()
        };
        self.on_node(id, async |node| {
            let at = match position {
                Some(at) => i32::try_from(at).map_err(|_| no_text())?,
                None => {
                    let text: TextProxy<'_> = self.proxy(&node).await?;
                    match text.character_count().await {
                        Ok(count) => count,
                        Err(e) if tree::lacks_interface(&e) => return Err(no_text()),
                        Err(e) => return Err(self.failed(&node, "count its characters", e)),
                    }
                }
            };
            // The toolkits take the length in bytes of UTF-8 (GTK's insert_text does).
            let length = i32::try_from(text.len()).map_err(|_| no_text())?;
            let editable: EditableTextProxy<'_> = self.proxy(&node).await?;
            match editable.insert_text(at, text, length).await {
                Err(e) if tree::lacks_interface(&e) => Err(no_text()),
                other => other.map_err(|e| self.failed(&node, "insert text", e)),
            }
        })
    }

    fn select_text(&self, id: &str, start: usize, end: usize) -> Result<bool, DeskError> {
        let no_text = || DeskError::Unfit(format!("node {id} has no text to select")).unsent();
        let (start, end) = (
            i32::try_from(start).map_err(|_| no_text())?,
            i32::try_from(end).map_err(|_| no_text())?,
        );
        self.on_node(id, async |node| {
            let text: TextProxy<'_> = self.proxy(&node).await?;
            let existing = match text.get_n_selections().await {
                Ok(n) => n,
                Err(e) if tree::lacks_interface(&e) => return Err(no_text()),
                Err(e) => return Err(self.failed(&node, "read its selections", e)),
            };
            let done = if existing > 0 {
                text.set_selection(0, start, end).await
            } else {
                text.add_selection(start, end).await
            };
            done.map_err(|e| self.failed(&node, "select text", e))
        })
    }

    fn set_caret(&self, id: &str, offset: usize) -> Result<bool, DeskError> {
        let no_text =
            || DeskError::Unfit(format!("node {id} has no text to put a caret in")).unsent();
        let offset = i32::try_from(offset).map_err(|_| no_text())?;
        self.on_node(id, async |node| {
            let text: TextProxy<'_> = self.proxy(&node).await?;
            match text.set_caret_offset(offset).await {
                Err(e) if tree::lacks_interface(&e) => Err(no_text()),
                other => other.map_err(|e| self.failed(&node, "move the caret", e)),
            }
        })
    }

    fn caret(&self, id: &str) -> Result<Option<usize>, DeskError> {
        self.on_node(id, async |node| {
            let text: TextProxy<'_> = self.proxy(&node).await?;
            match text.caret_offset().await {
                Ok(at) => Ok(usize::try_from(at).ok()),
                Err(e) if tree::lacks_interface(&e) => Ok(None),
                Err(e) => Err(self.failed(&node, "read its caret", e)),
            }
        })
    }

    fn selection(&self, id: &str) -> Result<Option<(usize, usize, String)>, DeskError> {
        self.on_node(id, async |node| {
            let text: TextProxy<'_> = self.proxy(&node).await?;
            let fail = |e| self.failed(&node, "read its selection", e);
            if text.get_n_selections().await.map_err(fail)? == 0 {
                return Ok(None);
            }
            let (start, end) = text.get_selection(0).await.map_err(fail)?;
            let selected = text.get_text(start, end).await.map_err(fail)?;
            Ok(Some((start.max(0) as usize, end.max(0) as usize, selected)))
        })
    }

    fn set_number(&self, id: &str, value: f64) -> Result<bool, DeskError> {
        self.on_node(id, async |node| {
            let proxy: ValueProxy<'_> = self.proxy(&node).await?;
            match proxy.set_current_value(value).await {
                Ok(()) => Ok(true),
                Err(e) if tree::lacks_interface(&e) => Err(DeskError::Unfit(format!(
                    "node {id} has no value to set: pass text for an editable field; \
                         numbers go to sliders and spin buttons"
                ))
                .unsent()),
                Err(e) => Err(self.failed(&node, "set a value", e)),
            }
        })
    }

    fn pid_of(&self, id: &str) -> Result<u32, DeskError> {
        self.on_node(id, async |node| self.pid_of_bus(&node.bus).await)
    }

    fn focused_in(&self, pid: u32) -> Result<Option<Node>, DeskError> {
        zbus::block_on(async {
            let Some((app, _)) = self.apps().await?.into_iter().find(|(_, p)| *p == pid) else {
                return Ok(None);
            };
            let focused = match focus::focus_in_cache(self, &app).await? {
                focus::CachedFocus::Found(node) => Some(node),
                focus::CachedFocus::NotInCache => None,
                focus::CachedFocus::NoCache => {
                    focus::focused_by_walk(self, &app, FOCUS_WALK_NODES).await?
                }
                focus::CachedFocus::Search => self.search_focus(&app).await?,
            };
            match focused {
                Some(node) => Ok(Some(tree::read_one(self, &node, Want::default()).await?)),
                None => Ok(None),
            }
        })
    }
}

/// Whether a D-Bus error says the app left the bus (before or while answering).
fn app_gone(error: &str, message: Option<&str>) -> bool {
    error.ends_with("ServiceUnknown")
        || error.ends_with("NameHasNoOwner")
        || (error.ends_with("NoReply") && message.is_some_and(|m| m.contains("disconnected")))
}

/// The accessibility bus: `AT_SPI_BUS_ADDRESS`, else what the session bus's `org.a11y.Bus`
/// says. Also turns accessibility on (`org.a11y.Status.IsEnabled`), which toolkits read to
/// decide whether to expose their trees at all.
async fn bus_address() -> Result<String, DeskError> {
    let session = zbus::Connection::session().await;
    if let Ok(session) = &session {
        let status = zbus::Proxy::new(session, "org.a11y.Bus", "/org/a11y/bus", PROPERTIES).await;
        if let Ok(status) = status {
            let enabled = zbus::zvariant::Value::from(true);
            let set: zbus::Result<()> = status
                .call("Set", &("org.a11y.Status", "IsEnabled", enabled))
                .await;
            if let Err(e) = set {
                tracing::warn!(error = %e, "could not turn accessibility on for the session");
            }
        }
    }
    if let Some(address) = std::env::var("AT_SPI_BUS_ADDRESS")
        .ok()
        .filter(|a| !a.is_empty())
    {
        return Ok(address);
    }
    let session = session.map_err(|e| {
        DeskError::Accessibility(format!(
            "no session D-Bus to find the accessibility bus on ({e}); start the daemon inside a \
             desktop session, or set AT_SPI_BUS_ADDRESS"
        ))
    })?;
    let bus = zbus::Proxy::new(&session, "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus")
        .await
        .map_err(no_bus)?;
    bus.call("GetAddress", &()).await.map_err(no_bus)
}

fn no_bus(e: zbus::Error) -> DeskError {
    DeskError::Accessibility(format!(
        "cannot reach the accessibility bus ({e}); is at-spi2-core installed and the session's \
         accessibility bus running?"
    ))
}

fn lost_bus(e: zbus::Error) -> DeskError {
    DeskError::Accessibility(format!("the accessibility bus connection failed: {e}"))
}

fn bad_id(node: &NodeRef, e: &zbus::Error) -> DeskError {
    DeskError::Invalid(format!("{} is not a usable node id: {e}", node.to_id()))
}

/// Whether a toolkit and version (as an app says them) are GTK 4's.
fn is_gtk4((toolkit, version): &(String, String)) -> bool {
    toolkit == "GTK" && version.starts_with("4.")
}

/// Whether `address`, which an app gave as its direct connection, is one unix socket. The
/// address is the app's word: another transport (`unixexec:` runs a program, `tcp:` reaches
/// the network) or a list of alternatives would have the daemon do what the app says.
fn is_direct_socket(address: &str) -> bool {
    (address.starts_with("unix:path=") || address.starts_with("unix:abstract="))
        && !address.contains(';')
}

#[cfg(test)]
mod tests {
    use super::is_direct_socket;

    #[test]
    fn an_apps_direct_address_is_taken_only_as_one_unix_socket() {
        assert!(is_direct_socket(
            "unix:path=/run/user/1000/at-spi2-AB12CD/socket"
        ));
        assert!(is_direct_socket("unix:abstract=/tmp/at-spi2-x,guid=00"));
        for app_said in [
            "",
            "unixexec:path=/bin/sh,argv1=-c,argv2=rm%20-rf%20~",
            "tcp:host=example.com,port=80",
            "unix:path=/tmp/x;unixexec:path=/bin/sh",
            "launchd:env=X",
        ] {
            assert!(!is_direct_socket(app_said), "{app_said}");
        }
    }
}
