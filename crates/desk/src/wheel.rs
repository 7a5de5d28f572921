//! The wheel as the backends with a pointer of their own turn it: notch by notch, stopping at a
//! cancel and saying how far it got.

use crate::cancel::Cancel;
use crate::error::DeskError;

/// Turns the wheel `amount` notches with `notch`, one at a time, until done or cancelled.
pub fn in_notches(
    amount: u32,
    cancel: &Cancel,
    mut notch: impl FnMut() -> Result<(), DeskError>,
) -> Result<(), DeskError> {
    let mut done = 0;
    while done < amount && !cancel.is_cancelled() {
        notch()?;
        done += 1;
    }
    if done < amount {
        return Err(DeskError::Cancelled {
            done: format!("{done} of {amount} notches were scrolled"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_notch_turns_unless_the_call_is_cancelled() {
        let mut turned = 0;
        in_notches(3, &Cancel::default(), || {
            turned += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(turned, 3);
        let cancel = Cancel::default();
        cancel.cancel();
        let stopped = in_notches(3, &cancel, || Ok(())).unwrap_err();
        assert!(stopped.to_string().contains("0 of 3 notches"), "{stopped}");
    }
}
