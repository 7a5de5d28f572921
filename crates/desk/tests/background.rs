//! Background input (`[daemon] input`) on the fake desk: what goes from the agent's own devices,
//! what is refused with nothing sent, and what auto sends in the foreground, saying so.

mod scene;

use desk::fake::Event;
use desk::guard::{InputMode, Policy};
use scene::*;
use serde_json::json;

fn policy(input: InputMode) -> Policy {
    Policy {
        input,
        ..Policy::default()
    }
}

/// The fake desk with devices for agents, as the person's X display has.
fn with_agent_devices() -> desk::fake::FakeDesk {
    let fake = desktop();
    fake.state().agent_devices = true;
    fake
}

#[test]
fn keys_typing_and_the_wheel_go_from_the_agents_devices_to_the_named_window() {
    let fake = with_agent_devices();
    let background = policy(InputMode::Background);
    let typed = json(&run(
        &fake,
        &background,
        "type",
        json!({"text": "hi", "window": "Mail"}),
    ));
    assert_eq!(typed["input"], "background", "{typed}");
    assert!(typed["unverified"]["note"].is_string(), "{typed}");
    run(
        &fake,
        &background,
        "key",
        json!({"keys": "ctrl+s", "window": MAIL}),
    );
    let scrolled = json(&run(
        &fake,
        &background,
        "scroll",
        json!({"direction": "down", "amount": 2, "window": MAIL}),
    ));
    assert_eq!(scrolled["input"], "background", "{scrolled}");
    let behind = |what: &str| Event::Behind {
        agent: "a1".into(),
        window: MAIL.into(),
        what: what.into(),
    };
    // Nothing focused, raised or sent on the person's devices.
    assert_eq!(
        fake.log(),
        [
            behind("focus"),
            behind("text hi"),
            behind("focus"),
            behind("keys 0xffe3 0x73"),
            behind("scroll down 2"),
        ]
    );
}

#[test]
fn typing_behind_is_verified_by_reading_the_apps_focused_field_and_never_into_a_password() {
    let fake = with_agent_devices();
    let background = Policy {
        auth_guard: true,
        ..policy(InputMode::Background)
    };
    fake.node(
        desk::fake::FakeNode::new("m:5", "text", "Subject", 20, Some("m:0"))
            .value("re: ")
            .states(&["editable", "focused"]),
    );
    let typed = json(&run(
        &fake,
        &background,
        "type",
        json!({"text": "hi", "window": MAIL}),
    ));
    assert!(typed.get("unverified").is_none(), "read back: {typed}");
    assert_eq!(typed["input"], "background", "{typed}");
    // The app's focused field is a password field: the auth guard refuses, after the agent's
    // focus went there and before any key.
    fake.node(
        desk::fake::FakeNode::new("m:6", "password text", "Password", 20, Some("m:0"))
            .states(&["editable", "focused"]),
    );
    fake.state().nodes.retain(|n| n.node.id != "m:5");
    for verb in ["type", "key"] {
        let args = match verb {
            "type" => json!({"text": "hunter2", "window": MAIL}),
            _ => json!({"keys": "a", "window": MAIL}),
        };
        let ran = run(&fake, &background, verb, args);
        assert_eq!(ran.outcome.name(), "refused", "{verb}: {:?}", ran.outcome);
    }
    let keys: Vec<_> = fake
        .log()
        .into_iter()
        .filter(|e| matches!(e, Event::Behind { what, .. } if what != "focus"))
        .collect();
    assert_eq!(keys.len(), 1, "only the first text went out: {keys:?}");
}

