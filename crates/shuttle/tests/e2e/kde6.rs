//! Plasma 6's KWin (6.3, from Debian 13, unpacked beside this Debian 12 machine by
//! scripts/kwin6.sh): a private KDE seat that finds it first on the daemon's PATH, and a
//! person's session that runs it. The same scripts, fake input and input method as on 5.27,
//! driven through `shuttle mcp` and judged by the app's own state, with a bystander that must
//! get nothing. A KWin 6 without a GPU's render node draws in software and serves no
//! screenshots, and the shot says so.

use crate::common;
use crate::gnome::{
    clicks_the_button, desk, fixture, launch, read, saves_the_qt_form, stopped_by_the_hotkey,
    until_file,
};
use crate::kde::{PersonsKde, types_as_keys_and_clicks};
use crate::private_display::seats;

use std::path::Path;
use std::time::Duration;

use common::{Daemon, Mcp, result_png, result_text, wait_for};
use serde_json::json;

/// Where scripts/kwin6.sh put KWin 6's `kwin_wayland`.
fn kwin6() -> String {
    std::env::var("SHUTTLE_KWIN6")
        .expect("SHUTTLE_KWIN6 names where KWin 6 is: run scripts/kwin6.sh (scripts/test.sh does)")
}

#[test]
fn an_agent_works_a_native_gtk_app_on_a_plasma_6_kwin_seat() {
    let kwin6 = kwin6();
    let path = crate::trixie::path_first(&kwin6);
    let daemon = Daemon::start_configured(
        Some("[daemon]\ndisplay = \"per-agent\"\nprivate_seat = \"kde\"\n"),
        &[("PATH", &path)],
    );
    let scratch = daemon.shared_scratch("kde6");
    let file = |name: &str| scratch.path(name);
    let at = |name: &str| file(name).display().to_string();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let entry = fixture("wayland_entry.py");
    let bystander = launch(
        &mut mcp,
        &[entry.clone(), "k6 bystander".into(), at("bystander")],
    );
    launch(&mut mcp, &[entry.clone(), "k6 entry".into(), at("gtk3")]);
    launch(
        &mut mcp,
        &[
            entry.clone(),
            "k6 button".into(),
            at("clicks"),
            "button".into(),
        ],
    );
    let status = daemon.call("status", json!({})).json();
    assert_eq!(status["display"]["seats"], "kde", "{status}");
    // The seat's KWin runs from the tree beside bin/ (scripts/kwin6.sh), not Debian 12's 5.27.
    let seats = seats(&daemon);
    assert_eq!(seats.len(), 1, "{seats:?}");
    crate::trixie::runs_from(&kwin6, seats.into_values().next().unwrap().1);

    // The list, from KWin 6's renamed scripting API, holds the apps' windows by their pids.
    let windows = desk(&mut mcp, json!({"verb": "windows"}));
    let listed = windows
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == bystander["id"])
        .unwrap_or_else(|| panic!("{bystander} in {windows}"));
    let pid = listed["pid"].as_i64().unwrap();
    let cmdline = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    assert!(
        cmdline.contains("k6 bystander"),
        "pid {pid} runs {cmdline:?}"
    );

    // Exact Unicode through shuttle's input method, then a shortcut through fake input.
    let text = "Ålpha ✓ ünïcödé 一二三 😀";
    desk(
        &mut mcp,
        json!({"verb": "type", "window": "k6 entry", "text": text}),
    );
    until_file("the GTK entry to hold the text", &file("gtk3"), |held| {
        held == text
    });
    desk(
        &mut mcp,
        json!({"verb": "key", "window": "k6 entry", "keys": "ctrl+a"}),
    );
    desk(
        &mut mcp,
        json!({"verb": "type", "window": "k6 entry", "text": "new"}),
    );
    until_file(
        "the entry to hold only the new text",
        &file("gtk3"),
        |held| held == "new",
    );
    crate::clipboard::both_ways(&mut mcp, "k6 entry", &file("gtk3"), "new");

    // Qt 5, native on Wayland: typed into its focused field, saved with the button found by
    // accessibility.
    launch(&mut mcp, &[fixture("qt_form.py"), at("qt")]);
    desk(
        &mut mcp,
        json!({"verb": "type", "window": "Qt form", "text": "Ann Zoë ✓"}),
    );
    saves_the_qt_form(&mut mcp, &file("qt"), "Ann Zoë ✓");

    // A click where accessibility places the button.
    desk(&mut mcp, json!({"verb": "focus", "window": "k6 button"}));
    clicks_the_button(&mut mcp, "k6 button", &file("clicks"));

    // Pixels: where KWin 6 composites with OpenGL, a shot; drawing in software (no GPU, as on
    // the machines here), a refusal that says why.
    let shot = mcp.call("desk", json!({"verb": "shot", "window": "k6 button"}));
    if shot["isError"] == true {
        let said = result_text(&shot);
        assert!(said.contains("ScreenShot2 is not on its bus"), "{said}");
        assert!(said.contains("render node"), "{said}");
    } else {
        let (width, height, _) = result_png(&shot);
        assert!(width > 50 && height > 20, "{width}x{height}");
    }

    // Closing a window ends its app.
    let pid = {
        let windows = desk(&mut mcp, json!({"verb": "windows"}));
        windows
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["title"] == "k6 button")
            .and_then(|w| w["pid"].as_i64())
            .unwrap()
    };
    desk(&mut mcp, json!({"verb": "close", "window": "k6 button"}));
    wait_for("the closed app to exit", Duration::from_secs(5), || {
        (!common::alive(pid)).then_some(())
    });
    assert_eq!(read(&file("bystander")), "", "the bystander got input");
}

#[test]
fn an_agent_works_in_a_persons_plasma_6_session_and_the_person_stops_it_with_the_hotkey() {
    let session = PersonsKde::start_plasma_6(&Path::new(&kwin6()).join("kwin_wayland"));
    let (daemon, mut mcp) = session.daemon();
    let scratch = common::Scratch::new("persons-kde6-apps");
    let file = |name: &str| scratch.path(name);
    let text = types_as_keys_and_clicks(&mut mcp, "p6", &file);
    let status = daemon.call("status", json!({})).json();
    assert_eq!(status["display"]["system"], "wayland", "{status}");
    assert_eq!(status["safety"]["kill_hotkey"]["grabbed"], true, "{status}");
    // status says what a shot would: a shot where KWin 6 serves ScreenShot2, else none and why.
    let shot = mcp.call("desk", json!({"verb": "shot"}));
    let desk_status = &status["desk"];
    if shot["isError"] == true {
        assert!(result_text(&shot).contains("ScreenShot2 is not on its bus"));
        assert_eq!(desk_status["capture"], "none", "{status}");
        assert_eq!(desk_status["window_pixels"], false, "{status}");
        let lacking = desk_status["lacking"].to_string();
        assert!(
            lacking.contains("ScreenShot2 is not on its bus"),
            "{status}"
        );
    } else {
        assert_eq!(desk_status["capture"], "kwin-screenshot2", "{status}");
    }

    // The person's shortcut, as KWin 6's global shortcuts run it: the daemon stops.
    session.press_the_hotkey();
    stopped_by_the_hotkey(
        &daemon,
        &mut mcp,
        "p6 entry",
        (&file("entry"), text),
        &file("bystander"),
    );
}
