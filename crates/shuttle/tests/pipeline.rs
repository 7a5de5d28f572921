//! The daemon run in-process on the fake desk, through the real wire: a call's way from packet to
//! reply and journal line, in the documented order, with no display. The reply and the journal
//! must tell the same outcome.

mod common;

use std::time::Duration;

use common::inprocess::InProcess;
use desk::fake::Event;
use desk::{Answer, Asks};
use serde_json::{Value, json};

#[test]
fn the_reply_and_the_journal_tell_the_same_outcome() {
    let daemon = InProcess::start("[safety]\napps = [\"notes\"]\n");
    let completed = daemon.call("desk_key", json!({"keys": "a"})).json();
    assert_eq!(completed["outcome"], "completed");
    let line = daemon.last();
    assert_eq!(
        (&line["outcome"], &line["kind"], &line["tool"]),
        (&json!("completed"), &json!("act"), &json!("desk_key"))
    );
    assert!(line.get("reason").is_none() && line.get("sent").is_none());

    let refused = daemon.call("desk_click", json!({"x": 600, "y": 200}));
    let error = refused.error();
    assert!(
        error.starts_with("desk_click: refused: window 0x30 ⟪\"Vault\"⟫"),
        "{error}"
    );
    assert!(
        error.ends_with("(outcome: refused: nothing was sent)"),
        "{error}"
    );
    let line = daemon.last();
    assert_eq!(line["outcome"], "refused");
    assert_eq!(line["by"], "allowlist");
    assert_eq!(line["sent"], false);
    assert!(
        line["reason"]
            .as_str()
            .unwrap()
            .contains("not in the app allowlist")
    );

    // A read that fails is a failure, and no delivery words are added to it.
    let failed = daemon.call("desk_read", json!({"id": "1.2:3"}));
    assert!(!failed.error().contains("outcome:"), "{}", failed.text);
    let line = daemon.last();
    assert_eq!(
        (line["outcome"].clone(), line["kind"].clone()),
        (json!("failed"), json!("observe"))
    );
    assert!(line.get("sent").is_none());

    // What reached the desktop: the key, nothing else.
    assert_eq!(
        daemon.fake.log(),
        [Event::Keys {
            window: Some("0x10".into()),
            keysyms: vec!['a' as u32]
        }]
    );
}

#[test]
fn a_config_that_does_not_load_refuses_all_but_the_persons_controls() {
    let daemon = InProcess::start("");
    std::fs::write(
        daemon.scratch.path("config.toml"),
        "[safety]\nconfirm = \"yes\"\n",
    )
    .unwrap();
    for tool in ["status", "desk_windows", "desk_key"] {
        let reply = daemon.call(tool, json!({"keys": "a"}));
        assert!(
            reply.error().contains("line 2, key `confirm`"),
            "{}",
            reply.text
        );
        let line = daemon.last();
        assert_eq!(
            (line["outcome"].clone(), line["by"].clone()),
            (json!("refused"), json!("config"))
        );
    }
    assert_eq!(
        daemon.call("safety_stop", json!({})).json()["stopped"],
        true
    );
    daemon.fake.answer(Answer::Allow);
    assert_eq!(
        daemon.call("safety_resume", json!({})).json()["resumed"],
        true
    );
    assert!(daemon.fake.log().is_empty());
}

#[test]
fn read_only_is_judged_before_the_stop_and_a_stop_holds_until_resume() {
    let daemon = InProcess::start("[safety]\nread_only = true\n");
    assert_eq!(daemon.call("safety_stop", json!({})).json()["cancelled"], 0);
    let acting = daemon.call("desk_key", json!({"keys": "a"}));
    assert!(acting.error().contains("read-only"), "{}", acting.text);
    assert_eq!(daemon.last()["by"], "read_only");
    let reading = daemon.call("desk_windows", json!({}));
    assert!(
        reading.error().contains("stopped by the user"),
        "{}",
        reading.text
    );
    assert_eq!(daemon.last()["by"], "stop");
    assert_eq!(daemon.call("status", json!({})).json()["stopped"], true);

    daemon.fake.answer(Answer::Allow);
    let again = daemon.call("safety_resume", json!({}));
    assert_eq!(again.json()["resumed"], true);
    let twice = daemon.call("safety_resume", json!({}));
    assert!(twice.error().contains("not stopped"), "{}", twice.text);
    assert_eq!(daemon.last()["outcome"], "failed");
    assert!(daemon.call("desk_windows", json!({})).json().is_array());
    assert!(daemon.fake.log().is_empty());
}

