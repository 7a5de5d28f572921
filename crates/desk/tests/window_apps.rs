//! `set_frame`, `minimize`, `maximize`, `restore`, `open` and `quit` on the fake desk: what
//! each answers and sends, and how the safety controls hold them.

mod scene;

use desk::fake::Event;
use desk::guard::Policy;
use desk::{Ending, Exit, FrameChange};
use desk_core::outcome::Control;
use scene::*;
use serde_json::json;
use std::time::{Duration, Instant};

#[test]
fn geometry_verbs_ask_the_window_manager_and_answer_what_it_did() {
    let fake = desktop();
    let set = json(&run(
        &fake,
        &Policy::default(),
        "set_frame",
        json!({"window": "Notes", "x": 50, "width": 320}),
    ));
    assert_eq!(set["frame"], json!([50, 100, 320, 300]), "{set}");
    assert_eq!(set["state"], "normal");
    let max = json(&run(
        &fake,
        &Policy::default(),
        "maximize",
        json!({"window": "Notes"}),
    ));
    assert_eq!(
        (max["state"].clone(), max["frame"].clone()),
        (json!("maximized"), json!([0, 0, 1000, 800]))
    );
    let min = json(&run(
        &fake,
        &Policy::default(),
        "minimize",
        json!({"window": "Mail"}),
    ));
    assert_eq!(min["state"], "minimized");
    assert_eq!(min["frame"], json!(null));
    let back = json(&run(
        &fake,
        &Policy::default(),
        "restore",
        json!({"window": "Mail"}),
    ));
    assert_eq!(back["frame"], json!([600, 100, 300, 300]), "{back}");
    assert_eq!(
        fake.log(),
        [
            Event::Frame(
                NOTES.into(),
                FrameChange::Set {
                    x: Some(50),
                    y: Some(100),
                    width: Some(320),
                    height: Some(300)
                }
            ),
            Event::Frame(NOTES.into(), FrameChange::Maximize),
            Event::Frame(MAIL.into(), FrameChange::Minimize),
            Event::Frame(MAIL.into(), FrameChange::Restore),
        ]
    );
    let off = run(
        &fake,
        &Policy::default(),
        "set_frame",
        json!({"window": "Mail", "x": 4000}),
    );
    assert_not_sent(&off, "outside the screen (1000x800); nothing was changed");
    assert_eq!(fake.log().len(), 4);
}

#[test]
fn set_frame_takes_the_frame_with_its_decorations_and_asks_for_the_area_inside() {
    let fake = desktop();
    // A title bar of 20 and borders of 2, as the window manager says.
    fake.state().decorations = [2, 2, 20, 2];
    let set = json(&run(
        &fake,
        &Policy::default(),
        "set_frame",
        json!({"window": "Notes", "x": 50, "y": 60, "width": 320, "height": 240}),
    ));
    assert_eq!(set["frame"], json!([50, 60, 320, 240]), "{set}");
    assert_eq!(set["client"], json!([52, 80, 316, 218]), "{set}");
    assert_eq!(
        fake.log(),
        [Event::Frame(
            NOTES.into(),
            FrameChange::Set {
                x: Some(52),
                y: Some(80),
                width: Some(316),
                height: Some(218)
            }
        )]
    );
    let tiny = run(
        &fake,
        &Policy::default(),
        "set_frame",
        json!({"window": "Notes", "width": 4, "height": 10}),
    );
    assert_not_sent(&tiny, "leaves no room inside the window's decorations");
    assert_eq!(fake.log().len(), 1);
}

#[test]
fn quit_closes_then_terminates_and_says_how() {
    let fake = desktop();
    let polite = json(&run(&fake, &Policy::default(), "quit", json!({"pid": 20})));
    assert_eq!(polite["ended"], "closed", "{polite}");
    let fake = desktop();
    fake.state()
        .windows
        .iter_mut()
        .for_each(|w| w.sticky = true);
    let stubborn = json(&run(
        &fake,
        &Policy::default(),
        "quit",
        json!({"window": "Mail", "grace_s": 0}),
    ));
    assert_eq!(stubborn["ended"], "terminated", "{stubborn}");
    assert_eq!(
        fake.log(),
        [Event::Close(MAIL.into()), Event::End(20, Ending::Terminate)]
    );
    fake.state().ignores_term.push(10);
    let killed = json(&run(
        &fake,
        &Policy::default(),
        "quit",
        json!({"pid": 10, "grace_s": 0}),
    ));
    assert_eq!(killed["ended"], "killed", "{killed}");
    let none = run(&fake, &Policy::default(), "quit", json!({"pid": 4242}));
    assert_not_sent(&none, "process 4242 shows no window");
}

