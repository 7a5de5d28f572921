//! Every safety rule on the fake desk, with no display: the app allowlist on reads and on
//! actions, shuttle's own windows, read-only, dry run, confirm mode, the auth guard, the stop,
//! the outcome of each way a call can end, and the marker. Each action is judged by what the
//! fake desktop received.

mod scene;

use std::sync::Arc;
use std::time::Duration;

use desk::fake::{Event, FakeDesk, FakeNode, FakeWindow};
use desk::guard::{Caller, Desk, Policy, Seen, Spot};
use desk::{Answer, Cancel, Ending, Intent, Target};
use desk_core::call::Button;
use desk_core::geometry::Rect;
use desk_core::outcome::{Control, Outcome};
use scene::*;
use serde_json::{Value, json};

#[test]
fn the_allowlist_filters_every_read() {
    let fake = desktop();
    let policy = only(&["notes", "mail"]);
    let titles: Vec<Value> = json(&run(&fake, &policy, "windows", json!({})))
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["title"].clone())
        .collect();
    assert_eq!(titles, [json!("Notes"), json!("Mail")]);

    // Reads that would show the foreign app are refused, and learn nothing of it.
    let unseen = "no window of an app the allowlist lets you see matches";
    for (verb, args, words) in [
        ("shot", json!({}), "a shot of the screen".to_string()),
        (
            "shot",
            json!({"x": 0, "y": 0, "w": 5, "h": 5}),
            "a shot of the screen".to_string(),
        ),
        (
            "shot",
            json!({"window": "Vault"}),
            format!("{unseen} \"Vault\""),
        ),
        ("shot", json!({"pid": 30}), format!("{unseen} process 30")),
        (
            "snapshot",
            json!({"window": "Vault"}),
            format!("{unseen} \"Vault\""),
        ),
        (
            "find",
            json!({"name": "OK", "window": VAULT}),
            format!("{unseen} \"0x30\""),
        ),
        (
            "read",
            json!({"id": "v:1"}),
            "node v:1: it belongs to no app the allowlist".to_string(),
        ),
        (
            "at",
            json!({"x": IN_VAULT.0, "y": IN_VAULT.1}),
            "the window at (200, 600): it belongs to no app".to_string(),
        ),
        (
            "at",
            json!({"x": IN_NOTES.0, "y": IN_NOTES.1, "window": "Vault"}),
            format!("{unseen} \"Vault\""),
        ),
    ] {
        let ran = run(&fake, &policy, verb, args.clone());
        assert_refused_by(&ran, Control::Allowlist, &words);
        assert!(ran.done.is_none(), "{verb} {args} answered anyway");
        let reason = ran.outcome.reason().unwrap();
        assert!(!reason.contains("vault"), "{verb} named the app: {reason}");
    }
    // Not even whether a name matched a foreign window.
    let reason = |name: &str| {
        let ran = run(&fake, &policy, "snapshot", json!({"window": name}));
        ran.outcome.reason().unwrap().replace(name, "NAME")
    };
    assert_eq!(reason("Vau"), reason("Xyz"));

    // The same reads of an allowed app go through.
    let shot = run(&fake, &policy, "shot", json!({"window": "Notes"}));
    assert_eq!(shot.outcome, Outcome::Completed);
    assert!(shot.done.unwrap().image.is_some());
    let node = json(&run(&fake, &policy, "read", json!({"id": "n:2"})));
    assert_eq!(node["name"], "OK");
    let found = json(&run(&fake, &policy, "find", json!({"name": "OK"})));
    assert_eq!(
        found["window"]["title"], "Notes",
        "find reads the focused window"
    );
    assert_eq!(found["nodes"][0]["id"], "n:2");

    // A foreign window coming or going is no change to the agent.
    let since = json!([{"id": NOTES, "title": "Notes", "role": "window", "pid": 10, "active": true, "app": "notes"},
                       {"id": MAIL, "title": "Mail", "role": "window", "pid": 20, "active": false, "app": "mail"}]);
    let waited = json(&run(
        &fake,
        &policy,
        "wait",
        json!({"since": since, "timeout_ms": 30}),
    ));
    assert_eq!(waited["changed"], false, "{waited}");
    assert!(input(&fake).is_empty(), "reads sent nothing");
}

