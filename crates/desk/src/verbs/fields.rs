//! `set_value`, `insert_text`, `select_text` and `select_option`: changing a field through its
//! accessibility interfaces, then reading it back to say what it holds.

use desk_core::a11y::{self, Node, role};
use desk_core::app_text::Quoted;
use desk_core::call::{FieldValue, InsertTextArgs, SelectTextArgs, SetValueArgs};
use desk_core::results::{FieldHolds, FieldHow, TextSelected};
use desk_core::window::Window;

use std::time::Duration;

use super::node::{AdmittedNode, admitted_node, node_words};
use super::{poll_until, segments, style_box};
use crate::accessibility::Want;
use crate::error::DeskError;
use crate::guard::{Desk, Nodes};
use crate::keys;

/// Roles whose value is a number: their `set_value` takes a number, or text that reads as one.
const NUMBER_ROLES: [&str; 5] = ["spin button", "slider", "scroll bar", "dial", "level bar"];

pub(super) fn set_value(desk: &Desk, args: &SetValueArgs) -> Result<FieldHolds, DeskError> {
    let nodes = desk.nodes();
    let id = field_within(&nodes, &args.id)?.unwrap_or_else(|| args.id.clone());
    let target = admitted_node(desk, &nodes, &id, "set the value of")?;
    let node = &target.node;
    target.admitted.guard_field(node)?;
    let value = coerced(node, &args.value)?;
    if segments::may_be_segmented(node)
        && let FieldValue::Text(text) = &value
        && let Some(holds) = segments::set(&target, &nodes, text)?
    {
        return Ok(holds);
    }
    refuse_unfit(node, &value)?;
    let on_return = matches!(value, FieldValue::Text(_)) && takes_on_return(&nodes, &target)?;
    let (holds, how) = match &value {
        FieldValue::Number(n) => set_number(&nodes, &target, *n)?,
        FieldValue::Text(text) if on_return => set_on_return(&nodes, &target, text)?,
        FieldValue::Text(text) => set_text(&nodes, &target, text)?,
    };
    judged(&nodes, &target, &value, on_return, holds, how)
}

/// `value` as `node` takes it. A spin button, slider or number field takes "30" as it takes
/// 30: typed as text, a spin button shows it without taking it. An editable field that holds
/// no number (a cell does) takes 14 as the text "14".
fn coerced(node: &Node, value: &FieldValue) -> Result<FieldValue, DeskError> {
    let numeric = NUMBER_ROLES.contains(&node.role.as_str());
    Ok(match value {
        FieldValue::Text(text) if numeric => match text.trim().parse::<f64>() {
            Ok(n) if n.is_finite() => FieldValue::Number(n),
            _ => {
                return Err(DeskError::Unfit(format!(
                    "{} takes a number, and {text:?} is none: pass a number such as 42 or 0.5 \
                     (as JSON or as text)",
                    node_words(node)
                )));
            }
        },
        FieldValue::Number(n)
            if !numeric
                && node.states.iter().any(|s| s == "editable")
                && node
                    .value
                    .as_deref()
                    .is_none_or(|v| v.parse::<f64>().is_err()) =>
        {
            FieldValue::Text(a11y::format_number(*n))
        }
        other => other.clone(),
    })
}

/// Refuses a value `node` cannot hold. Some toolkits accept a value for a node that has none
/// and do nothing: this checks first.
fn refuse_unfit(node: &Node, value: &FieldValue) -> Result<(), DeskError> {
    match value {
        FieldValue::Number(_)
            if node
                .value
                .as_deref()
                .is_none_or(|v| v.parse::<f64>().is_err()) =>
        {
            Err(DeskError::Unfit(format!(
                "{} has no value to set: pass text for an editable field; numbers go to sliders \
                 and spin buttons",
                node_words(node)
            )))
        }
        FieldValue::Text(_) if !node.states.iter().any(|s| s == "editable") => {
            Err(DeskError::Unfit(format!(
                "{} takes no text: set_value takes text for editable fields, and a number for \
                 sliders and spin buttons",
                node_words(node)
            )))
        }
        _ => Ok(()),
    }
}