#[test]
fn quit_leaves_an_app_that_asks_a_question_unless_forced() {
    let fake = desktop();
    fake.state()
        .windows
        .iter_mut()
        .for_each(|w| w.asks_on_close = Some("Save changes?".into()));
    let asked = run(
        &fake,
        &Policy::default(),
        "quit",
        json!({"window": "Mail", "grace_s": 5}),
    );
    assert_eq!(asked.outcome.name(), "unknown", "{:?}", asked.outcome);
    let reason = asked.outcome.reason().unwrap_or_default();
    assert!(reason.contains("\"Save changes?\""), "{reason}");
    assert!(reason.contains("nothing was terminated"), "{reason}");
    assert!(reason.contains("force: true"), "{reason}");
    assert_eq!(fake.log(), [Event::Close(MAIL.into())]);
    assert!(fake.state().exited.is_empty());

    let fake = desktop();
    fake.state()
        .windows
        .iter_mut()
        .for_each(|w| w.asks_on_close = Some("Save changes?".into()));
    let forced = json(&run(
        &fake,
        &Policy::default(),
        "quit",
        json!({"window": "Mail", "force": true}),
    ));
    assert_eq!(forced["ended"], "terminated", "{forced}");
    assert_eq!(forced["questions"][0]["title"], "Save changes?", "{forced}");
    assert!(
        forced["note"].as_str().unwrap().contains("went unanswered"),
        "{forced}"
    );
    assert_eq!(
        fake.log(),
        [Event::Close(MAIL.into()), Event::End(20, Ending::Terminate)]
    );
}

#[test]
fn an_app_that_exits_before_its_window_is_reported_with_its_last_words() {
    let fake = desktop();
    fake.state().crashes.insert(
        "chromium".into(),
        Exit {
            status: "exit status: 1".into(),
            success: false,
            output: Some("Running as root without --no-sandbox is not supported.".into()),
        },
    );
    let crashed = run(
        &fake,
        &Policy::default(),
        "launch",
        json!({"app": "chromium"}),
    );
    assert_eq!(crashed.outcome.name(), "unknown", "{:?}", crashed.outcome);
    let reason = crashed.outcome.reason().unwrap_or_default();
    assert!(
        reason.contains("ended (exit status: 1) before showing a window"),
        "{reason}"
    );
    assert!(reason.contains("without --no-sandbox"), "{reason}");

    fake.state().crashes.insert(
        "true".into(),
        Exit {
            status: "exit status: 0".into(),
            success: true,
            output: Some(String::new()),
        },
    );
    let started = Instant::now();
    let quiet = json(&run(
        &fake,
        &Policy::default(),
        "launch",
        json!({"app": "true"}),
    ));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "it waited for a window"
    );
    assert!(quiet["window"].is_null(), "{quiet}");
    assert!(
        quiet["note"]
            .as_str()
            .unwrap()
            .contains("ended (exit status: 0)"),
        "{quiet}"
    );
}

#[test]
fn launch_answers_once_the_app_stops_working_not_merely_once_its_windows_hold_still() {
    let fake = desktop();
    fake.state()
        .programs
        .insert("office".into(), "Untitled 1 - Office".into());
    // Its window maps at once and holds still, while it keeps a CPU busy for 0.8 s.
    let busy = Duration::from_millis(800);
    fake.state().busy_for.insert("office".into(), busy);
    let started = Instant::now();
    let launched = json(&run(
        &fake,
        &Policy::default(),
        "launch",
        json!({"app": "office"}),
    ));
    assert_eq!(launched["window"]["title"], "Untitled 1 - Office");
    assert!(
        started.elapsed() >= busy,
        "launch answered after {:?}, while the app still worked",
        started.elapsed()
    );
}

#[test]
fn close_names_the_question_an_app_asks_instead() {
    let fake = desktop();
    fake.state()
        .windows
        .iter_mut()
        .for_each(|w| w.asks_on_close = Some("Save changes?".into()));
    let closed = json(&run(
        &fake,
        &Policy::default(),
        "close",
        json!({"window": "Mail"}),
    ));
    assert_eq!(closed["closed"], false, "{closed}");
    assert_eq!(closed["questions"][0]["title"], "Save changes?", "{closed}");
}

#[test]
fn the_safety_controls_hold_the_new_verbs() {
    let actions = [
        ("set_frame", json!({"window": "Notes", "x": 10})),
        ("minimize", json!({"window": "Notes"})),
        ("maximize", json!({"window": "Notes"})),
        ("restore", json!({"window": "Notes"})),
        ("quit", json!({"window": "Notes"})),
    ];
    for (verb, args) in &actions {
        let fake = desktop();
        // Notes is not in the allowlist: refused as if it did not exist, nothing sent.
        let refused = run(&fake, &only(&["mail"]), verb, args.clone());
        assert_eq!(
            refused.outcome.name(),
            "refused",
            "{verb}: {:?}",
            refused.outcome
        );
        let dry = run(
            &fake,
            &Policy {
                dry_run: true,
                ..Policy::default()
            },
            verb,
            args.clone(),
        );
        assert_refused_by(&dry, Control::DryRun, "dry run: would");
        let read_only = run(
            &fake,
            &Policy {
                read_only: true,
                ..Policy::default()
            },
            verb,
            args.clone(),
        );
        assert_refused_by(&read_only, Control::ReadOnly, "");
        assert!(fake.log().is_empty(), "{verb} sent {:?}", fake.log());
    }
    // open: the program that would open it is what the allowlist judges.
    let fake = desktop();
    fake.state()
        .openers
        .insert("x-scheme-handler/https".into(), "browser".into());
    fake.state()
        .programs
        .insert("browser".into(), "Example".into());
    let refused = run(
        &fake,
        &only(&["mail"]),
        "open",
        json!({"target": "https://example.org"}),
    );
    assert_refused_by(&refused, Control::Allowlist, "browser");
    let opened = json(&run(
        &fake,
        &Policy::default(),
        "open",
        json!({"target": "https://example.org"}),
    ));
    assert_eq!(opened["window"]["title"], "Example", "{opened}");
    assert_eq!(opened["kind"], "x-scheme-handler/https");
    let unhandled = run(&fake, &Policy::default(), "open", json!({"target": "/tmp"}));
    assert_not_sent(&unhandled, "no app opens application/octet-stream");
}

