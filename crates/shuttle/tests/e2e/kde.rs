//! A private KDE seat: a headless KWin, driven natively through `shuttle mcp` as an agent
//! would, with KWin's scripts, screenshots and fake input granted to the daemon by the desktop
//! file the seat installs. KWin starts in about a second, yet one seat serves the whole
//! scenario. Each action is judged by the app's own state (what the fixture writes, whether
//! its process ended), with a bystander window that must get nothing.

use crate::common;
use crate::gnome::{
    clicks_the_button, desk, fixture, gdbus, launch, read, red_in_corner, saves_the_qt_form,
    stopped_by_the_hotkey, until_file, wait_for_exit,
};
use crate::private_display::{per_agent, seats};

use std::path::Path;
use std::time::Duration;

use common::{Mcp, result_png, result_text, wait_for};
use serde_json::{Value, json};

#[test]
fn an_agent_works_native_gtk_and_qt_apps_on_a_kde_seat_and_the_seat_ends_with_the_daemon() {
    let mut daemon = per_agent("private_seat = \"kde\"");
    let scratch = daemon.shared_scratch("kde");
    let file = |name: &str| scratch.path(name);
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let entry = fixture("wayland_entry.py");
    let path = |name: &str| file(name).display().to_string();

    let bystander = launch(
        &mut mcp,
        &[entry.clone(), "kd bystander".into(), path("bystander")],
    );
    let gtk3 = launch(&mut mcp, &[entry.clone(), "kd entry".into(), path("gtk3")]);
    let button = launch(
        &mut mcp,
        &[
            entry.clone(),
            "kd button".into(),
            path("clicks"),
            "button".into(),
        ],
    );
    let wheel = launch(
        &mut mcp,
        &[
            entry.clone(),
            "kd wheel".into(),
            path("wheel"),
            "scroll".into(),
        ],
    );
    let qt = launch(&mut mcp, &[fixture("qt_form.py"), path("qt")]);
    let status = daemon.call("status", json!({})).json();
    assert_eq!(status["display"]["seats"], "kde", "{status}");

    // The list holds each window the apps opened, by the pid the app has.
    let windows = desk(&mut mcp, json!({"verb": "windows"}));
    for window in [&bystander, &gtk3, &button, &wheel, &qt] {
        let listed = windows
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["id"] == window["id"])
            .unwrap_or_else(|| panic!("{window} in {windows}"));
        assert_eq!(listed["title"], window["title"]);
        let pid = listed["pid"].as_i64().unwrap();
        let comm = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        assert!(comm.contains("python3"), "pid {pid} runs {comm:?}");
    }

    // Exact Unicode, whatever the keyboard layout holds: committed by shuttle's input method.
    let text = "Ålpha ✓ ünïcödé 一二三 😀";
    desk(
        &mut mcp,
        json!({"verb": "type", "window": "kd entry", "text": text}),
    );
    until_file("the GTK entry to hold the text", &file("gtk3"), |held| {
        held == text
    });
    // Where no text field has the focus, text goes as keys, and what the layout lacks is
    // refused with nothing sent.
    let refused = mcp.call(
        "desk",
        json!({"verb": "type", "window": "kd button", "text": "é"}),
    );
    let said = result_text(&refused);
    assert_eq!(refused["isError"], true, "{said}");
    assert!(said.contains("no key for"), "{said}");
    assert!(said.contains("nothing was sent"), "{said}");
    // A shortcut: select all, then typing replaces it.
    desk(
        &mut mcp,
        json!({"verb": "key", "window": "kd entry", "keys": "ctrl+a"}),
    );
    desk(
        &mut mcp,
        json!({"verb": "type", "window": "kd entry", "text": "new"}),
    );
    until_file(
        "the entry to hold only the new text",
        &file("gtk3"),
        |held| held == "new",
    );
    crate::clipboard::both_ways(&mut mcp, "kd entry", &file("gtk3"), "new");

    // Qt: typed into its focused field, saved with the button found by accessibility.
    desk(
        &mut mcp,
        json!({"verb": "type", "window": "Qt form", "text": "Ann Zoë ✓"}),
    );
    saves_the_qt_form(&mut mcp, &file("qt"), "Ann Zoë ✓");

    // A click where accessibility says the button is, once KWin raised its window over the
    // others it stacked around it.
    desk(&mut mcp, json!({"verb": "focus", "window": "kd button"}));
    clicks_the_button(&mut mcp, "kd button", &file("clicks"));

    // The wheel, at a point of the window's shot: the desk raises it where another covers it.
    desk(
        &mut mcp,
        json!({"verb": "scroll", "window": "kd wheel", "direction": "down", "amount": 2,
               "x": 100, "y": 100}),
    );
    until_file("two notches down", &file("wheel"), |held| {
        held == "down\ndown\n"
    });

    // A window's own pixels, as large as the window; and the screen's.
    let shot = mcp.call("desk", json!({"verb": "shot", "window": "kd button"}));
    let (width, height, _) = result_png(&shot);
    assert!(width > 50 && height > 20, "{width}x{height}");
    let size = desk(&mut mcp, json!({"verb": "screen"}));
    let screen = mcp.call("screenshot", json!({}));
    let (width, height, _) = result_png(&screen);
    assert_eq!((width, height), (1920, 1080), "{size}");
    assert_eq!(
        (size["width"].as_u64(), size["height"].as_u64()),
        (Some(1920), Some(1080))
    );

    // The vision verbs: the front window's button is an element, and a click on it lands.
    desk(&mut mcp, json!({"verb": "focus", "window": "kd button"}));
    let state = result_text(&mcp.call("computer", json!({"verb": "computer_state"})));
    let index = common::element_index(&state, "button \"kd button\"");
    let clicked = mcp.call(
        "computer",
        json!({"verb": "computer_act", "action": "click", "element": index}),
    );
    assert_ne!(clicked["isError"], true, "{}", result_text(&clicked));
    until_file("the second click to land", &file("clicks"), |held| {
        held == "clicked\nclicked\n"
    });

    save_as_in_mousepad(&mut mcp, &scratch);

    // Konsole, native on Wayland: a command typed and run, judged by what it wrote.
    let launched = desk(&mut mcp, json!({"verb": "launch", "app": "konsole"}));
    let terminal = launched["window"]["id"].as_str().unwrap().to_string();
    let ran = file("terminal");
    desk(
        &mut mcp,
        json!({"verb": "type", "window": terminal,
               "text": format!("echo 'Zoë ✓ 東京' > {}", ran.display())}),
    );
    desk(
        &mut mcp,
        json!({"verb": "key", "window": terminal, "keys": "Return"}),
    );
    until_file("the command typed in Konsole to run", &ran, |held| {
        held == "Zoë ✓ 東京\n"
    });

    // Closing a window ends its app.
    let pid = wheel["pid"].as_i64().unwrap();
    desk(&mut mcp, json!({"verb": "close", "window": "kd wheel"}));
    wait_for("the closed app to exit", Duration::from_secs(5), || {
        (!common::alive(pid)).then_some(())
    });

    assert_eq!(read(&file("bystander")), "", "the bystander got input");
    // Nothing of the seat reached the person's X display.
    assert!(!common::window_list().contains("kd entry"));

    // A daemon killed outright leaves its seat behind; the next one ends it.
    let seats = seats(&daemon);
    assert_eq!(seats.len(), 1, "{seats:?}");
    let (socket, leader) = seats.into_values().next().unwrap();
    drop(mcp);
    daemon.kill_and_restart();
    wait_for(
        "the seat to end, its sockets with it",
        Duration::from_secs(10),
        || (!common::alive(leader) && !Path::new(&socket).exists()).then_some(()),
    );
}

