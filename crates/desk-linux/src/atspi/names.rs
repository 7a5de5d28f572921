//! Names as a person reads them: toolkit class names and doubled labels taken out, unnamed
//! controls named by their tooltip or their label, and the text, key bindings and states worth
//! showing.

use std::collections::HashMap;

use atspi::{ObjectRefOwned, RelationType, State, StateSet};
use desk_core::a11y::{self, Node};
use futures::future::join_all;

use super::ids::NodeRef;
use super::tree::property;
use super::{ACCESSIBLE, AtSpi};

/// The name as a person would read it: not the toolkit's class name GTK 4 gives unnamed
/// widgets (`GtkMenuButton`, `AdwGizmo`), but the one child's name when there is one, and not
/// doubled when GTK 4 joins a button's own name
/// to its label's (`7 7` over a label `7`).
pub(super) fn plain_name<'a>(name: &str, kid_names: impl Iterator<Item = &'a str>) -> String {
    let mut kid_names = kid_names.filter(|k| !k.is_empty() && !is_class_name(k));
    if is_class_name(name) {
        // A button GTK 4 left unnamed shows its one label's text: that is its name to a person.
        let only = kid_names.next();
        return match (only, kid_names.next()) {
            (Some(only), None) => only.to_string(),
            _ => String::new(),
        };
    }
    if let Some(half) = doubled(name)
        && kid_names.any(|k| k == half)
    {
        return half.to_string();
    }
    name.to_string()
}

/// `Gtk…`, `Adw…`, `Gdk…` followed by a capital and letters only: a widget class, not a name.
pub(super) fn is_class_name(name: &str) -> bool {
    ["Gtk", "Adw", "Gdk"].iter().any(|prefix| {
        name.strip_prefix(prefix).is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_uppercase())
                && rest.chars().all(|c| c.is_ascii_alphanumeric())
        })
    })
}

/// `half` when `name` is `half half`, or the label's text with its mnemonic before it
/// (`_Open Open`, as GTK 4.8 names a dialog's buttons).
pub(super) fn doubled(name: &str) -> Option<&str> {
    let mid = name.len().checked_sub(1)? / 2;
    if let (Some(first), Some(rest)) = (name.get(..mid), name.get(mid..))
        && rest.strip_prefix(' ') == Some(first)
        && !first.is_empty()
    {
        return Some(first);
    }
    // With one underscore, the first half is a character longer.
    let (marked, plain) = name.split_at_checked(mid + 1)?;
    let plain = plain.strip_prefix(' ')?;
    (marked.matches('_').count() == 1 && marked.replacen('_', "", 1) == plain && !plain.is_empty())
        .then_some(plain)
}

/// Where among `nodes` the controls are that have no name.
fn unnamed_controls(nodes: &[Node]) -> Vec<usize> {
    nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.name.is_empty() && a11y::is_control_role(&n.role))
        .map(|(i, _)| i)
        .collect()
}

/// Names the unnamed controls among `nodes` (read in `order`) by their descriptions, which
/// Qt and GTK 3 take from the tooltip: an icon button's "Replace All". A control that describes
/// nothing itself, alone in a panel that does, takes the panel's: GIMP 2.10 sets its tools'
/// tooltips ("Paintbrush Tool: ...") on the box around each tool's button. A description that
/// cannot be read, or says nothing (GTK 3 describes a slider by its number), names nothing.
pub(super) async fn name_from_descriptions(
    at: &AtSpi,
    order: &[(NodeRef, Option<usize>, usize)],
    nodes: &mut [Node],
) {
    let unnamed = unnamed_controls(nodes);
    let read = join_all(
        unnamed
            .iter()
            .map(|&i| property(at, &order[i].0, "Description")),
    )
    .await;
    let mut undescribed = Vec::new();
    for (i, description) in unnamed.into_iter().zip(read) {
        match description
            .ok()
            .and_then(|d| String::try_from(d).ok())
            .and_then(|t| telling(&t))
        {
            Some(text) => {
                nodes[i].name = text;
                nodes[i].named_by = Some(a11y::NamedBy::Description);
            }
            None => undescribed.extend(lone_in_panel(order, nodes, i).map(|panel| (i, panel))),
        }
    }
    let read = join_all(
        undescribed
            .iter()
            .map(|&(_, panel)| property(at, &order[panel].0, "Description")),
    )
    .await;
    for ((i, _), description) in undescribed.into_iter().zip(read) {
        if let Some(text) = description
            .ok()
            .and_then(|d| String::try_from(d).ok())
            .and_then(|t| telling(&t))
        {
            nodes[i].name = text;
            nodes[i].named_by = Some(a11y::NamedBy::Box);
        }
    }
}

