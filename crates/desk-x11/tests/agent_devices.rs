//! The agent's own devices on the virtual desktop's X display (scripts/desktop.sh): keys from it
//! reach a GTK 3 window in the background, while the person's focus (a bystander window),
//! pointer and stacking stay as they were. (No clicks: openbox's click-to-focus grab answers
//! the agent pointer's press too, and focuses and raises the window; see docs/background.md.)
#![cfg(feature = "e2e")]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use desk_x11::agent_devices::AgentDevices;

fn display() -> String {
    std::env::var("DISPLAY").expect("DISPLAY: run the tests inside scripts/desktop.sh")
}

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

fn xdotool(args: &[&str]) -> String {
    let out = Command::new("xdotool")
        .args(args)
        .output()
        .expect("xdotool runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A GTK 3 window of `tests/fixture/wayland_entry.py` on X11, ended (by pid) when dropped.
struct Gtk(Child, u32);

impl Gtk {
    fn start(title: &str, file: &Path, mode: &[&str]) -> Self {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixture/wayland_entry.py");
        let child = Command::new("/usr/bin/python3")
            .arg(script)
            .args([title, file.to_str().unwrap()])
            .args(mode)
            .env("GDK_BACKEND", "x11")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 with GTK 3 starts");
        let id = wait_for("the window", || {
            xdotool(&["search", "--name", &format!("^{title}$")])
                .lines()
                .next()
                .and_then(|l| l.parse().ok())
        });
        Self(child, id)
    }
}

impl Drop for Gtk {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shuttle-seat-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap_or_default()
}

/// The keycode that gives `letter` unshifted, from the core keyboard map.
fn keycode(letter: char) -> u8 {
    let out = Command::new("xmodmap")
        .arg("-pke")
        .output()
        .expect("xmodmap runs");
    let map = String::from_utf8_lossy(&out.stdout).to_string();
    map.lines()
        .find_map(|line| {
            let (code, syms) = line.strip_prefix("keycode")?.split_once('=')?;
            (syms.split_whitespace().next()? == letter.to_string())
                .then(|| code.trim().parse().ok())?
        })
        .unwrap_or_else(|| panic!("no key for {letter}"))
}

#[test]
fn keys_from_the_agent_devices_reach_a_background_window_and_the_person_keeps_focus_and_pointer() {
    let dir = scratch("type");
    let (field, bystander_file) = (dir.join("field"), dir.join("bystander"));
    let target = Gtk::start("seat target", &field, &[]);
    let bystander = Gtk::start("seat bystander", &bystander_file, &[]);
    xdotool(&["windowactivate", "--sync", &bystander.1.to_string()]);
    xdotool(&["mousemove", "7", "9"]);
    let person_pointer = xdotool(&["getmouselocation"]);
    let stacking = || xdotool(&["search", "--onlyvisible", "--name", "^seat "]);
    let stacked = stacking();

    let devices = AgentDevices::create(&display()).expect("an agent's devices");
    devices.focus(target.1).unwrap();
    for letter in "hello".chars() {
        let code = keycode(letter);
        devices.key(code, true).unwrap();
        devices.key(code, false).unwrap();
    }
    devices.sync().unwrap();
    wait_for("the text in the background window", || {
        (read(&field) == "hello").then_some(())
    });

    // The agent's pointer moves on its own; the person's stays.
    devices.move_to(700, 500).unwrap();
    devices.sync().unwrap();
    assert_eq!(devices.pointer_at().unwrap(), (700, 500));

    assert_eq!(read(&bystander_file), "", "the bystander got keys");
    // The person's keyboard focus (the core one); openbox, which is not MPX-aware, may still
    // mark the agent's window active (_NET_ACTIVE_WINDOW) when it sees its focus change.
    assert_eq!(
        xdotool(&["getwindowfocus"]),
        bystander.1.to_string(),
        "the person's focus moved"
    );
    assert_eq!(
        xdotool(&["getmouselocation"]),
        person_pointer,
        "the person's pointer moved"
    );
    assert_eq!(stacking(), stacked, "the stacking changed");
    drop(devices);
    drop(target);
    let _ = std::fs::remove_dir_all(dir);
}