/// A GTK app's own dialog, which draws its shadows around itself: Mousepad's Save As comes as
/// a dialog of its window, its own pixels start at its frame, and the file named in it holds
/// the text typed.
fn save_as_in_mousepad(mcp: &mut Mcp, scratch: &common::Scratch) {
    let launched = desk(mcp, json!({"verb": "launch", "app": "mousepad"}));
    let title = launched["window"]["title"].as_str().unwrap().to_string();
    let text = "Grüße ✓ 東京";
    desk(mcp, json!({"verb": "type", "window": title, "text": text}));
    desk(
        mcp,
        json!({"verb": "key", "window": title, "keys": "ctrl+s"}),
    );
    let dialog = wait_for("the Save As dialog", Duration::from_secs(10), || {
        let windows = desk(mcp, json!({"verb": "windows"}));
        windows
            .as_array()?
            .iter()
            .find(|w| w["title"] == "Save As")
            .cloned()
    });
    assert_eq!(dialog["role"], "dialog", "{dialog}");
    assert_eq!(dialog["owner"], launched["window"]["id"], "{dialog}");
    // Its top left corner is its header bar, not the shadow around it.
    let shot = result_png(&mcp.call("desk", json!({"verb": "shot", "window": "Save As"})));
    let corner = common::pixel(&shot, 2, 2);
    assert!(corner.iter().all(|&c| c > 100), "the corner is {corner:?}");
    let saved = scratch.path("grüße.txt");
    let name = desk(
        mcp,
        json!({"verb": "find", "window": "Save As", "name": "Name", "role": "text"}),
    );
    let set = desk(
        mcp,
        json!({"verb": "set_value", "id": name["nodes"][0]["id"],
               "value": saved.display().to_string()}),
    );
    assert_eq!(set["as_asked"], true, "{set}");
    // The file chooser looks the name up after it changes, and takes no click meanwhile: an
    // agent that cannot ask the app whether it is done waits for its window to hold still.
    desk(mcp, json!({"verb": "still", "timeout_ms": 3000}));
    let save = desk(
        mcp,
        json!({"verb": "find", "window": "Save As", "name": "Save", "role": "button"}),
    );
    desk(mcp, json!({"verb": "press", "id": save["nodes"][0]["id"]}));
    until_file("Mousepad to save the file", &saved, |held| held == text);
    desk(
        mcp,
        json!({"verb": "quit", "window": launched["window"]["id"]}),
    );
}

