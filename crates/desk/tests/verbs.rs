//! The verbs' own logic on the fake desk, with no display: what each answers and what it sends,
//! judged by the fake desktop's input log.

mod scene;

use desk::Body;
use desk::fake::{Event, FakeNode, FakeWindow};
use desk::guard::Policy;
use desk_core::call::{Button, Direction};
use desk_core::geometry::Rect;
use desk_core::outcome::Control;
use scene::*;
use serde_json::{Value, json};

fn open() -> Policy {
    Policy::default()
}

#[test]
fn windows_and_screen_read_the_desktop() {
    let fake = desktop();
    let windows = json(&run(&fake, &open(), "windows", json!({})));
    let ids: Vec<&str> = windows
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [NOTES, MAIL, VAULT], "topmost first");
    assert_eq!(windows[0]["active"], true);
    assert_eq!(
        json(&run(&fake, &open(), "screen", json!({}))),
        json!({"width": 1000, "height": 800})
    );
}

#[test]
fn shots_take_the_screen_a_rectangle_or_a_window_cropped_and_placed() {
    let fake = desktop();
    let whole = run(&fake, &open(), "shot", json!({}));
    assert_eq!(json(&whole), json!({"width": 1000, "height": 800}));
    let part = json(&run(
        &fake,
        &open(),
        "shot",
        json!({"x": 10, "y": 20, "w": 30, "h": 40}),
    ));
    assert_eq!(part, json!({"width": 30, "height": 40}));
    let crop = json(&run(
        &fake,
        &open(),
        "shot",
        json!({"window": "Mail", "x": 5, "y": 6, "w": 7, "h": 8}),
    ));
    assert_eq!(
        crop,
        json!({"width": 7, "height": 8, "origin": [5, 6], "screen_origin": [605, 106], "window": MAIL})
    );
    // A window partly off the screen is shot where it shows, its origin saying where.
    fake.state().windows[1].rect = Some(Rect::new(-50, 10, 300, 300));
    let shown = json(&run(&fake, &open(), "shot", json!({"window": "Mail"})));
    assert_eq!(
        shown,
        json!({"width": 250, "height": 300, "origin": [50, 0], "screen_origin": [0, 10], "window": MAIL})
    );
    for (args, words) in [
        (
            json!({"x": 990, "y": 0, "w": 20, "h": 5}),
            "not within the screen",
        ),
        (
            json!({"window": "Mail", "x": 0, "y": 0, "w": 400, "h": 5}),
            "not within window",
        ),
        (json!({"path": "relative.png"}), "is relative"),
    ] {
        let ran = run(&fake, &open(), "shot", args.clone());
        assert_ended(&ran, "failed", words);
    }
}

#[test]
fn a_window_shot_holds_the_windows_own_pixels() {
    let fake = desktop();
    // Mail covers Notes; Notes' shot is Notes' colour all over.
    fake.state().windows[1].rect = Some(Rect::new(150, 150, 300, 300));
    fake.state().raise(MAIL);
    let notes = fake.state().windows[1].colour;
    let ran = run(&fake, &open(), "shot", json!({"window": "Notes"}));
    let png = ran.done.unwrap().image.unwrap().bytes;
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut pixels).unwrap();
    assert!(pixels.chunks_exact(3).all(|p| p == notes));
    // A display that cannot read a window's own pixels refuses rather than show the screen.
    fake.state().window_pixels = false;
    for policy in [open(), only(&["notes"])] {
        let ran = run(&fake, &policy, "shot", json!({"window": "Notes"}));
        assert_ended(&ran, "failed", "cannot read a window's own pixels");
    }
}

#[test]
fn keys_and_text_go_to_the_named_window_after_focusing_it() {
    let fake = desktop();
    let typed = json(&run(
        &fake,
        &open(),
        "type",
        json!({"text": "héllo", "window": "Mail"}),
    ));
    assert_eq!(
        typed,
        json!({"typed": 5, "window": MAIL, "app_answer": "read"})
    );
    let keyed = json(&run(&fake, &open(), "key", json!({"keys": "ctrl+s"})));
    assert_eq!(
        keyed["window"], MAIL,
        "the focus stayed where typing put it"
    );
    assert_eq!(
        fake.log(),
        [
            Event::Focus(MAIL.into()),
            Event::Text {
                window: Some(MAIL.into()),
                text: "héllo".into()
            },
            Event::Keys {
                window: Some(MAIL.into()),
                keysyms: vec![0xffe3, 's' as u32]
            },
        ]
    );
    let bad = run(&fake, &open(), "key", json!({"keys": "ctrl+Retrun"}));
    assert_not_sent(&bad, "did you mean \"Return\"");
}

#[test]
fn keys_with_nothing_focused_go_nowhere_in_particular() {
    let fake = desktop();
    fake.state().focus = None;
    let keyed = json(&run(&fake, &open(), "key", json!({"keys": "Escape"})));
    assert_eq!(keyed, json!({"keys": "Escape", "window": null}));
}

#[test]
fn input_is_answered_read_only_once_its_app_answers_at_once_again() {
    let fake = desktop();
    fake.state().windows[1].busy_pings = 3;
    let typed = json(&run(
        &fake,
        &open(),
        "type",
        json!({"text": "x", "window": "Mail"}),
    ));
    assert_eq!(typed["app_answer"], "read", "{typed}");
    let busy_left = fake
        .state()
        .windows
        .iter()
        .find(|w| w.window.title == "Mail")
        .map(|w| w.busy_pings);
    assert_eq!(
        busy_left,
        Some(0),
        "the reply waited out the app's busy answers"
    );
}

#[test]
fn input_to_an_app_that_does_not_answer_is_answered_busy_not_failed() {
    let fake = desktop();
    fake.state().windows[1].silent = true;
    let typed = json(&run(
        &fake,
        &open(),
        "type",
        json!({"text": "x", "window": "Mail"}),
    ));
    assert_eq!(typed["app_answer"], "busy", "{typed}");
    assert_eq!(input(&fake).len(), 1, "the text went out all the same");
}

#[test]
fn a_window_that_will_not_take_the_focus_gets_no_keys() {
    let fake = desktop();
    fake.state().windows[1].refuses_focus = true;
    let ran = run(
        &fake,
        &open(),
        "type",
        json!({"text": "x", "window": "Mail"}),
    );
    assert_not_sent(
        &ran,
        "could not give window 0x20 ⟪\"Mail\"⟫ the focus (the focused window is 0x10 ⟪\"Notes\"⟫)",
    );
    assert!(input(&fake).is_empty());
}