#[test]
fn the_allowlist_hides_a_foreign_window_that_has_the_focus() {
    let fake = desktop();
    fake.focus(VAULT);
    let policy = only(&["notes", "mail"]);
    let unanswered = run(&fake, &policy, "unanswered", json!({}));
    assert_eq!(json(&unanswered), Value::Null);
    assert_refused_by(
        &run(&fake, &policy, "find", json!({"name": "OK"})),
        Control::Allowlist,
        "the focused window: it belongs to no app",
    );
    assert_refused_by(
        &run(&fake, &policy, "key", json!({"keys": "Return"})),
        Control::Allowlist,
        "\"Vault\"",
    );
    assert_refused_by(
        &run(&fake, &policy, "scroll", json!({"direction": "up"})),
        Control::Allowlist,
        "\"Vault\"",
    );
    assert!(input(&fake).is_empty());
}

#[test]
fn the_allowlist_refuses_every_action_on_a_foreign_window_and_sends_nothing() {
    for (verb, args) in acts_on(VAULT, IN_VAULT, "v:2") {
        let fake = desktop();
        let ran = run(&fake, &only(&["notes"]), verb, args.clone());
        assert_refused_by(&ran, Control::Allowlist, "allowlist");
        assert!(fake.log().is_empty(), "{verb} {args} sent {:?}", fake.log());
        assert_eq!(
            fake.state().focus.as_deref(),
            Some(NOTES),
            "{verb}: focus moved"
        );
    }
}

#[test]
fn the_allowlist_refuses_input_that_would_land_outside_any_allowed_window() {
    let fake = desktop();
    let policy = only(&["notes"]);
    let (x, y) = ON_BACKGROUND;
    assert_refused_by(
        &run(&fake, &policy, "click", json!({"x": x, "y": y})),
        Control::Allowlist,
        "the desktop background, which is no window of an allowed app",
    );
    // A drag from an allowed window onto a foreign one is refused for its drop.
    let drag = json!({"x": IN_NOTES.0, "y": IN_NOTES.1, "to_x": IN_VAULT.0, "to_y": IN_VAULT.1});
    assert_refused_by(
        &run(&fake, &policy, "drag", drag),
        Control::Allowlist,
        "Vault",
    );
    fake.state().focus = None;
    assert_refused_by(
        &run(&fake, &policy, "key", json!({"keys": "Return"})),
        Control::Allowlist,
        "no window (nothing has the keyboard focus)",
    );
    assert_refused_by(
        &run(&fake, &policy, "launch", json!({"app": "/usr/bin/vault"})),
        Control::Allowlist,
        "⟪\"vault\"⟫ is not in the app allowlist",
    );
    assert!(fake.log().is_empty());

    fake.state()
        .programs
        .insert("notes".into(), "Notes 2".into());
    let launched = json(&run(&fake, &policy, "launch", json!({"app": "notes"})));
    assert_eq!(launched["window"]["title"], "Notes 2");
    assert_eq!(fake.log(), [Event::Launch("notes".into())]);
}

#[test]
fn shuttles_own_windows_are_never_seen_or_touched() {
    let fake = desktop();
    fake.state().own_pid = 20;
    let open = Policy::default();
    let titles = json(&run(&fake, &open, "windows", json!({})));
    assert!(!titles.to_string().contains("Mail"), "{titles}");
    let (x, y) = IN_MAIL;
    assert_refused_by(
        &run(&fake, &open, "click", json!({"x": x, "y": y})),
        Control::Allowlist,
        "that is shuttle's own window",
    );
    assert_refused_by(
        &run(&fake, &open, "focus", json!({"window": "Mail"})),
        Control::Allowlist,
        "shuttle's own window",
    );
    assert!(fake.log().is_empty());
}

