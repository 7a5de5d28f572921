//! Accessibility nodes as the desk reports them, and the outline an agent reads.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One node of a window's accessibility tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Node {
    /// Its position in this snapshot, for `parent` links.
    #[serde(rename = "ref")]
    pub node_ref: usize,
    /// A handle that stays the same for the same object across snapshots, for read, press
    /// and act.
    pub id: String,
    /// The `ref` of its parent; none for the snapshot's root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    /// How deep it sits below the root (0).
    pub depth: usize,
    /// Its role, such as `push button` or `page tab`.
    pub role: String,
    /// Its accessible name; may be empty.
    pub name: String,
    /// Set when the toolkit gave no name and `name` was derived: from the node's
    /// `description` (mostly its tooltip), or from the named `box` around it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub named_by: Option<NamedBy>,
    /// Notable states, such as `checked`, `focused`, `selected`, `disabled`, `hidden`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
    /// Where it is on the screen: x, y, width, height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<[i32; 4]>,
    /// Its key binding, as the toolkit states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<String>,
    /// Its current value: a slider's number, a field's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// Where a derived name comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NamedBy {
    /// The label the toolkit says labels it (a file chooser's "Name:" beside its entry).
    Label,
    /// The node's accessible description: what its tooltip says, in most toolkits.
    Description,
    /// The named box around it (LibreOffice names a toolbar's "Font Name" box, not its entry).
    Box,
}

/// Roles of the boxes whose name [`name_from_boxes`] lends to the unnamed controls inside.
const NAMING_BOXES: [&str; 1] = ["panel"];
/// Roles of the unnamed layers between such a box and the control.
const LAYERS: [&str; 2] = ["panel", "filler"];
/// How many layers up a box is looked for.
const BOX_DEPTH: usize = 8;

/// Names each unnamed control from the nearest named box around it, when only unnamed layers
/// sit between them: LibreOffice's toolbar boxes carry the name ("Font Name") on a panel a
/// few layers above the entry that takes the text. `nodes` are in document order, parents
/// first, `parent` being a `ref`.
pub fn name_from_boxes(nodes: &mut [Node]) {
    let at: std::collections::HashMap<usize, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.node_ref, i))
        .collect();
    for i in 0..nodes.len() {
        if !nodes[i].name.is_empty() || !is_control_role(&nodes[i].role) {
            continue;
        }
        let mut up = nodes[i].parent.and_then(|p| at.get(&p).copied());
        for _ in 0..BOX_DEPTH {
            let Some(p) = up else { break };
            let layer = &nodes[p];
            if !layer.name.is_empty() {
                if NAMING_BOXES.contains(&layer.role.as_str()) && layer.named_by.is_none() {
                    let name = layer.name.clone();
                    nodes[i].name = name;
                    nodes[i].named_by = Some(NamedBy::Box);
                }
                break;
            }
            if !LAYERS.contains(&layer.role.as_str()) {
                break;
            }
            up = layer.parent.and_then(|q| at.get(&q).copied());
        }
    }
}

/// Roles of the views that list things: files, rows, items.
const LISTING_VIEWS: [&str; 7] = [
    "directory pane",
    "layered pane",
    "list",
    "list box",
    "tree",
    "tree table",
    "table",
];
/// Roles that only hold and place other nodes.
const STRUCTURE: [&str; 6] = [
    "panel",
    "filler",
    "scroll pane",
    "scroll bar",
    "viewport",
    "separator",
];

/// The views of `nodes` (a whole tree, in document order with its depths) that show but hold
/// nothing but structure: the app lists its items on the screen only (Thunar's icon view).
pub fn views_without_items(nodes: &[Node]) -> Vec<&Node> {
    let hidden = |n: &Node| n.states.iter().any(|s| s == "hidden");
    nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| LISTING_VIEWS.contains(&n.role.as_str()) && !hidden(n))
        .filter(|(i, view)| {
            nodes[i + 1..]
                .iter()
                .take_while(|n| n.depth > view.depth)
                .all(|n| STRUCTURE.contains(&n.role.as_str()))
        })
        .map(|(_, n)| n)
        .collect()
}

/// Why a tree walk stopped before the end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Truncated {
    /// What stopped it, in words for the agent.
    pub reason: String,
    /// How many nodes it had seen (listed by their parents) when it stopped.
    pub seen: usize,
}