#[test]
fn a_window_that_never_shows_on_the_screen_is_refused_the_focus_saying_so_after_a_wait() {
    let fake = desktop();
    {
        let mut state = fake.state();
        state.windows[1].refuses_focus = true;
        state.windows[1].rect = Some(Rect::new(0, 0, 0, 0));
    }
    let ran = run(
        &fake,
        &open(),
        "type",
        json!({"text": "x", "window": "Mail"}),
    );
    assert_not_sent(
        &ran,
        "could not give window 0x20 ⟪\"Mail\"⟫ the focus (the focused window is 0x10 ⟪\"Notes\"⟫; \
         this window is not on the screen yet after 3 s)",
    );
    assert!(input(&fake).is_empty());
}

#[test]
fn a_shot_shrunk_to_a_long_edge_answers_its_scale_and_clicks_and_drags_take_its_pixels() {
    let fake = desktop();
    let small = json(&run(&fake, &open(), "shot", json!({"max_edge": 500})));
    assert_eq!(small, json!({"width": 500, "height": 400, "scale": 2.0}));
    let as_is = json(&run(&fake, &open(), "shot", json!({"max_edge": 4000})));
    assert_eq!(as_is, json!({"width": 1000, "height": 800, "scale": 1.0}));
    let window = json(&run(
        &fake,
        &open(),
        "shot",
        json!({"window": "Notes", "max_edge": 100}),
    ));
    let scale = window["scale"].as_f64().unwrap();
    assert!(window["width"].as_u64().unwrap() <= 100, "{window}");

    // A point of the half-size screen shot is the screen's point at twice its coordinates.
    let (x, y) = IN_MAIL;
    let clicked = json(&run(
        &fake,
        &open(),
        "click",
        json!({"x": x / 2, "y": y / 2, "scale": 2.0}),
    ));
    assert_eq!(
        (clicked["x"].clone(), clicked["y"].clone()),
        (json!(x), json!(y))
    );
    assert_eq!(clicked["window"], MAIL);
    // With window, a point of the shrunk window shot is the window's.
    let in_window = json(&run(
        &fake,
        &open(),
        "click",
        json!({"x": 5, "y": 10, "window": "Notes", "scale": scale}),
    ));
    let unscaled = |v: f64| (v * scale).round() as i64 + 100;
    assert_eq!(
        (in_window["x"].clone(), in_window["y"].clone()),
        (json!(unscaled(5.0)), json!(unscaled(10.0)))
    );
    let dragged = json(&run(
        &fake,
        &open(),
        "drag",
        json!({"x": 5, "y": 5, "to_x": 50, "to_y": 25, "window": "Mail", "scale": 2.0}),
    ));
    assert_eq!(dragged["from"], json!([610, 110]));
    assert_eq!(dragged["to"], json!([700, 150]));
    for scale in [0.5, 0.0, 65.0] {
        let verb = desk_core::call::Verb::from_name("click").unwrap();
        let refused =
            desk_core::call::DeskCall::parse(verb, json!({"x": 1, "y": 1, "scale": scale}));
        let said = refused.expect_err("refused").to_string();
        assert!(said.contains("scale must be from 1 to 64"), "{said}");
    }
}

#[test]
fn clicks_land_at_screen_points_or_window_pixels() {
    let fake = desktop();
    let (x, y) = IN_MAIL;
    let clicked = json(&run(
        &fake,
        &open(),
        "click",
        json!({"x": x, "y": y, "button": "right", "count": 2}),
    ));
    assert_eq!(
        clicked,
        json!({"x": x, "y": y, "button": "right", "count": 2, "window": MAIL, "app_answer": "read"})
    );
    let in_window = json(&run(
        &fake,
        &open(),
        "click",
        json!({"x": 10, "y": 20, "window": "Notes"}),
    ));
    assert_eq!(
        (in_window["x"].clone(), in_window["y"].clone()),
        (json!(110), json!(120))
    );
    let (bx, by) = ON_BACKGROUND;
    let bare = json(&run(&fake, &open(), "click", json!({"x": bx, "y": by})));
    assert_eq!(bare["window"], Value::Null);
    assert_eq!(
        input(&fake),
        [
            Event::Click {
                window: Some(MAIL.into()),
                x,
                y,
                button: Button::Right,
                count: 2
            },
            Event::Click {
                window: Some(NOTES.into()),
                x: 110,
                y: 120,
                button: Button::Left,
                count: 1
            },
            Event::Click {
                window: None,
                x: bx,
                y: by,
                button: Button::Left,
                count: 1
            },
        ]
    );
    let outside = run(
        &fake,
        &open(),
        "click",
        json!({"x": 400, "y": 5, "window": "Mail"}),
    );
    assert_not_sent(
        &outside,
        "outside window 0x20 ⟪\"Mail\"⟫, whose shot is 300x300",
    );
}

#[test]
fn scrolls_go_to_a_point_or_the_centre_of_the_focused_window() {
    let fake = desktop();
    let at_centre = json(&run(&fake, &open(), "scroll", json!({"direction": "down"})));
    assert_eq!(
        (at_centre["x"].clone(), at_centre["y"].clone()),
        (json!(300), json!(250))
    );
    assert_eq!(at_centre["amount"], 3);
    let (x, y) = IN_MAIL;
    run(
        &fake,
        &open(),
        "scroll",
        json!({"direction": "left", "amount": 7, "x": x, "y": y}),
    );
    // More than 50 notches scroll 50, as the reply says.
    let capped = json(&run(
        &fake,
        &open(),
        "scroll",
        json!({"direction": "up", "amount": 120, "x": x, "y": y}),
    ));
    assert_eq!(capped["amount"], 50);
    assert!(
        capped["note"]
            .as_str()
            .unwrap()
            .contains("120 notches asked"),
        "{capped}"
    );
    assert_eq!(
        input(&fake),
        [
            Event::Scroll {
                window: Some(NOTES.into()),
                direction: Direction::Down,
                amount: 3
            },
            Event::Scroll {
                window: Some(MAIL.into()),
                direction: Direction::Left,
                amount: 7
            },
            Event::Scroll {
                window: Some(MAIL.into()),
                direction: Direction::Up,
                amount: 50
            },
        ]
    );
    // The focused window's centre under another window: refused, naming it.
    fake.state().windows[1].rect = Some(Rect::new(250, 200, 100, 100));
    fake.state().raise(MAIL);
    fake.state().focus = Some(NOTES.into());
    let covered = run(&fake, &open(), "scroll", json!({"direction": "up"}));
    assert_not_sent(&covered, "is covered by window 0x20 ⟪\"Mail\"⟫");
}