/// What the node holds now.
fn read_back(nodes: &Nodes<'_>, node: &Node) -> Result<Option<String>, DeskError> {
    nodes.node(&node.id, WITH_TEXT).map(|now| now.value)
}

/// Sets a number through the Value interface, else, for an editable field that did not take
/// it, types it over.
fn set_number(
    nodes: &Nodes<'_>,
    target: &AdmittedNode<'_>,
    n: f64,
) -> Result<(Option<String>, FieldHow), DeskError> {
    let node = &target.node;
    if !target.admitted.nodes().set_number(&node.id, n)? {
        return Err(DeskError::AppRefused(format!(
            "{} refused the value; read it to see what it holds",
            node_words(node)
        )));
    }
    // Firefox sets a number a moment after it answers.
    let is_n = |holds: &Option<String>| {
        holds
            .as_deref()
            .and_then(|h| h.parse::<f64>().ok())
            .is_some_and(|h| h == n)
    };
    let holds = poll_until(
        FIELD_WAIT,
        || Ok(Some(read_back(nodes, node)?).filter(is_n)),
    )?
    .map_or_else(|| read_back(nodes, node), Ok)?;
    let editable = node.states.iter().any(|s| s == "editable");
    if is_n(&holds) || holds != node.value || !editable {
        return Ok((holds, FieldHow::Set));
    }
    // A spin button takes typed text only once it is activated.
    let commit = match node.role.as_str() {
        "spin button" => Commit::Return,
        _ => Commit::Nothing,
    };
    let typed = type_over(target, nodes, &a11y::format_number(n), commit, &is_n)?;
    Ok((typed, FieldHow::Typed))
}

/// Types text into a toolbar's combo (a font, a style, a zoom), which shows text set into it
/// without taking it, and commits it with Return, as a person does.
fn set_on_return(
    nodes: &Nodes<'_>,
    target: &AdmittedNode<'_>,
    text: &str,
) -> Result<(Option<String>, FieldHow), DeskError> {
    if let Some(style_box) = style_box::style_box(target) {
        style_box::check_listed(nodes, target, style_box, text)?;
    }
    let shows = |now: &Option<String>| now.as_deref().is_some_and(|now| now.starts_with(text));
    let typed = type_over(target, nodes, text, Commit::ReturnAndApply, &shows)?;
    Ok((typed, FieldHow::Typed))
}

/// Sets text through the EditableText interface, else types it over. Firefox takes the text
/// through the interface and changes nothing; Chromium has no such interface. Either way the
/// field is typed into instead, once it has had the time an app that applies late needs.
fn set_text(
    nodes: &Nodes<'_>,
    target: &AdmittedNode<'_>,
    text: &str,
) -> Result<(Option<String>, FieldHow), DeskError> {
    let node = &target.node;
    let before = read_back(nodes, node)?;
    let set = match target.admitted.nodes().set_text(&node.id, text) {
        Ok(true) => Some(
            poll_until(FIELD_WAIT, || {
                Ok(Some(read_back(nodes, node)?).filter(|now| *now != before))
            })?
            .map_or_else(|| read_back(nodes, node), Ok)?,
        ),
        Ok(false) | Err(DeskError::Unfit(_)) => None,
        Err(e) => return Err(e),
    };
    match set {
        Some(holds) if holds != before || before.as_deref() == Some(text) => {
            Ok((holds, FieldHow::Set))
        }
        _ => {
            let shows = |now: &Option<String>| now.as_deref() == Some(text);
            let typed = type_over(target, nodes, text, Commit::Nothing, &shows)?;
            Ok((typed, FieldHow::Typed))
        }
    }
}

