//! The fake desktop's accessibility: nodes, trees, actions and fields.

use super::*;

impl Accessibility for FakeDesk {
    fn windows_of(&self, pid: u32) -> Result<Option<Vec<AppWindow>>, DeskError> {
        let state = self.state();
        let frames: Vec<AppWindow> = state
            .nodes
            .iter()
            .filter(|n| n.pid == pid && n.parent.is_none())
            .map(|n| AppWindow {
                id: n.node.id.clone(),
                name: n.node.name.clone(),
                active: state.windows.iter().any(|w| {
                    state.focus.as_deref() == Some(w.window.id.as_str())
                        && w.window.title == n.node.name
                }),
            })
            .collect();
        Ok((!frames.is_empty()).then_some(frames))
    }

    fn tree(&self, root: &str, want: Want) -> Result<Tree, DeskError> {
        let state = self.state();
        state.node(root)?;
        let mut out: Vec<Node> = Vec::new();
        let mut pending = vec![(root.to_string(), None, 0)];
        while let Some((id, parent, depth)) = pending.pop() {
            if out.len() >= want.budget() {
                return Ok(Tree {
                    truncated: Some(Truncated {
                        reason: format!(
                            "the walk stopped at its budget of {} nodes",
                            want.budget()
                        ),
                        seen: out.len() + pending.len() + 1,
                    }),
                    nodes: out,
                    shown_guessed: false,
                });
            }
            let fake = state.node(&id)?;
            let mut node = state.shown(fake, want);
            node.node_ref = out.len();
            node.parent = parent;
            node.depth = depth;
            let me = node.node_ref;
            out.push(node);
            let children: Vec<&FakeNode> = state
                .nodes
                .iter()
                .filter(|n| n.parent.as_deref() == Some(id.as_str()))
                .collect();
            for child in children.into_iter().rev() {
                pending.push((child.node.id.clone(), Some(me), depth + 1));
            }
        }
        Ok(Tree {
            nodes: out,
            truncated: None,
            shown_guessed: false,
        })
    }

    fn node(&self, id: &str, want: Want) -> Result<Node, DeskError> {
        let state = self.state();
        Ok(state.shown(state.node(id)?, want))
    }

    fn ancestors(&self, id: &str) -> Result<Vec<Node>, DeskError> {
        let state = self.state();
        let mut chain = Vec::new();
        let mut next = state.node(id)?.parent.clone();
        while let Some(parent) = next {
            let node = state.node(&parent)?;
            chain.push(state.shown(node, Want::default()));
            next = node.parent.clone();
        }
        Ok(chain)
    }

    fn at_point(&self, root: &str, x: i32, y: i32) -> Result<Option<String>, DeskError> {
        let tree = self.tree(
            root,
            Want {
                bounds: true,
                ..Want::default()
            },
        )?;
        let inside = |n: &&Node| {
            n.bounds.is_some_and(|[bx, by, w, h]| {
                Rect::new(bx, by, w as u32, h as u32).contains_point(x, y)
            })
        };
        Ok(tree
            .nodes
            .iter()
            .skip(1)
            .filter(inside)
            .max_by_key(|n| n.depth)
            .map(|n| n.id.clone()))
    }

    fn actions(&self, id: &str) -> Result<Vec<String>, DeskError> {
        Ok(self.state().node(id)?.actions.clone())
    }

    fn do_action(&self, id: &str, index: usize) -> Result<bool, DeskError> {
        let known = self.state().node(id)?.actions.len() > index;
        self.log_event(Event::Action(id.into(), index));
        Ok(known)
    }

    fn select(&self, id: &str) -> Result<bool, DeskError> {
        let selectable = self.state().node(id)?.selectable;
        self.log_event(Event::Select(id.into()));
        Ok(selectable)
    }

    fn select_child(&self, container: &str, index: usize) -> Result<bool, DeskError> {
        let mut state = self.state();
        state.node(container)?;
        state.log.push(Event::SelectChild(container.into(), index));
        // A combo box shows its chosen item's name, as GTK's do.
        let items: Vec<String> = state
            .nodes
            .iter()
            .filter(|n| {
                n.parent.as_deref().is_some_and(|p| {
                    p == container
                        || state
                            .nodes
                            .iter()
                            .any(|m| m.node.id == p && m.parent.as_deref() == Some(container))
                })
            })
            .filter(|n| n.node.role != a11y_role::MENU)
            .map(|n| n.node.name.clone())
            .collect();
        let Some(name) = items.get(index).cloned() else {
            return Ok(false);
        };
        if let Some(node) = state.nodes.iter_mut().find(|n| n.node.id == container) {
            node.node.name = name;
        }
        Ok(true)
    }