#[test]
fn a_drag_in_a_named_window_maps_both_ends_into_it() {
    let fake = desktop();
    let dragged = json(&run(
        &fake,
        &open(),
        "drag",
        json!({"x": 10, "y": 10, "to_x": 100, "to_y": 50, "window": "Mail"}),
    ));
    assert_eq!(dragged["from"], json!([610, 110]));
    assert_eq!(dragged["to"], json!([700, 150]));
    let (x, y) = IN_NOTES;
    let (tx, ty) = IN_MAIL;
    run(
        &fake,
        &open(),
        "drag",
        json!({"x": x, "y": y, "to_x": tx, "to_y": ty}),
    );
    assert_eq!(
        input(&fake),
        [
            Event::Drag {
                from: Some(MAIL.into()),
                to: Some(MAIL.into())
            },
            Event::Drag {
                from: Some(NOTES.into()),
                to: Some(MAIL.into())
            },
        ]
    );
}

#[test]
fn launch_and_type_tell_how_far_they_got() {
    let fake = desktop();
    fake.state()
        .programs
        .insert("editor".into(), "Untitled".into());
    let launched = json(&run(&fake, &open(), "launch", json!({"app": "editor"})));
    let window = launched["window"]["id"].as_str().unwrap();
    let pid = launched["pid"].as_u64().unwrap();
    assert_eq!(
        scene::heard(),
        [
            format!("started editor (pid {pid}); waiting for its window"),
            format!("its window {window} is mapped; waiting for the app to settle"),
            "settled".into(),
        ]
    );
    run(&fake, &open(), "type", json!({"text": "héllo"}));
    assert_eq!(scene::heard(), ["typed 5 of 5 characters"]);
}

#[test]
fn focus_close_and_launch_report_what_became_of_the_window() {
    let fake = desktop();
    let focused = json(&run(&fake, &open(), "focus", json!({"window": "Mail"})));
    assert_eq!(
        focused,
        json!({"focused": true, "window": MAIL, "title": "Mail"})
    );
    let closed = json(&run(&fake, &open(), "close", json!({"window": "Mail"})));
    assert_eq!(
        closed,
        json!({"closed": true, "window": MAIL, "title": "Mail"})
    );
    fake.state().windows[0].sticky = true;
    let kept = json(&run(&fake, &open(), "close", json!({"window": "Notes"})));
    assert_eq!(kept["closed"], false);
    assert!(kept["note"].as_str().unwrap().contains("still open"));
    fake.state()
        .programs
        .insert("editor".into(), "Untitled".into());
    let launched = json(&run(&fake, &open(), "launch", json!({"app": "editor"})));
    assert_eq!(launched["window"]["title"], "Untitled");
    assert_eq!(launched["scoped"], false);
    assert_eq!(launched.get("added_args"), None, "{launched}");
    // A splash screen above the app's window is passed over.
    fake.state().splash_first = true;
    let behind_splash = json(&run(&fake, &open(), "launch", json!({"app": "editor"})));
    assert_eq!(behind_splash["window"]["title"], "Untitled");
    assert_eq!(behind_splash["window"]["role"], "window");
    assert_eq!(
        fake.log(),
        [
            Event::Focus(MAIL.into()),
            Event::Close(MAIL.into()),
            Event::Close(NOTES.into()),
            Event::Launch("editor".into()),
            Event::Launch("editor".into()),
        ]
    );
}