#[test]
fn read_only_refuses_every_action_and_serves_reads() {
    let policy = Policy {
        read_only: true,
        indicator: true,
        ..Policy::default()
    };
    for (verb, args) in acts_on(NOTES, IN_NOTES, "n:2") {
        let fake = desktop();
        let ran = run(&fake, &policy, verb, args);
        assert_refused_by(&ran, Control::ReadOnly, "read-only");
        assert!(fake.log().is_empty(), "{verb} sent {:?}", fake.log());
        assert!(fake.state().marker.is_empty(), "{verb} showed the marker");
    }
    let fake = desktop();
    assert_eq!(
        run(&fake, &policy, "windows", json!({})).outcome,
        Outcome::Completed
    );
}

#[test]
fn dry_run_describes_every_action_and_delivers_nothing() {
    let policy = Policy {
        dry_run: true,
        confirm: Some(Duration::from_secs(5)),
        indicator: true,
        ..Policy::default()
    };
    let wording = [
        "press ctrl+s in window 0x10 ⟪\"Notes\"⟫",
        "type 2 characters in window 0x10",
        "click left at (200, 200) in window 0x10",
        "scroll down 3 notches at (200, 200) in window 0x10",
        "drag from (200, 200) to (205, 205) in window 0x10",
        "press push button ⟪\"OK\"⟫ in window 0x10",
        "focus push button ⟪\"OK\"⟫ in window 0x10",
        "focus window 0x10 ⟪\"Notes\"⟫",
        "close window 0x10 ⟪\"Notes\"⟫",
    ];
    for ((verb, args), would) in acts_on(NOTES, IN_NOTES, "n:2").into_iter().zip(wording) {
        let fake = desktop();
        fake.focus(MAIL);
        let ran = run(&fake, &policy, verb, args);
        assert_refused_by(&ran, Control::DryRun, "dry run: would");
        let plan = json(&ran);
        assert_eq!(plan["dry_run"], true);
        assert!(
            plan["would"].as_str().unwrap().starts_with(would),
            "{verb}: {plan}"
        );
        assert!(fake.log().is_empty(), "{verb} sent {:?}", fake.log());
        assert_eq!(
            fake.state().focus.as_deref(),
            Some(MAIL),
            "{verb} moved the focus"
        );
        assert!(fake.state().questions.is_empty(), "a dry run asks nobody");
        assert!(fake.state().marker.is_empty(), "a dry run shows no marker");
    }
}

#[test]
fn confirm_mode_asks_the_person_and_only_allow_lets_input_through() {
    let policy = Policy {
        confirm: Some(Duration::from_secs(7)),
        ..Policy::default()
    };
    for (answer, words) in [
        (Answer::Deny, "denied it"),
        (Answer::Closed, "closed the confirm dialog"),
        (Answer::NoAnswer, "did not answer within 7 s"),
    ] {
        let fake = desktop();
        fake.answer(answer);
        let ran = run(
            &fake,
            &policy,
            "type",
            json!({"text": "secret", "window": "Notes"}),
        );
        assert_refused_by(&ran, Control::Person, words);
        assert!(
            fake.log().is_empty(),
            "{answer:?} let {:?} through",
            fake.log()
        );
    }
    let fake = desktop();
    fake.answer(Answer::Allow);
    let ran = run(
        &fake,
        &policy,
        "type",
        json!({"text": "secret", "window": "Notes"}),
    );
    assert_eq!(ran.outcome, Outcome::Completed);
    let question = fake.state().questions[0].clone();
    assert_eq!(question.agent, "a1");
    assert_eq!(
        question.action,
        "type 6 characters in window 0x10 ⟪\"Notes\"⟫ (⟪\"notes\"⟫)"
    );
    assert_eq!(question.text.as_deref(), Some("secret"));
    assert_eq!(question.timeout, Duration::from_secs(7));
    assert_eq!(
        input(&fake),
        [Event::Text {
            window: Some(NOTES.into()),
            text: "secret".into()
        }]
    );
}

