//! The fake desktop's person: scripted answers, the marker, overlays.

use super::*;

impl Presence for FakeDesk {
    fn ask(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        let mut guard = self.state();
        let state = &mut *guard;
        state.questions.push(question.clone());
        if let Some(mut change) = state.while_asked.take() {
            change(state);
            state.while_asked = Some(change);
        }
        if cancel.is_cancelled() {
            return Ok(Answer::Closed);
        }
        Ok(state.answers.pop_front().unwrap_or(Answer::NoAnswer))
    }

    fn indicate(&self, acting: bool) {
        self.state().marker.push(acting);
    }

    fn overlays(&self) -> Vec<Rect> {
        self.state().overlays.clone()
    }
}