#[test]
fn snapshots_and_finds_read_the_tree_of_a_window() {
    let fake = desktop();
    let tree = json(&run(&fake, &open(), "snapshot", json!({"window": "Mail"})));
    assert_eq!(tree["window"], json!({"id": MAIL, "title": "Mail"}));
    let roles: Vec<&str> = tree["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["frame", "text", "push button"]);
    assert!(
        tree["nodes"][1].get("bounds").is_none(),
        "bounds only when asked"
    );
    let bounded = json(&run(
        &fake,
        &open(),
        "snapshot",
        json!({"window": "Mail", "bounds": true}),
    ));
    assert_eq!(bounded["nodes"][2]["bounds"], json!([610, 160, 80, 30]));
    let outline = run(
        &fake,
        &open(),
        "snapshot",
        json!({"window": "Mail", "text": true}),
    );
    match outline.done.unwrap().body {
        Body::Text(text) => assert!(
            text.starts_with("window 0x20 \"Mail\": 3 nodes (shown view of 3 read)\n"),
            "{text}"
        ),
        other => panic!("{other:?}"),
    }
    let none = run(&fake, &open(), "snapshot", json!({}));
    assert_ended(&none, "failed", "name the window");
    let budget = json(&run(
        &fake,
        &open(),
        "snapshot",
        json!({"window": "Mail", "max_nodes": 2}),
    ));
    assert_eq!(budget["nodes"].as_array().unwrap().len(), 2);
    assert_eq!(
        budget["truncated"]["reason"],
        "the walk stopped at its budget of 2 nodes"
    );
    assert!(tree.get("truncated").is_none());
    let found = json(&run(
        &fake,
        &open(),
        "find",
        json!({"name": "ok", "window": "Mail"}),
    ));
    assert_eq!(found["nodes"][0]["id"], "m:2");
    assert_eq!(found["nodes"][0]["bounds"], json!([610, 160, 80, 30]));
}

#[test]
fn a_window_whose_app_is_not_on_the_accessibility_bus_says_so() {
    let fake = desktop();
    fake.add(
        FakeWindow::new("0x50", "Terminal", 50, Rect::new(0, 0, 50, 50)),
        &["xterm"],
    );
    let ran = run(&fake, &open(), "snapshot", json!({"window": "Terminal"}));
    assert_ended(&ran, "failed", "has no accessibility tree");
    assert_ended(&ran, "failed", "not on the accessibility bus");

    // A browser started without accessibility: the reply says how to start it with it.
    fake.add(
        FakeWindow::new("0x60", "Web", 60, Rect::new(0, 0, 50, 50)),
        &["chromium"],
    );
    let ran = run(&fake, &open(), "snapshot", json!({"window": "Web"}));
    assert_ended(&ran, "failed", "--force-renderer-accessibility");
    // A GTK 2 app started without its accessibility modules: the reply names them.
    fake.add(
        FakeWindow::new("0x70", "Paint", 70, Rect::new(0, 0, 50, 50)),
        &["gimp"],
    );
    let ran = run(&fake, &open(), "snapshot", json!({"window": "Paint"}));
    assert_ended(&ran, "failed", "gail and atk-bridge");
    // On the bus, but with its frame alone: the reply says so; with a page, it does not.
    fake.node(FakeNode::new("w:0", "frame", "Web", 60, None).bounds([0, 0, 50, 50]));
    fake.node(FakeNode::new("w:1", "document web", "", 60, Some("w:0")));
    let skeleton = json(&run(&fake, &open(), "snapshot", json!({"window": "Web"})));
    assert!(
        skeleton["note"]
            .as_str()
            .is_some_and(|n| n.contains("no page content")),
        "{skeleton}"
    );
    fake.node(FakeNode::new("w:2", "paragraph", "Hello", 60, Some("w:1")));
    let page = json(&run(&fake, &open(), "snapshot", json!({"window": "Web"})));
    assert_eq!(page.get("note"), None, "{page}");
    // Another app's window shows no page either, and is no Chromium one: no such note.
    let mail = json(&run(&fake, &open(), "snapshot", json!({"window": "Mail"})));
    assert!(
        !mail["note"]
            .as_str()
            .unwrap_or_default()
            .contains("Chromium"),
        "{mail}"
    );
    fake.state()
        .programs
        .insert("chromium".into(), "New Tab".into());
    let launched = json(&run(&fake, &open(), "launch", json!({"app": "chromium"})));
    assert_eq!(
        launched["added_args"],
        json!(["--force-renderer-accessibility"])
    );
}

#[test]
fn press_clicks_a_node_that_is_where_it_says_and_else_runs_its_action() {
    let fake = desktop();
    let pressed = json(&run(&fake, &open(), "press", json!({"id": "m:2"})));
    assert_eq!(pressed["how"], "clicked");
    assert_eq!(pressed["at"], json!([650, 175]));
    // A node without bounds is pressed by its action.
    if let Some(button) = fake.state().nodes.iter_mut().find(|n| n.node.id == "m:2") {
        button.node.bounds = None;
    }
    let acted = json(&run(&fake, &open(), "press", json!({"id": "m:2"})));
    assert_eq!(
        acted,
        json!({"pressed": "m:2", "how": "action", "action": "click"})
    );
    assert_eq!(
        input(&fake),
        [
            Event::Click {
                window: Some(MAIL.into()),
                x: 650,
                y: 175,
                button: Button::Left,
                count: 1
            },
            Event::Action("m:2".into(), 0),
        ]
    );
}

#[test]
fn press_clicks_a_node_without_actions_where_a_part_of_it_shows() {
    let fake = desktop();
    // LibreOffice's title placeholder: a panel with no action, its paragraph over its centre.
    fake.node(
        FakeNode::new("m:20", "panel", "Title", 20, Some("m:0")).bounds([600, 300, 200, 100]),
    );
    fake.node(FakeNode::new("m:21", "paragraph", "", 20, Some("m:20")).bounds([610, 320, 180, 60]));
    let pressed = json(&run(&fake, &open(), "press", json!({"id": "m:20"})));
    assert_eq!(pressed["how"], "clicked", "{pressed}");
    assert_eq!(pressed["at"], json!([700, 350]));
    // With an action of its own, that action runs instead of a click on a part.
    fake.node(
        FakeNode::new("m:22", "panel", "Tools", 20, Some("m:0"))
            .bounds([600, 450, 200, 100])
            .actions(&["activate"]),
    );
    fake.node(FakeNode::new("m:23", "paragraph", "", 20, Some("m:22")).bounds([610, 460, 180, 80]));
    let acted = json(&run(&fake, &open(), "press", json!({"id": "m:22"})));
    assert_eq!(acted["how"], "action", "{acted}");
}

#[test]
fn press_selects_tabs_and_opens_the_menus_above_a_hidden_item() {
    let fake = desktop();
    let mut tab = FakeNode::new("m:3", "page tab", "Inbox", 20, Some("m:0"));
    tab.selectable = true;
    fake.node(tab);
    fake.node(
        FakeNode::new("m:4", "menu", "File", 20, Some("m:0"))
            .actions(&["click"])
            .bounds([600, 100, 40, 20]),
    );
    fake.node(
        FakeNode::new("m:5", "menu item", "Quit", 20, Some("m:4"))
            .states(&["hidden"])
            .actions(&["click"]),
    );
    let selected = json(&run(&fake, &open(), "press", json!({"id": "m:3"})));
    assert_eq!(selected, json!({"pressed": "m:3", "how": "selected"}));
    // The fake menu never opens, so the item is not run and the reply says why.
    let ran = run(&fake, &open(), "press", json!({"id": "m:5"}));
    assert_ended(&ran, "unknown", "menu \"File\" did not open");
    assert_eq!(
        input(&fake),
        [Event::Select("m:3".into()), Event::Action("m:4".into(), 0)]
    );
}

#[test]
fn press_clicks_a_menu_at_its_centre_and_runs_a_menu_item_by_its_action() {
    let fake = desktop();
    fake.node(
        FakeNode::new("m:4", "menu", "File", 20, Some("m:0"))
            .actions(&["click"])
            .bounds([610, 250, 40, 20]),
    );
    fake.node(
        FakeNode::new("m:5", "menu item", "Open", 20, Some("m:0"))
            .actions(&["click"])
            .bounds([610, 280, 40, 20]),
    );
    let menu = json(&run(&fake, &open(), "press", json!({"id": "m:4"})));
    assert_eq!(menu["how"], "clicked", "{menu}");
    assert_eq!(menu["at"], json!([630, 260]));
    let item = json(&run(&fake, &open(), "press", json!({"id": "m:5"})));
    assert_eq!(item["how"], "action", "{item}");
    assert_eq!(
        input(&fake),
        [
            Event::Click {
                window: Some(MAIL.into()),
                x: 630,
                y: 260,
                button: Button::Left,
                count: 1
            },
            Event::Action("m:5".into(), 0),
        ]
    );
}

#[test]
fn act_runs_one_chosen_action() {
    let fake = desktop();
    for (action, event) in [
        ("action", Event::Action("m:1".into(), 0)),
        ("focus", Event::GrabFocus("m:1".into())),
    ] {
        let done = json(&run(
            &fake,
            &open(),
            "act",
            json!({"id": "m:1", "action": action}),
        ));
        assert_eq!(done["pressed"], "m:1");
        assert_eq!(input(&fake).last(), Some(&event));
    }
    let clicked = json(&run(
        &fake,
        &open(),
        "act",
        json!({"id": "m:1", "action": "click"}),
    ));
    assert_eq!(clicked["at"], json!([710, 125]));
    let refused = run(
        &fake,
        &open(),
        "act",
        json!({"id": "m:1", "action": "select"}),
    );
    assert_ended(&refused, "unknown", "refused to be selected");
    let gone = run(
        &fake,
        &open(),
        "act",
        json!({"id": "m:99", "action": "click"}),
    );
    assert_not_sent(&gone, "node m:99 is gone");
}

#[test]
fn at_names_the_node_at_a_point_and_who_covers_it() {
    let fake = desktop();
    let at = json(&run(&fake, &open(), "at", json!({"x": 650, "y": 175})));
    assert_eq!(at["node"]["id"], "m:2");
    assert_eq!(at["window"]["title"], "Mail");
    assert_eq!(at["ancestors"][0]["id"], "m:0");
    assert!(at.get("covered").is_none());
    // Reading Mail's node where Notes lies on top says who covers it.
    fake.state().windows[0].rect = Some(Rect::new(550, 100, 200, 200));
    // With a window, the point is a pixel of its shot, as for click: (50, 75) of Mail is the
    // screen's (650, 175).
    let covered = json(&run(
        &fake,
        &open(),
        "at",
        json!({"x": 50, "y": 75, "window": "Mail"}),
    ));
    assert_eq!(covered["node"]["id"], "m:2");
    assert_eq!(covered["at"], json!([650, 175]));
    assert_eq!(covered["covered"], json!({"title": "Notes", "pid": 10}));
    let outside = run(
        &fake,
        &open(),
        "at",
        json!({"x": 650, "y": 175, "window": "Mail"}),
    );
    assert_ended(&outside, "failed", "is outside window");
    // A panel on top is passed over for the app window below it (Notes, now).
    let mut panel = FakeWindow::new("0x70", "Panel", 70, Rect::new(600, 150, 200, 50));
    panel.window.role = "dock".into();
    fake.add(panel, &["panel"]);
    let below = json(&run(&fake, &open(), "at", json!({"x": 650, "y": 175})));
    assert_eq!(below["window"]["title"], "Notes");
    let nothing = run(&fake, &open(), "at", json!({"x": 950, "y": 750}));
    assert_ended(&nothing, "failed", "no app window is at");
}

#[test]
fn at_counts_a_window_of_the_same_app_on_top_as_a_cover_unless_it_is_the_one_read() {
    let fake = desktop();
    // A second Mail window of the same process, with the same title, lies over the first.
    fake.add(
        FakeWindow::new("0x21", "Mail", 20, Rect::new(620, 150, 200, 100)),
        &["mail"],
    );
    let covered = json(&run(
        &fake,
        &open(),
        "at",
        json!({"x": 50, "y": 75, "window": MAIL}),
    ));
    assert_eq!(covered["node"]["id"], "m:2");
    assert_eq!(
        covered["covered"],
        json!({"title": "Mail", "pid": 20}),
        "two windows of Mail share the title, so neither is known to be the one read"
    );
    // Retitled, the top window is no longer the accessible window's, and still covers it;
    // the window read, alone with its title, is its own.
    fake.state()
        .windows
        .iter_mut()
        .find(|w| w.window.id == "0x21")
        .unwrap()
        .window
        .title = "Mail — draft".into();
    let still = json(&run(
        &fake,
        &open(),
        "at",
        json!({"x": 50, "y": 75, "window": MAIL}),
    ));
    assert_eq!(
        still["covered"],
        json!({"title": "Mail — draft", "pid": 20})
    );
}

#[test]
fn unanswered_names_the_focused_window_whose_app_is_not_on_the_bus() {
    let fake = desktop();
    assert_eq!(
        json(&run(&fake, &open(), "unanswered", json!({}))),
        Value::Null
    );
    fake.add(
        FakeWindow::new("0x50", "Busy", 50, Rect::new(0, 0, 50, 50)),
        &["busy"],
    );
    fake.focus("0x50");
    let silent = json(&run(&fake, &open(), "unanswered", json!({})));
    assert_eq!(silent["title"], "Busy");
    assert_eq!(silent["pid"], 50);
}

#[test]
fn wait_answers_when_the_window_list_changes_and_at_the_deadline_otherwise() {
    let fake = desktop();
    let since = json(&run(&fake, &open(), "windows", json!({})));
    let unchanged = json(&run(
        &fake,
        &open(),
        "wait",
        json!({"since": since, "timeout_ms": 40}),
    ));
    assert_eq!(unchanged["changed"], false);
    let later = fake.clone();
    let adder = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(30));
        later.add(
            FakeWindow::new("0x60", "New", 60, Rect::new(0, 0, 10, 10)),
            &["new"],
        );
    });
    let changed = json(&run(
        &fake,
        &open(),
        "wait",
        json!({"since": since, "timeout_ms": 2000}),
    ));
    adder.join().unwrap();
    assert_eq!(changed["changed"], true);
    assert_eq!(changed["windows"][0]["title"], "New");
}