#[test]
fn a_target_that_changes_while_the_person_decides_gets_nothing() {
    let policy = Policy {
        confirm: Some(Duration::from_secs(5)),
        ..Policy::default()
    };
    // The focus moves to Mail while the person reads the question.
    let fake = desktop();
    fake.answer(Answer::Allow);
    fake.while_asked(|state| {
        std::thread::sleep(Duration::from_millis(25));
        state.focus = Some(MAIL.into());
    });
    let ran = run(&fake, &policy, "key", json!({"keys": "Return"}));
    assert_not_sent(&ran, "the keyboard focus moved");
    assert!(fake.log().is_empty());

    // Mail moves over the point of a click meanwhile.
    let fake = desktop();
    fake.answer(Answer::Allow);
    fake.while_asked(|state| {
        if let Some(mail) = state.windows.iter_mut().find(|w| w.window.id == MAIL) {
            mail.rect = Some(Rect::new(150, 150, 300, 300));
        }
        state.raise(MAIL);
    });
    let (x, y) = IN_NOTES;
    let ran = run(&fake, &policy, "click", json!({"x": x, "y": y}));
    assert_not_sent(&ran, "it is now window 0x20 ⟪\"Mail\"⟫");
    assert!(fake.log().is_empty());

    // A stop while the person is asked ends the call with nothing sent.
    let fake = desktop();
    let cancel = Cancel::default();
    let stop = cancel.clone();
    fake.while_asked(move |_| stop.stop());
    let ran = run_as(&fake, &policy, "click", json!({"x": x, "y": y}), cancel);
    assert_refused_by(&ran, Control::Stop, "while the person was being asked");
    assert!(fake.log().is_empty());
}

/// The desktop with Notes' entry focused and a password field.
fn with_password_focused() -> desk::fake::FakeDesk {
    let fake = desktop();
    let mut state = fake.state();
    for node in &mut state.nodes {
        if node.node.id == "n:1" {
            node.node.role = "password text".into();
            node.node.name = "Password".into();
            node.node.states = vec!["focused".into()];
        }
    }
    drop(state);
    fake
}

#[test]
fn the_auth_guard_keeps_typing_out_of_password_fields() {
    let guarded = Policy {
        auth_guard: true,
        ..Policy::default()
    };
    for (verb, args) in [
        ("type", json!({"text": "hunter2"})),
        ("type", json!({"text": "hunter2", "window": "Notes"})),
        ("key", json!({"keys": "a"})),
        ("key", json!({"keys": "shift+a"})),
    ] {
        let fake = with_password_focused();
        let ran = run(&fake, &guarded, verb, args.clone());
        assert_refused_by(
            &ran,
            Control::AuthGuard,
            "⟪\"Password\"⟫ is a password field",
        );
        assert!(input(&fake).is_empty(), "{verb} {args}");
    }
    // An ordinary field with the focus takes text.
    let fake = desktop();
    fake.state().nodes[1].node.states = vec!["focused".into()];
    let ran = run(&fake, &guarded, "type", json!({"text": "notes"}));
    assert_eq!(ran.outcome, Outcome::Completed);
    // Shortcuts are not typing; allow_auth and a policy without the guard let typing in.
    for (policy, args) in [
        (&guarded, json!({"keys": "ctrl+a"})),
        (&guarded, json!({"keys": "Tab"})),
        (&guarded, json!({"keys": "a", "allow_auth": true})),
        (&Policy::default(), json!({"keys": "a"})),
    ] {
        let fake = with_password_focused();
        let ran = run(&fake, policy, "key", args.clone());
        assert_eq!(ran.outcome, Outcome::Completed, "{args}");
        assert_eq!(input(&fake).len(), 1, "{args}");
    }
}

