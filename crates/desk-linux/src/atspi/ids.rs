//! Node ids: an accessible object's bus name and object path, written short.
//!
//! `kqf-1.45:123` is the object `/org/a11y/atspi/accessible/123` of the app at `:1.45` (GTK 3
//! and most toolkits number their objects there) on the accessibility bus tagged `kqf`.
//! Toolkits that name objects by long paths of their own (GTK 4:
//! `/org/gnome/Calculator/a11y/d52cd4fc_3286_…`) or by long numbers (Qt: `2147483658`) get a
//! number from [`Ids`] instead: `kqf-1.45:~7`. Toolkits keep an object's path for its
//! lifetime, so the id stays the same across snapshots; an app that restarts gets a new bus
//! name, so an old id then fails clearly instead of reaching a stranger. Every bus numbers its
//! apps from `:1.1` up, so the [`BusTag`] in front keeps an id read on one display's bus (or
//! before the bus restarted) from naming an app on another. A `#` before an id, as the outline
//! prints it, is accepted.

use std::collections::HashMap;
use std::sync::Mutex;

use atspi::ObjectRefOwned;

use desk::DeskError;

/// Where toolkits put their accessible objects; ids leave it out.
const PREFIX: &str = "/org/a11y/atspi/accessible/";

/// The longest object number printed as it is; longer ones get a short number from [`Ids`].
const SHORT_DIGITS: usize = 6;

/// An accessible object on the bus.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct NodeRef {
    /// The app's unique bus name, such as `:1.45`.
    pub(super) bus: String,
    /// The object path.
    pub(super) path: String,
}

impl NodeRef {
    pub(super) fn new(bus: &str, path: &str) -> Self {
        Self {
            bus: bus.into(),
            path: path.into(),
        }
    }

    /// The object a reference names; `None` for the null reference.
    pub(super) fn from_object(object: &ObjectRefOwned) -> Option<Self> {
        // at-spi2-atk names its bus with the null path for "none" (a top window's parent).
        if object.is_null() || object.path_as_str() == "/org/a11y/atspi/null" {
            return None;
        }
        Some(Self::new(object.name_as_str()?, object.path_as_str()))
    }

    /// The id as the desk reports it.
    pub(super) fn to_id(&self) -> String {
        let bus = self.bus.strip_prefix(':').unwrap_or(&self.bus);
        match self.path.strip_prefix(PREFIX) {
            // Qt numbers its objects from 2^31: ten digits are no short id.
            Some(rest) if !rest.contains('/') && rest.len() <= SHORT_DIGITS => {
                format!("{bus}:{rest}")
            }
            _ => format!("{bus}:{}", self.path),
        }
    }

    /// Reads an id written by [`NodeRef::to_id`].
    pub(super) fn parse(id: &str) -> Result<Self, DeskError> {
        let invalid = || invalid(id);
        let (bus, rest) = id
            .strip_prefix('#')
            .unwrap_or(id)
            .split_once(':')
            .ok_or_else(invalid)?;
        if bus.is_empty() || rest.is_empty() || !bus.chars().all(|c| c.is_ascii_digit() || c == '.')
        {
            return Err(invalid());
        }
        let path = if rest.starts_with('/') {
            rest.to_string()
        } else if rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            format!("{PREFIX}{rest}")
        } else {
            return Err(invalid());
        };
        Ok(Self::new(&format!(":{bus}"), &path))
    }
}

fn invalid(id: &str) -> DeskError {
    DeskError::Invalid(format!(
        "{id:?} is not a node id; ids look like kqf-1.45:123 or kqf-1.45:~7 and come from \
         snapshot, find or at"
    ))
}

/// Three letters that name one accessibility bus, from the bus's own id (a bus daemon's
/// `GetId`, new each time it starts), written in front of every node id read on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct BusTag(String);

