//! Medians of the desk's window list and output capture, in one connection, and a PNG of the
//! last capture: `measure RUNS OUT.png`. scripts/bench_wayland.sh runs it beside swaymsg and grim.

use std::time::Instant;

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
        .map(|_| time(&mut || shot = Some(session.capture_output().unwrap())))
        .collect();
    let png: Vec<f64> = (0..runs)
        .map(|_| time(&mut || drop(shot.as_ref().unwrap().to_png())))
        .collect();
    std::fs::write(&out, shot.unwrap().to_png()).unwrap();
    println!("windows_ms {:.2}", median(list));
    println!("capture_ms {:.2}", median(capture));
    println!("png_ms {:.2}", median(png));
}