/// The answer: whether the node holds `value` as asked, and, for an entry of an app's main
/// window that holds a setting and holds it as asked, its activation. Such an entry acts on
/// the setting when activated (Evince's page number turns the page then), so it is activated
/// as Return would; words are left alone, since Return may send them.
fn judged(
    nodes: &Nodes<'_>,
    target: &AdmittedNode<'_>,
    value: &FieldValue,
    on_return: bool,
    holds: Option<String>,
    how: FieldHow,
) -> Result<FieldHolds, DeskError> {
    let node = &target.node;
    // A read stops at READ_LIMIT characters: a longer text cannot be compared.
    let as_asked_by = |holds: &Option<String>| {
        holds
            .as_ref()
            .filter(|holds| holds.chars().count() < READ_LIMIT)
            .map(|holds| match value {
                FieldValue::Number(n) => holds.parse::<f64>().is_ok_and(|h| h == *n),
                // A combo that took "14" shows "14 pt".
                FieldValue::Text(text) if on_return => holds == text || with_unit(holds, text),
                FieldValue::Text(text) => holds == text,
            })
    };
    let numeric = NUMBER_ROLES.contains(&node.role.as_str());
    let activated = !on_return
        && !numeric
        && as_asked_by(&holds) == Some(true)
        && holds.as_deref().is_some_and(is_a_setting)
        && activate(nodes, target)?;
    let holds = if activated {
        read_back(nodes, node)?
    } else {
        holds
    };
    let as_asked = as_asked_by(&holds);
    let note = if as_asked == Some(false) {
        Some(format!(
            "{} holds {}, not what was asked: the app changed or refused it (a spin button or \
             slider keeps to its range and steps; a field may limit what it takes); read it, or \
             set another value",
            node_words(node),
            Quoted(holds.as_deref().unwrap_or_default())
        ))
    } else {
        activated.then(|| "then activated, as Return does, for the app to act on it".to_string())
    };
    Ok(FieldHolds {
        id: node.id.clone(),
        holds,
        how,
        as_asked,
        note,
    })
}

/// How long a field may take to show what was typed into it, or to take the focus.
pub(super) const FIELD_WAIT: Duration = Duration::from_secs(1);

/// Roles that may hold, without being one, the one field a caller means: LibreOffice names
/// its toolbar boxes ("Font Name") on a panel around an unnamed entry.
const FIELD_HOLDERS: [&str; 3] = ["panel", "filler", role::COMBO_BOX];

/// The one editable field that shows inside the node `id` when that node is a box around it
/// rather than a field itself; `None` when it is a field, or holds none or several.
fn field_within(nodes: &Nodes<'_>, id: &str) -> Result<Option<String>, DeskError> {
    let node = nodes.node(id, Want::default())?;
    let editable = |n: &Node| n.states.iter().any(|s| s == "editable");
    if editable(&node)
        || NUMBER_ROLES.contains(&node.role.as_str())
        || !FIELD_HOLDERS.contains(&node.role.as_str())
    {
        return Ok(None);
    }
    let want = Want {
        max_nodes: Some(64),
        shown_only: true,
        ..Want::default()
    };
    let inside = nodes.tree(id, want)?;
    let mut fields = inside
        .nodes
        .iter()
        .skip(1)
        .filter(|n| editable(n) && !n.states.iter().any(|s| s == "hidden"));
    Ok(match (fields.next(), fields.next()) {
        (Some(field), None) => Some(field.id.clone()),
        _ => None,
    })
}

/// Roles of the one-line entries [`activate`] considers.
const ENTRY_ROLES: [&str; 2] = ["text", "entry"];

/// Whether an entry's text is a setting (a page number, a zoom, a size: a number, perhaps with
/// `%`) rather than words, which Return may send (a chat's message box) or search for.
fn is_a_setting(text: &str) -> bool {
    text.trim()
        .trim_end_matches('%')
        .trim_end()
        .parse::<f64>()
        .is_ok_and(f64::is_finite)
}

/// Activates a one-line entry of an app's main window through its own `activate` action, as
/// Return does; false when it is not such an entry or has no such action. Never in a dialog,
/// whose default button Return may press, nor on a web page, where it submits the form.
fn activate(nodes: &Nodes<'_>, target: &AdmittedNode<'_>) -> Result<bool, DeskError> {
    let node = &target.node;
    if !target.in_main_window()
        || !ENTRY_ROLES.contains(&node.role.as_str())
        || node.states.iter().any(|s| s == "multi-line")
        || target
            .ancestors
            .iter()
            .any(|a| a.role == role::DOCUMENT_WEB)
    {
        return Ok(false);
    }
    let Some(index) = nodes
        .actions(&node.id)?
        .iter()
        .position(|a| a == "activate")
    else {
        return Ok(false);
    };
    target.admitted.nodes().do_action(&node.id, index)
}