/// A person's Plasma session on Wayland, as a login would start it: a headless KWin with a
/// session bus and the AT-SPI bus, after `shuttle setup kde` put the desktop file that grants
/// shuttle fake input and screenshots among the person's applications. It leads a process
/// group of its own, which is ended when dropped.
pub(crate) struct PersonsKde {
    scratch: common::Scratch,
    leader: std::process::Child,
    bus: String,
    accessibility: String,
}

impl PersonsKde {
    const SOCKET: &str = "person-kde";

    /// A session whose person ran `shuttle setup kde` before logging in.
    fn start() -> Self {
        Self::start_set_up(true)
    }

    /// A session with shuttle's desktop file installed (`set_up`) or not.
    fn start_set_up(set_up: bool) -> Self {
        Self::start_kwin(set_up, None)
    }

    /// A Plasma 6 session, set up, whose KWin is `kwin` (scripts/kwin6.sh's). Plasma installs
    /// an XDG menu, through which KDE Frameworks 6 find desktop files; a lone KWin has none,
    /// so the session gets one of every application, as Plasma's would list them.
    pub(crate) fn start_plasma_6(kwin: &Path) -> Self {
        Self::start_kwin(true, Some(kwin))
    }

    /// A session whose KWin is `kwin`, else a copy of Debian 12's.
    fn start_kwin(set_up: bool, kwin: Option<&Path>) -> Self {
        use std::os::unix::process::CommandExt;
        let scratch = common::Scratch::new("persons-kde");
        let (home, run) = (scratch.path("home"), scratch.path("run"));
        std::fs::create_dir_all(&run).unwrap();
        std::fs::set_permissions(&run, std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .unwrap();
        let session_env = [
            ("HOME", home.clone()),
            ("XDG_CONFIG_HOME", home.join(".config")),
            ("XDG_DATA_HOME", home.join(".local/share")),
            ("XDG_CACHE_HOME", home.join(".cache")),
            ("XDG_RUNTIME_DIR", run.clone()),
        ];
        // The person sets shuttle up, then logs in.
        if set_up {
            let setup = std::process::Command::new(common::SHUTTLE)
                .args(["setup", "kde"])
                .envs(session_env.iter().map(|(k, v)| (k, v)))
                .output()
                .unwrap();
            assert!(setup.status.success(), "{setup:?}");
            assert!(
                home.join(".local/share/applications/dev.shuttle.desk.desktop")
                    .is_file()
            );
        }
        let kwin = match kwin {
            Some(kwin) => {
                let menus = home.join(".config/menus");
                std::fs::create_dir_all(&menus).unwrap();
                std::fs::write(
                    menus.join("applications.menu"),
                    "<Menu><Name>Applications</Name><DefaultAppDirs/>\
                     <Include><All/></Include></Menu>\n",
                )
                .unwrap();
                kwin.to_path_buf()
            }
            None => {
                // A copy without the file capability a container may refuse (docs/kde.md).
                let bin = scratch.path("bin");
                std::fs::create_dir_all(&bin).unwrap();
                std::fs::copy("/usr/bin/kwin_wayland", bin.join("kwin_wayland")).unwrap();
                bin.join("kwin_wayland")
            }
        };
        let script = format!(
            "exec dbus-run-session -- sh -c 'echo \"$DBUS_SESSION_BUS_ADDRESS\" > \"{bus}.new\"; \
             mv \"{bus}.new\" \"{bus}\"; \
             /usr/libexec/at-spi-bus-launcher --launch-immediately & \
             exec \"{kwin}\" --virtual --no-lockscreen --no-kactivities --socket {socket} \
             --width 1280 --height 800'",
            bus = scratch.path("bus").display(),
            kwin = kwin.display(),
            socket = Self::SOCKET,
        );
        let log = std::fs::File::create(scratch.path("kwin.log")).unwrap();
        let leader = std::process::Command::new("sh")
            .args(["-c", &script])
            .envs(session_env.iter().map(|(k, v)| (k, v)))
            .env("XDG_SESSION_TYPE", "wayland")
            .env("XDG_CURRENT_DESKTOP", "KDE")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .env_remove("AT_SPI_BUS_ADDRESS")
            .env_remove("XDG_MENU_PREFIX")
            .process_group(0)
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut session = Self {
            scratch,
            leader,
            bus: String::new(),
            accessibility: String::new(),
        };
        session.bus = wait_for("the session bus", Duration::from_secs(20), || {
            std::fs::read_to_string(session.scratch.path("bus"))
                .ok()
                .map(|b| b.trim().to_string())
                .filter(|b| !b.is_empty())
        });
        wait_for("KWin to serve", Duration::from_secs(20), || {
            let owned = session
                .gdbus(&[
                    "org.freedesktop.DBus",
                    "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.NameHasOwner",
                    "org.kde.KWin",
                ])
                .contains("true");
            (owned && session.scratch.path("run").join(Self::SOCKET).exists()).then_some(())
        });
        let address = session.gdbus(&["org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus.GetAddress"]);
        session.accessibility = address
            .trim()
            .trim_start_matches("('")
            .trim_end_matches("',)")
            .to_string();
        session
    }

    /// A daemon started in this session with `display = "inherit"`, and an agent's MCP
    /// connection to it.
    pub(crate) fn daemon(&self) -> (common::Daemon, Mcp) {
        let env = self.env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let daemon =
            common::Daemon::start_configured(Some("[daemon]\ndisplay = \"inherit\"\n"), &env);
        let mut mcp = Mcp::start(&daemon.socket, &[]);
        mcp.initialize("2025-06-18");
        (daemon, mcp)
    }

    /// The kill hotkey, as KWin's global shortcuts run it on a press (the session has no
    /// keyboard of the person's to press it on).
    pub(crate) fn press_the_hotkey(&self) {
        self.gdbus(&[
            "org.kde.kglobalaccel",
            "/component/kwin",
            "org.kde.kglobalaccel.Component.invokeShortcut",
            "shuttle-stop",
        ]);
    }

    /// A call on the session bus with gdbus: destination, object, method, then arguments.
    fn gdbus(&self, call: &[&str]) -> String {
        gdbus(&self.bus, call)
    }

    /// What a daemon started in this session has in its environment.
    fn env(&self) -> Vec<(&'static str, String)> {
        let run = self.scratch.path("run");
        vec![
            ("WAYLAND_DISPLAY", Self::SOCKET.into()),
            ("XDG_RUNTIME_DIR", run.display().to_string()),
            ("XDG_CURRENT_DESKTOP", "KDE".into()),
            ("XDG_SESSION_TYPE", "wayland".into()),
            // GTK's and Qt's own order, over the virtual desktop's X11 for the other tests.
            ("GDK_BACKEND", "wayland,x11".into()),
            ("QT_QPA_PLATFORM", "wayland".into()),
            ("DBUS_SESSION_BUS_ADDRESS", self.bus.clone()),
            ("AT_SPI_BUS_ADDRESS", self.accessibility.clone()),
            (
                "XDG_DATA_HOME",
                self.scratch.path("home/.local/share").display().to_string(),
            ),
        ]
    }
}

impl Drop for PersonsKde {
    fn drop(&mut self) {
        // The session's whole process group: the one this test started.
        let group = self.leader.id() as i32;
        // SAFETY: signals the process group whose leader is our own child.
        unsafe { libc::kill(-group, libc::SIGTERM) };
        let _ = wait_for_exit(&mut self.leader);
        // SAFETY: as above; whatever of it outlived SIGTERM.
        unsafe { libc::kill(-group, libc::SIGKILL) };
    }
}

#[test]
fn an_agent_works_in_the_persons_own_kde_session_and_the_person_stops_it_with_the_hotkey() {
    let session = PersonsKde::start();
    let (daemon, mut mcp) = session.daemon();
    let scratch = common::Scratch::new("persons-kde-apps");
    let file = |name: &str| scratch.path(name);
    let text = types_as_keys_and_clicks(&mut mcp, "pk", &file);
    let status = daemon.call("status", json!({})).json();
    assert_eq!(status["display"]["system"], "wayland", "{status}");
    assert_eq!(status["desk"]["capture"], "kwin-screenshot2", "{status}");
    assert_eq!(status["safety"]["kill_hotkey"]["grabbed"], true, "{status}");

    // The marker shows while the agent acts, then goes.
    assert!(red_in_corner(&mut mcp) > 100, "the marker after an action");
    wait_for("the marker to go", Duration::from_secs(5), || {
        (red_in_corner(&mut mcp) == 0).then_some(())
    });

    // The person's shortcut, as KWin's global shortcuts run it: the daemon stops.
    session.press_the_hotkey();
    stopped_by_the_hotkey(
        &daemon,
        &mut mcp,
        "pk entry",
        (&file("entry"), text),
        &file("bystander"),
    );
}

/// In a person's session, where KWin runs the person's own input method: "PREFIX bystander",
/// "PREFIX entry" and "PREFIX button" launched, text typed into the entry as keys of their
/// layout, and a click where accessibility places the button; answers the text.
pub(crate) fn types_as_keys_and_clicks(
    mcp: &mut Mcp,
    prefix: &str,
    file: &dyn Fn(&str) -> std::path::PathBuf,
) -> &'static str {
    let path = |name: &str| file(name).display().to_string();
    let entry = fixture("wayland_entry.py");
    let (bystander, field, button) = (
        format!("{prefix} bystander"),
        format!("{prefix} entry"),
        format!("{prefix} button"),
    );
    launch(mcp, &[entry.clone(), bystander, path("bystander")]);
    launch(mcp, &[entry.clone(), field.clone(), path("entry")]);
    launch(
        mcp,
        &[entry, button.clone(), path("clicks"), "button".into()],
    );
    let text = "Hello, World! (a_b) ~@#";
    desk(mcp, json!({"verb": "type", "window": field, "text": text}));
    until_file("the entry to hold the text", &file("entry"), |held| {
        held == text
    });
    desk(mcp, json!({"verb": "focus", "window": button}));
    clicks_the_button(mcp, &button, &file("clicks"));
    text
}

