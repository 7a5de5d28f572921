//! Dates and times that a browser draws as segments: `set_value` on a web date or time input
//! takes the whole value (`2027-03-14`, `14:30`) and types each segment into its own spin
//! button, since neither Firefox nor Chromium takes a number set on a segment.

use desk_core::a11y::Node;
use desk_core::app_text::Quoted;
use desk_core::results::{FieldHolds, FieldHow};

use super::node::{AdmittedNode, node_words};
use super::poll_until;
use crate::accessibility::Want;
use crate::error::DeskError;
use crate::guard::Nodes;

use std::time::Duration;

/// The role browsers give a date or time input.
const DATE_EDITOR: &str = "date editor";

/// How long the segments may take to show what was typed.
const SEGMENT_WAIT: Duration = Duration::from_secs(1);

/// One part of a date or time, as the browser names its segment (Firefox "Month", Chromium
/// "Month Start date").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Year,
    Month,
    Day,
    Hours,
    Minutes,
    Seconds,
    Meridiem,
}

impl Part {
    fn of(segment: &Node) -> Option<Self> {
        Some(match segment.name.split_whitespace().next()? {
            "Year" => Self::Year,
            "Month" => Self::Month,
            "Day" => Self::Day,
            "Hours" => Self::Hours,
            "Minutes" => Self::Minutes,
            "Seconds" => Self::Seconds,
            "AM/PM" => Self::Meridiem,
            _ => return None,
        })
    }
}

/// A date, a time or both, as an HTML input's value writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Moment {
    date: Option<(u32, u32, u32)>,
    time: Option<(u32, u32, Option<u32>)>,
}

impl Moment {
    /// `2027-03-14`, `14:30`, `14:30:05` or `2027-03-14T14:30`; `None` for anything else.
    fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let (date, time) = match text.split_once(['T', ' ']) {
            Some((date, time)) => (Some(date), Some(time)),
            None if text.contains(':') => (None, Some(text)),
            None => (Some(text), None),
        };
        let numbers = |part: &str, sep: char| -> Option<Vec<u32>> {
            part.split(sep).map(|n| n.parse().ok()).collect()
        };
        let date = match date.map(|d| numbers(d, '-')) {
            None => None,
            Some(Some(ymd)) if ymd.len() == 3 => {
                let (y, m, d) = (ymd[0], ymd[1], ymd[2]);
                if !((1..=9999).contains(&y) && (1..=12).contains(&m)) {
                    return None;
                }
                // A browser shows 02/31 in the segments and holds no date at all.
                let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
                let days = match m {
                    2 if leap => 29,
                    2 => 28,
                    4 | 6 | 9 | 11 => 30,
                    _ => 31,
                };
                if !(1..=days).contains(&d) {
                    return None;
                }
                Some((y, m, d))
            }
            Some(_) => return None,
        };
        let time = match time.map(|t| numbers(t, ':')) {
            None => None,
            Some(Some(hms)) if (2..=3).contains(&hms.len()) => {
                let (h, m, s) = (hms[0], hms[1], hms.get(2).copied());
                if !(h < 24 && m < 60 && s.is_none_or(|s| s < 60)) {
                    return None;
                }
                Some((h, m, s))
            }
            Some(_) => return None,
        };
        Some(Self { date, time })
    }

    /// What to type into the segment for `part`, and the number it then holds; `None` when
    /// the value has no such part.
    fn segment(&self, part: Part, twelve_hour: bool) -> Option<(String, u32)> {
        let (y, mo, d) = self.date.unzip3();
        let (h, mi, s) = self.time.unzip3();
        Some(match part {
            Part::Year => (format!("{:04}", y?), y?),
            Part::Month => (format!("{:02}", mo?), mo?),
            Part::Day => (format!("{:02}", d?), d?),
            Part::Hours if twelve_hour => {
                let h12 = match h? % 12 {
                    0 => 12,
                    h => h,
                };
                (format!("{h12:02}"), h12)
            }
            Part::Hours => (format!("{:02}", h?), h?),
            Part::Minutes => (format!("{:02}", mi?), mi?),
            Part::Seconds => (format!("{:02}", s.flatten()?), s.flatten()?),
            Part::Meridiem => {
                let pm = h? >= 12;
                (if pm { "PM" } else { "AM" }.to_string(), u32::from(pm))
            }
        })
    }
}

