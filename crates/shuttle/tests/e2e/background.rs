//! Background input (`[daemon] input`): an agent types, presses keys, scrolls and presses a
//! button in a window behind the person's back, through `shuttle mcp`, while the person's side
//! is simulated: a bystander window has the focus and the pointer is parked. Each test judges
//! by the apps' own logs and by X itself (the focus, the pointer, the stacking, the devices,
//! read with xdotool, xprop and xinput).

use crate::common;

use std::time::Duration;

use common::desk_tool as desk;
use common::{Daemon, Fixture, Mcp, require_desktop, run, wait_for};
use serde_json::{Value, json};

const BACKGROUND: &str = "[daemon]\ninput = \"background\"\n";

/// What the person has: the window with their keyboard focus, where their pointer is, and the
/// windows' stacking order.
#[derive(Debug, PartialEq)]
struct PersonsSide {
    focus: String,
    pointer: String,
    stacking: String,
}

fn persons_side() -> PersonsSide {
    PersonsSide {
        focus: run("xdotool", &["getwindowfocus"]),
        pointer: run("xdotool", &["getmouselocation"]),
        stacking: run("xprop", &["-root", "_NET_CLIENT_LIST_STACKING"]),
    }
}

/// A target window and a bystander that has the person's focus, away from the target, with
/// the pointer parked in a corner.
fn scene(target: &str, bystander: &str) -> (Fixture, Fixture) {
    let target = Fixture::start(target, &["--size", "500x400"]);
    let bystander = Fixture::start(bystander, &["--size", "300x200"]);
    let id = bystander.ready["id"].as_str().unwrap().to_string();
    run("xdotool", &["windowmove", "--sync", &id, "1300", "700"]);
    run("xdotool", &["windowactivate", "--sync", &id]);
    run("xdotool", &["mousemove", "3", "5"]);
    (target, bystander)
}

/// The agent pairs (master pointers) on the display, by name.
fn agent_pairs() -> Vec<String> {
    run("xinput", &["list", "--name-only"])
        .lines()
        .filter(|l| {
            l.starts_with("shuttle-agent-") && l.ends_with(" pointer") && !l.contains("XTEST")
        })
        .map(String::from)
        .collect()
}

#[test]
fn an_agent_types_presses_and_scrolls_in_a_background_window_and_the_person_keeps_everything() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(BACKGROUND), &[]);
    let (target, bystander) = scene("bg target", "bg bystander");
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let before = persons_side();

    let text = "héllo wörld 漢字 ok";
    let typed = desk(
        &mut mcp,
        json!({"verb": "type", "text": text, "window": target.id()}),
    )
    .unwrap();
    assert_eq!(typed["typed"], text.chars().count(), "{typed}");
    assert_eq!(typed["input"], "background", "{typed}");
    // The entry was read back, so the text is not left unverified.
    assert!(typed.get("unverified").is_none(), "{typed}");
    wait_for("the text in the target", Duration::from_secs(5), || {
        (target.entry_text() == text).then_some(())
    });
    let keyed = desk(
        &mut mcp,
        json!({"verb": "key", "keys": "ctrl+a", "window": target.id()}),
    )
    .unwrap();
    assert!(keyed["unverified"]["note"].is_string(), "{keyed}");
    desk(
        &mut mcp,
        json!({"verb": "type", "text": "X", "window": "bg target"}),
    )
    .unwrap();
    wait_for(
        "ctrl+a then X to replace it",
        Duration::from_secs(5),
        || (target.entry_text() == "X").then_some(()),
    );

    let scrolled = desk(
        &mut mcp,
        json!({"verb": "scroll", "direction": "down", "amount": 2, "x": 250, "y": 300, "window": target.id()}),
    )
    .unwrap();
    assert_eq!(scrolled["input"], "background", "{scrolled}");
    let notches = target.await_events("scroll", 2);
    assert_eq!(notches.len(), 2, "{notches:?}");
    assert!(
        notches.iter().all(|e| e["direction"] == "down"),
        "{notches:?}"
    );

    let found = desk(
        &mut mcp,
        json!({"verb": "find", "window": target.id(), "name": "Press me", "role": "button"}),
    )
    .unwrap();
    let id = found["nodes"][0]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{found}"));
    let pressed = desk(&mut mcp, json!({"verb": "press", "id": id})).unwrap();
    assert_eq!(pressed["how"], "action", "{pressed}");
    assert_eq!(pressed["input"], "background", "{pressed}");
    target.await_events("clicked", 1);

    bystander.assert_untouched();
    assert_eq!(persons_side(), before, "the person's side changed");
    // openbox, which is not MPX-aware, marks the agent's window active (_NET_ACTIVE_WINDOW);
    // `windows` still says the window with the person's focus is the active one.
    let windows = desk(&mut mcp, json!({"verb": "windows"})).unwrap();
    let active: Vec<&Value> = windows
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["active"] == true)
        .collect();
    assert_eq!(active.len(), 1, "{windows}");
    assert_eq!(active[0]["id"], bystander.id(), "{windows}");
}

