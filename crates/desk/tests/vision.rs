//! The vision verbs on the fake desk: sessions, element indexes, screenshot pixels, and what
//! each refuses before anything is sent.

mod scene;

use desk::Body;
use desk::fake::{Event, FakeWindow};
use desk::guard::{Policy, Ran};
use desk_core::call::Button;
use desk_core::geometry::Rect;
use desk_core::outcome::{Control, Outcome};
use scene::*;
use serde_json::json;

fn open() -> Policy {
    Policy::default()
}

fn text(ran: &Ran) -> String {
    match ran.done.as_ref().map(|d| &d.body) {
        Some(Body::Text(text)) => text.clone(),
        other => panic!("no text result: {other:?}, outcome {:?}", ran.outcome),
    }
}

fn failure(ran: &Ran) -> String {
    ran.outcome
        .reason()
        .unwrap_or_else(|| panic!("did not fail: {:?}", ran.outcome))
        .to_string()
}

fn clicks(fake: &desk::fake::FakeDesk) -> Vec<(i32, i32, Button, u8)> {
    fake.log()
        .into_iter()
        .filter_map(|e| match e {
            Event::Click {
                x,
                y,
                button,
                count,
                ..
            } => Some((x, y, button, count)),
            _ => None,
        })
        .collect()
}

#[test]
fn state_lists_windows_elements_and_a_scaled_jpeg() {
    let fake = desktop();
    let ran = run(&fake, &open(), "computer_state", json!({"max_edge": 500}));
    let state = text(&ran);
    let image = ran.done.as_ref().unwrap().image.as_ref().unwrap();
    assert_eq!(image.mime, "image/jpeg");
    assert_eq!(&image.bytes[..2], &[0xFF, 0xD8]);
    assert!(state.contains("screenshot 500x400 JPEG"), "{state}");
    assert!(state.contains("scale 2 screen pixels"), "{state}");
    // Notes is frontmost; its geometry is in screenshot pixels.
    let notes = state.find("0x10 \"Notes\"").expect("Notes listed");
    assert!(notes < state.find("0x20 \"Mail\"").unwrap(), "{state}");
    assert!(
        state.contains("0x10 \"Notes\" app notes pid 10 at 50,50 size 200x150"),
        "{state}"
    );
    // Its elements, centres halved: the entry at (210, 125), OK at (150, 175).
    assert!(state.contains("[0] text \"Input\" (105,62)"), "{state}");
    assert!(state.contains("[1] push button \"OK\" (75,87)"), "{state}");
    let filtered = text(&run(
        &fake,
        &open(),
        "computer_state",
        json!({"query": "ok", "max_edge": 500}),
    ));
    assert!(filtered.contains("[0] push button \"OK\""), "{filtered}");
    assert!(!filtered.contains("\"Input\""), "{filtered}");
    let scale = json(&run(&fake, &open(), "computer_scale", json!({})));
    assert_eq!(scale["scale"], 2.0);
    assert!(fake.log().is_empty(), "looking sent nothing");
}

#[test]
fn a_window_with_no_size_yet_is_listed_as_not_shown() {
    let fake = desktop();
    fake.state().windows[1].rect = Some(Rect::new(0, 0, 0, 0));
    let state = text(&run(
        &fake,
        &open(),
        "computer_state",
        json!({"max_edge": 500}),
    ));
    assert!(
        state.contains("0x20 \"Mail\" app mail pid 20 not shown"),
        "{state}"
    );
}

#[test]
fn an_element_index_clicks_the_element_it_names() {
    let fake = desktop();
    run(&fake, &open(), "computer_state", json!({"max_edge": 500}));
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"action": "click", "element": 0}),
    );
    assert_eq!(ran.outcome, Outcome::Completed, "{ran:?}");
    assert_eq!(clicks(&fake), [(210, 125, Button::Left, 1)]);
    let reply = text(&ran);
    assert!(
        reply.contains("click element [0]") || reply.contains("click [0]"),
        "{reply}"
    );
    assert!(reply.contains("screenshot 500x400 JPEG"), "{reply}");
    assert!(ran.done.unwrap().image.is_some());
}