#[test]
fn still_settles_on_a_static_screen() {
    let fake = desktop();
    let still = json(&run(
        &fake,
        &open(),
        "still",
        json!({"timeout_ms": 300, "hold_ms": 20}),
    ));
    assert_eq!(still["still"], true, "{still}");
    assert_eq!(still["changed"], false, "{still}");
}

#[test]
fn long_waits_end_when_the_caller_goes() {
    for (verb, args) in [
        ("wait", json!({"since": [], "timeout_ms": 5000})),
        ("still", json!({"timeout_ms": 5000, "hold_ms": 4000})),
    ] {
        let fake = desktop();
        fake.add(
            FakeWindow::new("0x60", "New", 60, Rect::new(0, 0, 10, 10)),
            &["new"],
        );
        let since = if verb == "wait" {
            json!({"since": json(&run(&fake, &open(), "windows", json!({}))), "timeout_ms": 5000})
        } else {
            args
        };
        let cancel = desk::Cancel::default();
        let later = cancel.clone();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            later.cancel();
        });
        let started = std::time::Instant::now();
        let ran = run_as(&fake, &open(), verb, since, cancel);
        canceller.join().unwrap();
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "{verb} went on"
        );
        assert_ended(&ran, "failed", "cancelled");
    }
    // A close that waits on a window that will not go ends too.
    let fake = desktop();
    fake.state().windows[0].sticky = true;
    let cancel = desk::Cancel::default();
    let later = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        later.cancel();
    });
    let started = std::time::Instant::now();
    let kept = json(&run_as(
        &fake,
        &open(),
        "close",
        json!({"window": "Notes"}),
        cancel,
    ));
    canceller.join().unwrap();
    assert_eq!(kept["closed"], false);
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}

