//! The vision verbs end to end: an agent on `shuttle mcp` reads the screen as a JPEG and
//! element indexes, acts by index or screenshot pixel, and every action is judged by what the
//! fixture itself logged. A bystander fixture must receive nothing.

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};

/// The screen the rig runs (scripts/desktop.sh).
const SCREEN: (f64, f64) = (1920.0, 1080.0);

fn computer(mcp: &mut Mcp, args: Value) -> Value {
    mcp.call("computer", args)
}

fn is_error(result: &Value) -> bool {
    result["isError"] == json!(true)
}

/// The one image block of a result: its media type and decoded size in bytes.
fn image_of(result: &Value) -> (String, usize) {
    let images: Vec<&Value> = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == "image")
        .collect();
    assert_eq!(images.len(), 1, "one image block: {result}");
    let data = images[0]["data"].as_str().unwrap();
    (
        images[0]["mimeType"].as_str().unwrap().to_string(),
        data.len() * 3 / 4,
    )
}

/// The index `computer_state` gave the element whose line starts with `what`
/// (`push button "Press me"`).
fn index_of(state: &str, what: &str) -> u32 {
    state
        .lines()
        .find_map(|line| {
            let rest = line.trim_start().strip_prefix('[')?;
            let (index, tail) = rest.split_once("] ")?;
            tail.starts_with(what).then(|| index.parse().ok()).flatten()
        })
        .unwrap_or_else(|| panic!("no element {what} in:\n{state}"))
}

/// The number after `key` in `text`, such as the 1.875 of `scale 1.875`.
fn number_after(text: &str, key: &str) -> f64 {
    let at = text
        .find(key)
        .unwrap_or_else(|| panic!("no {key:?} in {text}"));
    text[at + key.len()..]
        .trim_start()
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after {key:?} in {text}"))
}

fn start_pair() -> (Daemon, Fixture, Fixture) {
    let daemon = Daemon::start();
    let bystander = Fixture::start("vision bystander", &["--size", "300x200"]);
    let fixture = Fixture::start("vision fixture", &[]);
    (daemon, fixture, bystander)
}

#[test]
fn an_element_index_acts_on_the_widget_it_names_at_any_scale() {
    let (daemon, fixture, bystander) = start_pair();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    for (max_edge, width) in [(1024, 1024), (0, 1920)] {
        let pid = fixture.pid();
        let state = computer(
            &mut mcp,
            json!({"verb": "computer_state", "pid": pid, "max_edge": max_edge}),
        );
        assert!(!is_error(&state), "{state}");
        let text = result_text(&state);
        let (mime, bytes) = image_of(&state);
        assert_eq!(mime, "image/jpeg");
        assert!(
            text.contains(&format!("screenshot {width}x")),
            "{max_edge}: {text}"
        );
        assert!(
            text.contains(&format!("{} KB", bytes.div_ceil(1024))),
            "the text gives the image's size: {text}"
        );
        assert!(!text.contains("/9j/"), "no base64 inside the text");
        assert!(text.contains("\"vision fixture\" app python3"), "{text}");
        let before = fixture.events_of("clicked").len();
        let press = index_of(&text, "button \"Press me\"");
        let acted = computer(
            &mut mcp,
            json!({"verb": "computer_act", "action": "click", "element": press}),
        );
        assert!(!is_error(&acted), "{acted}");
        fixture.await_events("clicked", before + 1);
        let reply = result_text(&acted);
        assert!(reply.starts_with("outcome: completed\n"), "{reply}");
        assert!(reply.contains("screen still after"), "{reply}");
        assert_eq!(image_of(&acted).0, "image/jpeg");

        let input = index_of(&text, "text \"Input\"");
        let typed = format!("at {max_edge}: ünï");
        let acted = computer(
            &mut mcp,
            json!({"verb": "computer_act", "actions": [
                {"action": "triple_click", "element": input},
                {"action": "type", "text": typed}
            ]}),
        );
        let reply = result_text(&acted);
        assert!(!is_error(&acted), "{reply}");
        let n = typed.chars().count();
        assert!(
            reply.contains(&format!("typed {n} of {n} characters")),
            "{reply}"
        );
        wait_for(
            "the typed text in the entry",
            Duration::from_secs(5),
            || {
                fixture
                    .events_of("text")
                    .last()
                    .filter(|e| e["text"] == json!(typed))
                    .cloned()
            },
        );
    }
    bystander.assert_untouched();
}

