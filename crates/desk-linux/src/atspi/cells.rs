//! The cells of a table too big to walk (a spreadsheet reports 2^31 of them), read through its
//! Table interface for the part that shows on the screen.

use atspi::{CoordType, ObjectRefOwned, State, StateSet};
use futures::future::join_all;

use super::ids::NodeRef;
use super::{ACCESSIBLE, AtSpi, COMPONENT, TABLE, TEXT};
use desk::DeskError;

/// The most rows of a table's visible part that are read.
const MOST_ROWS: i32 = 100;
/// The most columns of a table's visible part that are read.
const MOST_COLUMNS: i32 = 40;

/// What shows of a crowded table: the cells worth reporting, and the range they come from.
pub(super) struct Visible {
    /// Cells that hold text or have the focus, in row order.
    pub cells: Vec<NodeRef>,
    /// The rows shown, first to last (counted from 0).
    pub rows: (i32, i32),
    /// The columns shown, first to last (counted from 0).
    pub columns: (i32, i32),
    /// How many cells of that range were read.
    pub read: usize,
    /// How many could not be read (the app did not answer for them in time).
    pub unread: usize,
}

/// The cells of `table` that show on the screen, at most `budget` of them read; `None` when
/// the table does not show or does not tell where its cells are.
pub(super) async fn visible(
    at: &AtSpi,
    table: &NodeRef,
    budget: usize,
) -> Result<Option<Visible>, DeskError> {
    let fail = |e| at.failed(table, "read its visible cells", e);
    let screen = CoordType::Screen as u32;
    let (x, y, w, h): (i32, i32, i32, i32) = at
        .call(table, COMPONENT, "GetExtents", &screen)
        .await
        .map_err(fail)?;
    if w <= 2 || h <= 2 || x == i32::MIN || y == i32::MIN {
        return Ok(None);
    }
    // The cells at the table's top left and bottom right corners bound what shows.
    let corners = futures::join!(
        cell_place(at, table, x + 1, y + 1),
        cell_place(at, table, x + w - 2, y + h - 2)
    );
    let (Some((top, left)), Some((bottom, right))) = (corners.0?, corners.1?) else {
        return Ok(None);
    };
    let rows = (top, bottom.min(top + MOST_ROWS - 1));
    let columns = (left, right.min(left + MOST_COLUMNS - 1));
    let places: Vec<(i32, i32)> = (rows.0..=rows.1)
        .flat_map(|r| (columns.0..=columns.1).map(move |c| (r, c)))
        .take(budget)
        .collect();
    let found = join_all(
        places
            .iter()
            .map(|place| at.call::<ObjectRefOwned, _>(table, TABLE, "GetAccessibleAt", place)),
    )
    .await;
    let asked = found.len();
    let cells: Vec<NodeRef> = found
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|cell| NodeRef::from_object(&cell))
        .collect();
    let worth = join_all(cells.iter().map(|cell| worth_reporting(at, cell))).await;
    let mut kept = Vec::new();
    let mut read = 0;
    for (cell, worth) in cells.into_iter().zip(worth) {
        if let Some(worth) = worth {
            read += 1;
            if worth {
                kept.push(cell);
            }
        }
    }
    Ok(Some(Visible {
        cells: kept,
        rows,
        columns,
        read,
        unread: asked - read,
    }))
}

/// The row and column of the cell of `table` at a screen point.
async fn cell_place(
    at: &AtSpi,
    table: &NodeRef,
    x: i32,
    y: i32,
) -> Result<Option<(i32, i32)>, DeskError> {
    let fail = |e| at.failed(table, "find a cell", e);
    let screen = CoordType::Screen as u32;
    let cell: ObjectRefOwned = at
        .call(table, COMPONENT, "GetAccessibleAtPoint", &(x, y, screen))
        .await
        .map_err(fail)?;
    let Some(cell) = NodeRef::from_object(&cell) else {
        return Ok(None);
    };
    let index: i32 = at
        .call(&cell, ACCESSIBLE, "GetIndexInParent", &())
        .await
        .map_err(fail)?;
    if index < 0 {
        return Ok(None);
    }
    let (row, column) = futures::join!(
        at.call::<i32, _>(table, TABLE, "GetRowAtIndex", &index),
        at.call::<i32, _>(table, TABLE, "GetColumnAtIndex", &index)
    );
    match (row.map_err(fail)?, column.map_err(fail)?) {
        (r, c) if r >= 0 && c >= 0 => Ok(Some((r, c))),
        _ => Ok(None),
    }
}

/// Whether a cell says something or is where the agent is: it holds text or has the focus;
/// `None` when the app did not say. Empty cells are most of a sheet and are left out, selected
/// or not (a whole sheet may be).
async fn worth_reporting(at: &AtSpi, cell: &NodeRef) -> Option<bool> {
    let (text, states) = futures::join!(
        at.call::<String, _>(cell, TEXT, "GetText", &(0, -1)),
        at.call::<StateSet, _>(cell, ACCESSIBLE, "GetState", &())
    );
    match (text, states) {
        (Ok(text), Ok(states)) => Some(!text.is_empty() || states.contains(State::Focused)),
        _ => None,
    }
}