/// A description's first line when it says something a name can: letters, and not a paragraph.
fn telling(description: &str) -> Option<String> {
    let text = first_line_of_markup(description);
    (text.chars().any(char::is_alphabetic) && text.chars().count() <= 120).then_some(text)
}

/// The panel node `i` sits in, when it is that panel's only child.
fn lone_in_panel(
    order: &[(NodeRef, Option<usize>, usize)],
    nodes: &[Node],
    i: usize,
) -> Option<usize> {
    let panel = order[i].1?;
    let alone = order
        .iter()
        .filter(|(_, parent, _)| *parent == Some(panel))
        .count()
        == 1;
    (alone && nodes[panel].role == "panel" && nodes[panel].name.is_empty()).then_some(panel)
}

/// Names the unnamed controls among `nodes` (read in `order`) by the label the toolkit says
/// labels them: a GTK file chooser's name entry by "Name:", as a person reads it beside it.
pub(super) async fn name_from_labels(
    at: &AtSpi,
    order: &[(NodeRef, Option<usize>, usize)],
    nodes: &mut [Node],
) {
    let unnamed = unnamed_controls(nodes);
    let relations = join_all(unnamed.iter().map(|&i| {
        at.call::<Vec<(RelationType, Vec<ObjectRefOwned>)>, _>(
            &order[i].0,
            ACCESSIBLE,
            "GetRelationSet",
            &(),
        )
    }))
    .await;
    let placed: HashMap<&NodeRef, usize> = order
        .iter()
        .enumerate()
        .map(|(i, (node, ..))| (node, i))
        .collect();
    let labels: Vec<Vec<NodeRef>> = relations
        .into_iter()
        .map(|relations| {
            relations
                .unwrap_or_default()
                .into_iter()
                .filter(|(kind, _)| *kind == RelationType::LabelledBy)
                .flat_map(|(_, targets)| targets)
                .filter_map(|target| NodeRef::from_object(&target))
                .collect()
        })
        .collect();
    // Labels outside the tree read are asked for their names all at once.
    let outside: Vec<&NodeRef> = labels
        .iter()
        .flatten()
        .filter(|label| !placed.contains_key(label))
        .collect();
    let outside_names = join_all(outside.iter().map(|label| property(at, label, "Name"))).await;
    let outside: HashMap<&NodeRef, String> = outside
        .into_iter()
        .zip(outside_names)
        .filter_map(|(label, name)| Some((label, String::try_from(name.ok()?).ok()?)))
        .collect();
    for (i, labels) in unnamed.into_iter().zip(&labels) {
        let words: Vec<String> = labels
            .iter()
            .filter_map(|label| match placed.get(label) {
                Some(&j) => Some(nodes[j].name.clone()),
                None => outside.get(label).cloned(),
            })
            // "Name:" reads as "Name" to whoever looks for the field; GTK 4 labels a button
            // by its image, named by its class.
            .map(|name| name.trim().trim_end_matches(':').trim_end().to_string())
            .filter(|name| !name.is_empty() && !is_class_name(name))
            .collect();
        if !words.is_empty() {
            nodes[i].name = words.join(" ");
            nodes[i].named_by = Some(a11y::NamedBy::Label);
        }
    }
}

/// The first line of a description, its markup taken out: Qt passes a rich-text tooltip on as
/// it is (`<p style='white-space:pre'>Calculate number of words\n(…)</p>`).
fn first_line_of_markup(text: &str) -> String {
    // Rich text starts with a tag, as Qt tells it; other text keeps its angle brackets.
    let plain = if text.trim_start().starts_with('<') {
        let mut plain = String::with_capacity(text.len());
        let mut in_tag = false;
        for c in text.chars() {
            match c {
                '<' => in_tag = true,
                '>' if in_tag => in_tag = false,
                c if !in_tag => plain.push(c),
                _ => {}
            }
        }
        plain
    } else {
        text.to_string()
    };
    plain
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or_default()
        .to_string()
}

