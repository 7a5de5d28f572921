//! The trees each caller was last shown, so that `snapshot` with `changes` can answer only what
//! changed since: the caller keeps the rest from its previous answer.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Mutex, PoisonError};

use desk_core::a11y::{Node, View};

/// The most trees remembered, over all callers; the one shown longest ago goes first.
const KEPT: usize = 32;

/// Which tree: whose, of which window, seen how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The caller.
    pub caller: String,
    /// The window's id.
    pub window: String,
    /// The view it was shown in.
    pub view: View,
    /// Whether it had bounds, and key bindings.
    pub bounds: bool,
    pub keys: bool,
}

/// What a node looked like, by node id: a fingerprint of everything a snapshot shows of it.
pub type Fingerprints = HashMap<String, u64>;

/// The trees callers were shown, shared by the daemon's calls.
#[derive(Debug, Default)]
pub struct TreeMemory {
    kept: Mutex<Vec<(Shown, Fingerprints)>>,
}

impl TreeMemory {
    /// Remembers `now` as what `shown` answers, and returns what it answered before, if it
    /// is still remembered.
    pub fn swap(&self, shown: Shown, now: Fingerprints) -> Option<Fingerprints> {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let before = kept
            .iter()
            .position(|(s, _)| *s == shown)
            .map(|at| kept.remove(at).1);
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        kept.push((shown, now));
        before
    }
}

/// The fingerprints of `nodes` (one snapshot, each after its parent): role, name, states,
/// bounds, keys, value and the parent's id.
pub fn fingerprints(nodes: &[Node]) -> Fingerprints {
    let ids: HashMap<usize, &str> = nodes.iter().map(|n| (n.node_ref, n.id.as_str())).collect();
    nodes
        .iter()
        .map(|n| {
            let mut hasher = DefaultHasher::new();
            n.parent.and_then(|p| ids.get(&p)).hash(&mut hasher);
            (&n.role, &n.name, &n.states, n.bounds, &n.keys, &n.value).hash(&mut hasher);
            (n.id.clone(), hasher.finish())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(node_ref: usize, id: &str, parent: Option<usize>, name: &str) -> Node {
        Node {
            node_ref,
            id: id.into(),
            parent,
            depth: usize::from(parent.is_some()),
            role: "push button".into(),
            name: name.into(),
            named_by: None,
            states: vec![],
            bounds: None,
            keys: None,
            value: None,
        }
    }

    #[test]
    fn a_node_moved_or_renamed_has_another_fingerprint() {
        let tree = [node(0, "r", None, "root"), node(1, "a", Some(0), "OK")];
        let same = fingerprints(&tree);
        assert_eq!(fingerprints(&tree), same);
        let renamed = [node(0, "r", None, "root"), node(1, "a", Some(0), "Cancel")];
        assert_ne!(fingerprints(&renamed)["a"], same["a"]);
        let moved = [
            node(0, "r", None, "root"),
            node(1, "b", Some(0), "box"),
            node(2, "a", Some(1), "OK"),
        ];
        assert_ne!(fingerprints(&moved)["a"], same["a"]);
        assert_eq!(fingerprints(&moved)["r"], same["r"]);
    }

    #[test]
    fn the_memory_answers_the_previous_tree_and_stays_bounded() {
        let memory = TreeMemory::default();
        let shown = |window: usize| Shown {
            caller: "agent".into(),
            window: format!("0x{window}"),
            view: View::Shown,
            bounds: false,
            keys: false,
        };
        assert_eq!(
            memory.swap(shown(1), Fingerprints::from([("a".into(), 1)])),
            None
        );
        let before = memory.swap(shown(1), Fingerprints::from([("a".into(), 2)]));
        assert_eq!(before, Some(Fingerprints::from([("a".into(), 1)])));
        for window in 2..=KEPT + 1 {
            memory.swap(shown(window), Fingerprints::new());
        }
        assert_eq!(
            memory.swap(shown(1), Fingerprints::new()),
            None,
            "forgotten first"
        );
    }
}