#[test]
fn still_ignores_what_shuttle_draws_itself() {
    let spinner = Rect::new(900, 0, 40, 40);
    let fake = desktop();
    fake.state().spinner = Some(spinner);
    let busy = json(&run(
        &fake,
        &open(),
        "still",
        json!({"timeout_ms": 300, "hold_ms": 100}),
    ));
    assert!(
        busy["changed"] == true || busy["volatile"].as_u64() > Some(0),
        "{busy}"
    );
    fake.state().overlays = vec![spinner];
    let calm = json(&run(
        &fake,
        &open(),
        "still",
        json!({"timeout_ms": 300, "hold_ms": 100}),
    ));
    assert_eq!(
        (calm["changed"].clone(), calm["volatile"].clone()),
        (json!(false), json!(0)),
        "{calm}"
    );
}

#[test]
fn still_under_the_allowlist_watches_only_the_allowed_windows() {
    let fake = desktop();
    fake.state().spinner = Some(Rect::new(900, 600, 40, 40));
    let policy = only(&["notes"]);
    let elsewhere = json(&run(
        &fake,
        &policy,
        "still",
        json!({"timeout_ms": 300, "hold_ms": 100}),
    ));
    assert_eq!(
        (elsewhere["changed"].clone(), elsewhere["volatile"].clone()),
        (json!(false), json!(0)),
        "a change outside Notes tells nothing: {elsewhere}"
    );
    fake.state().spinner = Some(Rect::new(150, 150, 40, 40));
    let inside = json(&run(
        &fake,
        &policy,
        "still",
        json!({"timeout_ms": 300, "hold_ms": 100}),
    ));
    assert!(
        inside["changed"] == true || inside["volatile"].as_u64() > Some(0),
        "a change in Notes is seen: {inside}"
    );
}

#[test]
fn set_value_replaces_a_fields_text_or_a_number_and_reads_it_back() {
    let fake = desktop();
    fake.node(
        FakeNode::new("m:5", "text", "Subject", 20, Some("m:0"))
            .states(&["editable"])
            .bounds([610, 250, 200, 30]),
    );
    fake.node(
        FakeNode::new("m:6", "spin button", "Copies", 20, Some("m:0"))
            .value("1")
            .bounds([610, 300, 80, 30]),
    );
    fake.node(
        FakeNode::new("m:7", "password text", "Password", 20, Some("m:0"))
            .states(&["editable"])
            .bounds([610, 340, 80, 30]),
    );
    let set = json(&run(
        &fake,
        &open(),
        "set_value",
        json!({"id": "m:5", "value": "Minutes"}),
    ));
    assert_eq!(
        set,
        json!({"id": "m:5", "holds": "Minutes", "how": "set", "as_asked": true})
    );
    let copies = json(&run(
        &fake,
        &open(),
        "set_value",
        json!({"id": "m:6", "value": 3}),
    ));
    assert_eq!(
        copies,
        json!({"id": "m:6", "holds": "3", "how": "set", "as_asked": true})
    );
    assert_eq!(
        fake.log(),
        [
            Event::SetValue("m:5".into(), "Minutes".into()),
            Event::SetValue("m:6".into(), "3".into()),
        ]
    );

    // A node that takes no text: nothing is sent.
    let button = run(
        &fake,
        &open(),
        "set_value",
        json!({"id": "m:2", "value": "x"}),
    );
    assert_not_sent(&button, "takes no text");
    // A number for a text field is its text.
    let number = json(&run(
        &fake,
        &open(),
        "set_value",
        json!({"id": "m:5", "value": 4}),
    ));
    assert_eq!(
        number,
        json!({"id": "m:5", "holds": "4", "how": "set", "as_asked": true})
    );
    // A password field, only with allow_auth.
    let guarded = Policy {
        auth_guard: true,
        ..Policy::default()
    };
    let refused = run(
        &fake,
        &guarded,
        "set_value",
        json!({"id": "m:7", "value": "hunter2"}),
    );
    assert_refused_by(
        &refused,
        Control::AuthGuard,
        "\"Password\" is a password field",
    );
    let allowed = run(
        &fake,
        &guarded,
        "set_value",
        json!({"id": "m:7", "value": "hunter2", "allow_auth": true}),
    );
    assert_eq!(allowed.outcome.name(), "completed");
    assert_eq!(fake.log().len(), 4);
}

/// An entry of a main window that takes a number acts on it when activated (Evince's page
/// number); words are never activated, since Return may send them.
#[test]
fn a_main_window_entry_set_to_a_number_is_activated_and_one_set_to_words_is_not() {
    let fake = desktop();
    // Notes' "Input" is an editable text with an activate action, in a frame.
    fake.state()
        .nodes
        .iter_mut()
        .find(|n| n.node.id == "n:1")
        .unwrap()
        .node
        .states = vec!["editable".into()];
    let activations = |fake: &desk::fake::FakeDesk| {
        fake.log()
            .iter()
            .filter(|e| matches!(e, Event::Action(id, _) if id == "n:1"))
            .count()
    };
    let words = json(&run(
        &fake,
        &open(),
        "set_value",
        json!({"id": "n:1", "value": "hello"}),
    ));
    assert_eq!(words["holds"], "hello", "{words}");
    assert_eq!(activations(&fake), 0, "words are not activated");
    let page = json(&run(
        &fake,
        &open(),
        "set_value",
        json!({"id": "n:1", "value": "3"}),
    ));
    assert_eq!(activations(&fake), 1, "{page}");
    assert!(
        page["note"]
            .as_str()
            .is_some_and(|n| n.contains("activated")),
        "{page}"
    );
}