/// Whether `holds` is `asked` followed by a unit the app adds ("14 pt", "120%").
fn with_unit(holds: &str, asked: &str) -> bool {
    holds.strip_prefix(asked).is_some_and(|unit| {
        let unit = unit.trim_start();
        !unit.is_empty() && unit.len() <= 3 && unit.chars().all(|c| c.is_alphabetic() || c == '%')
    })
}

/// Whether a field takes its text only on Return: the entry of a combo box (in LibreOffice,
/// an entry beside a hidden combo box) in an app's main window. A dialog's combo is left
/// alone, since Return there may press its default button.
fn takes_on_return(nodes: &Nodes<'_>, target: &AdmittedNode<'_>) -> Result<bool, DeskError> {
    let node = &target.node;
    if !target.in_main_window() || node.states.iter().any(|s| s == "multi-line") {
        return Ok(false);
    }
    let Some(parent) = target.ancestors.first() else {
        return Ok(false);
    };
    if parent.role == role::COMBO_BOX {
        return Ok(true);
    }
    let want = Want {
        max_nodes: Some(16),
        ..Want::default()
    };
    let family = nodes.tree(&parent.id, want)?;
    Ok(family
        .nodes
        .iter()
        .any(|n| n.role == role::COMBO_BOX && n.parent == Some(family.nodes[0].node_ref)))
}

/// What follows typing over a field's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Commit {
    /// Nothing: the field holds what was typed.
    Nothing,
    /// Return: a spin button takes typed text only then.
    Return,
    /// Return, then the app's answer: a toolbar combo applies its text, may rewrite it
    /// ("14 pt"), and gives the focus back to the document.
    ReturnAndApply,
}

/// Replaces a field's text with the keyboard: focuses it, selects all of it, types `text` over
/// it and commits it as `commit` says; answers what it then holds, once `done` says so or
/// [`FIELD_WAIT`] has passed.
fn type_over(
    target: &AdmittedNode<'_>,
    nodes: &Nodes<'_>,
    text: &str,
    commit: Commit,
    done: &dyn Fn(&Option<String>) -> bool,
) -> Result<Option<String>, DeskError> {
    refuse_keys_in(&target.node, text)?;
    // In a spreadsheet, select-all takes the whole sheet and typing waits for Enter.
    if target.node.role == "table cell" {
        return Err(DeskError::Unfit(format!(
            "{} does not take text through accessibility, and typing over a cell is the \
             app's own business: focus the cell (press it), type the text with type, then press \
             Enter",
            node_words(&target.node)
        )));
    }
    let window = focus_field(target, nodes)?;
    let admitted = &target.admitted;
    admitted.press_keys(&keys::parse_combo("ctrl+a")?, Some(window))?;
    if text.is_empty() {
        admitted.press_keys(&keys::parse_combo("backspace")?, Some(window))?;
    } else {
        admitted.type_text(text, Some(window))?;
    }
    if commit != Commit::Nothing {
        admitted.press_keys(&keys::parse_combo("Return")?, Some(window))?;
    }
    if commit == Commit::ReturnAndApply {
        poll_until(FIELD_WAIT, || {
            let now = nodes.node(&target.node.id, WITH_TEXT)?;
            let answered =
                !now.states.iter().any(|s| s == "focused") || now.value.as_deref() != Some(text);
            Ok(answered.then_some(()))
        })?;
    }
    let read = || nodes.node(&target.node.id, WITH_TEXT).map(|now| now.value);
    poll_until(FIELD_WAIT, || Ok(Some(read()?).filter(|now| done(now))))?.map_or_else(read, Ok)
}

