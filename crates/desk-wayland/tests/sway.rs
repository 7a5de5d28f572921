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

/// A foot terminal on sway, stopped (by pid) when dropped.
struct Terminal(Child);

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

#[test]
fn an_output_capture_is_the_outputs_size_and_shows_a_window() {
    let session = session();
    let blank = session.capture_output().unwrap();
    assert_eq!((blank.width, blank.height), (1920, 1080));
    assert_eq!(blank.pixels.len(), 1920 * 1080 * 3);
    let _terminal = Terminal::start("desk-wayland capture");
    // foot paints its whole window dark: the output changes where it shows.
    wait_for("the terminal on the screen", || {
        let shot = session.capture_output().unwrap();
        Some(()).filter(|_| shot.pixels != blank.pixels)
    });
}