#[test]
fn background_input_refuses_what_it_cannot_keep_behind_and_auto_does_it_in_front() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(BACKGROUND), &[]);
    let (target, bystander) = scene("bg refused", "bg refused bystander");
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let before = persons_side();

    let click = desk(
        &mut mcp,
        json!({"verb": "click", "x": 250, "y": 300, "window": target.id()}),
    )
    .unwrap_err();
    assert!(click.contains("not sent in the background"), "{click}");
    assert!(click.contains("nothing was sent"), "{click}");
    let unnamed = desk(&mut mcp, json!({"verb": "type", "text": "x"})).unwrap_err();
    assert!(unnamed.contains("pass window"), "{unnamed}");
    let gone = desk(
        &mut mcp,
        json!({"verb": "key", "keys": "a", "window": "0x7ffffff"}),
    )
    .unwrap_err();
    assert!(gone.contains("nothing was sent"), "{gone}");
    target.assert_untouched();
    bystander.assert_untouched();
    assert_eq!(persons_side(), before, "a refusal moved the person's side");
    drop(mcp);
    drop(daemon);

    // The allowlist gates by the target app: one off the list gets nothing.
    let daemon = Daemon::start_configured(
        Some(&format!("{BACKGROUND}[safety]\napps = [\"gedit\"]\n")),
        &[],
    );
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let refused = desk(
        &mut mcp,
        json!({"verb": "type", "text": "x", "window": target.id()}),
    )
    .unwrap_err();
    assert!(refused.contains("nothing was sent"), "{refused}");
    target.assert_untouched();
    drop(mcp);
    drop(daemon);

    // Under auto the click goes in the foreground, and says so.
    let daemon = Daemon::start_configured(Some("[daemon]\ninput = \"auto\"\n"), &[]);
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let clicked = desk(
        &mut mcp,
        json!({"verb": "click", "x": 250, "y": 300, "window": target.id()}),
    )
    .unwrap();
    assert_eq!(clicked["input"], "foreground", "{clicked}");
    assert!(clicked.get("unverified").is_none(), "{clicked}");
    target.await_events("press", 1);
    bystander.assert_untouched();
}

#[test]
fn the_kill_hotkey_stops_a_background_type_midway() {
    require_desktop();
    let daemon = Daemon::start_configured(Some(BACKGROUND), &[]);
    let (target, bystander) = scene("bg hotkey", "bg hotkey bystander");
    common::stop_a_long_type(&daemon, &target);
    // The person's own keys (the hotkey's modifiers) go to their focus; the agent's do not.
    assert!(
        bystander.events_of("text").is_empty(),
        "the bystander got text"
    );
}

/// The agent pairs of daemon `pid`.
fn pairs_of(pid: u32) -> Vec<String> {
    agent_pairs()
        .into_iter()
        .filter(|p| p.starts_with(&format!("shuttle-agent-{pid}-")))
        .collect()
}

#[test]
fn an_agents_pair_goes_with_the_agent_or_the_daemon_and_a_killed_daemons_pair_is_reaped() {
    require_desktop();
    let mut daemon = Daemon::start_configured(Some(BACKGROUND), &[]);
    let (target, bystander) = scene("bg pairs", "bg pairs bystander");
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    desk(
        &mut mcp,
        json!({"verb": "type", "text": "a", "window": target.id()}),
    )
    .unwrap();
    let pid = daemon.pid();
    let made = pairs_of(pid);
    assert_eq!(made.len(), 1, "one pair for the agent: {made:?}");
    drop(mcp);
    daemon.kill();
    assert_eq!(pairs_of(pid), made, "X keeps a killed daemon's pair");

    let next = Daemon::start_configured(Some(BACKGROUND), &[]);
    // The next daemon reaps it when it connects to the display, on its first call.
    next.call("desk_windows", json!({})).json();
    assert_eq!(
        pairs_of(pid),
        [] as [String; 0],
        "the pair outlived the next daemon's start"
    );
    let person = persons_side();
    let mut mcp = Mcp::start(&next.socket, &[]);
    mcp.initialize("2025-06-18");
    desk(
        &mut mcp,
        json!({"verb": "type", "text": "b", "window": target.id()}),
    )
    .unwrap();
    let next_pid = next.pid();
    assert_eq!(pairs_of(next_pid).len(), 1, "{:?}", agent_pairs());
    // The agent ends (its MCP session): its pair goes, and the person's focus stays.
    drop(mcp);
    wait_for(
        "the ended agent's pair to go",
        Duration::from_secs(15),
        || pairs_of(next_pid).is_empty().then_some(()),
    );
    assert_eq!(
        persons_side(),
        person,
        "removing the pair moved the person's side"
    );
    // A daemon that ends (SIGTERM) removes the pairs of agents that still run (the CLI's).
    next.call("desk_type", json!({"text": "c", "window": target.id()}))
        .json();
    assert_eq!(pairs_of(next_pid).len(), 1, "{:?}", agent_pairs());
    drop(next);
    assert_eq!(
        pairs_of(next_pid),
        [] as [String; 0],
        "the ended daemon's pair stayed"
    );
    assert_eq!(
        persons_side(),
        person,
        "the daemon's end moved the person's side"
    );
    bystander.assert_untouched();
}
