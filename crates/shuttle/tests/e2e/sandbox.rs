//! The sandbox of the apps an agent launches on its own display: a home of their own, the
//! person's files out of reach but what they share and show, and every verb still working on
//! every toolkit inside. Judged by the files on disk and the apps' own logs, through the real
//! daemon and `shuttle mcp`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{self, Daemon, Fixture, Mcp, desk_tool, require_desktop, wait_for};
use crate::private_display::per_agent;
use serde_json::{Value, json};

const SHARED: &str = "[apps]\nshare = [\"~/shared\"]\nshow = [\"~/shown\"]\n";

/// The person's home of a daemon on private displays.
fn home(daemon: &Daemon) -> PathBuf {
    daemon.scratch.path("home")
}

fn mcp(daemon: &Daemon) -> Mcp {
    let mut mcp = Mcp::start(
        &daemon.socket,
        &[("SHUTTLE_CONFIG", daemon.config_path().to_str().unwrap())],
    );
    mcp.initialize("2025-06-18");
    mcp
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The titles of the windows on the agent's display.
fn titles(mcp: &mut Mcp) -> Vec<String> {
    desk_tool(mcp, json!({"verb": "windows"}))
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["title"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_sandboxed_terminal_sees_a_home_of_its_own_and_writes_only_where_the_person_shares() {
    require_desktop();
    let bystander = Fixture::start("Sandbox bystander", &[]);
    let daemon = per_agent(SHARED);
    let home = home(&daemon);
    for dir in ["shared", "shown"] {
        std::fs::create_dir_all(home.join(dir)).unwrap();
    }
    std::fs::write(home.join("secret.txt"), "the person's secret\n").unwrap();
    std::fs::write(home.join("shown/ref.txt"), "for reference\n").unwrap();
    let mut mcp = mcp(&daemon);

    let launched = desk_tool(&mut mcp, json!({"verb": "launch", "app": "xterm"})).unwrap();
    assert_eq!(launched["sandboxed"], true, "{launched}");
    let window = launched["window"]["id"].as_str().unwrap().to_string();
    // This test's own process is the person's: through its /proc entry the real home would
    // show, were the sandbox's processes not a namespace of their own.
    let through_proc = format!("/proc/{}/root{}", std::process::id(), home.display());
    let line = format!(
        "ls -A ~ > ~/shared/seen; cat ~/secret.txt > ~/shared/secret 2>&1; \
         ls -A {through_proc} > ~/shared/through-proc 2>&1; \
         rm -rf ~/secret.txt; echo x 2> ~/shared/shown-error > ~/shown/new; \
         cat ~/shown/ref.txt > ~/shared/ref; echo ok > ~/shared/done\n"
    );
    desk_tool(
        &mut mcp,
        json!({"verb": "type", "window": window, "text": line}),
    )
    .unwrap();
    wait_for(
        "the terminal's line to run",
        Duration::from_secs(10),
        || (read(&home.join("shared/done")) == "ok\n").then_some(()),
    );
    let seen: Vec<String> = read(&home.join("shared/seen"))
        .lines()
        .map(String::from)
        .collect();
    assert!(!seen.contains(&"secret.txt".to_string()), "{seen:?}");
    assert!(seen.contains(&"shared".to_string()) && seen.contains(&"shown".to_string()));
    assert!(
        read(&home.join("shared/secret")).contains("No such file"),
        "{}",
        read(&home.join("shared/secret"))
    );
    let through_proc = read(&home.join("shared/through-proc"));
    assert!(
        !through_proc.contains("secret.txt") && through_proc.contains("No such file"),
        "{through_proc}"
    );
    assert_eq!(read(&home.join("secret.txt")), "the person's secret\n");
    assert!(
        read(&home.join("shared/shown-error")).contains("Read-only file system"),
        "{}",
        read(&home.join("shared/shown-error"))
    );
    assert!(!home.join("shown/new").exists());
    assert_eq!(read(&home.join("shared/ref")), "for reference\n");

    // A file out of its sight is not opened; a shared path that is not there launches nothing.
    let hidden = desk_tool(
        &mut mcp,
        json!({"verb": "open", "target": home.join("secret.txt")}),
    )
    .unwrap_err();
    assert!(hidden.contains("out of the sandbox's sight"), "{hidden}");
    std::fs::write(
        daemon.config_path(),
        "[daemon]\ndisplay = \"per-agent\"\n[apps]\nshare = [\"~/gone\"]\n",
    )
    .unwrap();
    let before = titles(&mut mcp);
    let refused = desk_tool(&mut mcp, json!({"verb": "launch", "app": "xterm"})).unwrap_err();
    assert!(
        refused.contains("[apps] share names") && refused.contains("does not exist"),
        "{refused}"
    );
    assert!(refused.contains("nothing was sent"), "{refused}");
    assert_eq!(titles(&mut mcp), before);
    bystander.assert_untouched();
}

/// A directory of links to the system's programs, bubblewrap left out.
fn path_without_bwrap(dir: &Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    for bin in ["/usr/bin", "/usr/sbin"] {
        for entry in std::fs::read_dir(bin).unwrap().flatten() {
            let name = entry.file_name();
            if name != "bwrap" {
                let _ = std::os::unix::fs::symlink(entry.path(), dir.join(&name));
            }
        }
    }
    dir.display().to_string()
}

#[test]
fn without_bubblewrap_a_sandbox_asked_for_by_name_refuses_to_launch_and_the_default_runs_as_the_person()
 {
    require_desktop();
    let links = common::Scratch::new("no-bwrap");
    let path = path_without_bwrap(&links.path("bin"));
    let daemon = Daemon::start_configured(
        Some("[daemon]\ndisplay = \"per-agent\"\n[apps]\nsandbox = \"home\"\n"),
        &[("PATH", &path)],
    );
    let mut mcp = mcp(&daemon);
    let before = titles(&mut mcp);
    let refused = desk_tool(&mut mcp, json!({"verb": "launch", "app": "xterm"})).unwrap_err();
    assert!(
        refused.contains("bubblewrap is not installed") && refused.contains("apt install"),
        "{refused}"
    );
    assert!(refused.contains("nothing was sent"), "{refused}");
    assert_eq!(titles(&mut mcp), before, "nothing ran unsandboxed");
    // Unset, the sandbox is the default where it can be made: here it cannot.
    std::fs::write(daemon.config_path(), "[daemon]\ndisplay = \"per-agent\"\n").unwrap();
    let status = daemon.call("status", json!({})).json();
    assert_eq!(status["safety"]["sandbox"]["private"], "none", "{status}");
    let launched = desk_tool(&mut mcp, json!({"verb": "launch", "app": "xterm"})).unwrap();
    assert_eq!(launched["sandboxed"], Value::Null, "{launched}");
    assert!(launched["window"]["id"].is_string(), "{launched}");
}

/// A file of the fixture web pages, as a browser opens it.
fn web_page(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixture/web")
        .join(name);
    format!("file://{}", path.canonicalize().unwrap().display())
}

/// The node of the interactive view of `window` with `role` and `name`, once it shows.
fn control(mcp: &mut Mcp, window: &str, role: &str, name: &str) -> Value {
    wait_for(
        &format!("{role} {name:?} in {window}"),
        Duration::from_secs(30),
        || {
            let view = desk_tool(
                mcp,
                json!({"verb": "snapshot", "window": window, "view": "interactive"}),
            )
            .ok()?;
            view["nodes"]
                .as_array()?
                .iter()
                .find(|n| n["role"] == role && n["name"] == name)
                .cloned()
        },
    )
}

/// Whether `window`'s controls and text, as an outline, hold `text` now. The interactive view,
/// as an agent would ask: a browser's whole tree is over the reply budget, which would cut it.
fn shows(mcp: &mut Mcp, window: &str, text: &str) -> bool {
    desk_tool(
        mcp,
        json!({"verb": "snapshot", "window": window, "text": true, "view": "interactive"}),
    )
    .is_ok_and(|outline| outline.as_str().is_some_and(|o| o.contains(text)))
}

/// Launches `app` with `args` in the sandbox, answers its main window's id.
fn launch(mcp: &mut Mcp, app: &str, args: &[&str]) -> String {
    let launched = desk_tool(mcp, json!({"verb": "launch", "app": app, "args": args})).unwrap();
    assert_eq!(launched["sandboxed"], true, "{launched}");
    launched["window"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{app} showed no window: {launched}"))
        .to_string()
}

/// A shot of `window`: its size.
fn shot(mcp: &mut Mcp, window: &str) -> (u32, u32) {
    let result = mcp.call("screenshot", json!({"window": window}));
    let (width, height, _) = common::result_png(&result);
    (width, height)
}

#[test]
fn every_toolkit_works_in_the_sandbox() {
    require_desktop();
    let daemon = per_agent(SHARED);
    let shared = home(&daemon).join("shared");
    std::fs::create_dir_all(home(&daemon).join("shown")).unwrap();
    let mut mcp = mcp(&daemon);
    // Text an app could not know unless it came through: accents and a CJK character.
    let word = "sändbox 沙";

    // GTK 3: the fixture logs what its entry holds; the clipboard crosses into the sandbox.
    let log = shared.join("gtk3.log");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/fixture.py");
    let gtk3 = launch(
        &mut mcp,
        "/usr/bin/python3",
        &[
            fixture.to_str().unwrap(),
            "--title",
            "Sandboxed GTK 3",
            "--log",
            log.to_str().unwrap(),
        ],
    );
    desk_tool(
        &mut mcp,
        json!({"verb": "type", "window": gtk3, "text": word}),
    )
    .unwrap();
    desk_tool(
        &mut mcp,
        json!({"verb": "clipboard_write", "text": " clip"}),
    )
    .unwrap();
    desk_tool(
        &mut mcp,
        json!({"verb": "key", "window": gtk3, "keys": "ctrl+v"}),
    )
    .unwrap();
    let pasted = format!("{word} clip");
    wait_for(
        "the GTK 3 entry to hold it",
        Duration::from_secs(10),
        || {
            read(&log)
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .any(|e| e["event"] == "text" && e["text"] == pasted.as_str())
                .then_some(())
        },
    );
    assert!(shot(&mut mcp, &gtk3).0 > 100);

    // GTK 4: a file in the shared part, typed into and saved.
    let notes = shared.join("notes.txt");
    std::fs::write(&notes, "").unwrap();
    let gtk4 = launch(
        &mut mcp,
        "gnome-text-editor",
        &["--standalone", notes.to_str().unwrap()],
    );
    desk_tool(
        &mut mcp,
        json!({"verb": "type", "window": gtk4, "text": word}),
    )
    .unwrap();
    desk_tool(
        &mut mcp,
        json!({"verb": "key", "window": gtk4, "keys": "ctrl+s"}),
    )
    .unwrap();
    wait_for("the GTK 4 editor to save", Duration::from_secs(10), || {
        (read(&notes).trim_end() == word).then_some(())
    });
    assert!(shot(&mut mcp, &gtk4).0 > 100);

    // Qt 5: its form logs what it holds when saved.
    let qt_log = shared.join("qt.log");
    let form = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/qt_form.py");
    let qt = launch(
        &mut mcp,
        "/usr/bin/python3",
        &[form.to_str().unwrap(), qt_log.to_str().unwrap()],
    );
    let name = control(&mut mcp, &qt, "text", "Full name");
    desk_tool(
        &mut mcp,
        json!({"verb": "set_value", "id": name["id"], "value": word}),
    )
    .unwrap();
    let save = control(&mut mcp, &qt, "button", "Save");
    desk_tool(&mut mcp, json!({"verb": "press", "id": save["id"]})).unwrap();
    wait_for("the Qt form to log", Duration::from_secs(10), || {
        read(&qt_log)
            .starts_with(&format!("saved | {word} |"))
            .then_some(())
    });
    assert!(shot(&mut mcp, &qt).0 > 100);

    // Chromium and Firefox: the form page says what it saved.
    let page = web_page("form.html");
    let mut chromium_args = vec![
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-gpu",
    ];
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        // Chromium refuses to run as root inside its own sandbox (CI runs as root).
        chromium_args.push("--no-sandbox");
    }
    chromium_args.push(&page);
    let profile = shared.join("firefox");
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/web/firefox-user.js"),
        profile.join("user.js"),
    )
    .unwrap();
    let firefox_args = [
        "--no-remote",
        "--new-instance",
        "--profile",
        profile.to_str().unwrap(),
        &page,
    ];
    for (app, args, browser) in [
        (
            "chromium",
            chromium_args.as_slice(),
            "Shuttle form - Chromium",
        ),
        (
            "firefox-esr",
            firefox_args.as_slice(),
            "Shuttle form — Mozilla Firefox",
        ),
    ] {
        // Named by its page's title: a browser may replace the window it first mapped.
        launch(&mut mcp, app, args);
        wait_for(&format!("{app}'s page"), Duration::from_secs(30), || {
            shows(&mut mcp, browser, "nothing saved").then_some(())
        });
        let name = control(&mut mcp, browser, "entry", "Full name");
        desk_tool(
            &mut mcp,
            json!({"verb": "set_value", "id": name["id"], "value": word}),
        )
        .unwrap();
        // Return in the field submits the form.
        desk_tool(
            &mut mcp,
            json!({"verb": "key", "window": browser, "keys": "Return"}),
        )
        .unwrap();
        wait_for(
            &format!("{app}'s page to save"),
            Duration::from_secs(10),
            || shows(&mut mcp, browser, &format!("saved | {word} |")).then_some(()),
        );
        assert!(shot(&mut mcp, browser).0 > 100, "{app}");
        desk_tool(&mut mcp, json!({"verb": "close", "window": browser})).unwrap();
    }

    // LibreOffice Writer: its document holds what was typed, as pyatspi reads it on the
    // display's own accessibility bus.
    let writer = launch(&mut mcp, "libreoffice", &["--writer", "--norestore"]);
    let title = wait_for("Writer's document window", Duration::from_secs(30), || {
        titles(&mut mcp)
            .into_iter()
            .find(|t| t.ends_with("LibreOffice Writer"))
    });
    // A first start may show a tip over the document: Escape closes it.
    for other in titles(&mut mcp) {
        if other.starts_with("Tip of the Day") {
            desk_tool(
                &mut mcp,
                json!({"verb": "key", "window": other, "keys": "Escape"}),
            )
            .unwrap();
        }
    }
    // Not at a sentence's start, which Writer would capitalise.
    let line = format!("42 {word}");
    desk_tool(
        &mut mcp,
        json!({"verb": "type", "window": title, "text": line}),
    )
    .unwrap();
    wait_for(
        "Writer's document to hold it",
        Duration::from_secs(10),
        || {
            paragraphs(&daemon)
                .filter(|p| p[0][1] == line.as_str())
                .map(|_| ())
        },
    );
    assert!(shot(&mut mcp, &writer).0 > 100);
}

/// The paragraphs of LibreOffice's first document, read by pyatspi on the accessibility bus
/// of the daemon's one private display.
fn paragraphs(daemon: &Daemon) -> Option<Value> {
    let displays = daemon.socket.parent().unwrap().join("display");
    let bus = std::fs::read_dir(displays)
        .ok()?
        .flatten()
        .filter_map(|d| std::fs::read_dir(d.path().join("runtime/at-spi")).ok())
        .flat_map(|entries| entries.flatten().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("bus"))
        })?;
    let probe = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/atspi_probe.py");
    let out = std::process::Command::new("/usr/bin/python3")
        .args([probe.to_str().unwrap(), "soffice", "--paragraphs"])
        .env("AT_SPI_BUS_ADDRESS", format!("unix:path={}", bus.display()))
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    serde_json::from_slice(&out.stdout).ok()
}