#[test]
fn background_input_refuses_with_nothing_sent_what_it_cannot_keep_behind() {
    let fake = with_agent_devices();
    let background = policy(InputMode::Background);
    let cases = [
        ("type", json!({"text": "hi"}), "pass window"),
        ("key", json!({"keys": "a"}), "pass window"),
        (
            "scroll",
            json!({"direction": "down", "x": 5, "y": 5}),
            "pass window",
        ),
        (
            "click",
            json!({"x": 5, "y": 5, "window": MAIL}),
            "not sent in the background",
        ),
        (
            "drag",
            json!({"x": 5, "y": 5, "to_x": 9, "to_y": 9, "window": MAIL}),
            "not sent in the background",
        ),
        (
            "act",
            json!({"id": "m:2", "action": "click"}),
            "not sent in the background",
        ),
        (
            "act",
            json!({"id": "m:1", "action": "focus"}),
            "not done in the background",
        ),
        // Verbs that focus or raise a window with the person's devices.
        ("focus", json!({"window": MAIL}), "keeps agents off"),
        (
            "computer_act",
            json!({"action": "type", "text": "hi"}),
            "background input does not reach",
        ),
    ];
    for (verb, args, words) in cases {
        let ran = run(&fake, &background, verb, args);
        assert_not_sent(&ran, words);
    }
    // A window covered at the point is not raised.
    fake.state().windows[2].rect = Some(desk_core::geometry::Rect::new(150, 150, 300, 200));
    let covered = run(
        &fake,
        &background,
        "scroll",
        json!({"direction": "down", "x": 10, "y": 10, "window": VAULT}),
    );
    assert_not_sent(&covered, "does not raise");
    // The allowlist gates by the target app.
    let listed = Policy {
        input: InputMode::Background,
        ..only(&["notes"])
    };
    let ran = run(
        &fake,
        &listed,
        "type",
        json!({"text": "hi", "window": MAIL}),
    );
    assert_eq!(ran.outcome.name(), "refused", "{:?}", ran.outcome);
    assert_eq!(fake.log(), []);
    // A desktop without agents' devices (Wayland, a private display) refuses it all.
    fake.state().agent_devices = false;
    let ran = run(
        &fake,
        &background,
        "type",
        json!({"text": "hi", "window": MAIL}),
    );
    assert_not_sent(&ran, "cannot send input in the background");
    assert_eq!(fake.log(), []);
}

#[test]
fn a_background_scroll_that_moved_the_persons_focus_says_so() {
    let fake = with_agent_devices();
    let background = policy(InputMode::Background);
    let kept = json(&run(
        &fake,
        &background,
        "scroll",
        json!({"direction": "down", "window": MAIL}),
    ));
    let effect = kept["unverified"]["effect"].as_str().unwrap();
    assert!(!effect.contains("focus moved"), "{kept}");
    fake.state().focus_follows_agent = true;
    let moved = json(&run(
        &fake,
        &background,
        "scroll",
        json!({"direction": "down", "window": MAIL}),
    ));
    let effect = moved["unverified"]["effect"].as_str().unwrap();
    assert!(
        effect.contains(&format!("the person's focus moved from {NOTES} to {MAIL}")),
        "{moved}"
    );
}

#[test]
fn a_background_press_runs_the_action_and_never_clicks() {
    let fake = with_agent_devices();
    let pressed = json(&run(
        &fake,
        &policy(InputMode::Background),
        "press",
        json!({"id": "v:2"}),
    ));
    assert_eq!(pressed["how"], "action", "{pressed}");
    assert_eq!(pressed["input"], "background", "{pressed}");
    // The toolkit said it ran the action: nothing is left to read back.
    assert!(pressed.get("unverified").is_none(), "{pressed}");
    assert_eq!(fake.log(), [Event::Action("v:2".into(), 0)]);
}

#[test]
fn auto_sends_in_front_what_cannot_go_behind_and_says_so() {
    let fake = with_agent_devices();
    let auto = policy(InputMode::Auto);
    let clicked = json(&run(
        &fake,
        &auto,
        "click",
        json!({"x": IN_NOTES.0, "y": IN_NOTES.1}),
    ));
    assert_eq!(clicked["input"], "foreground", "{clicked}");
    assert!(clicked.get("unverified").is_none(), "{clicked}");
    let typed = json(&run(&fake, &auto, "type", json!({"text": "hi"})));
    assert_eq!(typed["input"], "foreground", "{typed}");
    assert!(matches!(
        &input(&fake)[..],
        [Event::Click { .. }, Event::Text { .. }]
    ));
    // A window covered at the point is scrolled in front, raised.
    fake.state().windows[2].rect = Some(desk_core::geometry::Rect::new(150, 150, 300, 200));
    let covered = json(&run(
        &fake,
        &auto,
        "scroll",
        json!({"direction": "down", "x": 10, "y": 10, "window": VAULT}),
    ));
    assert_eq!(covered["input"], "foreground", "{covered}");
    assert!(matches!(
        input(&fake).last(),
        Some(Event::Scroll { window: Some(w), .. }) if w == VAULT
    ));
    // Foreground input says nothing of its way.
    let plain = json(&run(
        &fake,
        &Policy::default(),
        "type",
        json!({"text": "x"}),
    ));
    assert!(plain.get("input").is_none(), "{plain}");
}
