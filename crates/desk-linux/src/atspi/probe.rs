//! The accessibility bus as `shuttle doctor` reports it: read with blocking calls that each
//! give up after a short limit, changing nothing; [`enable`] is the one change, for
//! `shuttle doctor --fix`.

use std::time::{Duration, Instant};

use desk::DeskError;
use zbus::blocking::Connection;
use zbus::zvariant::{OwnedObjectPath, OwnedValue};

const A11Y_BUS: &str = "org.a11y.Bus";
const A11Y_PATH: &str = "/org/a11y/bus";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";
const ROOT: &str = "/org/a11y/atspi/accessible/root";

/// What the accessibility bus looks like from here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusProbe {
    /// The bus's address.
    pub address: String,
    /// Whether `AT_SPI_BUS_ADDRESS` named it (else the session bus's `org.a11y.Bus` did).
    pub from_env: bool,
    /// `org.a11y.Status.IsEnabled`, which Qt and Chromium read before they expose anything;
    /// `None` when the session bus has no `org.a11y.Bus` to ask.
    pub enabled: Option<bool>,
    /// The apps on the bus now.
    pub apps: Vec<AppOnBus>,
    /// Apps left unasked because the time ran out.
    pub unasked: usize,
}

/// An app on the accessibility bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppOnBus {
    /// Its accessible name (often the program's name).
    pub name: String,
    /// Its toolkit as it says: `GTK`, `Qt`, `Chromium`, `Gecko`, `java`...
    pub toolkit: String,
}

fn unreachable(what: &str, e: impl std::fmt::Display) -> DeskError {
    DeskError::Accessibility(format!("{what}: {e}"))
}

fn session(limit: Duration) -> zbus::Result<Connection> {
    zbus::blocking::connection::Builder::session()?
        .method_timeout(limit)
        .build()
}

fn get<T: TryFrom<OwnedValue>>(
    conn: &Connection,
    destination: &str,
    path: &str,
    interface: &str,
    property: &str,
) -> Option<T> {
    let reply = conn
        .call_method(
            Some(destination),
            path,
            Some(PROPERTIES),
            "Get",
            &(interface, property),
        )
        .ok()?;
    let value: OwnedValue = reply.body().deserialize().ok()?;
    T::try_from(value).ok()
}

/// Finds the bus (as the daemon would), reads whether accessibility is on and which apps are
/// on it; each call may take `limit`, and the whole at most about twice that.
pub fn probe(limit: Duration) -> Result<BusProbe, DeskError> {
    let started = Instant::now();
    let session = session(limit);
    let enabled = session
        .as_ref()
        .ok()
        .and_then(|s| get::<bool>(s, A11Y_BUS, A11Y_PATH, "org.a11y.Status", "IsEnabled"));
    let env = std::env::var("AT_SPI_BUS_ADDRESS")
        .ok()
        .filter(|a| !a.is_empty());
    let from_env = env.is_some();
    let address = match env {
        Some(address) => address,
        None => {
            let session = session
                .as_ref()
                .map_err(|e| unreachable("no session D-Bus to find the accessibility bus on", e))?;
            let reply = session
                .call_method(Some(A11Y_BUS), A11Y_PATH, Some(A11Y_BUS), "GetAddress", &())
                .map_err(|e| {
                    unreachable("the session bus has no accessibility bus (org.a11y.Bus)", e)
                })?;
            reply
                .body()
                .deserialize::<String>()
                .map_err(|e| unreachable("org.a11y.Bus.GetAddress", e))?
        }
    };
    let bus = zbus::blocking::connection::Builder::address(address.as_str())
        .and_then(|b| b.method_timeout(limit).build())
        .map_err(|e| {
            unreachable(
                &format!("cannot connect to the accessibility bus {address}"),
                e,
            )
        })?;
    let children: Vec<(String, OwnedObjectPath)> = bus
        .call_method(
            Some("org.a11y.atspi.Registry"),
            ROOT,
            Some("org.a11y.atspi.Accessible"),
            "GetChildren",
            &(),
        )
        .and_then(|reply| reply.body().deserialize())
        .map_err(|e| unreachable("the accessibility registry did not list its apps", e))?;
    let mut apps = Vec::new();
    let mut unasked = 0;
    for (name, path) in &children {
        if started.elapsed() > limit * 2 {
            unasked += 1;
            continue;
        }
        let path = path.as_str();
        let accessible: Option<String> = get(&bus, name, path, "org.a11y.atspi.Accessible", "Name");
        let toolkit: Option<String> = get(
            &bus,
            name,
            path,
            "org.a11y.atspi.Application",
            "ToolkitName",
        );
        apps.push(AppOnBus {
            name: accessible.unwrap_or_else(|| name.clone()),
            toolkit: toolkit.unwrap_or_else(|| "unknown".into()),
        });
    }
    Ok(BusProbe {
        address,
        from_env,
        enabled,
        apps,
        unasked,
    })
}

/// Turns accessibility on for the session (`org.a11y.Status.IsEnabled`), as the daemon does
/// when it starts.
pub fn enable(limit: Duration) -> Result<(), DeskError> {
    let session = session(limit).map_err(|e| unreachable("no session D-Bus", e))?;
    let on = zbus::zvariant::Value::from(true);
    session
        .call_method(
            Some(A11Y_BUS),
            A11Y_PATH,
            Some(PROPERTIES),
            "Set",
            &("org.a11y.Status", "IsEnabled", on),
        )
        .map(|_| ())
        .map_err(|e| unreachable("turning accessibility on", e))
}