#[test]
fn after_a_daemon_is_killed_in_the_persons_kde_session_the_next_one_still_tells_new_windows() {
    let session = PersonsKde::start();
    let (mut daemon, mut mcp) = session.daemon();
    let scratch = common::Scratch::new("persons-kde-restart");
    let path = |name: &str| scratch.path(name).display().to_string();
    let entry = fixture("wayland_entry.py");
    // The first daemon loads its scripts into KWin (the window news, the hotkey), then dies
    // without unloading them.
    launch(&mut mcp, &[entry.clone(), "kr first".into(), path("first")]);
    drop(mcp);
    daemon.kill_and_restart();
    let mut agent = Mcp::start(&daemon.socket, &[]);
    agent.initialize("2025-06-18");
    desk(&mut agent, json!({"verb": "focus", "window": "kr first"}));
    // A window the agent did not open: another agent's.
    let mut other = Mcp::start(&daemon.socket, &[]);
    other.initialize("2025-06-18");
    launch(&mut other, &[entry, "kr second".into(), path("second")]);
    // The agent's next reply tells it, from the news of the new daemon's script.
    let result = agent.call("desk", json!({"verb": "focus", "window": "kr first"}));
    assert_ne!(result["isError"], true, "{result}");
    let opened = &result["structuredContent"]["windows_changed"]["opened"];
    assert!(
        opened
            .as_array()
            .is_some_and(|o| o.iter().any(|w| w["title"] == "kr second")),
        "{result}"
    );
}