#[test]
fn the_auth_guard_keeps_all_input_out_of_authentication_dialogs() {
    let guarded = Policy {
        auth_guard: true,
        ..Policy::default()
    };
    let prompt = || {
        let fake = desktop();
        fake.add(
            FakeWindow::new(
                "0x40",
                "Authentication Required",
                40,
                Rect::new(300, 300, 200, 100),
            ),
            &["python3"],
        );
        fake.node(FakeNode::new(
            "a:0",
            "frame",
            "Authentication Required",
            40,
            None,
        ));
        fake.node(
            FakeNode::new("a:1", "push button", "Authenticate", 40, Some("a:0"))
                .bounds([310, 310, 50, 20])
                .actions(&["click"]),
        );
        fake.focus("0x40");
        fake
    };
    for (verb, args) in acts_on("0x40", (350, 350), "a:1") {
        let fake = prompt();
        let ran = run(&fake, &guarded, verb, args.clone());
        assert_refused_by(&ran, Control::AuthGuard, "authentication dialog");
        assert!(fake.log().is_empty(), "{verb} {args}");
    }
    let fake = prompt();
    let ran = run(
        &fake,
        &guarded,
        "type",
        json!({"text": "pw", "allow_auth": true}),
    );
    assert_eq!(ran.outcome, Outcome::Completed);
    // A polkit agent is known by its program, whatever its title.
    let fake = desktop();
    fake.add(
        FakeWindow::new("0x41", "Admin", 41, Rect::new(300, 300, 200, 100)),
        &["polkit-gnome-authentication-agent-1"],
    );
    let ran = run(&fake, &guarded, "focus", json!({"window": "Admin"}));
    assert_refused_by(&ran, Control::AuthGuard, "authentication dialog");
}

#[test]
fn a_stop_refuses_before_input_and_says_what_landed_after() {
    let fake = desktop();
    let stopped = Cancel::default();
    stopped.stop();
    let ran = run_as(
        &fake,
        &Policy::default(),
        "type",
        json!({"text": "hello"}),
        stopped,
    );
    assert_refused_by(&ran, Control::Stop, "stopped by the user");
    assert!(fake.log().is_empty());

    // Stopped half way through: input landed, and the reply says how much.
    let fake = desktop();
    fake.state().stop_typing_after = Some(3);
    let ran = run(&fake, &Policy::default(), "type", json!({"text": "hello"}));
    match &ran.outcome {
        Outcome::Unknown { reason } => {
            assert!(reason.starts_with("stopped by the user: "), "{reason}");
            assert!(reason.contains("3 of 5 characters were typed"), "{reason}");
        }
        other => panic!("expected unknown, got {other:?}"),
    }
    assert_eq!(
        fake.log(),
        [Event::Text {
            window: Some(NOTES.into()),
            text: "hel".into()
        }]
    );

    // Stopped before the first character: nothing went out, so it is a refusal.
    let fake = desktop();
    fake.state().stop_typing_after = Some(0);
    let ran = run(&fake, &Policy::default(), "type", json!({"text": "hello"}));
    assert_refused_by(&ran, Control::Stop, "0 of 5 characters were typed");
    assert!(fake.log().is_empty());

    // A caller that went away is no stop by the person.
    let fake = desktop();
    let gone = Cancel::default();
    gone.cancel();
    let ran = run_as(&fake, &Policy::default(), "key", json!({"keys": "a"}), gone);
    assert_not_sent(&ran, "cancelled before it finished");
}

