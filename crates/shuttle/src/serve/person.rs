//! A resume is the person's alone: before one, the daemon asks them, on their own display when
//! it knows one, else at the terminal the call came from. A caller that has neither is refused,
//! so a process with no one behind it (detached, or started by something else) cannot resume.

use std::time::Duration;

use desk::{Answer, Asks, Cancel, Question};
use desk_core::outcome::{Control, Outcome};

use super::daemon::{Daemon, Peer};
use crate::platform;

/// What a terminal answer must be to resume.
const YES: [&str; 2] = ["yes", "y"];

impl Daemon {
    /// Asks the person whether `peer` may resume, waiting up to `limit` for the answer; an
    /// error outcome says why not.
    pub(super) async fn person_allows_resume(
        &self,
        peer: Peer,
        limit: Duration,
    ) -> Result<(), Outcome> {
        let person = self.person.clone();
        let asked = tokio::task::spawn_blocking(move || ask(person.as_ref(), peer, limit)).await;
        asked.unwrap_or_else(|e| Err(refused(format!("asking the person failed: {e}"))))
    }
}

fn refused(reason: String) -> Outcome {
    Outcome::refused_by(
        Control::Person,
        format!("refused: {reason}; shuttle stays stopped"),
    )
}

/// Asks on the person's display, else at the caller's terminal.
fn ask(person: &dyn desk::Platform, peer: Peer, limit: Duration) -> Result<(), Outcome> {
    let terminal = peer.pid.and_then(platform::terminal_of);
    let caller = match (peer.pid, &terminal) {
        (Some(pid), Some(tty)) => format!(
            "process {pid} ({}) at the terminal {}",
            platform::process_name(pid),
            tty.display()
        ),
        (Some(pid), None) => format!("process {pid} ({})", platform::process_name(pid)),
        (None, _) => "a process the kernel did not name".to_string(),
    };
    let question = Question {
        asks: Asks::Resume,
        agent: caller.clone(),
        action: "let agents act on the desktop again".into(),
        text: None,
        timeout: limit,
    };
    let on_display = match person.ask_person(&question, &Cancel::default()) {
        Ok(Answer::Allow) => return Ok(()),
        Ok(Answer::Deny) => return Err(refused("the person denied the resume".into())),
        Ok(Answer::Closed) => {
            return Err(refused(
                "the person closed the question without allowing the resume".into(),
            ));
        }
        Ok(Answer::NoAnswer) => {
            return Err(refused(format!(
                "the person did not answer the question on their display within {} s",
                limit.as_secs()
            )));
        }
        Err(e) => e.to_string(),
    };
    let Some(terminal) = terminal else {
        return Err(refused(format!(
            "a resume must come from the person, and there is no one to ask: {on_display}, \
             and {caller} has no terminal; run `shuttle resume` in a terminal of your own"
        )));
    };
    if let Some(pid) = platform::terminal_typed_by_agent(&terminal) {
        return Err(refused(format!(
            "a resume must come from the person, and process {pid} ({}), which shuttle started \
             for an agent, holds the other side of {} or hides what it holds, so it could type \
             the answer; run `shuttle resume` in a terminal of your own",
            platform::process_name(pid),
            terminal.display()
        )));
    }
    let prompt = format!(
        "\r\nshuttle is stopped. Resume it, so agents may act on the desktop again?\r\n\
         Type yes and Enter within {} s to resume: ",
        limit.as_secs()
    );
    match platform::ask_at_terminal(&terminal, &prompt, limit) {
        Ok(Some(answer)) if YES.iter().any(|y| answer.eq_ignore_ascii_case(y)) => Ok(()),
        Ok(Some(answer)) => Err(refused(format!(
            "the answer at {} was {answer:?}, not yes",
            terminal.display()
        ))),
        Ok(None) => Err(refused(format!(
            "no answer came at {} within {} s",
            terminal.display(),
            limit.as_secs()
        ))),
        Err(e) => Err(refused(format!(
            "the question could not be asked at {}: {e}",
            terminal.display()
        ))),
    }
}