#[test]
fn the_status_reads_back_as_its_type() {
    let daemon = InProcess::start("[safety]\nread_only = true\n");
    let status: desk_core::status::Status =
        serde_json::from_value(daemon.call("status", json!({})).json()).unwrap();
    assert!(status.safety.read_only);
    assert_eq!(status.pid, std::process::id());
    assert!(status.plugins.catalog.tools.is_empty());
}

#[test]
fn a_resume_is_the_persons_to_allow() {
    let daemon = InProcess::start("");
    daemon.call("safety_stop", json!({}));
    // Nobody answers, then the person denies: shuttle stays stopped.
    let unanswered = daemon.call("safety_resume", json!({}));
    assert!(
        unanswered
            .error()
            .contains("did not answer the question on their display"),
        "{}",
        unanswered.text
    );
    assert_eq!(daemon.last()["by"], "person");
    daemon.fake.answer(Answer::Deny);
    let denied = daemon.call("safety_resume", json!({}));
    assert!(
        denied.error().contains("the person denied the resume"),
        "{}",
        denied.text
    );
    assert!(
        denied.error().contains("shuttle stays stopped"),
        "{}",
        denied.text
    );
    assert_eq!(daemon.call("status", json!({})).json()["stopped"], true);
    let questions = daemon.fake.state().questions.clone();
    assert_eq!(questions.len(), 2);
    assert!(
        questions.iter().all(|q| q.asks == Asks::Resume),
        "{questions:?}"
    );
    // The question names the calling process: this test's own.
    let caller = format!("process {}", std::process::id());
    assert!(questions[0].agent.starts_with(&caller), "{questions:?}");
    daemon.fake.answer(Answer::Allow);
    assert_eq!(
        daemon.call("safety_resume", json!({})).json()["resumed"],
        true
    );
    assert_eq!(daemon.call("status", json!({})).json()["stopped"], false);
    // Nothing to resume: the person is not asked.
    assert!(
        daemon
            .call("safety_resume", json!({}))
            .error()
            .contains("not stopped")
    );
    assert_eq!(daemon.fake.state().questions.len(), 3);
}

#[test]
fn a_dry_run_answers_its_plan_and_the_journal_marks_it() {
    let daemon = InProcess::start("[safety]\ndry_run = true\n");
    let plan = daemon
        .call("desk_type", json!({"text": "hello", "window": "Notes"}))
        .json();
    assert_eq!(plan["outcome"], "refused");
    assert_eq!(plan["dry_run"], true);
    assert_eq!(
        plan["would"],
        "type 5 characters in window 0x10 ⟪\"Notes\"⟫ (⟪\"notes\"⟫)"
    );
    let line = daemon.last();
    assert_eq!(
        (line["by"].clone(), line["dry_run"].clone()),
        (json!("dry_run"), json!(true))
    );
    assert_eq!(
        line["args"]["text"]["chars"], 5,
        "typed text kept as its length"
    );
    assert!(!line.to_string().contains("hello"));
    assert!(daemon.fake.log().is_empty());
}