/// Refuses to type `text` into `field` where a character would act as a key rather than land
/// as text: Return submits a form or presses a dialog's default button, Tab moves the focus to
/// the next field. A line break is typed only into a field of several lines.
fn refuse_keys_in(field: &Node, text: &str) -> Result<(), DeskError> {
    let multi_line = field.states.iter().any(|s| s == "multi-line");
    let acts = text
        .chars()
        .find(|&c| c.is_control() && !(c == '\n' && multi_line));
    match acts {
        Some(c) => Err(DeskError::Unfit(format!(
            "{} took no text through its accessibility interface, and typing {c:?} into it \
             would act as a key (submit, or move to another field); set it without that \
             character, or type and press keys yourself",
            node_words(field)
        ))),
        None => Ok(()),
    }
}

/// Gives a field the keyboard focus, its window first; answers the window, which then has
/// the focus, once the field says it has it.
fn focus_field<'p>(
    target: &'p AdmittedNode<'_>,
    nodes: &Nodes<'_>,
) -> Result<&'p Window, DeskError> {
    let node = &target.node;
    let window = target.window.as_ref().ok_or_else(|| {
        DeskError::Unplaced(format!(
            "{} did not take the text through its accessibility interface, and it is in no \
             window shuttle can tell on the screen to type into; click it, then type",
            node_words(node)
        ))
    })?;
    target.admitted.focus(window)?;
    if !target.admitted.nodes().grab_focus(&node.id)? {
        return Err(DeskError::AppRefused(format!(
            "{} refused the keyboard focus; click it, then type",
            node_words(node)
        )));
    }
    let focused = poll_until(FIELD_WAIT, || {
        let now = nodes.node(&node.id, Want::default())?;
        Ok(now.states.iter().any(|s| s == "focused").then_some(()))
    })?;
    if focused.is_none() {
        return Err(DeskError::AppRefused(format!(
            "{} did not take the keyboard focus within {} ms; click it, then type",
            node_words(node),
            FIELD_WAIT.as_millis()
        )));
    }
    Ok(window)
}

pub(super) fn insert_text(desk: &Desk, args: &InsertTextArgs) -> Result<FieldHolds, DeskError> {
    let nodes = desk.nodes();
    let target = admitted_node(desk, &nodes, &args.id, "insert text into")?;
    let node = &target.node;
    target.admitted.guard_field(node)?;
    if !node.states.iter().any(|s| s == "editable") {
        return Err(DeskError::Unfit(format!(
            "{} takes no text: insert_text works on editable fields",
            node_words(node)
        )));
    }
    // A read stops at 100,000 characters: past that, the field's length is not known.
    let before = nodes
        .node(&node.id, WITH_TEXT)?
        .value
        .filter(|b| b.chars().count() < READ_LIMIT);
    let position = args.position.map(|p| p as usize);
    if let (Some(at), Some(before)) = (position, &before)
        && at > before.chars().count()
    {
        return Err(DeskError::Invalid(format!(
            "position {at} is past the end of {}, which holds {} characters",
            node_words(node),
            before.chars().count()
        )));
    }
    let read = || nodes.node(&node.id, WITH_TEXT).map(|now| now.value);
    let accepted = match target
        .admitted
        .nodes()
        .insert_text(&node.id, position, &args.text)
    {
        Ok(accepted) => accepted,
        Err(DeskError::Unfit(_)) => false,
        Err(e) => return Err(e),
    };
    let expected = before
        .as_deref()
        .map(|b| a11y::with_inserted(b, position, &args.text));
    let shows_expected = |now: &Option<String>| expected.is_some() && *now == expected;
    // Some apps (Firefox) apply it a moment after they answer.
    let shown = match accepted {
        true => poll_until(FIELD_WAIT, || {
            Ok(Some(read()?).filter(|now| shows_expected(now)))
        })?,
        false => None,
    };
    let mut now = shown.map_or_else(read, Ok)?;
    let mut how = FieldHow::Inserted;
    // Nothing changed: the field took the call and ignored it, or has no such interface.
    if let Some(before) = &before
        && now.as_ref() == Some(before)
        && !args.text.is_empty()
    {
        let at = position.unwrap_or(before.chars().count());
        refuse_keys_in(node, &args.text)?;
        let window = focus_field(&target, &nodes)?;
        let caret_refused = || {
            DeskError::AppRefused(format!(
                "{} refused to put its caret at character {at}; click there, then type",
                node_words(node)
            ))
        };
        if !target.admitted.nodes().set_caret(&node.id, at)? {
            return Err(caret_refused());
        }
        // Chromium moves the caret a moment after it answers.
        let placed = poll_until(FIELD_WAIT, || {
            Ok((nodes.caret(&node.id)? == Some(at)).then_some(()))
        })?;
        if placed.is_none() {
            return Err(caret_refused());
        }
        target.admitted.type_text(&args.text, Some(window))?;
        now = poll_until(FIELD_WAIT, || {
            Ok(Some(read()?).filter(|now| shows_expected(now)))
        })?
        .map_or_else(read, Ok)?;
        how = FieldHow::Typed;
    } else if !accepted {
        return Err(DeskError::AppRefused(format!(
            "{} refused the text; read it to see what it holds",
            node_words(node)
        )));
    }
    let as_asked = match (expected, now.as_ref()) {
        (Some(expected), Some(now)) if now.chars().count() < READ_LIMIT => Some(*now == expected),
        _ => None,
    };
    let note = (as_asked == Some(false)).then(|| {
        format!(
            "{} does not hold the text with the insertion: the app changed or refused it; read \
             it to see what it holds",
            node_words(node)
        )
    });
    Ok(FieldHolds {
        id: node.id.clone(),
        holds: now,
        how,
        as_asked,
        note,
    })
}