/// The number a segment's value stands for: Firefox's segments hold text ("03", "--" when
/// empty, "PM"), Chromium's a number, its AM/PM 1 and 2. A meridiem is 0 for AM, 1 for PM.
fn segment_number(value: &str, part: Option<Part>) -> Option<u32> {
    let number = || value.trim().parse::<f64>().ok().map(|n| n as u32);
    match (value.trim(), part) {
        ("AM", _) => Some(0),
        ("PM", _) => Some(1),
        (_, Some(Part::Meridiem)) => number()?.checked_sub(1),
        _ => number(),
    }
}

/// `Option<(a, b, c)>` as three options.
trait Unzip3<A, B, C> {
    fn unzip3(self) -> (Option<A>, Option<B>, Option<C>);
}

impl<A, B, C> Unzip3<A, B, C> for Option<(A, B, C)> {
    fn unzip3(self) -> (Option<A>, Option<B>, Option<C>) {
        match self {
            Some((a, b, c)) => (Some(a), Some(b), Some(c)),
            None => (None, None, None),
        }
    }
}

/// Whether `node` may be a date or time input: Chromium's are date editors, and so are
/// Firefox's dates; its times are panels.
pub(super) fn may_be_segmented(node: &Node) -> bool {
    node.role == DATE_EDITOR || node.role == "panel"
}