#[test]
fn bad_packets_and_arguments_are_answered_and_recorded() {
    let daemon = InProcess::start("");
    let unknown = daemon.call("desk_fly", json!({}));
    assert!(
        unknown.error().starts_with("unknown tool \"desk_fly\""),
        "{}",
        unknown.text
    );
    let bad = daemon.call("desk_click", json!({"x": 1}));
    assert_eq!(
        bad.error(),
        "desk_click: missing field `y` (outcome: refused: nothing was sent)"
    );
    let line = daemon.last();
    assert_eq!(
        (line["outcome"].clone(), line["sent"].clone()),
        (json!("refused"), json!(false))
    );
    assert!(line.get("by").is_none(), "no safety control refused it");
    // The settings applied on the next call, as the file changes.
    daemon.write_config("[safety]\nread_only = true\n");
    let refused = daemon.call("desk_key", json!({"keys": "a"}));
    assert!(refused.error().contains("read-only"), "{}", refused.text);
    // The daemon grabs the hotkey in the background as it starts, then keeps it through the
    // config change.
    common::wait_for("the kill hotkey grabbed", Duration::from_secs(5), || {
        let status = daemon.call("status", json!({})).json();
        (status["safety"]["kill_hotkey"]["grabbed"] == true).then_some(())
    });
    assert!(daemon.fake.log().is_empty());
}

#[test]
fn a_panic_inside_a_verb_is_an_error_reply_and_the_daemon_goes_on() {
    let daemon = InProcess::start("");
    daemon.fake.state().panic_next = true;
    let read = daemon.call("desk_windows", json!({}));
    assert!(read.error().contains("failed internally"), "{}", read.text);
    assert_eq!(daemon.last()["outcome"], "failed");

    // An action that panics may have sent input: unknown. The desk turn is free afterwards.
    daemon.fake.state().panic_next = true;
    let acted = daemon.call("desk_key", json!({"keys": "a", "window": "Notes"}));
    let error = acted.error();
    assert!(error.contains("failed internally"), "{error}");
    assert!(
        error.ends_with("(outcome: unknown: input may have landed; look before sending it again)"),
        "{error}"
    );
    let next = daemon.call("desk_key", json!({"keys": "b"})).json();
    assert_eq!(next["outcome"], "completed");
    assert_eq!(daemon.call("status", json!({})).json()["turn"], Value::Null);
}

#[test]
fn a_refusal_says_refused_once_and_read_only_in_one_wording() {
    // The person's display (the fake is not a private one): the clipboard is refused there.
    let daemon = InProcess::start("");
    let clipboard = daemon.call("desk_clipboard_read", json!({}));
    let error = clipboard.error();
    assert!(
        error.contains("refused: the clipboard verbs are served"),
        "{error}"
    );
    assert!(!error.contains("refused: refused"), "{error}");
    assert_eq!(daemon.last()["by"], "clipboard");
    // Read-only is judged early (before the desk turn) and at admission in the same words.
    daemon.write_config("[safety]\nread_only = true\n");
    let early = daemon.call("desk_key", json!({"keys": "a"}));
    assert!(
        early
            .error()
            .contains("shuttle is read-only ([safety] read_only): only observations are served, and key acts on the desktop"),
        "{}",
        early.text
    );
    assert!(!early.text.contains("refused: refused"), "{}", early.text);
    assert!(daemon.fake.log().is_empty());
}

#[test]
fn a_settle_out_of_range_is_refused_before_anything_is_sent() {
    let daemon = InProcess::start("");
    for bad in [json!(-1), json!(5001), json!("later"), json!(2.5)] {
        let reply = daemon.call("desk_click", json!({"x": 10, "y": 10, "settle": bad}));
        let error = reply.error();
        assert!(
            error.contains("settle takes milliseconds from 0 to 5000, or \"still\""),
            "{bad}: {error}"
        );
        assert!(
            error.ends_with("(outcome: refused: nothing was sent)"),
            "{error}"
        );
    }
    assert_eq!(daemon.fake.log(), []);
    let settled = daemon
        .call("desk_click", json!({"x": 10, "y": 10, "settle": 30}))
        .json();
    assert_eq!(settled["outcome"], "completed");
}