#[test]
fn outcomes_follow_what_was_sent() {
    let fake = desktop();
    let open = Policy::default();
    // Completed.
    assert_eq!(
        run(&fake, &open, "key", json!({"keys": "a"})).outcome,
        Outcome::Completed
    );
    // Refused before any input, for no safety reason.
    let ran = run(&fake, &open, "focus", json!({"window": "Nowhere"}));
    assert_not_sent(&ran, "no window matches \"Nowhere\"");
    let ran = run(&fake, &open, "click", json!({"x": 5000, "y": 1}));
    assert_not_sent(&ran, "off the screen");
    // A failed read is a failure, not a refusal.
    let ran = run(&fake, &open, "read", json!({"id": "nope"}));
    assert!(
        matches!(ran.outcome, Outcome::Failed { .. }),
        "{:?}",
        ran.outcome
    );
    // A failure after input went out is unknown.
    fake.state().stop_typing_after = Some(1);
    let ran = run(&fake, &open, "type", json!({"text": "ab"}));
    assert_eq!(ran.outcome.sent(), Some(true));
}

#[test]
fn pointer_input_raises_a_covered_window_it_names_and_refuses_one_that_stays_covered() {
    // Mail covers part of Notes.
    let cover = |fake: &desk::fake::FakeDesk| {
        let mut state = fake.state();
        if let Some(mail) = state.windows.iter_mut().find(|w| w.window.id == MAIL) {
            mail.rect = Some(Rect::new(150, 150, 300, 300));
        }
        state.raise(MAIL);
    };
    let fake = desktop();
    cover(&fake);
    let ran = run(
        &fake,
        &Policy::default(),
        "click",
        json!({"x": 100, "y": 100, "window": "Notes"}),
    );
    assert_eq!(ran.outcome, Outcome::Completed);
    assert!(matches!(
        &input(&fake)[..],
        [Event::Click { window: Some(w), x: 200, y: 200, .. }] if w == NOTES
    ));

    // Notes cannot be raised (Mail is kept above): a press there is refused, naming Mail.
    let fake = desktop();
    cover(&fake);
    fake.state()
        .windows
        .iter_mut()
        .for_each(|w| w.refuses_focus = w.window.id == NOTES);
    for (verb, args) in [
        ("act", json!({"id": "n:2", "action": "click"})),
        ("click", json!({"x": 100, "y": 100, "window": "Notes"})),
    ] {
        let ran = run(&fake, &Policy::default(), verb, args);
        assert_not_sent(
            &ran,
            "by window 0x20 ⟪\"Mail\"⟫ (⟪\"mail\"⟫) even after raising it",
        );
    }
    assert!(input(&fake).is_empty());
    // A press runs the node's action instead, and says why.
    let pressed = json(&run(
        &fake,
        &Policy::default(),
        "press",
        json!({"id": "n:2"}),
    ));
    assert_eq!(pressed["how"], "action");
    assert!(
        pressed["note"]
            .as_str()
            .unwrap()
            .contains("even after raising it")
    );
    assert_eq!(input(&fake), [Event::Action("n:2".into(), 0)]);
}

#[test]
fn the_marker_shows_while_an_action_runs_and_never_for_a_read() {
    let fake = desktop();
    let marked = Policy {
        indicator: true,
        ..Policy::default()
    };
    run(&fake, &marked, "windows", json!({}));
    assert!(fake.state().marker.is_empty());
    run(&fake, &marked, "key", json!({"keys": "a"}));
    assert_eq!(fake.state().marker, [true, false]);
    run(&fake, &Policy::default(), "key", json!({"keys": "a"}));
    assert_eq!(fake.state().marker.len(), 2, "indicator off: no marker");
}

