//! A small desktop for the tests on the fake desk: two apps side by side and a third one that
//! is never allowed, each with an accessibility tree, and helpers to run calls on it.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use desk::fake::{Event, FakeDesk, FakeNode, FakeWindow};
use desk::guard::{Caller, Policy, Ran};
use desk::news::WindowNews;
use desk::vision::Sessions;
use desk::{Body, Cancel, Progress};
use desk_core::call::{DeskCall, Verb};
use desk_core::geometry::Rect;
use desk_core::outcome::{Control, Outcome};
use serde_json::Value;

/// Notes (pid 10, app "notes") at 100,100 400x300, focused.
pub const NOTES: &str = "0x10";
/// Mail (pid 20, app "mail") at 600,100 300x300.
pub const MAIL: &str = "0x20";
/// Vault (pid 30, app "vault") at 100,500 300x200: outside every allowlist here.
pub const VAULT: &str = "0x30";

/// A point inside Notes, Mail and Vault, and one on the bare desktop.
pub const IN_NOTES: (i32, i32) = (200, 200);
pub const IN_MAIL: (i32, i32) = (700, 200);
pub const IN_VAULT: (i32, i32) = (200, 600);
pub const ON_BACKGROUND: (i32, i32) = (950, 750);

/// The desktop: three windows, each app with an accessibility tree of a window, an entry
/// and a button.
pub fn desktop() -> FakeDesk {
    let fake = FakeDesk::new(1000, 800);
    fake.add(
        FakeWindow::new(VAULT, "Vault", 30, Rect::new(100, 500, 300, 200)),
        &["vault"],
    );
    fake.add(
        FakeWindow::new(MAIL, "Mail", 20, Rect::new(600, 100, 300, 300)),
        &["mail"],
    );
    fake.add(
        FakeWindow::new(NOTES, "Notes", 10, Rect::new(100, 100, 400, 300)),
        &["notes"],
    );
    fake.focus(NOTES);
    for (pid, title, frame, (x, y)) in [
        (10, "Notes", "n:0", (100, 100)),
        (20, "Mail", "m:0", (600, 100)),
        (30, "Vault", "v:0", (100, 500)),
    ] {
        let prefix = &frame[..1];
        fake.node(FakeNode::new(frame, "frame", title, pid, None).bounds([x, y, 300, 200]));
        fake.node(
            FakeNode::new(&format!("{prefix}:1"), "text", "Input", pid, Some(frame))
                .bounds([x + 10, y + 10, 200, 30])
                .actions(&["activate"]),
        );
        fake.node(
            FakeNode::new(
                &format!("{prefix}:2"),
                "push button",
                "OK",
                pid,
                Some(frame),
            )
            .bounds([x + 10, y + 60, 80, 30])
            .actions(&["click"]),
        );
    }
    fake
}

/// The policy with only these apps allowed.
pub fn only(apps: &[&str]) -> Policy {
    Policy {
        apps: Some(apps.iter().map(|a| a.to_string()).collect()),
        ..Policy::default()
    }
}

/// A call decoded as the daemon would.
pub fn call(verb: &str, args: Value) -> DeskCall {
    let verb = Verb::from_name(verb).unwrap_or_else(|| panic!("no verb {verb}"));
    DeskCall::parse(verb, args).unwrap_or_else(|e| panic!("{e}"))
}

thread_local! {
    /// The vision sessions of the test running on this thread, kept across its calls.
    static SESSIONS: Arc<Sessions> = Arc::default();
    /// What the test's caller was last told about the windows, kept across its calls.
    static NEWS: Arc<WindowNews> = Arc::default();
    /// The trees the test's caller was last shown, kept across its calls.
    static TREES: Arc<desk::trees::TreeMemory> = Arc::default();
    /// The progress the test's calls told.
    static HEARD: Arc<Mutex<Vec<String>>> = Arc::default();
}

/// The progress the test's calls have told since it was last asked.
pub fn heard() -> Vec<String> {
    HEARD.with(|heard| std::mem::take(&mut *heard.lock().unwrap()))
}

