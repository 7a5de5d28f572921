//! Against the virtual desktop's headless sway (scripts/desktop.sh: `SHUTTLE_RIG_WAYLAND` is
//! its socket, `SHUTTLE_RIG_SWAYSOCK` its IPC): what the desk reads agrees with what sway's own
//! IPC says, with a foot terminal of the test's own open.
#![cfg(feature = "e2e")]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use desk_wayland::Session;

fn rig(name: &str) -> String {
    std::env::var(name)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| {
            panic!(
                "{name} is not set: run the tests inside scripts/desktop.sh, with sway installed"
            )
        })
}

fn session() -> Session {
    Session::connect_to(&PathBuf::from(rig("SHUTTLE_RIG_WAYLAND")))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// An app of the test's own on sway, stopped (by pid) when dropped.
struct Terminal(Child);

impl Terminal {
    /// The GTK 3 entry window of `tests/fixture/wayland_entry.py`, native on Wayland, writing
    /// its text to `file` as it changes.
    fn entry(title: &str, file: &std::path::Path) -> Self {
        Self::gtk(title, file, &[])
    }

    /// The same script's window of one button, adding a line to `file` for each click.
    fn button(title: &str, file: &std::path::Path) -> Self {
        Self::gtk(title, file, &["button"])
    }

    fn gtk(title: &str, file: &std::path::Path, mode: &[&str]) -> Self {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixture/wayland_entry.py");
        let child = Command::new("/usr/bin/python3")
            .arg(script)
            .args([title, file.to_str().unwrap()])
            .args(mode)
            .env("GDK_BACKEND", "wayland")
            .env("WAYLAND_DISPLAY", rig("SHUTTLE_RIG_WAYLAND"))
            .env("XDG_RUNTIME_DIR", std::env::temp_dir())
            .env_remove("DISPLAY")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 with GTK 3 starts: run scripts/deps.sh");
        Self(child)
    }
}

impl Terminal {
    fn start(title: &str) -> Self {
        let runtime = std::env::temp_dir();
        let child = Command::new("foot")
            .args(["--title", title, "sleep", "60"])
            .env("WAYLAND_DISPLAY", rig("SHUTTLE_RIG_WAYLAND"))
            .env("XDG_RUNTIME_DIR", runtime)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("foot starts: run scripts/deps.sh");
        Self(child)
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The rectangle (x, y, width, height) sway gives the window titled `title`.
fn sway_rect(title: &str) -> Option<[u32; 4]> {
    let out = Command::new("swaymsg")
        .args(["-s", &rig("SHUTTLE_RIG_SWAYSOCK"), "-t", "get_tree", "-r"])
        .output()
        .expect("swaymsg runs");
    let tree: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a tree");
    let mut stack = vec![tree];
    while let Some(node) = stack.pop() {
        if node["name"] == title && node["pid"].is_number() {
            let rect = &node["rect"];
            return Some(["x", "y", "width", "height"].map(|k| rect[k].as_u64().unwrap() as u32));
        }
        for key in ["nodes", "floating_nodes"] {
            stack.extend(node[key].as_array().cloned().unwrap_or_default());
        }
    }
    None
}

fn sway_windows() -> Vec<(String, String)> {
    let out = Command::new("swaymsg")
        .args(["-s", &rig("SHUTTLE_RIG_SWAYSOCK"), "-t", "get_tree", "-r"])
        .output()
        .expect("swaymsg runs");
    let tree: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a tree");
    let mut found = Vec::new();
    let mut stack = vec![tree];
    while let Some(node) = stack.pop() {
        if node["pid"].is_number() {
            found.push((
                node["name"].as_str().unwrap_or_default().to_string(),
                node["app_id"].as_str().unwrap_or_default().to_string(),
            ));
        }
        for key in ["nodes", "floating_nodes"] {
            stack.extend(node[key].as_array().cloned().unwrap_or_default());
        }
    }
    found.sort();
    found
}

/// Waits until `check` answers something, at most ten seconds.
fn wait_for<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(found) = check() {
            return found;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_toplevels_are_the_windows_sway_lists_and_a_closed_one_goes() {
    let session = session();
    let terminal = Terminal::start("desk-wayland list");
    let listed = || -> Vec<(String, String)> {
        let mut ours: Vec<(String, String)> = session
            .toplevels()
            .unwrap()
            .into_iter()
            .map(|t| (t.title, t.app_id))
            .collect();
        ours.sort();
        ours
    };
    let mine = ("desk-wayland list".to_string(), "foot".to_string());
    let ours = wait_for("the terminal's toplevel", || {
        Some(listed()).filter(|ours| ours.contains(&mine))
    });
    assert_eq!(ours, sway_windows());
    let activated = session.toplevels().unwrap();
    assert!(
        activated.iter().any(|t| t.title == mine.0 && t.activated),
        "{activated:?}"
    );
    drop(terminal);
    wait_for("the toplevel to go", || {
        (!listed().contains(&mine)).then_some(())
    });
}

/// The pixels of the rig's one output.
fn the_output(session: &Session) -> desk::image::RgbImage {
    let mut copies = session.capture_outputs(|_| true).unwrap();
    assert_eq!(copies.len(), 1, "the rig has one output");
    copies.remove(0).image
}

#[test]
fn an_output_capture_is_the_outputs_size_and_shows_a_window() {
    let session = session();
    let blank = the_output(&session);
    assert_eq!((blank.width, blank.height), (1920, 1080));
    assert_eq!(blank.pixels.len(), 1920 * 1080 * 3);
    let _terminal = Terminal::start("desk-wayland capture");
    // foot paints its whole window dark: the output changes where it shows.
    wait_for("the terminal on the screen", || {
        let shot = the_output(&session);
        Some(()).filter(|_| shot.pixels != blank.pixels)
    });
}

#[test]
fn typed_text_and_a_shortcut_land_in_the_focused_native_window_and_nowhere_else() {
    let session = session();
    let dir = std::env::temp_dir().join(format!("desk-wayland-typing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (aside, typed) = (dir.join("bystander.txt"), dir.join("typed.txt"));
    // Made first and kept, as the desk will: the seat has a keyboard before the apps start.
    let mut keyboard = session.keyboard().unwrap();
    let _bystander = Terminal::entry("desk-wayland bystander", &aside);
    wait_for("the bystander's window", || {
        session
            .toplevels()
            .unwrap()
            .into_iter()
            .find(|t| t.title == "desk-wayland bystander" && t.activated)
    });
    // sway gives the newest window the focus.
    let _target = Terminal::entry("desk-wayland typing", &typed);
    wait_for("the target's window to have the focus", || {
        session
            .toplevels()
            .unwrap()
            .into_iter()
            .find(|t| t.title == "desk-wayland typing" && t.activated)
    });
    // Layout keys, accents, symbols, CJK, an emoji beyond the BMP.
    let text = "Hello, wörld! ✓ 日本語 😀 #42";
    keyboard.type_text(text).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(&typed).unwrap() != text && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(std::fs::read_to_string(&typed).unwrap(), text);
    // A shortcut acts as one: ctrl+a selects it all, and what is typed next replaces it.
    let select_all = desk::keys::parse_combo("ctrl+a").unwrap();
    keyboard.press_keys(&select_all.keysyms).unwrap();
    keyboard.type_text("X").unwrap();
    wait_for("the text replaced", || {
        (std::fs::read_to_string(&typed).ok()? == "X").then_some(())
    });
    assert_eq!(
        std::fs::read_to_string(&aside).unwrap(),
        "",
        "the bystander got nothing"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_click_lands_in_the_window_at_that_point_and_nowhere_else() {
    let session = session();
    let dir = std::env::temp_dir().join(format!("desk-wayland-click-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (aside, clicked) = (dir.join("bystander.txt"), dir.join("clicked.txt"));
    // Made first and kept, as the desk will: the seat has a pointer before the apps start.
    let mut pointer = session.pointer().unwrap();

    let _bystander = Terminal::button("desk-wayland click bystander", &aside);
    wait_for("the bystander", || {
        sway_rect("desk-wayland click bystander")
    });
    let _target = Terminal::button("desk-wayland click target", &clicked);
    // sway tiles the two side by side once the second maps.
    let [x, y, w, h] = wait_for("the target beside the bystander", || {
        sway_rect("desk-wayland click target").filter(|r| r[2] < 1920)
    });
    // sway lays the windows out in a transaction that ends when both have drawn at their new
    // sizes; its tree tells the layout before that. Clicked once the screen is still, as an
    // agent clicks what it has seen.
    let mut last = the_output(&session);
    wait_for("the screen to be still", || {
        std::thread::sleep(Duration::from_millis(50));
        let now = the_output(&session);
        let still = now.pixels == last.pixels;
        last = now;
        still.then_some(())
    });
    pointer.click(x + w / 2, y + h / 2, (1920, 1080)).unwrap();
    wait_for("the click in the target", || {
        (std::fs::read_to_string(&clicked).ok()? == "clicked\n").then_some(())
    });
    assert_eq!(
        std::fs::read_to_string(&aside).unwrap(),
        "",
        "the bystander got nothing"
    );
    assert!(
        pointer.click(1920, 10, (1920, 1080)).is_err(),
        "outside the output"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