#[test]
fn admitted_input_goes_only_to_what_was_admitted() {
    let fake = desktop();
    fake.state()
        .programs
        .insert("notes".into(), "More notes".into());
    let desk = Desk::new(
        fake.backend(),
        Arc::new(Policy::default()),
        Caller::default(),
        desk_core::call::Kind::Act,
    );
    let windows = desk.windows().unwrap();
    let (notes, mail) = (windows[0].clone(), windows[1].clone());
    let admitted = desk
        .admit(Intent::new("test", vec![Target::window(&notes)]))
        .unwrap();
    let on_mail = Spot {
        x: IN_MAIL.0,
        y: IN_MAIL.1,
        on: Seen::Window(mail.clone()),
        raise: false,
    };
    let combo = desk::keys::parse_combo("a").unwrap();
    let attempts = [
        admitted.focus(&mail).err(),
        admitted.close(&mail).err(),
        admitted.press_keys(&combo, Some(&mail)).err(),
        admitted.press_keys(&combo, None).err(),
        admitted.type_text("x", Some(&mail)).map(|_| ()).err(),
        admitted.click(&on_mail, Button::Left, 1).err(),
        admitted
            .scroll(&on_mail, desk_core::call::Direction::Up, 1)
            .err(),
        admitted.launch("notes", &[]).map(|_| ()).err(),
        admitted.nodes().do_action("m:2", 0).map(|_| ()).err(),
        admitted.nodes().select("m:1").map(|_| ()).err(),
        admitted.nodes().grab_focus("m:1").map(|_| ()).err(),
        // Ending an app takes the admitted window and that window's own process: Mail's pid
        // with Notes' window is refused, and so is Mail's window with its own pid.
        admitted.end(&notes, 20, Ending::Terminate).err(),
        admitted.end(&mail, 20, Ending::Terminate).err(),
    ];
    for (i, error) in attempts.into_iter().enumerate() {
        let error = error
            .unwrap_or_else(|| panic!("attempt {i} went through"))
            .to_string();
        assert!(
            error.contains(
                "was not part of the action the safety controls admitted (test in window 0x10"
            ),
            "attempt {i}: {error}"
        );
    }
    assert!(fake.log().is_empty(), "{:?}", fake.log());
    // What was admitted goes through.
    admitted.nodes().grab_focus("n:1").unwrap();
    admitted.press_keys(&combo, Some(&notes)).unwrap();
    admitted.end(&notes, 10, Ending::Terminate).unwrap();
    assert_eq!(fake.log().len(), 3);
    assert_eq!(fake.log()[2], Event::End(10, Ending::Terminate));

    // A node of an app with no window on the screen admits no window at all.
    let nameless = desk
        .admit(Intent::new(
            "test",
            vec![Target::Window {
                id: String::new(),
                title: "Mail".into(),
                pid: Some(20),
                app: None,
            }],
        ))
        .unwrap();
    let ghost = desk_core::window::Window {
        id: String::new(),
        ..mail
    };
    assert!(nameless.focus(&ghost).is_err());
}

#[test]
fn focusing_says_why_a_window_did_not_get_the_focus() {
    let fake = desktop();
    fake.state().windows[1].closes_on_focus = true;
    let ran = run(
        &fake,
        &Policy::default(),
        "focus",
        json!({"window": "Mail"}),
    );
    assert_not_sent(&ran, "window 0x20 no longer exists");
    let fake = desktop();
    fake.state().windows[1].focus_stays_out = true;
    let ran = run(
        &fake,
        &Policy::default(),
        "type",
        json!({"text": "x", "window": "Mail"}),
    );
    assert_not_sent(
        &ran,
        "(the focused window is this window, but the keyboard focus did not follow",
    );
    assert!(input(&fake).is_empty());
}

#[test]
fn a_window_manager_that_raises_late_still_gets_the_input_where_it_belongs() {
    let fake = desktop();
    {
        let mut state = fake.state();
        state.focus_lag = 3;
        if let Some(mail) = state.windows.iter_mut().find(|w| w.window.id == MAIL) {
            mail.rect = Some(Rect::new(150, 150, 300, 300));
        }
        state.raise(MAIL);
        state.focus = Some(MAIL.into());
    }
    assert_click_in_notes_lands_there(&fake);
}