#[test]
fn a_kde_session_that_does_not_grant_shuttle_input_is_refused_with_the_fix() {
    let session = PersonsKde::start_set_up(false);
    let env = session.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let daemon = common::Daemon::start_configured(Some("[daemon]\ndisplay = \"inherit\"\n"), &env);
    let windows = daemon.call("desk_windows", json!({}));
    assert!(windows.is_error, "{}", windows.text);
    assert!(
        windows.text.contains("org_kde_kwin_fake_input")
            && windows.text.contains("shuttle setup kde"),
        "{}",
        windows.text
    );
    // The daemon stays up and says the same again; nothing fell back to XWayland.
    let again = daemon.call("desk_windows", json!({}));
    assert!(again.text.contains("shuttle setup kde"), "{}", again.text);

    let out = std::process::Command::new(common::SHUTTLE)
        .args(["doctor", "--json"])
        .env("SHUTTLE_SOCKET", &daemon.socket)
        .env("SHUTTLE_CONFIG", daemon.config_path())
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "wayland")
        .unwrap_or_else(|| panic!("a wayland check in {report:#}"))
        .clone();
    assert_eq!(check["status"], "fail", "{check}");
    assert!(
        check["detail"]
            .as_str()
            .unwrap()
            .contains("no desktop file grants shuttle"),
        "{check}"
    );
    assert!(
        check["fix"].as_str().unwrap().contains("shuttle setup kde"),
        "{check}"
    );
}