#[test]
fn a_click_the_app_has_not_answered_says_so_and_why() {
    let fake = desktop();
    let click = |fake: &desk::fake::FakeDesk| {
        run(fake, &open(), "computer_state", json!({"max_edge": 500}));
        text(&run(
            fake,
            &open(),
            "computer_act",
            json!({"action": "click", "element": 0}),
        ))
    };
    let all_silent = |silent: bool| {
        for window in &mut fake.state().windows {
            window.silent = silent;
        }
    };
    // An app that does not answer yet.
    all_silent(true);
    let unanswered = click(&fake);
    assert!(
        unanswered.contains(
            "the app was still busy after 1500 ms (not a failure: look before repeating it)"
        ),
        "{unanswered}"
    );
    // A desktop that cannot ask at all (Wayland).
    all_silent(false);
    fake.state().confirms = false;
    let unaskable = click(&fake);
    assert!(
        unaskable.contains("the app cannot be asked whether it read it"),
        "{unaskable}"
    );
}

#[test]
fn screenshot_pixels_map_by_the_scale() {
    let fake = desktop();
    run(&fake, &open(), "computer_state", json!({"max_edge": 500}));
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"action": "double_click", "x": 350, "y": 100}),
    );
    assert_eq!(ran.outcome, Outcome::Completed, "{ran:?}");
    assert_eq!(clicks(&fake), [(700, 200, Button::Left, 2)]);
    // An explicit scale overrides the session's.
    run(
        &fake,
        &open(),
        "computer_act",
        json!({"action": "right_click", "x": 100, "y": 100, "scale": 1.0}),
    );
    assert_eq!(clicks(&fake)[1], (100, 100, Button::Right, 1));
}

#[test]
fn a_list_stops_at_its_first_failing_step_and_says_which() {
    let fake = desktop();
    run(&fake, &open(), "computer_state", json!({"max_edge": 500}));
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"actions": [
            {"action": "click", "element": 1},
            {"action": "launch_app", "app": "no-such-app"},
            {"action": "click", "element": 0}
        ]}),
    );
    let reason = failure(&ran);
    assert!(
        reason.contains("step 2 of 3 (launch_app) failed"),
        "{reason}"
    );
    assert!(
        reason.contains("what ran: click [1] push button ⟪\"OK\"⟫: clicked left"),
        "{reason}"
    );
    assert!(
        matches!(ran.outcome, Outcome::Unknown { .. }),
        "input went out before the failure: {ran:?}"
    );
    assert_eq!(
        clicks(&fake),
        [(150, 175, Button::Left, 1)],
        "step 3 never ran"
    );
}

#[test]
fn bad_indexes_and_points_refuse_the_whole_list_before_any_step() {
    let fake = desktop();
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"action": "click", "x": 10, "y": 10}),
    );
    assert!(
        failure(&ran).contains("has been shown no screenshot"),
        "{ran:?}"
    );
    run(&fake, &open(), "computer_state", json!({"max_edge": 500}));
    for (args, expected) in [
        (
            json!({"actions": [{"action": "click", "element": 0}, {"action": "click", "element": 9}]}),
            "element [9] is not in session \"a1\"'s latest state, which lists [0] to [1]",
        ),
        (
            json!({"actions": [{"action": "click", "element": 0}, {"action": "click", "x": 500, "y": 5}]}),
            "off the screenshot, which is 500x400",
        ),
        (
            json!({"action": "click", "x": 400, "y": 5, "scale": 3}),
            "off the screen (1000x800)",
        ),
        (
            json!({"actions": [{"action": "click", "element": 0}, {"action": "hotkey", "keys": ["ctrl", "NoSuchKey"]}]}),
            "step 2 of 2 (hotkey) failed: unknown key \"NoSuchKey\"",
        ),
    ] {
        let ran = run(&fake, &open(), "computer_act", args.clone());
        let reason = failure(&ran);
        assert!(reason.contains(expected), "{args}: {reason}");
        assert!(reason.contains("no step was run"), "{reason}");
        assert!(matches!(ran.outcome, Outcome::Refused { .. }), "{ran:?}");
    }
    assert!(fake.log().is_empty(), "nothing was sent");
}