impl BusTag {
    /// The tag of the bus whose `GetId` answered `bus_id`.
    pub(super) fn of(bus_id: &str) -> Self {
        // FNV-1a: the same tag for the same bus in every process, unlike std's hasher.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in bus_id.bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        let letters = (0..3)
            .map(|i| char::from(b'a' + ((hash >> (i * 8)) % 26) as u8))
            .collect();
        Self(letters)
    }

    /// `id` (as [`Ids::id`] prints it) with this bus's tag in front.
    pub(super) fn tag(&self, id: &str) -> String {
        format!("{}-{id}", self.0)
    }

    /// The id behind this bus's tag; an error that says so when the id was read on another
    /// bus, or has no tag.
    pub(super) fn untag<'i>(&self, id: &'i str) -> Result<&'i str, DeskError> {
        let bare = id.strip_prefix('#').unwrap_or(id);
        match bare.split_once('-') {
            Some((tag, rest)) if tag == self.0 => Ok(rest),
            Some((tag, rest))
                if tag.len() == 3
                    && tag.chars().all(|c| c.is_ascii_lowercase())
                    && NodeRef::parse(rest).is_ok() =>
            {
                Err(DeskError::Invalid(format!(
                    "node id {id:?} was read on another accessibility bus (another display, or \
                     before the bus restarted), not this one ({}-); take a new snapshot or find \
                     for current ids",
                    self.0
                )))
            }
            _ if NodeRef::parse(bare).is_ok() => Err(DeskError::Invalid(format!(
                "node id {id:?} lacks the tag that names its accessibility bus ({}- here); take \
                 a new snapshot or find for current ids",
                self.0
            ))),
            _ => Err(invalid(id)),
        }
    }
}

/// The most long paths [`Ids`] keeps numbers for; past it the table is emptied, so ids given
/// out before then stop working (the caller takes a new snapshot) and a daemon that runs for
/// weeks stays small. Numbers are never given out twice, so an old id never names another node.
const MAX_NUMBERED: usize = 200_000;

/// Short numbers for objects whose paths are not short already, given out as ids are printed.
/// One table serves the whole process ([`Ids::shared`]): a new connection to the bus after a
/// break must not number objects afresh, or an agent's old id would name another control.
#[derive(Default)]
pub(super) struct Ids {
    numbered: Mutex<Numbered>,
}

#[derive(Default)]
struct Numbered {
    by_node: HashMap<NodeRef, usize>,
    nodes: HashMap<usize, NodeRef>,
    next: usize,
}