pub(super) fn select_text(desk: &Desk, args: &SelectTextArgs) -> Result<TextSelected, DeskError> {
    let nodes = desk.nodes();
    let target = admitted_node(desk, &nodes, &args.id, "select text in")?;
    let node = &target.node;
    if node.role == role::PASSWORD_TEXT {
        return Err(DeskError::Unfit(
            "shuttle never reads a password field, so it does not select text in one".into(),
        ));
    }
    let (start, end) = (args.start as usize, args.end as usize);
    if !target.admitted.nodes().select_text(&node.id, start, end)? {
        return Err(DeskError::AppRefused(format!(
            "{} refused to select characters {start} to {end}; read it with text: true to see \
             how long it is",
            node_words(node)
        )));
    }
    // Firefox selects a moment after it answers.
    let as_asked = |selection: &Option<(usize, usize, String)>| match selection {
        Some((from, to, _)) => (*from, *to) == (start, end),
        None => start == end,
    };
    let selection = poll_until(FIELD_WAIT, || {
        Ok(Some(nodes.selection(&node.id)?).filter(as_asked))
    })?
    .map_or_else(|| nodes.selection(&node.id), Ok)?;
    Ok(match selection {
        Some((from, to, text)) => TextSelected {
            id: node.id.clone(),
            start: Some(from),
            end: Some(to),
            selected: Some(text),
            as_asked: (from, to) == (start, end),
        },
        None => TextSelected {
            id: node.id.clone(),
            start: None,
            end: None,
            selected: None,
            as_asked: start == end,
        },
    })
}

/// A node read with its whole text, as the field verbs read fields back.
const WITH_TEXT: Want = Want {
    bounds: false,
    keys: false,
    text: true,
    max_nodes: None,
    shown_only: false,
};

/// How many characters a read with text returns at most.
const READ_LIMIT: usize = 100_000;

#[cfg(test)]
mod tests {
    use super::{is_a_setting, with_unit};

    #[test]
    fn numbers_are_settings_and_words_are_not() {
        for setting in ["3", " 12 ", "35.7%", "150 %", "-2"] {
            assert!(is_a_setting(setting), "{setting}");
        }
        for words in ["hello", "3 apples", "", "NaN", "inf"] {
            assert!(!is_a_setting(words), "{words}");
        }
    }

    #[test]
    fn a_unit_the_app_adds_is_what_was_asked_and_other_text_is_not() {
        assert!(with_unit("14 pt", "14"));
        assert!(with_unit("120%", "120"));
        assert!(!with_unit("140", "14"));
        assert!(!with_unit("14", "14"));
        assert!(!with_unit("14 points or so", "14"));
        assert!(!with_unit("2 pt", "abc"));
    }
}