/// LibreOffice's toolbar boxes: a named panel around an unnamed entry beside a hidden combo
/// box, which shows text set into it without taking it.
#[test]
fn a_toolbar_box_is_set_by_its_name_typed_into_and_committed_with_return() {
    let fake = desktop();
    fake.node(FakeNode::new("m:10", "panel", "Font Name", 20, Some("m:0")));
    fake.node(FakeNode::new("m:11", "filler", "", 20, Some("m:10")));
    fake.node(
        FakeNode::new("m:12", "text", "", 20, Some("m:11"))
            .states(&["editable"])
            .value("Sans")
            .bounds([610, 250, 200, 30])
            .deaf(),
    );
    fake.node(FakeNode::new("m:13", "combo box", "", 20, Some("m:11")).states(&["hidden"]));
    let set = json(&run(
        &fake,
        &open(),
        "set_value",
        json!({"id": "m:10", "value": "Serif"}),
    ));
    assert_eq!(
        set,
        json!({"id": "m:12", "holds": "Serif", "how": "typed", "as_asked": true})
    );
    let return_key = 0xff0d;
    let keys: Vec<Vec<u32>> = fake
        .log()
        .into_iter()
        .filter_map(|e| match e {
            Event::Keys { keysyms, .. } => Some(keysyms),
            _ => None,
        })
        .collect();
    assert_eq!(
        keys.last(),
        Some(&vec![return_key]),
        "committed with Return after the text: {keys:?}"
    );
    // The same entry in a dialog is not committed: Return there may press its default button.
    fake.state()
        .nodes
        .iter_mut()
        .find(|n| n.node.id == "m:0")
        .unwrap()
        .node
        .role = "dialog".into();
    let before = fake.log().len();
    run(
        &fake,
        &open(),
        "set_value",
        json!({"id": "m:10", "value": "Mono"}),
    );
    assert!(
        !fake.log()[before..]
            .iter()
            .any(|e| matches!(e, Event::Keys { keysyms, .. } if *keysyms == [return_key])),
        "no Return in a dialog: {:?}",
        &fake.log()[before..]
    );
}

#[test]
fn a_field_that_ignores_its_text_interface_is_typed_into_instead() {
    let fake = desktop();
    // As Firefox's fields: the call is taken, nothing changes.
    fake.node(
        FakeNode::new("m:5", "entry", "Name", 20, Some("m:0"))
            .states(&["editable"])
            .value("Grace")
            .bounds([610, 250, 200, 30])
            .deaf(),
    );
    let set = json(&run(
        &fake,
        &open(),
        "set_value",
        json!({"id": "m:5", "value": "Ada"}),
    ));
    assert_eq!(
        set,
        json!({"id": "m:5", "holds": "Ada", "how": "typed", "as_asked": true})
    );
    let inserted = json(&run(
        &fake,
        &open(),
        "insert_text",
        json!({"id": "m:5", "text": "Lady ", "position": 0}),
    ));
    assert_eq!(
        inserted,
        json!({"id": "m:5", "holds": "Lady Ada", "how": "typed", "as_asked": true})
    );
    // A Tab or a Return would act as a key, not land as text: refused before any typing.
    let keys_in_text = run(
        &fake,
        &open(),
        "set_value",
        json!({"id": "m:5", "value": "Ada\tLovelace"}),
    );
    assert!(
        keys_in_text.outcome.name() != "completed",
        "{:?}",
        keys_in_text.outcome
    );
    assert!(
        !fake
            .log()
            .iter()
            .any(|e| matches!(e, Event::Text { text, .. } if text.contains("Lovelace"))),
        "nothing of it was typed"
    );
    // The field's own state, and every key went to its window.
    let field = fake
        .state()
        .nodes
        .iter()
        .find(|n| n.node.id == "m:5")
        .cloned()
        .unwrap();
    assert_eq!(field.node.value.as_deref(), Some("Lady Ada"));
    let to_elsewhere: Vec<Event> = fake
        .log()
        .into_iter()
        .filter(|e| match e {
            Event::Keys { window, .. } | Event::Text { window, .. } => {
                window.as_deref() != Some(MAIL)
            }
            _ => false,
        })
        .collect();
    assert!(to_elsewhere.is_empty(), "{to_elsewhere:?}");
    // Past the start, the caret must land where asked before any key goes.
    let appended = json(&run(
        &fake,
        &open(),
        "insert_text",
        json!({"id": "m:5", "text": "!", "position": 8}),
    ));
    assert_eq!(
        appended,
        json!({"id": "m:5", "holds": "Lady Ada!", "how": "typed", "as_asked": true})
    );
}

#[test]
fn select_option_picks_a_combo_item_by_name_and_says_which_exist() {
    let fake = desktop();
    fake.node(
        FakeNode::new("m:8", "combo box", "Small", 20, Some("m:0")).bounds([610, 250, 100, 30]),
    );
    fake.node(FakeNode::new("m:9", "menu", "", 20, Some("m:8")).states(&["hidden"]));
    fake.node(FakeNode::new("m:10", "menu item", "Small", 20, Some("m:9")).states(&["hidden"]));
    fake.node(FakeNode::new("m:11", "menu item", "Large", 20, Some("m:9")).states(&["hidden"]));
    let picked = json(&run(
        &fake,
        &open(),
        "select_option",
        json!({"id": "m:8", "option": "large"}),
    ));
    assert_eq!(
        picked,
        json!({"id": "m:8", "picked": "Large", "holds": "Large", "how": "selection", "as_asked": true})
    );
    assert_eq!(fake.log(), [Event::SelectChild("m:8".into(), 1)]);
    let missing = run(
        &fake,
        &open(),
        "select_option",
        json!({"id": "m:8", "option": "Huge"}),
    );
    assert_not_sent(&missing, "its items are ⟪\"Small\"⟫, ⟪\"Large\"⟫");
    let no_items = run(
        &fake,
        &open(),
        "select_option",
        json!({"id": "m:2", "option": "x"}),
    );
    assert_not_sent(&no_items, "has no items to pick from");
    assert_eq!(fake.log().len(), 1);
}

#[test]
fn a_press_on_an_item_of_an_open_combo_list_picks_it_through_the_combo_box() {
    let fake = desktop();
    fake.node(
        FakeNode::new("m:8", "combo box", "Small", 20, Some("m:0")).bounds([610, 250, 100, 30]),
    );
    fake.node(FakeNode::new("m:9", "menu", "", 20, Some("m:8")).bounds([610, 280, 100, 60]));
    fake.node(
        FakeNode::new("m:10", "menu item", "Small", 20, Some("m:9")).bounds([610, 280, 100, 30]),
    );
    fake.node(
        FakeNode::new("m:11", "menu item", "Large", 20, Some("m:9")).bounds([610, 310, 100, 30]),
    );
    let pressed = json(&run(&fake, &open(), "press", json!({"id": "m:11"})));
    assert_eq!(
        pressed,
        json!({"pressed": "m:11", "how": "picked", "holds": "Large"})
    );
    // Picked by the combo box's own selection: no click, which could only move a highlight.
    assert_eq!(fake.log(), [Event::SelectChild("m:8".into(), 1)]);
    // A menu item outside any combo box is pressed as before.
    fake.node(FakeNode::new("m:12", "menu item", "Quit", 20, Some("m:0")).bounds([10, 10, 50, 20]));
    run(&fake, &open(), "press", json!({"id": "m:12"}));
    assert_eq!(fake.log().len(), 1, "{:?}", fake.log());
}

