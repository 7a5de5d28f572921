//! Medians of the desk's window list, output capture and typing, in one connection, and a PNG
//! of the last capture: `measure RUNS OUT.png TEXT ENTRY_SCRIPT`. Typing goes into the GTK 3
//! entry window of ENTRY_SCRIPT (tests/fixture/wayland_entry.py), started here once the virtual
//! keyboard exists, and is judged by what the entry then holds. scripts/bench_wayland.sh runs it
//! beside swaymsg, grim and wtype.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use desk_wayland::Session;

fn median(mut ms: Vec<f64>) -> f64 {
    ms.sort_by(f64::total_cmp);
    ms[ms.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(20);
    let out = args
        .next()
        .unwrap_or_else(|| "/tmp/wayland-shot.png".into());
    let session = Session::connect().unwrap_or_else(|e| panic!("{e}"));
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64() * 1000.0
    };
    let list: Vec<f64> = (0..runs)
        .map(|_| time(&mut || drop(session.toplevels().unwrap())))
        .collect();
    let mut shot = None;
    let capture: Vec<f64> = (0..runs)
        .map(|_| {
            time(&mut || {
                shot = Some(session.capture_outputs(|_| true).unwrap().remove(0).image);
            })
        })
        .collect();
    let png: Vec<f64> = (0..runs)
        .map(|_| time(&mut || drop(shot.as_ref().unwrap().to_png())))
        .collect();
    std::fs::write(&out, shot.unwrap().to_png()).unwrap();
    println!("windows_ms {:.2}", median(list));
    println!("capture_ms {:.2}", median(capture));
    println!("png_ms {:.2}", median(png));

    let (Some(text), Some(script)) = (args.next(), args.next()) else {
        return;
    };
    let mut keyboard = session.keyboard().unwrap_or_else(|e| panic!("{e}"));
    let held = std::env::temp_dir().join(format!("measure-typing-{}", std::process::id()));
    let mut entry = Command::new("/usr/bin/python3")
        .args([&script, "measure typing", held.to_str().unwrap()])
        .env("GDK_BACKEND", "wayland")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !session
        .toplevels()
        .unwrap()
        .iter()
        .any(|t| t.title == "measure typing" && t.activated)
    {
        assert!(Instant::now() < deadline, "the entry window did not show");
        std::thread::sleep(Duration::from_millis(20));
    }
    let typing: Vec<f64> = (0..runs)
        .map(|_| time(&mut || keyboard.type_text(&text).unwrap()))
        .collect();
    let expected = text.repeat(runs);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut holds = String::new();
    while Instant::now() < deadline {
        holds = std::fs::read_to_string(&held).unwrap_or_default();
        if holds == expected {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = entry.kill();
    let _ = entry.wait();
    let _ = std::fs::remove_file(&held);
    println!("typing_ms {:.2}", median(typing));
    println!("typing_exact {}", holds == expected);
}