/// Which nodes of a window a snapshot answers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum View {
    /// Every node, hidden ones too (closed menus, pages not shown).
    All,
    /// What shows on the screen: hidden nodes and everything under them are left out.
    #[default]
    Shown,
    /// Of what shows, only what an agent acts on or reads: controls, fields, headings, text;
    /// with the states that matter to acting on them, and values cut at 200 characters.
    Interactive,
}

impl View {
    /// Its name in calls.
    pub fn name(self) -> &'static str {
        match self {
            View::All => "all",
            View::Shown => "shown",
            View::Interactive => "interactive",
        }
    }
}

/// Accessible roles that the verbs, the policy and the backends all treat specially, as AT-SPI
/// spells them.
pub mod role {
    /// A menu: opens its items.
    pub const MENU: &str = "menu";
    /// An app's main window (a dialog is `dialog`).
    pub const FRAME: &str = "frame";
    /// Menu entries, which run an action.
    pub const MENU_ITEMS: [&str; 3] = ["menu item", "check menu item", "radio menu item"];
    /// A combo box.
    pub const COMBO_BOX: &str = "combo box";
    /// A password entry: never read, never typed into without allow_auth.
    pub const PASSWORD_TEXT: &str = "password text";
    /// A web page's document.
    pub const DOCUMENT_WEB: &str = "document web";
    /// A terminal: its text is the screen it shows (and what scrolled off it).
    pub const TERMINAL: &str = "terminal";
}

/// How many of a terminal's last lines a snapshot or find shows.
pub const TERMINAL_LINES: usize = 60;

/// A terminal's text as a reply shows it: its last [`TERMINAL_LINES`] lines that hold
/// something, each without its trailing blanks (a terminal pads its screen with empty lines),
/// after a line saying how many came before when some did.
pub fn terminal_screen(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let used = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |last| last + 1);
    let start = used.saturating_sub(TERMINAL_LINES);
    let mut shown = String::new();
    if start > 0 {
        shown.push_str(&format!("[{start} lines before]\n"));
    }
    shown.push_str(&lines[start..used].join("\n"));
    shown
}

/// Roles an agent acts on.
const CONTROLS: &[&str] = &[
    "button",
    "push button",
    "toggle button",
    "check box",
    "radio button",
    "switch",
    "menu item",
    "check menu item",
    "radio menu item",
    "menu",
    "combo box",
    "text",
    "entry",
    "password text",
    "spin button",
    "date editor",
    "slider",
    "page tab",
    "link",
    "list item",
    "tree item",
    "table cell",
    "icon",
];

/// Roles an agent reads, when they say something.
const READABLE: &[&str] = &[
    "heading",
    "label",
    "static",
    "paragraph",
    // A document's page that holds its text (Evince).
    "page",
    "caption",
    "status bar",
    "alert",
    "notification",
];

/// States that tell an agent nothing it acts on (how a toolkit draws or selects text, that a
/// tooltip exists): the interactive view leaves them out to stay small.
const NOISE_STATES: &[&str] = &[
    "selectable-text",
    "supports-autocompletion",
    "horizontal",
    "vertical",
    "has-tooltip",
    "resizable",
    "transient",
    "multi-line",
    "single-line",
    "opaque",
    "manages-descendants",
    "multiselectable",
    "checkable",
];

/// The most characters of a value the interactive view keeps; `read` with text has the rest.
const INTERACTIVE_VALUE_CHARS: usize = 200;

/// `value` cut to `limit` characters, saying how many more there are.
fn shortened(value: String, limit: usize) -> String {
    let total = value.chars().count();
    if total <= limit {
        return value;
    }
    let kept: String = value.chars().take(limit).collect();
    format!("{kept}… ({} more characters: read the node)", total - limit)
}

/// Whether nodes of `role` are controls an agent acts on (a button, a field, a menu item).
pub fn is_control_role(role: &str) -> bool {
    CONTROLS.contains(&role)
}

/// Whether nodes of `role` are text a person reads (a heading, a paragraph, a label).
pub fn is_readable_role(role: &str) -> bool {
    READABLE.contains(&role)
}

/// How many of a table's cells the interactive view lists; the table's value counts the rest.
pub const CELLS_PER_TABLE: usize = 40;