/// Sets a date or time input (`target`) to `text` by typing each of its segments, then reads
/// them back; `None` when `target` is a panel without segments, or `text` no date or time for
/// it, so that it is set as any other field.
pub(super) fn set(
    target: &AdmittedNode<'_>,
    nodes: &Nodes<'_>,
    text: &str,
) -> Result<Option<FieldHolds>, DeskError> {
    let node = &target.node;
    let editor = node.role == DATE_EDITOR;
    let Some(moment) = Moment::parse(text) else {
        if !editor {
            return Ok(None);
        }
        return Err(DeskError::Unfit(format!(
            "{} takes a date as 2027-03-14, a time as 14:30, or both as 2027-03-14T14:30, \
             and {text:?} is none of them (or no such day)",
            node_words(node)
        )));
    };
    let want = Want {
        max_nodes: Some(32),
        ..Want::default()
    };
    let segments: Vec<(Node, Part)> = nodes
        .tree(&node.id, want)?
        .nodes
        .into_iter()
        .skip(1)
        .filter_map(|n| Part::of(&n).map(|part| (n, part)))
        .collect();
    let twelve_hour = segments.iter().any(|(_, part)| *part == Part::Meridiem);
    let mut typed = Vec::new();
    for (segment, part) in &segments {
        let Some((keys, number)) = moment.segment(*part, twelve_hour) else {
            return Err(DeskError::Unfit(format!(
                "{} has a {} segment, which {text:?} does not give: pass the whole value \
                 this input takes",
                node_words(node),
                Quoted(&segment.name)
            )));
        };
        typed.push((segment, keys, number));
    }
    if typed.is_empty() && !editor {
        return Ok(None);
    }
    if typed.is_empty() {
        return Err(DeskError::Unfit(format!(
            "{} shows no date or time segments shuttle knows; click it and type the value",
            node_words(node)
        )));
    }
    let window = target.window.as_ref().ok_or_else(|| {
        DeskError::Unplaced(format!(
            "{} is in no window shuttle can tell on the screen to type into; click it, then type",
            node_words(node)
        ))
    })?;
    let admitted = &target.admitted;
    admitted.focus(window)?;
    // The first segment takes the focus; a full segment (two digits, a year's four, a
    // meridiem's letter) moves it to the next one, in both browsers, in the order they draw.
    let first = typed[0].0;
    let refused = || {
        DeskError::AppRefused(format!(
            "segment {:?} of {} refused the keyboard focus; click it, then type",
            first.name,
            node_words(node)
        ))
    };
    if !admitted.nodes().grab_focus(&first.id)? {
        return Err(refused());
    }
    let focused = poll_until(SEGMENT_WAIT, || {
        let now = nodes.node(&first.id, Want::default())?;
        Ok(now.states.iter().any(|s| s == "focused").then_some(()))
    })?;
    if focused.is_none() {
        return Err(refused());
    }
    let keys: String = typed.iter().map(|(_, keys, _)| keys.as_str()).collect();
    admitted.type_text(&keys, Some(window))?;
    let read = || -> Result<Vec<Option<u32>>, DeskError> {
        typed
            .iter()
            .map(|(segment, ..)| {
                let want = Want {
                    text: true,
                    ..Want::default()
                };
                let now = nodes.node(&segment.id, want)?;
                Ok(now
                    .value
                    .as_deref()
                    .and_then(|v| segment_number(v, Part::of(segment))))
            })
            .collect()
    };
    let wanted: Vec<Option<u32>> = typed.iter().map(|(.., n)| Some(*n)).collect();
    let held = poll_until(SEGMENT_WAIT, || {
        let now = read()?;
        Ok((now == wanted).then_some(now))
    })?
    .map_or_else(read, Ok)?;
    let as_asked = held == wanted;
    let shown: Vec<String> = typed
        .iter()
        .zip(&held)
        .map(|((segment, ..), now)| {
            let part = segment.name.split_whitespace().next().unwrap_or_default();
            format!("{part} {}", now.map_or("empty".into(), |n| n.to_string()))
        })
        .collect();
    let holds = if as_asked {
        text.trim().to_string()
    } else {
        shown.join(", ")
    };
    let note = (!as_asked).then(|| {
        format!(
            "{} holds {}, not {text:?}: the page refused a segment or keeps to a range; read \
             it, or set another value",
            node_words(node),
            shown.join(", ")
        )
    });
    Ok(Some(FieldHolds {
        id: node.id.clone(),
        holds: Some(holds),
        how: FieldHow::Typed,
        as_asked: Some(as_asked),
        note,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_reads_as_an_html_input_writes_it() {
        assert_eq!(
            Moment::parse("2027-03-14"),
            Some(Moment {
                date: Some((2027, 3, 14)),
                time: None
            })
        );
        assert_eq!(
            Moment::parse("14:30"),
            Some(Moment {
                date: None,
                time: Some((14, 30, None))
            })
        );
        assert_eq!(
            Moment::parse("2027-03-14T09:05:07").unwrap().time,
            Some((9, 5, Some(7)))
        );
        assert!(Moment::parse("2028-02-29").is_some());
        for bad in [
            "14/03/2027",
            "2027-13-01",
            "2027-02-29",
            "2027-04-31",
            "2027-03",
            "25:00",
            "tomorrow",
            "",
        ] {
            assert_eq!(Moment::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn segments_read_back_as_numbers_in_either_browser() {
        assert_eq!(segment_number("03", Some(Part::Month)), Some(3));
        assert_eq!(segment_number("--", Some(Part::Hours)), None);
        assert_eq!(segment_number("PM", Some(Part::Meridiem)), Some(1));
        assert_eq!(segment_number("2", Some(Part::Meridiem)), Some(1));
        assert_eq!(segment_number("1", Some(Part::Meridiem)), Some(0));
        assert_eq!(segment_number("0", Some(Part::Meridiem)), None);
    }

    #[test]
    fn each_segment_gets_its_digits_and_a_twelve_hour_clock_its_meridiem() {
        let m = Moment::parse("2027-03-14T00:05").unwrap();
        assert_eq!(m.segment(Part::Month, false), Some(("03".into(), 3)));
        assert_eq!(m.segment(Part::Year, false), Some(("2027".into(), 2027)));
        assert_eq!(m.segment(Part::Hours, true), Some(("12".into(), 12)));
        assert_eq!(m.segment(Part::Meridiem, true), Some(("AM".into(), 0)));
        assert_eq!(m.segment(Part::Hours, false), Some(("00".into(), 0)));
        assert_eq!(m.segment(Part::Seconds, false), None);
        let pm = Moment::parse("13:30").unwrap();
        assert_eq!(pm.segment(Part::Hours, true), Some(("01".into(), 1)));
        assert_eq!(pm.segment(Part::Meridiem, true), Some(("PM".into(), 1)));
        assert_eq!(pm.segment(Part::Day, true), None);
    }
}