    fn set_text(&self, id: &str, text: &str) -> Result<bool, DeskError> {
        let mut state = self.state();
        let deaf = state.node(id)?.deaf;
        let value = state.editable_value(id)?;
        if !deaf {
            *value = Some(text.into());
            state.log.push(Event::SetValue(id.into(), text.into()));
        }
        Ok(true)
    }

    fn insert_text(
        &self,
        id: &str,
        position: Option<usize>,
        text: &str,
    ) -> Result<bool, DeskError> {
        let mut state = self.state();
        if state.node(id)?.deaf {
            return Ok(true);
        }
        let value = state.editable_value(id)?;
        *value = Some(desk_core::a11y::with_inserted(
            value.as_deref().unwrap_or_default(),
            position,
            text,
        ));
        state
            .log
            .push(Event::SetValue(id.into(), format!("+{text}")));
        Ok(true)
    }

    fn select_text(&self, id: &str, start: usize, end: usize) -> Result<bool, DeskError> {
        let mut state = self.state();
        let len = state
            .node(id)?
            .node
            .value
            .as_deref()
            .unwrap_or_default()
            .chars()
            .count();
        if end > len {
            return Ok(false);
        }
        state.log.push(Event::SelectChild(id.into(), start));
        state.selections.insert(id.into(), (start, end));
        Ok(true)
    }

    fn set_caret(&self, id: &str, offset: usize) -> Result<bool, DeskError> {
        let mut state = self.state();
        let len = state
            .editable_value(id)?
            .as_deref()
            .unwrap_or_default()
            .chars()
            .count();
        if offset > len {
            return Ok(false);
        }
        state.carets.insert(id.into(), offset);
        Ok(true)
    }

    fn caret(&self, id: &str) -> Result<Option<usize>, DeskError> {
        let state = self.state();
        let len = state
            .node(id)?
            .node
            .value
            .as_deref()
            .map(|v| v.chars().count());
        Ok(state.carets.get(id).copied().or(len))
    }

    fn selection(&self, id: &str) -> Result<Option<(usize, usize, String)>, DeskError> {
        let state = self.state();
        let text = state.node(id)?.node.value.clone().unwrap_or_default();
        Ok(state.selections.get(id).map(|&(start, end)| {
            (
                start,
                end,
                text.chars().skip(start).take(end - start).collect(),
            )
        }))
    }

    fn set_number(&self, id: &str, value: f64) -> Result<bool, DeskError> {
        let mut state = self.state();
        let numeric = state
            .node(id)?
            .node
            .value
            .as_deref()
            .is_some_and(|v| v.parse::<f64>().is_ok());
        if !numeric {
            return Err(DeskError::Invalid(format!("node {id} has no value")).unsent());
        }
        state
            .log
            .push(Event::SetValue(id.into(), value.to_string()));
        if let Some(node) = state.nodes.iter_mut().find(|n| n.node.id == id) {
            node.node.value = Some(value.to_string());
        }
        Ok(true)
    }

    fn grab_focus(&self, id: &str) -> Result<bool, DeskError> {
        let mut state = self.state();
        state.node(id)?;
        state.log.push(Event::GrabFocus(id.into()));
        for node in &mut state.nodes {
            node.node.states.retain(|s| s != "focused");
            if node.node.id == id {
                node.node.states.push("focused".into());
            }
        }
        Ok(true)
    }

    fn pid_of(&self, id: &str) -> Result<u32, DeskError> {
        Ok(self.state().node(id)?.pid)
    }

    fn focused_in(&self, pid: u32) -> Result<Option<Node>, DeskError> {
        let state = self.state();
        Ok(state
            .nodes
            .iter()
            .find(|n| n.pid == pid && n.node.states.iter().any(|s| s == "focused"))
            .map(|n| state.shown(n, Want::default())))
    }
}