/// Roles of tables, whose cells the interactive view lists up to [`CELLS_PER_TABLE`].
const TABLES: [&str; 2] = ["table", "tree table"];

/// The nodes of `view`, in document order. Refs stay those of the whole tree; `parent` and
/// `depth` then count only the nodes kept. The interactive view leaves out table cells that
/// say nothing, and lists a table's first [`CELLS_PER_TABLE`] cells that do, the table's
/// value saying how many more it holds: a file chooser's list of files does not crowd out its
/// name field and buttons, which it lists first.
pub fn view(nodes: Vec<Node>, view: View) -> Vec<Node> {
    if view == View::All {
        return nodes;
    }
    // For each node of the whole tree: the index in `out` of itself when kept, else of its
    // nearest kept ancestor.
    let mut nearest_kept: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut shown = vec![false; nodes.len()];
    let mut out: Vec<Node> = Vec::new();
    // For each node kept: the index in `out` of the table it is in (itself, for a table).
    let mut table_of: Vec<Option<usize>> = Vec::new();
    // For each table kept (by its index in `out`): its cells listed, and left out.
    let mut cells: std::collections::HashMap<usize, (usize, usize)> = Default::default();
    for (i, mut node) in nodes.into_iter().enumerate() {
        let parent = node.parent.filter(|&p| p < i);
        let hidden = node.states.iter().any(|s| s == "hidden");
        // The root stays, even when its window is hidden: the snapshot is of it.
        shown[i] = parent.is_none_or(|p| shown[p] && !hidden);
        if !shown[i] {
            continue;
        }
        let above = parent.and_then(|p| nearest_kept[p]);
        let mut keep = match view {
            View::Interactive => {
                parent.is_none()
                    || TABLES.contains(&node.role.as_str())
                    || worth_acting_on(&node, above.map(|k| &out[k]))
            }
            _ => true,
        };
        let table = above.and_then(|k| table_of[k]);
        if keep
            && view == View::Interactive
            && node.role == "table cell"
            && let Some(table) = table
        {
            let (listed, left_out) = cells.entry(table).or_default();
            if *listed >= CELLS_PER_TABLE {
                *left_out += 1;
                keep = false;
            } else {
                *listed += 1;
            }
        }
        if keep {
            if view == View::Interactive {
                node.states.retain(|s| !NOISE_STATES.contains(&s.as_str()));
                node.value = node.value.map(|v| shortened(v, INTERACTIVE_VALUE_CHARS));
            }
            node.parent = above.map(|k| out[k].node_ref);
            node.depth = above.map_or(0, |k| out[k].depth + 1);
            nearest_kept[i] = Some(out.len());
            table_of.push(if TABLES.contains(&node.role.as_str()) {
                Some(out.len())
            } else {
                table
            });
            out.push(node);
        } else {
            nearest_kept[i] = above;
        }
    }
    for (table, (listed, left_out)) in cells {
        if left_out > 0 {
            out[table].value = Some(format!(
                "{listed} cells listed, {left_out} more not (view=shown lists them all)"
            ));
        }
    }
    if view == View::Interactive && out.first().is_some_and(|r| r.role == "file chooser") {
        out = chooser_first(out);
    }
    out
}

/// A file chooser's interactive view with what an agent acts on first: the name field, the
/// combo boxes (file type), the buttons (Save, Cancel, the folder's path), then the rest
/// (places, labels), and the list of files last. Whole subtrees move, in document order
/// within each rank, so the outline stays a tree.
fn chooser_first(nodes: Vec<Node>) -> Vec<Node> {
    let rank = |node: &Node| match node.role.as_str() {
        "text" | "entry" => 0,
        role::COMBO_BOX => 1,
        "push button" | "button" | "toggle button" => 2,
        role if TABLES.contains(&role) => 4,
        _ => 3,
    };
    let mut nodes = nodes.into_iter();
    let Some(root) = nodes.next() else {
        return Vec::new();
    };
    let mut subtrees: Vec<Vec<Node>> = Vec::new();
    for node in nodes {
        match subtrees.last_mut() {
            Some(subtree) if node.depth > 1 => subtree.push(node),
            _ => subtrees.push(vec![node]),
        }
    }
    subtrees.sort_by_key(|subtree| rank(&subtree[0]));
    std::iter::once(root)
        .chain(subtrees.into_iter().flatten())
        .collect()
}

