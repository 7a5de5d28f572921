//! A private GNOME seat: a headless GNOME Shell with shuttle's extension, driven natively
//! through `shuttle mcp` as an agent would. A Shell takes seconds to start, so one seat serves
//! the whole scenario. Each action is judged by the app's own state (what the fixture writes,
//! whether its process ended), with a bystander window that must get nothing.

use crate::common;
use crate::private_display::seats;

use std::path::Path;
use std::time::Duration;

use common::{Mcp, result_png, result_text, wait_for};
use serde_json::{Value, json};

pub(crate) fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixture")
        .join(name)
        .display()
        .to_string()
}

pub(crate) fn read(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap_or_default()
}

/// Waits until `file` holds what `done` wants; fails showing what it holds.
pub(crate) fn until_file(what: &str, file: &Path, done: impl Fn(&str) -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !done(&read(file)) {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}: {} holds {:?}",
            file.display(),
            read(file)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub(crate) fn desk(mcp: &mut Mcp, args: Value) -> Value {
    common::desk_tool(mcp, args.clone()).unwrap_or_else(|text| panic!("{args}: {text}"))
}

/// Launches `args` (a fixture on python3) on the agent's seat; answers its window.
pub(crate) fn launch(mcp: &mut Mcp, args: &[String]) -> Value {
    let launched = desk(
        mcp,
        json!({"verb": "launch", "app": "/usr/bin/python3", "args": args}),
    );
    launched["window"].clone()
}

/// The centre of the first node named `name` of role `role` in window `title`.
pub(crate) fn centre(mcp: &mut Mcp, title: &str, name: &str, role: &str) -> (i64, i64) {
    let found = desk(
        mcp,
        json!({"verb": "find", "window": title, "name": name, "role": role}),
    );
    let bounds = &found["nodes"][0]["bounds"];
    let at = |i: usize| {
        bounds[i]
            .as_i64()
            .unwrap_or_else(|| panic!("bounds in {found}"))
    };
    (at(0) + at(2) / 2, at(1) + at(3) / 2)
}

/// A click where accessibility places the button of window `button` (named as it is), judged
/// by the line the fixture appends to `clicks`.
pub(crate) fn clicks_the_button(mcp: &mut Mcp, button: &str, clicks: &Path) {
    // Raised first, as a person would: GNOME 48 opens each window at the screen's centre, over
    // the last one, and a click lands on the window on top (its reply names that window).
    desk(mcp, json!({"verb": "focus", "window": button}));
    let (x, y) = centre(mcp, button, button, "button");
    desk(mcp, json!({"verb": "click", "x": x, "y": y}));
    until_file("the click to land", clicks, |held| held == "clicked\n");
}

/// The Qt form saved with its Save button, found by accessibility: `saved` must then start
/// with what its name field was given.
pub(crate) fn saves_the_qt_form(mcp: &mut Mcp, saved: &Path, name: &str) {
    let save = desk(
        mcp,
        json!({"verb": "find", "window": "Qt form", "name": "Save", "role": "button"}),
    );
    desk(mcp, json!({"verb": "press", "id": save["nodes"][0]["id"]}));
    until_file("the Qt form to save what it holds", saved, |held| {
        held.starts_with(&format!("saved | {name} |"))
    });
}

#[test]
fn an_agent_works_native_gtk_and_qt_apps_on_a_gnome_seat_and_the_seat_ends_with_the_daemon() {
    works_native_apps_on_a_gnome_seat(None);
}

/// The seat's scenario, on the GNOME Shell first on PATH, or on the one in the tree whose
/// wrappers are in `newer` (scripts/gnome48.sh), checked to run from there.
pub(crate) fn works_native_apps_on_a_gnome_seat(newer: Option<&str>) {
    let config = "[daemon]\ndisplay = \"per-agent\"\nprivate_seat = \"gnome\"\n";
    let path = newer.map(crate::trixie::path_first);
    let env: Vec<(&str, &str)> = path.iter().map(|p| ("PATH", p.as_str())).collect();
    let mut daemon = common::Daemon::start_configured(Some(config), &env);
    let scratch = daemon.shared_scratch("gnome");
    let file = |name: &str| scratch.path(name);
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let entry = fixture("wayland_entry.py");
    let path = |name: &str| file(name).display().to_string();

    let bystander = launch(
        &mut mcp,
        &[entry.clone(), "gn bystander".into(), path("bystander")],
    );
    let gtk3 = launch(&mut mcp, &[entry.clone(), "gn entry".into(), path("gtk3")]);
    let gtk4 = launch(
        &mut mcp,
        &[fixture("gtk4_entry.py"), "gn gtk4".into(), path("gtk4")],
    );
    let button = launch(
        &mut mcp,
        &[
            entry.clone(),
            "gn button".into(),
            path("clicks"),
            "button".into(),
        ],
    );
    let wheel = launch(
        &mut mcp,
        &[
            entry.clone(),
            "gn wheel".into(),
            path("wheel"),
            "scroll".into(),
        ],
    );
    let qt = launch(&mut mcp, &[fixture("qt_form.py"), path("qt")]);
    let status = daemon.call("status", json!({})).json();
    assert_eq!(status["display"]["seats"], "gnome", "{status}");
    if let Some(bin) = newer {
        let seats = seats(&daemon);
        assert_eq!(seats.len(), 1, "{seats:?}");
        crate::trixie::runs_from(bin, seats.into_values().next().unwrap().1);
    }

    // The list holds each window the apps opened, by the pid the app has.
    let windows = desk(&mut mcp, json!({"verb": "windows"}));
    for window in [&bystander, &gtk3, &gtk4, &button, &wheel, &qt] {
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

    // Exact Unicode into GTK 3 and GTK 4, whatever the keyboard layout holds.
    for (title, text, out) in [
        ("gn entry", "Ålpha ✓ ünïcödé 一二三 😀", "gtk3"),
        ("gn gtk4", "βeta → ñ 四五六", "gtk4"),
    ] {
        desk(
            &mut mcp,
            json!({"verb": "type", "window": title, "text": text}),
        );
        until_file("the app to hold the text", &file(out), |held| held == text);
    }

    // The clipboard: what GTK 3 copies is read back, and what is written (text, an image,
    // files) it pastes.
    crate::clipboard::both_ways(
        &mut mcp,
        "gn entry",
        &file("gtk3"),
        "Ålpha ✓ ünïcödé 一二三 😀",
    );

    // Qt 5 takes no text from GNOME's input method: plain text goes as keys, and what the
    // layout lacks is refused with nothing sent.
    desk(
        &mut mcp,
        json!({"verb": "type", "window": "Qt form", "text": "Ann"}),
    );
    let refused = mcp.call(
        "desk",
        json!({"verb": "type", "window": "Qt form", "text": "é"}),
    );
    let said = result_text(&refused);
    assert_eq!(refused["isError"], true, "{said}");
    assert!(said.contains("cannot be typed here"), "{said}");
    assert!(said.contains("nothing was sent"), "{said}");
    saves_the_qt_form(&mut mcp, &file("qt"), "Ann");

    firefox_native_on_wayland(&mut mcp, &scratch);
    saves_from_gnome_text_editor(&mut mcp, &scratch);

    // A click where accessibility says the button is.
    clicks_the_button(&mut mcp, "gn button", &file("clicks"));

    // A window's own pixels, as large as the window.
    let shot = mcp.call("desk", json!({"verb": "shot", "window": "gn button"}));
    let (width, height, _) = result_png(&shot);
    assert!(width > 50 && height > 20, "{width}x{height}");

    // The vision verbs: the button is an element, and a click on it lands.
    let state = result_text(&mcp.call("computer", json!({"verb": "computer_state"})));
    let index = common::element_index(&state, "button \"gn button\"");
    let clicked = mcp.call(
        "computer",
        json!({"verb": "computer_act", "action": "click", "element": index}),
    );
    assert_ne!(clicked["isError"], true, "{}", result_text(&clicked));
    until_file("the second click to land", &file("clicks"), |held| {
        held == "clicked\nclicked\n"
    });

    // The wheel, on the window under the pointer (raised first, like the button).
    desk(&mut mcp, json!({"verb": "focus", "window": "gn wheel"}));
    let (x, y) = centre(&mut mcp, "gn wheel", "gn wheel", "frame");
    desk(
        &mut mcp,
        json!({"verb": "scroll", "direction": "down", "amount": 2, "x": x, "y": y}),
    );
    until_file("two notches down", &file("wheel"), |held| {
        held == "down\ndown\n"
    });

    // Closing a window ends its app.
    let pid = wheel["pid"].as_i64().unwrap();
    desk(&mut mcp, json!({"verb": "close", "window": "gn wheel"}));
    wait_for("the closed app to exit", Duration::from_secs(5), || {
        (!common::alive(pid)).then_some(())
    });

    assert_eq!(read(&file("bystander")), "", "the bystander got input");
    // Nothing of the seat reached the person's X display.
    assert!(!common::window_list().contains("gn entry"));

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

/// GNOME Text Editor (GTK 4) saves what was typed into it through its Save As dialog, typed
/// into as soon as it is listed: GNOME lists a window before it shows, and the focus waits for
/// it to. Judged by the file on disk.
fn saves_from_gnome_text_editor(mcp: &mut Mcp, scratch: &common::Scratch) {
    let launched = desk(mcp, json!({"verb": "launch", "app": "gnome-text-editor"}));
    let editor = &launched["window"]["id"];
    let text = "Grüße ✓ 東京\nzweite Zeile";
    desk(mcp, json!({"verb": "type", "window": editor, "text": text}));
    desk(
        mcp,
        json!({"verb": "key", "window": editor, "keys": "ctrl+s"}),
    );
    wait_for(
        "the Save As dialog to be listed",
        Duration::from_secs(10),
        || {
            let windows = desk(mcp, json!({"verb": "windows"}));
            windows
                .as_array()?
                .iter()
                .any(|w| w["title"] == "Save As")
                .then_some(())
        },
    );
    // The editor offers a name with its stem selected: the path typed takes the stem's place.
    let stem = scratch.path("note-ü");
    desk(
        mcp,
        json!({"verb": "type", "window": "Save As", "text": stem.display().to_string()}),
    );
    desk(
        mcp,
        json!({"verb": "key", "window": "Save As", "keys": "Return"}),
    );
    let saved = scratch.path("note-ü.txt");
    // The editor ends a file with a newline of its own.
    until_file("the editor to save its text", &saved, |held| {
        held == format!("{text}\n")
    });
    // Left open: a quit right after a save is sometimes answered with "Save Changes?" though
    // the text and the file agree (seen on GNOME 48's seat), and the seat ends with the test.
}

/// Firefox native on Wayland: the page's name field clicked and typed into in exact Unicode, its Save
/// button clicked where accessibility places it (positions counted from the window, moved by
/// its frame), judged by the page's own text read through pyatspi on the seat's bus.
fn firefox_native_on_wayland(mcp: &mut Mcp, scratch: &common::Scratch) {
    let profile = scratch.path("firefox");
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::copy(fixture("web/firefox-user.js"), profile.join("user.js")).unwrap();
    let page = format!("file://{}", fixture("web/form.html"));
    let launched = desk(
        mcp,
        json!({"verb": "launch", "app": "firefox-esr",
               "args": ["--new-instance", "--profile", profile, page]}),
    );
    let title = "Shuttle form";
    let name = wait_for(
        "the form in Firefox's tree",
        Duration::from_secs(30),
        || {
            let found = common::desk_tool(
                mcp,
                json!({"verb": "find", "window": title, "name": "Full name", "role": "entry"}),
            )
            .ok()?;
            found["nodes"].get(0).cloned()
        },
    );
    // A Firefox on X11 would be XWayland's: this one draws on the seat's Wayland socket.
    let environ = std::fs::read(format!("/proc/{}/environ", launched["pid"])).unwrap_or_default();
    let env = |key: &str| {
        environ
            .split(|&b| b == 0)
            .filter_map(|kv| std::str::from_utf8(kv).ok())
            .find_map(|kv| kv.strip_prefix(&format!("{key}=")).map(str::to_string))
    };
    assert_eq!(env("DISPLAY"), None, "Firefox was given an X display");
    let text = "Zoë ✓ 東京";
    desk(mcp, json!({"verb": "press", "id": name["id"]}));
    desk(mcp, json!({"verb": "type", "window": title, "text": text}));
    let (x, y) = centre(mcp, title, "Save", "button");
    desk(mcp, json!({"verb": "click", "x": x, "y": y}));
    let bus = env("AT_SPI_BUS_ADDRESS").expect("the seat's accessibility bus");
    // The page's text as Firefox lays it out: the empty date's blanks are one.
    let expected = format!("saved | {text} | no news | Red | 30 | | 20");
    wait_for(
        "the page to say what it saved",
        Duration::from_secs(10),
        || {
            let out = std::process::Command::new("/usr/bin/python3")
                .arg(fixture("atspi_pid_probe.py"))
                .arg(launched["pid"].to_string())
                .env("AT_SPI_BUS_ADDRESS", &bus)
                .output()
                .ok()?;
            let nodes: Value = serde_json::from_slice(&out.stdout).ok()?;
            nodes
                .as_array()?
                .iter()
                .any(|n| n["role"] == "paragraph" && n["text"] == expected.as_str())
                .then_some(())
        },
    );
    desk(mcp, json!({"verb": "close", "window": title}));
    let pid = launched["pid"].as_i64().unwrap();
    wait_for("Firefox to exit", Duration::from_secs(10), || {
        (!common::alive(pid)).then_some(())
    });
}

/// A person's GNOME session on Wayland, as a login would start it: headless GNOME Shell with a
/// session bus, the AT-SPI bus and PipeWire, and shuttle's extension installed beforehand by
/// `shuttle setup gnome`. It leads a process group of its own, which is ended when dropped.
pub(crate) struct PersonsGnome {
    scratch: common::Scratch,
    leader: std::process::Child,
    bus: String,
    accessibility: String,
}

impl PersonsGnome {
    const SOCKET: &str = "person-gnome";

    /// A session whose person ran `shuttle setup gnome` before logging in, of the GNOME Shell
    /// first on PATH, or of the one whose wrappers are in `newer` (scripts/gnome48.sh).
    pub(crate) fn start(newer: Option<&str>) -> Self {
        Self::start_set_up(true, newer)
    }

    /// A session with shuttle's extension installed (`set_up`) or not.
    fn start_set_up(set_up: bool, newer: Option<&str>) -> Self {
        use std::os::unix::process::CommandExt;
        let scratch = common::Scratch::new("persons-gnome");
        let (home, run) = (scratch.path("home"), scratch.path("run"));
        std::fs::create_dir_all(&run).unwrap();
        std::fs::set_permissions(&run, std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .unwrap();
        let mut session_env = vec![
            ("HOME", home.clone()),
            ("XDG_CONFIG_HOME", home.join(".config")),
            ("XDG_DATA_HOME", home.join(".local/share")),
            ("XDG_CACHE_HOME", home.join(".cache")),
            ("XDG_RUNTIME_DIR", run.clone()),
        ];
        if let Some(bin) = newer {
            session_env.push(("PATH", crate::trixie::path_first(bin).into()));
        }
        // The person installs the extension, then logs in.
        if set_up {
            let setup = std::process::Command::new(common::SHUTTLE)
                .args(["setup", "gnome"])
                .envs(session_env.iter().map(|(k, v)| (k, v)))
                .env("GSETTINGS_BACKEND", "keyfile")
                .output()
                .unwrap();
            assert!(setup.status.success(), "{setup:?}");
            let installed = home.join(".local/share/gnome-shell/extensions/desk@shuttle");
            assert!(installed.join("extension.js").is_file());
        }

        let system_bus = run.join("system_bus");
        std::fs::write(
            scratch.path("system.conf"),
            format!(
                "<busconfig><type>system</type><listen>unix:path={}</listen>\
                 <auth>EXTERNAL</auth><policy context=\"default\"><allow user=\"*\"/>\
                 <allow send_destination=\"*\"/><allow receive_sender=\"*\"/>\
                 <allow own=\"*\"/></policy></busconfig>",
                system_bus.display()
            ),
        )
        .unwrap();
        // Without logind, GNOME Shell starts only where /run/systemd/seats is not seen.
        let hide_systemd = if Path::new("/run/systemd/seats").exists() {
            "bwrap --dev-bind / / --tmpfs /run/systemd"
        } else {
            ""
        };
        let script = format!(
            "dbus-daemon --config-file='{conf}' --nofork --nopidfile & \
             while [ ! -S '{system}' ]; do sleep 0.05; done; \
             exec {hide_systemd} dbus-run-session -- sh -c 'echo \"$DBUS_SESSION_BUS_ADDRESS\" \
             > \"{bus}.new\"; mv \"{bus}.new\" \"{bus}\"; \
             /usr/libexec/at-spi-bus-launcher --launch-immediately & pipewire & \
             exec gnome-shell --headless --wayland --no-x11 --virtual-monitor 1280x800 \
             --wayland-display {socket}'",
            conf = scratch.path("system.conf").display(),
            system = system_bus.display(),
            bus = scratch.path("bus").display(),
            socket = Self::SOCKET,
        );
        let log = std::fs::File::create(scratch.path("gnome-shell.log")).unwrap();
        let leader = std::process::Command::new("sh")
            .args(["-c", &script])
            .envs(session_env.iter().map(|(k, v)| (k, v)))
            .env("GSETTINGS_BACKEND", "keyfile")
            .env("XDG_SESSION_TYPE", "wayland")
            .env("XDG_CURRENT_DESKTOP", "GNOME")
            .env(
                "DBUS_SYSTEM_BUS_ADDRESS",
                format!("unix:path={}", system_bus.display()),
            )
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .env_remove("AT_SPI_BUS_ADDRESS")
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
        let owned = |name: &str| {
            session
                .gdbus(&[
                    "org.freedesktop.DBus",
                    "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.NameHasOwner",
                    name,
                ])
                .contains("true")
        };
        // With the extension, until it serves; without, until Mutter does.
        let ready = if set_up {
            "dev.shuttle.Gnome"
        } else {
            "org.gnome.Mutter.RemoteDesktop"
        };
        wait_for("GNOME Shell to serve", Duration::from_secs(20), || {
            owned(ready).then_some(())
        });
        let address = session.gdbus(&["org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus.GetAddress"]);
        session.accessibility = address
            .trim()
            .trim_start_matches("('")
            .trim_end_matches("',)")
            .to_string();
        session
    }

    /// A call on the session bus with gdbus: destination, object, method, then arguments.
    fn gdbus(&self, call: &[&str]) -> String {
        gdbus(&self.bus, call)
    }

    /// What a daemon started in this session has in its environment.
    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "WAYLAND_DISPLAY",
                self.scratch
                    .path("run")
                    .join(Self::SOCKET)
                    .display()
                    .to_string(),
            ),
            (
                "XDG_RUNTIME_DIR",
                self.scratch.path("run").display().to_string(),
            ),
            ("XDG_CURRENT_DESKTOP", "GNOME".into()),
            ("XDG_SESSION_TYPE", "wayland".into()),
            // GTK's own order, over the virtual desktop's X11 for the other tests.
            ("GDK_BACKEND", "wayland,x11".into()),
            // Qt native on Wayland, as Qt 6 is by default (Qt 5 where the person's
            // distribution says so), with the title bar Qt draws itself on GNOME.
            ("QT_QPA_PLATFORM", "wayland".into()),
            ("DBUS_SESSION_BUS_ADDRESS", self.bus.clone()),
            ("AT_SPI_BUS_ADDRESS", self.accessibility.clone()),
        ]
    }

    /// The person presses `keysyms` together on a keyboard of their own (a RemoteDesktop
    /// session of a separate client), then lets go.
    fn press(&self, keysyms: &[u32]) {
        let script = format!(
            "import time\n\
             from gi.repository import Gio, GLib\n\
             bus = Gio.DBusConnection.new_for_address_sync('{bus}', \
             Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | \
             Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)\n\
             R = 'org.gnome.Mutter.RemoteDesktop'\n\
             def call(path, iface, method, args, reply=None):\n\
             \x20   return bus.call_sync(R, path, iface, method, args, \
             GLib.VariantType(reply) if reply else None, 0, -1, None)\n\
             session = call('/org/gnome/Mutter/RemoteDesktop', R, 'CreateSession', None, '(o)')[0]\n\
             call(session, R + '.Session', 'Start', None)\n\
             time.sleep(0.3)\n\
             def key(k, down):\n\
             \x20   call(session, R + '.Session', 'NotifyKeyboardKeysym', GLib.Variant('(ub)', (k, down)))\n\
             key(0xffe1, True); key(0xffe1, False); time.sleep(0.2)\n\
             keys = {keysyms:?}\n\
             for k in keys: key(k, True)\n\
             for k in reversed(keys): key(k, False)\n\
             time.sleep(0.3)\n",
            bus = self.bus,
        );
        let out = std::process::Command::new("/usr/bin/python3")
            .args(["-c", &script])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
}

impl Drop for PersonsGnome {
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

/// A call on the session bus at `bus` with gdbus: destination, object, method, then arguments.
pub(crate) fn gdbus(bus: &str, call: &[&str]) -> String {
    let out = std::process::Command::new("gdbus")
        .args([
            "call",
            "--address",
            bus,
            "--dest",
            call[0],
            "--object-path",
            call[1],
            "--method",
            call[2],
        ])
        .args(&call[3..])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn wait_for_exit(child: &mut std::process::Child) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while std::time::Instant::now() < deadline {
        if child.try_wait().ok().flatten().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// After the person pressed the kill hotkey: the daemon stops, the next input to `window` is
/// refused, `field` still holds `text`, and the bystander's log is empty.
pub(crate) fn stopped_by_the_hotkey(
    daemon: &common::Daemon,
    mcp: &mut Mcp,
    window: &str,
    (field, text): (&Path, &str),
    bystander: &Path,
) {
    wait_for("the daemon to stop", Duration::from_secs(5), || {
        (daemon.call("status", json!({})).json()["stopped"] == true).then_some(())
    });
    let refused = mcp.call(
        "desk",
        json!({"verb": "type", "window": window, "text": "x"}),
    );
    assert_eq!(refused["isError"], true, "{}", result_text(&refused));
    assert_eq!(read(field), text, "nothing typed after the stop");
    assert_eq!(read(bystander), "", "the bystander got input");
}

/// How many pixels of the marker's red the top right corner of a 1280-wide screen shows.
pub(crate) fn red_in_corner(mcp: &mut Mcp) -> usize {
    let (_, _, pixels) = result_png(&mcp.call(
        "desk",
        json!({"verb": "shot", "x": 1280 - 40, "y": 0, "w": 40, "h": 40}),
    ));
    pixels
        .chunks(3)
        .filter(|p| p[0] > 200 && p[1] < 60 && p[2] < 60)
        .count()
}

#[test]
fn an_agent_works_in_the_persons_own_gnome_session_and_the_person_stops_it_with_the_hotkey() {
    works_in_the_persons_gnome_session(None);
}

/// The person's-session scenario, on the GNOME Shell first on PATH or on the one whose
/// wrappers are in `newer`, checked to run from there.
pub(crate) fn works_in_the_persons_gnome_session(newer: Option<&str>) {
    let session = PersonsGnome::start(newer);
    if let Some(bin) = newer {
        crate::trixie::runs_from(bin, i64::from(session.leader.id()));
    }
    let env = session.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let daemon = common::Daemon::start_configured(Some("[daemon]\ndisplay = \"inherit\"\n"), &env);
    let scratch = common::Scratch::new("persons-gnome-apps");
    let file = |name: &str| scratch.path(name);
    let path = |name: &str| file(name).display().to_string();
    let mut mcp = Mcp::start(&daemon.socket, &[]);
    mcp.initialize("2025-06-18");
    let entry = fixture("wayland_entry.py");

    launch(
        &mut mcp,
        &[entry.clone(), "pg bystander".into(), path("bystander")],
    );
    launch(
        &mut mcp,
        &[fixture("gtk4_entry.py"), "pg gtk4".into(), path("gtk4")],
    );
    launch(
        &mut mcp,
        &[
            entry.clone(),
            "pg button".into(),
            path("clicks"),
            "button".into(),
        ],
    );
    let status = daemon.call("status", json!({})).json();
    assert_eq!(status["display"]["system"], "wayland", "{status}");
    assert_eq!(status["safety"]["kill_hotkey"]["grabbed"], true, "{status}");
    // Shots come from the screen-cast stream, over the session's PipeWire: the marker's red
    // below is read from it, so its colours are in the right order.
    assert_eq!(status["desk"]["capture"], "pipewire", "{status}");

    // Into a window that opened under the overview GNOME shows after login.
    let text = "Grüße ✓ 日本";
    desk(
        &mut mcp,
        json!({"verb": "type", "window": "pg gtk4", "text": text}),
    );
    until_file("the GTK 4 entry to hold the text", &file("gtk4"), |held| {
        held == text
    });

    clicks_the_button(&mut mcp, "pg button", &file("clicks"));

    // A Qt app that draws its own title bar counts its positions from below it: a click where
    // accessibility places its Save button lands there.
    launch(&mut mcp, &[fixture("qt_form.py"), path("qt")]);
    desk(
        &mut mcp,
        json!({"verb": "type", "window": "Qt form", "text": "Ann"}),
    );
    desk(&mut mcp, json!({"verb": "focus", "window": "Qt form"}));
    let (x, y) = centre(&mut mcp, "Qt form", "Save", "button");
    desk(&mut mcp, json!({"verb": "click", "x": x, "y": y}));
    until_file("the Qt form to save what it holds", &file("qt"), |held| {
        held.starts_with("saved | Ann |")
    });

    // The marker shows while the agent acts, then goes.
    assert!(red_in_corner(&mut mcp) > 100, "the marker after an action");
    wait_for("the marker to go", Duration::from_secs(5), || {
        (red_in_corner(&mut mcp) == 0).then_some(())
    });

    // The person presses the kill hotkey on their own keyboard: the daemon stops.
    // Super, Alt, Escape.
    session.press(&[0xffeb, 0xffe9, 0xff1b]);
    stopped_by_the_hotkey(
        &daemon,
        &mut mcp,
        "pg gtk4",
        (&file("gtk4"), text),
        &file("bystander"),
    );
}

#[test]
fn a_gnome_session_without_shuttle_s_extension_is_refused_with_the_fix() {
    let session = PersonsGnome::start_set_up(false, None);
    let env = session.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let daemon = common::Daemon::start_configured(Some("[daemon]\ndisplay = \"inherit\"\n"), &env);
    let windows = daemon.call("desk_windows", json!({}));
    assert!(windows.is_error, "{}", windows.text);
    assert!(
        windows.text.contains("extension") && windows.text.contains("shuttle setup gnome"),
        "{}",
        windows.text
    );
    // The daemon stays up and says the same again; nothing fell back to XWayland.
    let again = daemon.call("desk_windows", json!({}));
    assert!(again.text.contains("shuttle setup gnome"), "{}", again.text);

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
        check["fix"]
            .as_str()
            .unwrap()
            .contains("shuttle setup gnome"),
        "{check}"
    );
}
