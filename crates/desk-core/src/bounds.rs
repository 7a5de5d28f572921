//! Bounds a toolkit misreports, put where the screen shows them.
//!
//! LibreOffice with its GTK 3 plugin draws its own widgets (toolbars, the sheet, the
//! document) in an area below the window's native menu bar, but reports their bounds as if
//! that area began at the top of the window: everything it draws is reported too high by the
//! menu bar's height. The widgets it embeds from GTK (the Name Box, the formula line, the
//! sidebar) report true bounds. The tree shows both: the `root pane` of LibreOffice's drawn
//! area has the size of the GTK container that holds it but not its place; and where a GTK
//! widget is embedded, its node has the size of its LibreOffice parent and sits exactly that
//! far lower. So the offset is the root pane's parent's place minus the root pane's, applied to
//! the root pane and everything under it, except below an embedded GTK node.

use crate::a11y::Node;

/// The role of the node that holds LibreOffice's drawn area.
const ROOT_PANE: &str = "root pane";

/// Moves the misreported bounds of a LibreOffice window's tree (`nodes`, each after its
/// parent) to where the screen shows them; answers the offset found, if any.
pub fn place_drawn_area(nodes: &mut [Node]) -> Option<(i32, i32)> {
    let index: std::collections::HashMap<usize, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.node_ref, i))
        .collect();
    let mut offset_found = None;
    // For each node (by index): the offset its bounds need.
    let mut offsets: Vec<(i32, i32)> = vec![(0, 0); nodes.len()];
    for i in 0..nodes.len() {
        let parent = nodes[i].parent.and_then(|p| index.get(&p).copied());
        let inherited = parent.map_or((0, 0), |p| offsets[p]);
        let (Some([x, y, w, h]), Some(p)) = (nodes[i].bounds, parent) else {
            offsets[i] = inherited;
            continue;
        };
        // The parent's bounds as corrected (parents come first).
        let Some([px, py, pw, ph]) = nodes[p].bounds else {
            offsets[i] = inherited;
            continue;
        };
        offsets[i] = if nodes[i].role == ROOT_PANE && (w, h) == (pw, ph) && (x, y) != (px, py) {
            let found = (px - x, py - y);
            offset_found = Some(found);
            found
        } else if inherited != (0, 0) && (w, h) == (pw, ph) && (x, y) == (px, py) {
            // Exactly where the corrected parent is: an embedded GTK node, reported true.
            (0, 0)
        } else {
            inherited
        };
        let (dx, dy) = offsets[i];
        nodes[i].bounds = Some([x + dx, y + dy, w, h]);
    }
    offset_found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(node_ref: usize, parent: Option<usize>, role: &str, bounds: [i32; 4]) -> Node {
        Node {
            node_ref,
            id: format!("n{node_ref}"),
            parent,
            depth: 0,
            role: role.into(),
            name: String::new(),
            named_by: None,
            states: vec![],
            bounds: Some(bounds),
            keys: None,
            value: None,
        }
    }

    #[test]
    fn a_drawn_area_moves_down_by_the_menu_bar_and_embedded_widgets_stay() {
        // As LibreOffice Calc reports itself at (101, 70), its menu bar 25 pixels high.
        let mut nodes = vec![
            node(0, None, "frame", [100, 50, 1200, 800]),
            node(1, Some(0), "panel", [101, 70, 1198, 775]),
            node(2, Some(1), "menu bar", [101, 70, 1198, 25]),
            node(3, Some(1), "panel", [101, 95, 1198, 750]),
            node(4, Some(3), "root pane", [101, 70, 1198, 750]),
            node(5, Some(4), "table cell", [142, 248, 82, 17]),
            node(6, Some(4), "panel", [105, 148, 162, 34]),
            node(7, Some(6), "panel", [105, 173, 162, 34]),
            node(8, Some(7), "text", [105, 173, 126, 34]),
        ];
        assert_eq!(place_drawn_area(&mut nodes), Some((0, 25)));
        let bounds: Vec<[i32; 4]> = nodes.iter().map(|n| n.bounds.unwrap()).collect();
        assert_eq!(bounds[2], [101, 70, 1198, 25], "the native menu bar stays");
        assert_eq!(
            bounds[4],
            [101, 95, 1198, 750],
            "the root pane fills its container"
        );
        assert_eq!(bounds[5], [142, 273, 82, 17], "a drawn cell moves down");
        assert_eq!(bounds[6], [105, 173, 162, 34], "a drawn panel moves down");
        assert_eq!(
            bounds[7],
            [105, 173, 162, 34],
            "the embedded GTK panel stays"
        );
        assert_eq!(bounds[8], [105, 173, 126, 34], "and what is under it");
    }

    #[test]
    fn a_tree_that_reports_true_bounds_is_left_alone() {
        let mut nodes = vec![
            node(0, None, "frame", [0, 0, 800, 600]),
            node(1, Some(0), "root pane", [0, 0, 800, 600]),
            node(2, Some(1), "push button", [10, 10, 80, 30]),
        ];
        let before = nodes.clone();
        assert_eq!(place_drawn_area(&mut nodes), None);
        assert_eq!(nodes, before);
    }
}