#[test]
fn a_menu_of_the_same_app_over_the_point_takes_the_click_and_another_apps_does_not() {
    let popup = |pid: u32, id: &str| {
        let mut menu = FakeWindow::new(id, "", pid, Rect::new(150, 150, 100, 100));
        menu.window.role = "popup".into();
        menu
    };
    let fake = desktop();
    fake.add(popup(10, "0x11"), &["notes"]);
    let ran = run(
        &fake,
        &Policy::default(),
        "click",
        json!({"x": 100, "y": 100, "window": "Notes"}),
    );
    assert_eq!(ran.outcome, Outcome::Completed, "{:?}", ran.outcome);
    assert!(matches!(
        &input(&fake)[..],
        [Event::Click { window: Some(w), .. }] if w == "0x11"
    ));
    // Mail's menu over Notes stays above it whatever is raised: refused, naming it.
    let fake = desktop();
    fake.add(popup(20, "0x21"), &["mail"]);
    let ran = run(
        &fake,
        &Policy::default(),
        "click",
        json!({"x": 100, "y": 100, "window": "Notes"}),
    );
    assert_not_sent(
        &ran,
        "covered at (200, 200) by window 0x21 ⟪\"\"⟫ (⟪\"mail\"⟫)",
    );
    assert!(input(&fake).is_empty());
}

#[test]
fn a_program_that_cannot_start_sent_nothing() {
    let fake = desktop();
    let ran = run(
        &fake,
        &Policy::default(),
        "launch",
        json!({"app": "nothing-here"}),
    );
    assert_not_sent(&ran, "cannot launch \"nothing-here\"");
}

#[test]
fn watching_under_the_allowlist_sees_only_the_allowed_windows() {
    let fake = desktop();
    {
        let mut state = fake.state();
        // Vault just right of Notes, Mail just below it; neither is allowed.
        state.windows[2].rect = Some(Rect::new(500, 100, 300, 300));
        state.windows[1].rect = Some(Rect::new(100, 400, 400, 100));
    }
    let notes = fake.state().windows[0].colour;
    let desk = Desk::new(
        fake.backend(),
        Arc::new(only(&["notes"])),
        Caller::default(),
        desk_core::call::Kind::Observe,
    );
    let screen = Rect::new(0, 0, 1000, 800);
    let image = desk.watch(screen, 1000).unwrap().next().unwrap();
    assert_eq!((image.width, image.height), (1000, 800));
    for (x, y, kept) in [
        (100, 100, true),
        (499, 399, true),
        (500, 200, false),
        (200, 400, false),
        (99, 200, false),
        (200, 99, false),
    ] {
        let want = if kept { notes } else { [0, 0, 0] };
        assert_eq!(image.pixel(x, y), want, "({x}, {y})");
    }
    // Without an allowlist everything is watched.
    let open = Desk::new(
        fake.backend(),
        Arc::new(Policy::default()),
        Caller::default(),
        desk_core::call::Kind::Observe,
    );
    let image = open.watch(screen, 1000).unwrap().next().unwrap();
    assert_ne!(image.pixel(500, 200), [0, 0, 0]);
}

#[test]
fn an_action_refused_by_the_allowlist_names_what_it_aimed_at() {
    let fake = desktop();
    let ran = run(&fake, &only(&["notes"]), "press", json!({"id": "v:2"}));
    assert_refused_by(&ran, Control::Allowlist, "named vault");
}

#[test]
fn another_window_of_the_same_app_over_the_point_is_raised_past_not_clicked() {
    let fake = desktop();
    fake.add(
        FakeWindow::new("0x12", "Notes 2", 10, Rect::new(150, 150, 100, 100)),
        &["notes"],
    );
    assert_click_in_notes_lands_there(&fake);
}

/// A click at a pixel of Notes, with no safety control on, completes on Notes itself.
fn assert_click_in_notes_lands_there(fake: &FakeDesk) {
    let ran = run(
        fake,
        &Policy::default(),
        "click",
        json!({"x": 100, "y": 100, "window": "Notes"}),
    );
    assert_eq!(ran.outcome, Outcome::Completed, "{:?}", ran.outcome);
    assert!(matches!(
        &input(fake)[..],
        [Event::Click { window: Some(w), .. }] if w == NOTES
    ));
}