#[test]
fn a_step_builds_no_arguments_a_caller_could_not_send_and_hears_the_callers_words() {
    let fake = desktop();
    run(&fake, &open(), "computer_state", json!({}));
    // An empty hotkey key makes an empty combination: what desk_key refuses, computer_act
    // refuses in the same words, before any step runs.
    let callers = desk_core::call::checked(desk_core::call::KeyArgs {
        keys: String::new(),
        window: None,
        pid: None,
        allow_auth: false,
        settle: None,
    })
    .unwrap_err();
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"actions": [{"action": "click", "element": 0}, {"action": "hotkey", "keys": [""]}]}),
    );
    let reason = failure(&ran);
    assert!(reason.contains(&callers), "{reason} lacks {callers:?}");
    assert!(reason.contains("step 2 of 2 (hotkey)"), "{reason}");
    assert!(reason.contains("no step was run"), "{reason}");
    assert!(fake.log().is_empty(), "nothing was sent");
}

#[test]
fn an_element_that_moved_or_went_is_refused_not_clicked_at_its_old_place() {
    let fake = desktop();
    run(&fake, &open(), "computer_state", json!({"max_edge": 500}));
    fake.state()
        .nodes
        .iter_mut()
        .find(|n| n.node.id == "n:2")
        .unwrap()
        .node
        .bounds = Some([300, 300, 80, 30]);
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"action": "click", "element": 1}),
    );
    assert!(failure(&ran).contains("moved from"), "{ran:?}");
    fake.state().nodes.retain(|n| n.node.id != "n:1");
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"action": "click", "element": 0}),
    );
    assert!(
        failure(&ran).contains("is gone since computer_state"),
        "{ran:?}"
    );
    // Mail raised over Notes covers the element's centre.
    run(&fake, &open(), "computer_state", json!({"max_edge": 500}));
    fake.state().raise(MAIL);
    fake.state().windows[0].rect = Some(desk_core::geometry::Rect::new(0, 0, 1000, 800));
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"action": "click", "element": 0}),
    );
    assert!(
        failure(&ran).contains("is covered at its centre"),
        "{ran:?}"
    );
    assert!(clicks(&fake).is_empty(), "nothing was clicked");
}

#[test]
fn an_ended_session_is_refused_for_good() {
    let fake = desktop();
    run(&fake, &open(), "computer_state", json!({"session": "s1"}));
    let ended = json(&run(
        &fake,
        &open(),
        "computer_end",
        json!({"session": "s1"}),
    ));
    assert_eq!(ended, json!({"ended": "s1", "held": true}));
    for (verb, args) in [
        ("computer_state", json!({"session": "s1"})),
        (
            "computer_act",
            json!({"session": "s1", "action": "key", "key": "a"}),
        ),
        ("look", json!({"session": "s1"})),
    ] {
        let reason = failure(&run(&fake, &open(), verb, args));
        assert!(
            reason.contains("session \"s1\" has ended"),
            "{verb}: {reason}"
        );
    }
    assert!(fake.log().is_empty());
}

#[test]
fn look_cuts_a_region_at_full_resolution_and_says_how_it_maps() {
    let fake = desktop();
    run(&fake, &open(), "computer_state", json!({"max_edge": 500}));
    let ran = run(
        &fake,
        &open(),
        "look",
        json!({"region": {"x": 50, "y": 50, "w": 100, "h": 40}}),
    );
    let reply = text(&ran);
    assert!(reply.contains("200x80 PNG"), "{reply}");
    assert!(
        reply.contains("screen pixels 100,100 to 300,180"),
        "{reply}"
    );
    assert!(
        reply.contains("x = 50 + (u + 0.5) * 0.5, y = 50 + (v + 0.5) * 0.5"),
        "{reply}"
    );
    let reason = failure(&run(
        &fake,
        &open(),
        "look",
        json!({"region": {"x": 450, "y": 0, "w": 100, "h": 10}}),
    ));
    assert!(
        reason.contains("reaches outside the latest screenshot (500x400)"),
        "{reason}"
    );
}