/// An app drawn at twice the scale (GDK_SCALE=2): `computer_state` places its elements in the
/// screenshot's pixels where the screen shows them, inside its window, and a click at that
/// pixel or by the element's index lands on the widget, as the fixture's own log says.
#[test]
fn elements_of_an_app_drawn_at_twice_the_scale_are_where_the_screen_shows_them() {
    let daemon = Daemon::start();
    let bystander = Fixture::start("vision bystander", &["--size", "300x200"]);
    let fixture = Fixture::start_with_env("vision scaled", &[], &[("GDK_SCALE", "2")]);
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let state = result_text(&computer(
        &mut mcp,
        json!({"verb": "computer_state", "pid": fixture.pid(), "max_edge": 0}),
    ));
    let line = state
        .lines()
        .find(|l| l.contains("button \"Press me\""))
        .unwrap_or_else(|| panic!("no Press me in:\n{state}"));
    let at = line.rsplit_once('(').unwrap().1;
    let (x, y) = at.split_once(')').unwrap().0.split_once(',').unwrap();
    let (x, y): (i64, i64) = (x.parse().unwrap(), y.parse().unwrap());
    let [wx, wy, ww, wh] = common::geometry(&fixture.id());
    assert!(
        x > wx && y > wy && x < wx + ww && y < wy + wh,
        "Press me at {x},{y} lies inside its window at {:?}: {line}",
        [wx, wy, ww, wh]
    );
    let acted = computer(
        &mut mcp,
        json!({"verb": "computer_act", "action": "click", "x": x, "y": y}),
    );
    assert!(!is_error(&acted), "{acted}");
    fixture.await_events("clicked", 1);
    let press = index_of(&state, "button \"Press me\"");
    let acted = computer(
        &mut mcp,
        json!({"verb": "computer_act", "action": "click", "element": press}),
    );
    assert!(!is_error(&acted), "{acted}");
    fixture.await_events("clicked", 2);
    bystander.assert_untouched();
}

#[test]
fn a_list_stops_at_its_first_failing_step_and_a_bad_one_stops_it_before_any() {
    let (daemon, fixture, bystander) = start_pair();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let state = result_text(&computer(
        &mut mcp,
        json!({"verb": "computer_state", "pid": fixture.pid()}),
    ));
    let press = index_of(&state, "button \"Press me\"");

    let refused = computer(
        &mut mcp,
        json!({"verb": "computer_act", "actions": [
            {"action": "click", "element": press},
            {"action": "click", "element": 9999}
        ]}),
    );
    assert!(is_error(&refused), "{refused}");
    let text = result_text(&refused);
    assert!(text.contains("step 2 of 2"), "{text}");
    assert!(text.contains("no step was run"), "{text}");
    assert!(text.contains("nothing was sent"), "{text}");

    let failed = computer(
        &mut mcp,
        json!({"verb": "computer_act", "actions": [
            {"action": "click", "element": press},
            {"action": "launch_app", "app": "/nonexistent/shuttle-test-app"},
            {"action": "click", "element": press}
        ]}),
    );
    assert!(is_error(&failed), "{failed}");
    let text = result_text(&failed);
    assert!(text.contains("step 2 of 3 (launch_app) failed"), "{text}");
    assert!(text.contains("what ran: click ["), "{text}");
    fixture.await_events("clicked", 1);
    // The third step never ran: one click only, however long we look.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(fixture.events_of("clicked").len(), 1);
    bystander.assert_untouched();
}

#[test]
fn an_ended_session_is_refused_and_the_default_moves_on() {
    let (daemon, fixture, _bystander) = start_pair();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let state = result_text(&computer(
        &mut mcp,
        json!({"verb": "computer_state", "session": "run-1", "pid": fixture.pid()}),
    ));
    let press = index_of(&state, "button \"Press me\"");
    let ended = computer(
        &mut mcp,
        json!({"verb": "computer_end", "session": "run-1"}),
    );
    assert!(result_text(&ended).contains("\"held\":true"), "{ended}");
    let refused = computer(
        &mut mcp,
        json!({"verb": "computer_act", "session": "run-1", "action": "click", "element": press}),
    );
    assert!(is_error(&refused));
    assert!(
        result_text(&refused).contains("session \"run-1\" has ended"),
        "{refused}"
    );
    // The caller's own default: ended, then a new one under a new name.
    let first = result_text(&computer(&mut mcp, json!({"verb": "computer_state"})));
    let name = first
        .split('"')
        .nth(1)
        .expect("the state names its session")
        .to_string();
    computer(&mut mcp, json!({"verb": "computer_end", "session": name}));
    let next = result_text(&computer(&mut mcp, json!({"verb": "computer_state"})));
    assert!(
        next.starts_with(&format!("session \"{name}#2\"")),
        "{name}: {next}"
    );
    assert!(fixture.events_of("clicked").is_empty());
}