#[test]
fn insert_text_and_select_text_work_on_a_fields_characters() {
    let fake = desktop();
    fake.node(
        FakeNode::new("m:5", "text", "Subject", 20, Some("m:0"))
            .states(&["editable"])
            .value("Lovelace")
            .bounds([610, 250, 200, 30]),
    );
    let inserted = json(&run(
        &fake,
        &open(),
        "insert_text",
        json!({"id": "m:5", "text": "Ada ", "position": 0}),
    ));
    assert_eq!(
        inserted,
        json!({"id": "m:5", "holds": "Ada Lovelace", "how": "inserted", "as_asked": true})
    );
    let appended = json(&run(
        &fake,
        &open(),
        "insert_text",
        json!({"id": "m:5", "text": "!"}),
    ));
    assert_eq!(appended["holds"], "Ada Lovelace!");
    let selected = json(&run(
        &fake,
        &open(),
        "select_text",
        json!({"id": "m:5", "start": 4, "end": 12}),
    ));
    assert_eq!(
        selected,
        json!({"id": "m:5", "start": 4, "end": 12, "selected": "Lovelace", "as_asked": true})
    );
    let past = run(
        &fake,
        &open(),
        "insert_text",
        json!({"id": "m:5", "text": "x", "position": 99}),
    );
    assert_not_sent(&past, "is past the end");
    let button = run(
        &fake,
        &open(),
        "insert_text",
        json!({"id": "m:2", "text": "x"}),
    );
    assert_not_sent(&button, "takes no text");
    assert_eq!(fake.log().len(), 3);
}

#[test]
fn a_window_that_opens_after_a_reply_is_in_the_next_reply_once() {
    let fake = desktop();
    // The caller's first reply tells it nothing new: that is what it starts from.
    assert_eq!(changed(&run(&fake, &open(), "screen", json!({}))), None);
    let click = run(&fake, &open(), "click", json!({"x": 150, "y": 150}));
    assert_eq!(changed(&click), None, "the click opened nothing yet");
    // The app maps its dialog only after the click's reply went out.
    fake.add(
        FakeWindow::new("0x90", "Save as", 10, Rect::new(200, 200, 100, 100)),
        &["notes"],
    );
    let next = changed(&run(&fake, &open(), "screen", json!({}))).expect("the next reply says it");
    assert_eq!(next["opened"][0]["id"], "0x90");
    assert_eq!(next["opened"][0]["title"], "Save as");
    assert!(next["opened"][0]["after_ms"].is_u64(), "{next}");
    assert_eq!(
        changed(&run(&fake, &open(), "screen", json!({}))),
        None,
        "told once"
    );
    // A title that changes is news too, and so is a window that goes.
    fake.state().windows[0].window.title = "Save as (2)".into();
    let retitled = changed(&run(&fake, &open(), "screen", json!({}))).unwrap();
    assert_eq!(retitled["retitled"][0]["was"], "Save as");
    fake.state().windows.retain(|w| w.window.id != "0x90");
    let closed = changed(&run(&fake, &open(), "shot", json!({}))).unwrap();
    assert_eq!(closed["closed"][0]["id"], "0x90");
}

#[test]
fn the_news_names_only_windows_the_caller_may_see() {
    let fake = desktop();
    let notes_only = only(&["notes"]);
    run(&fake, &notes_only, "screen", json!({}));
    fake.add(
        FakeWindow::new("0x91", "Vault unlocked", 30, Rect::new(0, 0, 50, 50)),
        &["vault"],
    );
    assert_eq!(changed(&run(&fake, &notes_only, "screen", json!({}))), None);
    // The window list is its own news: it carries none.
    fake.add(
        FakeWindow::new("0x92", "Note 2", 10, Rect::new(0, 0, 50, 50)),
        &["notes"],
    );
    assert_eq!(
        changed(&run(&fake, &notes_only, "windows", json!({}))),
        None
    );
    assert_eq!(changed(&run(&fake, &notes_only, "screen", json!({}))), None);
}

#[test]
fn a_snapshot_with_changes_answers_only_what_changed_since_the_callers_previous_one() {
    let fake = desktop();
    let changes = |fake: &desk::fake::FakeDesk| {
        json(&run(
            fake,
            &open(),
            "snapshot",
            json!({"window": "Mail", "changes": true}),
        ))
    };
    let first = changes(&fake);
    assert_eq!(first["nodes"].as_array().unwrap().len(), 3, "{first}");
    assert!(first["changes"]["whole"].is_string(), "{first}");
    assert_eq!(first["changes"]["added"], 3);

    let same = changes(&fake);
    assert_eq!(same["nodes"], json!([]), "{same}");
    assert_eq!(
        (&same["changes"]["unchanged"], &same["changes"]["removed"]),
        (&json!(3), &json!([]))
    );
    assert!(same["changes"].get("whole").is_none());

    // The app renames its button, adds a label and drops its field.
    {
        let mut state = fake.state();
        state.nodes.retain(|n| n.node.id != "m:1");
        let ok = state.nodes.iter_mut().find(|n| n.node.id == "m:2").unwrap();
        ok.node.name = "Send".into();
    }
    fake.node(FakeNode::new("m:5", "label", "Sent", 20, Some("m:0")));
    let after = changes(&fake);
    let names: Vec<&str> = after["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Send", "Sent"], "{after}");
    assert_eq!(
        after["changes"],
        json!({"added": 1, "changed": 1, "removed": ["m:1"], "unchanged": 1,
               "parent_ids": {"0": "m:0"}})
    );
    // Another view is another tree to compare with.
    let all = json(&run(
        &fake,
        &open(),
        "snapshot",
        json!({"window": "Mail", "changes": true, "view": "all"}),
    ));
    assert!(all["changes"]["whole"].is_string(), "{all}");
}