#[test]
fn the_allowlist_refuses_every_vision_verb() {
    let fake = desktop();
    let policy = only(&["notes"]);
    for (verb, args) in [
        ("computer_state", json!({})),
        (
            "computer_act",
            json!({"action": "click", "x": 1, "y": 1, "scale": 1}),
        ),
        ("look", json!({})),
        ("computer_scale", json!({})),
        ("title_at", json!({"x": 1, "y": 1})),
    ] {
        let ran = run(&fake, &policy, verb, args);
        match &ran.outcome {
            Outcome::Refused {
                by: Some(Control::Allowlist),
                ..
            } => {}
            other => panic!("{verb}: {other:?}"),
        }
    }
    assert!(fake.log().is_empty());
}

#[test]
fn a_typed_step_counts_the_characters_that_landed() {
    let fake = desktop();
    run(&fake, &open(), "computer_state", json!({"max_edge": 500}));
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"action": "type", "element": 0, "text": "héllo"}),
    );
    let reply = text(&ran);
    assert!(reply.contains("typed 5 of 5 characters"), "{reply}");
    let typed: String = fake
        .log()
        .into_iter()
        .filter_map(|e| match e {
            Event::Text { text, .. } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(typed, "héllo");
    assert_eq!(clicks(&fake), [(210, 125, Button::Left, 1)]);
}

#[test]
fn an_element_without_a_position_is_pressed_through_accessibility() {
    // An app that gives no positions (GTK 4 before 4.10): its controls are still listed.
    let fake = desktop();
    fake.add(
        desk::fake::FakeWindow::new(
            "0x40",
            "Calc",
            40,
            desk_core::geometry::Rect::new(300, 300, 200, 200),
        ),
        &["calc"],
    );
    fake.focus("0x40");
    fake.node(desk::fake::FakeNode::new("c:0", "frame", "Calc", 40, None));
    fake.node(
        desk::fake::FakeNode::new("c:1", "push button", "7", 40, Some("c:0")).actions(&["click"]),
    );
    let state = text(&run(&fake, &open(), "computer_state", json!({})));
    assert!(
        state.contains("[0] push button \"7\" (no position: click runs its action)"),
        "{state}"
    );
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"action": "click", "element": 0}),
    );
    assert_eq!(ran.outcome, Outcome::Completed, "{ran:?}");
    assert!(
        text(&ran).contains("pressed through accessibility"),
        "{ran:?}"
    );
    assert!(clicks(&fake).is_empty(), "no click at a guessed point");
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"action": "double_click", "element": 0}),
    );
    assert!(
        failure(&ran).contains("has no position on the screen"),
        "{ran:?}"
    );
    // In a list, before any step runs.
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"actions": [
            {"action": "key", "key": "a"},
            {"action": "type", "element": 0, "text": "x"}
        ]}),
    );
    let reason = failure(&ran);
    assert!(
        reason.contains("step 2 of 2") && reason.contains("no step was run"),
        "{reason}"
    );
    assert!(matches!(ran.outcome, Outcome::Refused { .. }), "{ran:?}");
    assert!(
        !fake.log().iter().any(|e| matches!(e, Event::Keys { .. })),
        "the key of step 1 was not sent"
    );
}

#[test]
fn computer_act_tells_what_changed_before_its_steps_once_and_a_refused_list_loses_none_of_it() {
    let fake = desktop();
    run(&fake, &open(), "computer_state", json!({"max_edge": 500}));
    // A dialog the app maps after that reply went out.
    fake.add(
        FakeWindow::new("0x90", "Save as", 10, Rect::new(200, 200, 100, 100)),
        &["notes"],
    );
    let refused = run(
        &fake,
        &open(),
        "computer_act",
        json!({"action": "click", "element": 99}),
    );
    assert!(failure(&refused).contains("99"), "{refused:?}");
    let ran = run(
        &fake,
        &open(),
        "computer_act",
        json!({"action": "click", "element": 0}),
    );
    let reply = text(&ran);
    assert!(
        reply.starts_with("before these steps, windows: opened 0x90 \"Save as\"\n"),
        "{reply}"
    );
    let next = run(&fake, &open(), "screen", json!({}));
    assert_eq!(
        next.done.unwrap().windows_changed,
        None,
        "told once, in the computer_act reply"
    );
}