#[test]
fn a_modal_dialog_behind_its_window_is_named_in_windows_and_the_state() {
    let daemon = Daemon::start();
    let fixture = Fixture::start("modal owner", &["--modal", "Unsaved changes"]);
    fixture.await_events("buried", 1);
    let listed = wait_for(
        "windows to name the buried modal dialog",
        Duration::from_secs(5),
        || {
            let windows = daemon.call("desk_windows", json!({})).json();
            windows
                .as_array()
                .unwrap()
                .iter()
                .find(|w| w["title"] == "Unsaved changes" && w.get("modal").is_some())
                .cloned()
        },
    );
    assert_eq!(listed["modal"], "behind ⟪\"modal owner\"⟫", "{listed}");
    assert_eq!(listed["blocks"], "modal owner", "{listed}");
    let state = daemon.call("desk_computer_state", json!({}));
    assert!(!state.is_error, "{}", state.text);
    assert!(
        state.text.contains(&format!(
            "modal: dialog {} ⟪\"Unsaved changes\"⟫ is behind ⟪\"modal owner\"⟫ and blocks ⟪\"modal owner\"⟫",
            listed["id"].as_str().unwrap()
        )),
        "{}",
        state.text
    );
}

#[test]
fn a_look_region_maps_back_to_the_screen_pixels_it_shows() {
    let (daemon, fixture, bystander) = start_pair();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let state = result_text(&computer(&mut mcp, json!({"verb": "computer_state"})));
    let scale = number_after(&state, "scale");
    assert!((scale - SCREEN.0 / 1024.0).abs() < 1e-3, "{state}");
    // A region on the fixture's canvas, near the bottom of its window, in screenshot pixels.
    let ready = &fixture.ready;
    let (wx, wy) = (ready["x"].as_f64().unwrap(), ready["y"].as_f64().unwrap());
    let (ww, wh) = (
        ready["width"].as_f64().unwrap(),
        ready["height"].as_f64().unwrap(),
    );
    let region = json!({
        "x": ((wx + ww / 2.0) / scale - 30.0).round(),
        "y": ((wy + wh - 80.0) / scale - 20.0).round(),
        "w": 60,
        "h": 40
    });
    let looked = computer(&mut mcp, json!({"verb": "look", "region": region}));
    assert!(!is_error(&looked), "{looked}");
    let text = result_text(&looked);
    assert_eq!(image_of(&looked).0, "image/png");
    let (left, top) = (
        number_after(&text, "screen pixels"),
        number_after(&text, &format!("{},", number_after(&text, "screen pixels"))),
    );
    let origin_x = number_after(&text, "computer_act x =");
    let per_pixel = number_after(&text, "+ (u + 0.5) *");
    let origin_y = number_after(&text, ", y =");
    // The region pixel (u, v) is screen pixel (left + u, top + v); click it by the mapping.
    let (u, v) = (37.0, 21.0);
    let acted = computer(
        &mut mcp,
        json!({"verb": "computer_act", "action": "click",
               "x": origin_x + (u + 0.5) * per_pixel, "y": origin_y + (v + 0.5) * per_pixel}),
    );
    assert!(!is_error(&acted), "{acted}");
    let press = fixture.await_events("press", 1).remove(0);
    let landed = (
        press["x"].as_f64().unwrap() + wx,
        press["y"].as_f64().unwrap() + wy,
    );
    let wanted = (left + u, top + v);
    assert!(
        landed == wanted,
        "landed at {landed:?}, wanted {wanted:?}: {text}"
    );
    bystander.assert_untouched();
}

#[test]
fn title_at_tells_a_title_bar_from_a_window_body() {
    let daemon = Daemon::start();
    let fixture = Fixture::start("titled fixture", &[]);
    let ready = &fixture.ready;
    let (x, y) = (
        ready["x"].as_i64().unwrap() + ready["width"].as_i64().unwrap() / 2,
        ready["y"].as_i64().unwrap(),
    );
    let bar = daemon
        .call("desk_title_at", json!({"x": x, "y": y - 8}))
        .json();
    assert_eq!(bar["title"], true, "{bar}");
    assert_eq!(bar["where"], "title bar");
    assert_eq!(bar["text"], "titled fixture");
    assert_eq!(bar["window"], fixture.id());
    let body = daemon
        .call("desk_title_at", json!({"x": x, "y": y + 40}))
        .json();
    assert_eq!(body["title"], false, "{body}");
    fixture.assert_untouched();
}