/// Readable text as a person reads it: without the placeholders (U+FFFC) a web page puts where
/// a control sits inside it; none when nothing is left.
pub(super) fn plain_text(text: &str) -> Option<String> {
    let plain = text.replace('\u{fffc}', "");
    let plain = plain.trim();
    (!plain.is_empty()).then(|| plain.to_string())
}

/// A key binding worth showing: Firefox answers `;;` (three empty parts) for none, GTK 4
/// `<VoidSymbol>`.
pub(super) fn meaningful_keys(binding: &str) -> Option<String> {
    binding
        .split(';')
        .any(|part| !part.trim().is_empty() && part != "<VoidSymbol>")
        .then(|| binding.to_string())
}

/// States worth reporting: the ones that set a node apart. `enabled`, `visible`, `showing` and
/// the like hold for nearly every node, so their absence is reported instead: `disabled` when
/// the node is neither enabled nor sensitive (GTK 3 clears `enabled` on a half-ticked check box
/// that still works, GTK 4 never sets it), `hidden` when it is not `shown` on the screen.
pub(super) fn notable_states(states: StateSet, shown: bool) -> Vec<String> {
    const COMMON: [State; 8] = [
        State::Enabled,
        State::Sensitive,
        State::Visible,
        State::Showing,
        State::Focusable,
        State::Selectable,
        State::SingleLine,
        State::Opaque,
    ];
    let mut notable: Vec<String> = states
        .iter()
        .filter(|s| !COMMON.contains(s))
        .map(|s| s.to_static_str().to_string())
        .collect();
    if !states.contains(State::Enabled) && !states.contains(State::Sensitive) {
        notable.push("disabled".into());
    }
    if !shown {
        notable.push("hidden".into());
    }
    notable
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn names_read_as_a_person_reads_them() {
        let none = std::iter::empty;
        assert_eq!(plain_name("7 7", ["7"].into_iter()), "7");
        assert_eq!(
            plain_name("Bye Bye", none()),
            "Bye Bye",
            "no label says it is doubled"
        );
        assert_eq!(plain_name("GtkButton", ["π"].into_iter()), "π");
        assert_eq!(plain_name("GtkButton", ["a", "b"].into_iter()), "");
        assert_eq!(plain_name("AdwGizmo", ["GtkBox"].into_iter()), "");
        assert_eq!(plain_name("Gtk", none()), "Gtk");
        assert_eq!(plain_name("Gtk is fun", none()), "Gtk is fun");
        assert_eq!(plain_name("Save", ["Save"].into_iter()), "Save");
        assert_eq!(plain_name("_Open Open", ["Open"].into_iter()), "Open");
        assert_eq!(
            plain_name("Con_nect Connect", ["Connect"].into_iter()),
            "Connect"
        );
        assert_eq!(plain_name("_Open Open", none()), "_Open Open");
        assert_eq!(
            plain_name("_Discard… Discard…", ["Discard…"].into_iter()),
            "Discard…"
        );
        assert_eq!(plain_name("_Op Open", ["Open"].into_iter()), "_Op Open");
    }

    #[test]
    fn a_description_names_by_its_first_plain_line() {
        assert_eq!(
            first_line_of_markup(
                "<p style='white-space:pre'>Calculate number of words\n(For huge texts.)</p>"
            ),
            "Calculate number of words"
        );
        assert_eq!(
            first_line_of_markup("  Replace all (F10) "),
            "Replace all (F10)"
        );
        assert_eq!(first_line_of_markup("\n\nSecond"), "Second");
        assert_eq!(first_line_of_markup("a < b"), "a < b");
    }

    #[test]
    fn only_meaningful_key_bindings_show() {
        assert_eq!(meaningful_keys(";;"), None);
        assert_eq!(meaningful_keys(""), None);
        assert_eq!(meaningful_keys("<VoidSymbol>"), None);
        assert_eq!(meaningful_keys("<Alt>f;;"), Some("<Alt>f;;".into()));
    }

    #[test]
    fn disabled_only_when_neither_enabled_nor_sensitive() {
        let sensitive_only: StateSet = State::Sensitive.into();
        assert!(!notable_states(sensitive_only, true).contains(&"disabled".to_string()));
        let indeterminate = StateSet::new(State::Sensitive | State::Indeterminate);
        assert_eq!(notable_states(indeterminate, true), ["indeterminate"]);
        assert_eq!(
            notable_states(StateSet::empty(), false),
            ["disabled", "hidden"]
        );
    }
}