#[test]
fn under_a_sandbox_apps_start_in_it_and_a_file_out_of_its_sight_is_not_opened() {
    let home = std::env::temp_dir().join(format!("shuttle-fake-home-{}", std::process::id()));
    std::fs::create_dir_all(home.join("work")).unwrap();
    std::fs::write(home.join("secret.txt"), "the person's").unwrap();
    std::fs::write(home.join("work/notes.txt"), "shared").unwrap();
    let sandbox = desk::Sandbox {
        persons_home: home.clone(),
        home: None,
        share: vec![home.join("work")],
        show: Vec::new(),
    };
    let policy = Policy {
        sandbox: Some(sandbox.clone()),
        ..Policy::default()
    };
    let fake = desktop();
    fake.state()
        .programs
        .insert("editor".into(), "Editor".into());
    fake.state()
        .openers
        .insert("text/plain".into(), "editor".into());
    let launched = json(&run(&fake, &policy, "launch", json!({"app": "editor"})));
    assert_eq!(launched["sandboxed"], true, "{launched}");
    let hidden = run(
        &fake,
        &policy,
        "open",
        json!({"target": home.join("secret.txt")}),
    );
    assert_not_sent(&hidden, "out of the sandbox's sight");
    let shared = json(&run(
        &fake,
        &policy,
        "open",
        json!({"target": home.join("work/notes.txt")}),
    ));
    assert_eq!(shared["sandboxed"], true, "{shared}");
    let plain = json(&run(
        &fake,
        &Policy::default(),
        "launch",
        json!({"app": "editor"}),
    ));
    assert!(plain.get("sandboxed").is_none(), "{plain}");
    assert_eq!(
        fake.state().sandboxes,
        [Some(sandbox.clone()), Some(sandbox), None],
        "each start was asked for the sandbox in force, and the refused open started nothing"
    );
    std::fs::remove_dir_all(home).unwrap();
}

#[test]
fn the_clipboard_verbs_answer_what_it_holds_and_obey_the_controls() {
    use desk::Clip;
    let fake = desktop();
    let empty = json(&run(&fake, &Policy::default(), "clipboard_read", json!({})));
    assert_eq!(empty, json!({"present": false, "format": "text"}));
    let wrote = json(&run(
        &fake,
        &Policy::default(),
        "clipboard_write",
        json!({"text": "secret"}),
    ));
    assert_eq!(wrote["bytes"], 6);
    assert_eq!(fake.state().clipboard, Some(Clip::Text("secret".into())));
    let read = json(&run(
        &fake,
        &Policy::default(),
        "clipboard_read",
        json!({"format": "text"}),
    ));
    assert_eq!(read["text"], "secret");
    let as_files = json(&run(
        &fake,
        &Policy::default(),
        "clipboard_read",
        json!({"format": "files"}),
    ));
    assert_eq!(as_files["present"], false);

    let off = Policy {
        no_clipboard: Some("the clipboard is off here".into()),
        ..Policy::default()
    };
    assert_refused_by(
        &run(&fake, &off, "clipboard_read", json!({})),
        Control::Clipboard,
        "off here",
    );
    assert_refused_by(
        &run(&fake, &off, "clipboard_write", json!({"text": "x"})),
        Control::Clipboard,
        "off here",
    );
    let dry = Policy {
        dry_run: true,
        ..Policy::default()
    };
    assert_refused_by(
        &run(&fake, &dry, "clipboard_write", json!({"text": "y"})),
        Control::DryRun,
        "would put 1 character of text on the clipboard",
    );
    let read_only = Policy {
        read_only: true,
        ..Policy::default()
    };
    assert_refused_by(
        &run(&fake, &read_only, "clipboard_write", json!({"text": "z"})),
        Control::ReadOnly,
        "",
    );
    assert_eq!(fake.state().clipboard, Some(Clip::Text("secret".into())));
    let not_png = run(
        &fake,
        &Policy::default(),
        "clipboard_write",
        json!({"image": "/etc/hostname"}),
    );
    assert_not_sent(&not_png, "not a PNG");
    // A device or a pipe is never read: it could fill the daemon or block the desk.
    let device = run(
        &fake,
        &Policy::default(),
        "clipboard_write",
        json!({"image": "/dev/zero"}),
    );
    assert_not_sent(&device, "not a regular file");
}
