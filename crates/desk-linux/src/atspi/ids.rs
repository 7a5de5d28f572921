//! Node ids: an accessible object's bus name and object path, written short.
//!
//! `1.45:123` is the object `/org/a11y/atspi/accessible/123` of the app at `:1.45`. Toolkits keep
//! an object's path for its lifetime, so the id stays the same across snapshots; an app that
//! restarts gets a new bus name, so an old id then fails clearly instead of reaching a stranger.

use atspi::ObjectRefOwned;

use desk::DeskError;

/// Where toolkits put their accessible objects; ids leave it out.
const PREFIX: &str = "/org/a11y/atspi/accessible/";

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
        if object.is_null() {
            return None;
        }
        Some(Self::new(object.name_as_str()?, object.path_as_str()))
    }

    /// The id as the desk reports it.
    pub(super) fn to_id(&self) -> String {
        let bus = self.bus.strip_prefix(':').unwrap_or(&self.bus);
        match self.path.strip_prefix(PREFIX) {
            Some(rest) if !rest.contains('/') => format!("{bus}:{rest}"),
            _ => format!("{bus}:{}", self.path),
        }
    }

    /// Reads an id written by [`NodeRef::to_id`].
    pub(super) fn parse(id: &str) -> Result<Self, DeskError> {
        let invalid = || {
            DeskError::Invalid(format!(
                "{id:?} is not a node id; ids look like 1.45:123 and come from snapshot, find or at"
            ))
        };
        let (bus, rest) = id.split_once(':').ok_or_else(invalid)?;
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
    fn malformed_ids_are_refused() {
        for bad in ["", "123", ":1", "1.4:", "x.y:12", "1.4:a b"] {
            let err = NodeRef::parse(bad).unwrap_err().to_string();
            assert!(err.contains("is not a node id"), "{bad}: {err}");
        }
    }
}