/// A control, the node with the keyboard focus, or readable text that does not just repeat the
/// control it sits in. A table cell that says nothing and is neither focused nor selected is
/// none of these.
fn worth_acting_on(node: &Node, kept_parent: Option<&Node>) -> bool {
    if node.role == "table cell"
        && node.name.is_empty()
        && node.value.as_deref().unwrap_or_default().is_empty()
        && !node
            .states
            .iter()
            .any(|s| s == "focused" || s == "selected")
    {
        return false;
    }
    // Where the keyboard is, whatever its role: KCalc's display is a focused frame.
    if is_control_role(&node.role) || node.states.iter().any(|s| s == "focused") {
        return true;
    }
    let says = if node.name.is_empty() {
        node.value.as_deref().unwrap_or_default()
    } else {
        &node.name
    };
    let repeats = |p: &Node| p.name == says || p.value.as_deref() == Some(says);
    is_readable_role(&node.role) && !says.is_empty() && !kept_parent.is_some_and(repeats)
}

/// A number as a person writes it, and as a value node reports it: no `.0` on whole numbers.
pub fn format_number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// `text` with `insertion` put before its character `at` (at its end when `None`, or when `at`
/// is past it): what a field holds after an insertion.
pub fn with_inserted(text: &str, at: Option<usize>, insertion: &str) -> String {
    let split = at
        .and_then(|at| text.char_indices().nth(at).map(|(byte, _)| byte))
        .unwrap_or(text.len());
    let mut out = String::with_capacity(text.len() + insertion.len());
    out.push_str(&text[..split]);
    out.push_str(insertion);
    out.push_str(&text[split..]);
    out
}

/// The nodes as an indented outline, one node a line, cut at `max_chars` with a note saying so.
pub fn outline(nodes: &[Node], max_chars: Option<usize>) -> String {
    let mut out = String::new();
    for (i, node) in nodes.iter().enumerate() {
        let line = outline_line(node);
        if let Some(limit) = max_chars
            && out.len() + line.len() > limit
        {
            let note = format!(
                "… cut at {limit} characters: {} of {} nodes shown; raise max_chars, or snapshot \
                 without text for the JSON nodes\n",
                i,
                nodes.len()
            );
            out.push_str(&note);
            return out;
        }
        out.push_str(&line);
    }
    out
}

fn outline_line(node: &Node) -> String {
    let mut line = "  ".repeat(node.depth);
    line.push_str(&node.role);
    if !node.name.is_empty() {
        line.push_str(&format!(" {:?}", node.name));
    }
    match node.named_by {
        Some(NamedBy::Label) => line.push_str(" (named by its label)"),
        Some(NamedBy::Description) => line.push_str(" (named by its description)"),
        Some(NamedBy::Box) => line.push_str(" (named by the box around it)"),
        None => {}
    }
    if !node.states.is_empty() {
        line.push_str(&format!(" [{}]", node.states.join(", ")));
    }
    if let Some(value) = &node.value {
        line.push_str(&format!(" = {value:?}"));
    }
    if let Some(keys) = &node.keys {
        line.push_str(&format!(" keys={keys}"));
    }
    if let Some([x, y, w, h]) = node.bounds {
        line.push_str(&format!(" @{x},{y} {w}x{h}"));
    }
    line.push_str(&format!(" #{}\n", node.id));
    line
}

