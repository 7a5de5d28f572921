//! A drag as the backends with a pointer of their own send it: pressed at its start, moved in
//! steps so that apps see the pointer travel, released at its end, and released whatever
//! happened on the way.

use crate::cancel::Cancel;
use crate::error::DeskError;

/// How many steps a drag moves in.
pub const STEPS: i32 = 10;

/// One thing a drag asks of the pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Move to a desk point.
    Move(i32, i32),
    /// Press the left button.
    Press,
    /// Release it.
    Release,
}

/// Drags from `from` to `to` through `pointer`, checking `cancel` between steps. The button
/// is released even when a move fails or the drag is cancelled; a cancel is answered as
/// [`DeskError::Cancelled`] once it is.
pub fn in_steps<E: Into<DeskError>>(
    from: (i32, i32),
    to: (i32, i32),
    cancel: &Cancel,
    mut pointer: impl FnMut(Step) -> Result<(), E>,
) -> Result<(), DeskError> {
    pointer(Step::Move(from.0, from.1)).map_err(Into::into)?;
    pointer(Step::Press).map_err(Into::into)?;
    let mut moved = Ok(());
    for step in 1..=STEPS {
        if cancel.is_cancelled() {
            break;
        }
        let x = from.0 + (to.0 - from.0) * step / STEPS;
        let y = from.1 + (to.1 - from.1) * step / STEPS;
        moved = pointer(Step::Move(x, y));
        if moved.is_err() {
            break;
        }
    }
    pointer(Step::Release).map_err(Into::into)?;
    moved.map_err(Into::into)?;
    if cancel.is_cancelled() {
        return Err(DeskError::Cancelled {
            done: "the drag was cut short and the button released".into(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drag_presses_moves_in_steps_and_releases_even_when_a_move_fails() {
        let mut seen = Vec::new();
        in_steps::<DeskError>((0, 0), (100, 50), &Cancel::default(), |s| {
            seen.push(s);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen[..2], [Step::Move(0, 0), Step::Press]);
        assert_eq!(seen[seen.len() - 2..], [Step::Move(100, 50), Step::Release]);
        assert_eq!(seen.len(), 2 + STEPS as usize + 1);

        let mut released = false;
        let failed = in_steps((0, 0), (100, 50), &Cancel::default(), |s| match s {
            Step::Move(x, _) if x > 0 => Err(DeskError::Unsupported("gone".into())),
            Step::Release => {
                released = true;
                Ok(())
            }
            _ => Ok(()),
        });
        assert!(failed.is_err() && released);
    }
}
