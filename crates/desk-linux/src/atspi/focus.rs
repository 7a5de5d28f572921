//! Which object has the keyboard focus, found without making an app list every cell it holds:
//! from the app's cache when it keeps one, else by a walk that leaves crowded containers alone.

use atspi::{Role, State};
use desk::DeskError;
use desk::accessibility::Want;

use super::AtSpi;
use super::ids::NodeRef;
use super::tree::{cached, walk};

/// The focused object under `root` found by a walk of what shows (never into a crowded
/// container, so a spreadsheet's cells are not made), a password field first should two say
/// they have the focus.
pub(super) async fn focused_by_walk(
    at: &AtSpi,
    root: &NodeRef,
    budget: usize,
) -> Result<Option<NodeRef>, DeskError> {
    let want = Want {
        shown_only: true,
        max_nodes: Some(budget),
        ..Want::default()
    };
    let walked = walk(at, root, want).await?;
    Ok(walked
        .infos
        .into_iter()
        .filter(|(_, info)| info.states.contains(State::Focused))
        .max_by_key(|(_, info)| info.role == Role::PasswordText)
        .map(|(node, _)| node))
}

/// What an app's cache says of its keyboard focus.
pub(super) enum CachedFocus {
    /// The focused object (a password field first, should two say they have the focus).
    Found(NodeRef),
    /// None in the cache, and the app holds a container that manages its descendants (a
    /// spreadsheet): searching it would make the app list every one of them.
    NotInCache,
    /// None in the cache, and searching the app is safe.
    Search,
    /// The app keeps no cache (LibreOffice, Qt, GTK 4): only a walk, which leaves crowded
    /// containers alone, can tell safely.
    NoCache,
}

/// Which object has the focus in the app at `root`, as far as its cache tells.
///
/// A `Collection.GetMatches` search walks every descendant of the app, and LibreOffice Calc
/// answers it by making each of its sheet's 2^31 cells, freezing for minutes; the cache is
/// read instead, and a search is only safe where no container manages its descendants and
/// the cache says so.
pub(super) async fn focus_in_cache(at: &AtSpi, root: &NodeRef) -> Result<CachedFocus, DeskError> {
    let (infos, _) = cached(at, root).await?;
    if infos.is_empty() {
        return Ok(CachedFocus::NoCache);
    }
    let focused = infos
        .iter()
        .filter(|(_, info)| info.states.contains(State::Focused))
        .max_by_key(|(_, info)| info.role == Role::PasswordText);
    if let Some((node, _)) = focused {
        return Ok(CachedFocus::Found(node.clone()));
    }
    let crowded = infos.values().any(|info| {
        info.states.contains(State::ManagesDescendants)
            || usize::try_from(info.child_count).unwrap_or(0) > CROWDED
    });
    Ok(if crowded {
        CachedFocus::NotInCache
    } else {
        CachedFocus::Search
    })
}

/// More children than a search should make an app list.
const CROWDED: usize = 10_000;