/// The nodes whose name matches `name`: exact matches if there are any, else names that contain
/// it in any case; only of `role` when one is given (any case).
pub fn find_by_name<'n>(nodes: &'n [Node], name: &str, role: Option<&str>) -> Vec<&'n Node> {
    let of_role = |n: &&Node| role.is_none_or(|r| n.role.eq_ignore_ascii_case(r));
    let exact: Vec<&Node> = nodes
        .iter()
        .filter(of_role)
        .filter(|n| n.name == name)
        .collect();
    // A name the toolkit gave wins over the same name derived from a box around it.
    if exact.iter().any(|n| n.named_by != Some(NamedBy::Box)) {
        return exact
            .into_iter()
            .filter(|n| n.named_by != Some(NamedBy::Box))
            .collect();
    }
    if !exact.is_empty() {
        return exact;
    }
    let lower = name.to_lowercase();
    let named: Vec<&Node> = nodes
        .iter()
        .filter(of_role)
        .filter(|n| n.name.to_lowercase().contains(&lower))
        .collect();
    if !named.is_empty() {
        return named;
    }
    // A terminal is found by what it shows.
    nodes
        .iter()
        .filter(of_role)
        .filter(|n| n.role == role::TERMINAL)
        .filter(|n| {
            n.value
                .as_deref()
                .is_some_and(|v| v.to_lowercase().contains(&lower))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interactive_view_lists_a_tables_first_cells_that_say_something() {
        let mut nodes = vec![
            node(0, 0, "dialog", "Save As"),
            node(1, 1, "text", "Name"),
            node(2, 1, "table", ""),
        ];
        for i in 0..50 {
            nodes.push(node(3 + i, 2, "table cell", &format!("file {i}")));
            nodes.push(node(53 + i, 2, "table cell", ""));
        }
        for (i, n) in nodes.iter_mut().enumerate() {
            n.node_ref = i;
            n.parent = match n.depth {
                0 => None,
                1 => Some(0),
                _ => Some(2),
            };
        }
        let listed = view(nodes, View::Interactive);
        let cells: Vec<&Node> = listed.iter().filter(|n| n.role == "table cell").collect();
        assert_eq!(cells.len(), CELLS_PER_TABLE);
        assert!(cells.iter().all(|c| !c.name.is_empty()));
        let table = listed.iter().find(|n| n.role == "table").unwrap();
        assert_eq!(
            table.value.as_deref(),
            Some("40 cells listed, 10 more not (view=shown lists them all)")
        );
        assert!(
            listed.iter().any(|n| n.role == "text"),
            "the name field stays"
        );
    }

    #[test]
    fn a_terminal_shows_its_last_lines_without_the_padding() {
        assert_eq!(terminal_screen("$ ls\na  b   \n\n\n"), "$ ls\na  b");
        assert_eq!(terminal_screen("\n\n"), "");
        let long: String = (0..70).map(|i| format!("line {i}\n")).collect();
        let shown = terminal_screen(&long);
        assert!(shown.starts_with("[10 lines before]\nline 10\n"), "{shown}");
        assert!(shown.ends_with("line 69"));
    }

    fn tree() -> Vec<Node> {
        // window / panel / button "Save" / label "Save"; panel / menu "File" [hidden] /
        // item "Quit"; label "Ready"
        let mut nodes = vec![
            node(0, 0, "frame", "Win"),
            node(1, 1, "panel", ""),
            node(2, 2, "button", "Save"),
            node(3, 3, "label", "Save"),
            node(4, 1, "menu", "File"),
            node(5, 2, "menu item", "Quit"),
            node(6, 1, "label", "Ready"),
        ];
        nodes[0].parent = None;
        nodes[2].parent = Some(1);
        nodes[3].parent = Some(2);
        nodes[4].parent = Some(0);
        nodes[4].states = vec!["hidden".into()];
        nodes[5].parent = Some(4);
        nodes[6].parent = Some(0);
        nodes
    }

    fn summary(nodes: &[Node]) -> Vec<(usize, Option<usize>, usize, &str)> {
        nodes
            .iter()
            .map(|n| (n.node_ref, n.parent, n.depth, n.name.as_str()))
            .collect()
    }

    #[test]
    fn insertions_count_characters_not_bytes() {
        assert_eq!(with_inserted("Lovelace", Some(0), "Ådä "), "Ådä Lovelace");
        assert_eq!(with_inserted("Ådä", Some(1), "x"), "Åxdä");
        assert_eq!(with_inserted("Ådä", None, "!"), "Ådä!");
        assert_eq!(with_inserted("Ådä", Some(9), "!"), "Ådä!");
    }

    #[test]
    fn shown_leaves_out_hidden_subtrees() {
        let shown = view(tree(), View::Shown);
        assert_eq!(
            summary(&shown),
            [
                (0, None, 0, "Win"),
                (1, Some(0), 1, ""),
                (2, Some(1), 2, "Save"),
                (3, Some(2), 3, "Save"),
                (6, Some(0), 1, "Ready"),
            ]
        );
        assert_eq!(view(tree(), View::All).len(), 7);
    }

    #[test]
    fn interactive_keeps_controls_and_text_that_says_something_new() {
        let interactive = view(tree(), View::Interactive);
        assert_eq!(
            summary(&interactive),
            [
                (0, None, 0, "Win"),
                (2, Some(0), 1, "Save"),
                (6, Some(0), 1, "Ready")
            ]
        );
    }

    #[test]
    fn a_file_choosers_interactive_view_leads_with_what_an_agent_acts_on() {
        let mut nodes = vec![
            node(0, 0, "file chooser", "Save As"),
            node(1, 1, "list item", "Home"),
            node(2, 2, "label", "Home"),
            node(3, 1, "table", "Files"),
            node(4, 2, "table cell", "notes.txt"),
            node(5, 1, "text", "Name"),
            node(6, 1, "combo box", "Text Files"),
            node(7, 1, "button", "Cancel"),
            node(8, 1, "button", "Save"),
        ];
        for (i, parent) in [
            (1, 0),
            (2, 1),
            (3, 0),
            (4, 3),
            (5, 0),
            (6, 0),
            (7, 0),
            (8, 0),
        ] {
            nodes[i].parent = Some(parent);
        }
        nodes[0].parent = None;
        let interactive = view(nodes, View::Interactive);
        let order: Vec<(&str, usize)> = interactive
            .iter()
            .map(|n| (n.name.as_str(), n.depth))
            .collect();
        assert_eq!(
            order,
            [
                ("Save As", 0),
                ("Name", 1),
                ("Text Files", 1),
                ("Cancel", 1),
                ("Save", 1),
                ("Home", 1),
                ("Files", 1),
                ("notes.txt", 2)
            ]
        );
    }

    #[test]
    fn interactive_keeps_the_focused_node_whatever_its_role() {
        // KCalc: its display is a frame, named by the number it shows, with the focus.
        let mut nodes = tree();
        nodes[1].name = "408".into();
        nodes[1].states = vec!["focused".into()];
        let interactive = view(nodes, View::Interactive);
        assert_eq!(
            summary(&interactive),
            [
                (0, None, 0, "Win"),
                (1, Some(0), 1, "408"),
                (2, Some(1), 2, "Save"),
                (6, Some(0), 1, "Ready")
            ]
        );
    }

    #[test]
    fn interactive_keeps_unnamed_text_by_what_it_says() {
        let mut nodes = vec![
            node(0, 0, "document web", "Form"),
            node(1, 1, "paragraph", ""),
            node(2, 1, "paragraph", ""),
        ];
        nodes[1].value = Some("saved Ada".into());
        nodes[1].states = vec!["selectable-text".into(), "focused".into()];
        nodes[2].parent = Some(0);
        // Chromium's label holds its text, and a static child says it again.
        nodes.push(node(3, 1, "label", ""));
        nodes[3].value = Some("Name".into());
        nodes[3].parent = Some(0);
        nodes.push(node(4, 2, "static", "Name"));
        let interactive = view(nodes, View::Interactive);
        assert_eq!(
            interactive.iter().map(|n| n.node_ref).collect::<Vec<_>>(),
            [0, 1, 3],
            "text that says something stays; the empty and the repeated go"
        );
        assert_eq!(
            interactive[1].states,
            ["focused"],
            "only states that matter"
        );
    }

    #[test]
    fn the_interactive_view_cuts_long_values_and_says_how_much_is_left() {
        let mut nodes = vec![node(0, 0, "frame", "Doc"), node(1, 1, "text", "")];
        nodes[1].value = Some("x".repeat(250));
        let interactive = view(nodes.clone(), View::Interactive);
        let value = interactive[1].value.as_deref().unwrap();
        assert!(value.starts_with(&"x".repeat(200)), "{value}");
        assert!(
            value.ends_with("… (50 more characters: read the node)"),
            "{value}"
        );
        assert_eq!(
            view(nodes, View::All)[1].value.as_deref(),
            Some(&*"x".repeat(250))
        );
    }

    fn node(node_ref: usize, depth: usize, role: &str, name: &str) -> Node {
        Node {
            node_ref,
            id: format!("1.5:{node_ref}"),
            parent: node_ref.checked_sub(1),
            depth,
            role: role.into(),
            name: name.into(),
            named_by: None,
            states: Vec::new(),
            bounds: None,
            keys: None,
            value: None,
        }
    }

    #[test]
    fn a_view_that_lists_nothing_but_structure_is_told() {
        let mut nodes = vec![
            node(0, 0, "frame", "thd - Thunar"),
            node(1, 1, "directory pane", "Icon view"),
            node(2, 2, "panel", ""),
            node(3, 1, "table", "Places"),
            node(4, 2, "table cell", "Home"),
            node(5, 1, "list", "Empty and hidden"),
        ];
        nodes[5].states = vec!["hidden".into()];
        let empty: Vec<&str> = views_without_items(&nodes)
            .iter()
            .map(|n| n.name.as_str())
            .collect();
        assert_eq!(empty, ["Icon view"]);
    }

    #[test]
    fn an_unnamed_control_takes_the_name_of_the_box_around_it() {
        // LibreOffice: panel "Font Name" > panel > filler > text, toggle button; a frame's
        // unnamed button outside any named box stays unnamed.
        let mut nodes = vec![
            node(0, 0, "frame", "Calc"),
            node(1, 1, "panel", "Font Name"),
            node(2, 2, "panel", ""),
            node(3, 3, "filler", ""),
            node(4, 4, "text", ""),
            node(5, 4, "toggle button", ""),
            node(6, 1, "push button", ""),
            node(7, 1, "scroll pane", ""),
            node(8, 2, "push button", ""),
        ];
        nodes[5].parent = Some(3);
        nodes[6].parent = Some(0);
        nodes[7].parent = Some(1);
        nodes[8].parent = Some(7);
        name_from_boxes(&mut nodes);
        let named: Vec<(&str, Option<NamedBy>)> = nodes
            .iter()
            .map(|n| (n.name.as_str(), n.named_by))
            .collect();
        assert_eq!(
            named[4..],
            [
                ("Font Name", Some(NamedBy::Box)),
                ("Font Name", Some(NamedBy::Box)),
                ("", None),
                ("", None),
                ("", None),
            ],
            "not through a scroll pane, not without a box"
        );
        assert_eq!(
            outline_line(&nodes[4]),
            "        text \"Font Name\" (named by the box around it) #1.5:4\n"
        );
        // find names the box itself first.
        let found = find_by_name(&nodes, "Font Name", None);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].role, "panel");
        assert_eq!(find_by_name(&nodes, "Font Name", Some("text")).len(), 1);
    }

    #[test]
    fn outline_indents_and_cuts_with_a_note() {
        let mut nodes = vec![
            node(0, 0, "frame", "Notes"),
            node(1, 1, "push button", "Save"),
            node(2, 1, "check box", "Wrap"),
        ];
        nodes[1].keys = Some("<Control>s".into());
        nodes[1].bounds = Some([10, 20, 80, 30]);
        nodes[2].states = vec!["checked".into()];
        nodes[2].value = Some("1".into());
        let all = outline(&nodes, None);
        assert_eq!(
            all,
            "frame \"Notes\" #1.5:0\n  push button \"Save\" keys=<Control>s @10,20 80x30 #1.5:1\n  \
             check box \"Wrap\" [checked] = \"1\" #1.5:2\n"
        );
        let cut = outline(&nodes, Some(30));
        assert!(cut.starts_with("frame \"Notes\" #1.5:0\n…"), "{cut}");
        assert!(cut.contains("1 of 3 nodes shown"), "{cut}");
    }

    #[test]
    fn exact_names_win_over_substrings() {
        let nodes = vec![
            node(0, 0, "push button", "Save"),
            node(1, 0, "push button", "Save As…"),
            node(2, 0, "menu item", "save all"),
        ];
        let names = |found: Vec<&Node>| found.iter().map(|n| n.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(find_by_name(&nodes, "Save", None)), ["Save"]);
        assert_eq!(
            names(find_by_name(&nodes, "sav", None)),
            ["Save", "Save As…", "save all"]
        );
        assert_eq!(
            names(find_by_name(&nodes, "save", Some("Menu Item"))),
            ["save all"]
        );
        assert!(find_by_name(&nodes, "Open", None).is_empty());
    }
}