/// Runs `verb` with `args` on `fake` under `policy`, as agent "a1".
pub fn run(fake: &FakeDesk, policy: &Policy, verb: &str, args: Value) -> Ran {
    run_as(fake, policy, verb, args, Cancel::default())
}

/// Runs a call with a cancel flag of the test's own.
pub fn run_as(fake: &FakeDesk, policy: &Policy, verb: &str, args: Value, cancel: Cancel) -> Ran {
    let call = call(verb, args);
    let caller = Caller {
        agent: "a1".into(),
        allow_auth: call.allow_auth(),
        cancel,
        progress: {
            let ear = HEARD.with(Arc::clone);
            Progress::to(move |line| ear.lock().unwrap().push(line))
        },
        sessions: SESSIONS.with(Arc::clone),
        news: NEWS.with(Arc::clone),
        trees: TREES.with(Arc::clone),
    };
    desk::run(&fake.backend(), Arc::new(policy.clone()), caller, &call)
}

/// The window changes a reply carried, as JSON.
pub fn changed(ran: &Ran) -> Option<Value> {
    let changes = ran.done.as_ref()?.windows_changed.as_ref()?;
    Some(serde_json::to_value(changes).unwrap())
}

/// The JSON a completed call answered.
pub fn json(ran: &Ran) -> Value {
    match ran.done.as_ref().map(|d| &d.body) {
        Some(Body::Json(value)) => value.clone(),
        other => panic!("no JSON result: {other:?}, outcome {:?}", ran.outcome),
    }
}

/// Fails unless the call was refused by `control`, with a reason that contains `words`.
pub fn assert_refused_by(ran: &Ran, control: Control, words: &str) {
    match &ran.outcome {
        Outcome::Refused { by, reason } => {
            assert_eq!(*by, Some(control), "refused by the wrong control: {reason}");
            assert!(reason.contains(words), "{reason:?} lacks {words:?}");
        }
        other => panic!("expected a refusal by {control:?}, got {other:?}"),
    }
}

/// Fails unless the call ended as `name` (`failed`, `unknown`) with a reason containing
/// `words`.
pub fn assert_ended(ran: &Ran, name: &str, words: &str) {
    assert_eq!(ran.outcome.name(), name, "{:?}", ran.outcome);
    let reason = ran.outcome.reason().unwrap_or_default();
    assert!(reason.contains(words), "{reason:?} lacks {words:?}");
}

/// Fails unless the call was refused with nothing sent and no control involved.
pub fn assert_not_sent(ran: &Ran, words: &str) {
    match &ran.outcome {
        Outcome::Refused { by: None, reason } => {
            assert!(reason.contains(words), "{reason:?} lacks {words:?}")
        }
        other => panic!("expected a refusal with nothing sent, got {other:?}"),
    }
}

/// What the desktop received, minus focus requests (which are not input an app reads).
pub fn input(fake: &FakeDesk) -> Vec<Event> {
    fake.log()
        .into_iter()
        .filter(|e| !matches!(e, Event::Focus(_)))
        .collect()
}

/// Every acting verb, aimed at a window of `target` (its id) at `point`, with a node of it.
pub fn acts_on(target: &str, point: (i32, i32), node: &str) -> Vec<(&'static str, Value)> {
    use serde_json::json;
    vec![
        ("key", json!({"keys": "ctrl+s", "window": target})),
        ("type", json!({"text": "hi", "window": target})),
        ("click", json!({"x": point.0, "y": point.1})),
        (
            "scroll",
            json!({"direction": "down", "x": point.0, "y": point.1}),
        ),
        (
            "drag",
            json!({"x": point.0, "y": point.1, "to_x": point.0 + 5, "to_y": point.1 + 5}),
        ),
        ("press", json!({"id": node})),
        ("act", json!({"id": node, "action": "focus"})),
        ("focus", json!({"window": target})),
        ("close", json!({"window": target})),
    ]
}