impl Ids {
    /// The process's table.
    pub(super) fn shared() -> &'static Ids {
        static SHARED: std::sync::OnceLock<Ids> = std::sync::OnceLock::new();
        SHARED.get_or_init(Ids::default)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Numbered> {
        self.numbered.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The id to print for `node`.
    pub(super) fn id(&self, node: &NodeRef) -> String {
        let long = node.to_id();
        if !long.contains(":/") {
            return long;
        }
        let bus = node.bus.strip_prefix(':').unwrap_or(&node.bus);
        let mut numbered = self.lock();
        if let Some(n) = numbered.by_node.get(node) {
            return format!("{bus}:~{n}");
        }
        if numbered.nodes.len() >= MAX_NUMBERED {
            numbered.by_node.clear();
            numbered.nodes.clear();
        }
        let n = numbered.next;
        numbered.next += 1;
        numbered.nodes.insert(n, node.clone());
        numbered.by_node.insert(node.clone(), n);
        format!("{bus}:~{n}")
    }

    /// The object an id names, in any form [`Ids::id`] or [`NodeRef::to_id`] printed.
    pub(super) fn parse(&self, id: &str) -> Result<NodeRef, DeskError> {
        let bare = id.strip_prefix('#').unwrap_or(id);
        let Some((bus, number)) = bare.split_once(":~") else {
            return NodeRef::parse(id);
        };
        let n: usize = number.parse().map_err(|_| invalid(id))?;
        let numbered = self.lock();
        match numbered.nodes.get(&n) {
            Some(node) if node.bus.strip_prefix(':') == Some(bus) => Ok(node.clone()),
            _ => Err(DeskError::Invalid(format!(
                "node id {id:?} is not known (any more); take a new snapshot or find for \
                 current ids"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        for (bus, path, id) in [
            (":1.45", "/org/a11y/atspi/accessible/123", "1.45:123"),
            (":1.45", "/org/a11y/atspi/accessible/root", "1.45:root"),
            (":1.7", "/org/qt/a11y/7f3a", "1.7:/org/qt/a11y/7f3a"),
        ] {
            let node = NodeRef::new(bus, path);
            assert_eq!(node.to_id(), id);
            assert_eq!(NodeRef::parse(id).unwrap(), node);
        }
    }

    #[test]
    fn long_paths_get_short_numbers_that_stay_and_read_back() {
        let ids = Ids::default();
        let a = NodeRef::new(":1.13", "/org/gnome/Calculator/a11y/d52cd4fc_3286_4b8e");
        let b = NodeRef::new(":1.13", "/org/gnome/Calculator/a11y/77496a49_10e4_4f24");
        assert_eq!(ids.id(&a), "1.13:~0");
        assert_eq!(ids.id(&b), "1.13:~1");
        assert_eq!(ids.id(&a), "1.13:~0");
        assert_eq!(ids.parse("1.13:~1").unwrap(), b);
        assert_eq!(ids.parse("#1.13:~0").unwrap(), a);
        let standard = NodeRef::new(":1.45", "/org/a11y/atspi/accessible/123");
        assert_eq!(ids.id(&standard), "1.45:123");
        assert_eq!(ids.parse("#1.45:123").unwrap(), standard);
        // Qt's numbers are ten digits long: short numbers too, and the long form still reads.
        let qt = NodeRef::new(":1.68", "/org/a11y/atspi/accessible/2147483658");
        assert_eq!(ids.id(&qt), "1.68:~2");
        assert_eq!(ids.parse("1.68:~2").unwrap(), qt);
        assert_eq!(ids.parse("1.68:2147483658").unwrap(), qt);
        let unknown = ids.parse("1.13:~9").unwrap_err().to_string();
        assert!(unknown.contains("take a new snapshot"), "{unknown}");
        let other_app = ids.parse("1.14:~0").unwrap_err().to_string();
        assert!(other_app.contains("not known"), "{other_app}");
        assert!(ids.parse("1.13:~x").is_err());
    }

    #[test]
    fn an_id_names_its_bus_and_is_refused_on_another() {
        let here = BusTag::of("4f1d9e0c2b7a4c7e9f0a1b2c3d4e5f60");
        let there = BusTag::of("0a1b2c3d4e5f60714f1d9e0c2b7a4c7e");
        assert_ne!(here, there);
        assert_eq!(here, BusTag::of("4f1d9e0c2b7a4c7e9f0a1b2c3d4e5f60"));
        let id = here.tag("1.3:166");
        assert_eq!(id.len(), "abc-1.3:166".len());
        assert_eq!(here.untag(&id).unwrap(), "1.3:166");
        assert_eq!(here.untag(&format!("#{id}")).unwrap(), "1.3:166");
        let elsewhere = there.untag(&id).unwrap_err().to_string();
        assert!(
            elsewhere.contains("another accessibility bus"),
            "{elsewhere}"
        );
        let untagged = here.untag("1.3:166").unwrap_err().to_string();
        assert!(untagged.contains("lacks the tag"), "{untagged}");
        let junk = here.untag("abc-def").unwrap_err().to_string();
        assert!(junk.contains("is not a node id"), "{junk}");
    }

    #[test]
    fn malformed_ids_are_refused() {
        for bad in ["", "123", ":1", "1.4:", "x.y:12", "1.4:a b"] {
            let err = NodeRef::parse(bad).unwrap_err().to_string();
            assert!(err.contains("is not a node id"), "{bad}: {err}");
        }
    }
}
