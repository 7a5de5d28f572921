//! The person's desktop: the display, the accessibility bus, and whether the toolkits (GTK,
//! Qt, Chromium, Java) put their apps on it.

use std::path::{Path, PathBuf};

use super::{CALL_LIMIT, Check, Context, Repair, Status};
use crate::config::{DisplayMode, InputSetting};
use crate::platform::probe::{self, BusProbe};
use crate::platform::{Level, PER_AGENT_FIX};

const ENABLE_COMMAND: &str =
    "busctl --user set-property org.a11y.Bus /org/a11y/bus org.a11y.Status IsEnabled b true";

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The person's display: needed under `inherit`; otherwise only `shuttle watch` shows agents'
/// displays on it.
pub(super) fn display(c: &Context) -> Check {
    let native = crate::platform::PersonsSession::from_env().native();
    let needed = c.mode == DisplayMode::Inherit && !native;
    let not_needed = if native && c.mode == DisplayMode::Inherit {
        "the Wayland session is driven natively (the wayland check)"
    } else {
        "agents get displays of their own"
    };
    let wayland = env("WAYLAND_DISPLAY");
    let Some(name) = env("DISPLAY") else {
        return match (needed, wayland) {
            (false, _) => Check::new(
                "display",
                Status::Skip,
                format!("no DISPLAY here; none needed: {not_needed}"),
            ),
            (true, Some(w)) => Check::new(
                "display",
                Status::Fail,
                format!("Wayland ({w}) without X: shuttle drives X11, and XWayland is not running"),
            )
            .fix(format!(
                "turn XWayland on in your compositor (sway: `xwayland enable`), {PER_AGENT_FIX}"
            )),
            (true, None) => Check::new(
                "display",
                Status::Fail,
                "DISPLAY is not set: the daemon drives the display it starts with (inherit)",
            )
            .fix(format!(
                "start shuttle from your desktop session, {PER_AGENT_FIX}"
            )),
        };
    };
    let found = match probe::display(&name) {
        Ok(found) => found,
        Err(e) if needed => {
            return Check::new("display", Status::Fail, e.to_string()).fix(format!(
                "start shuttle from your desktop session, {PER_AGENT_FIX}"
            ));
        }
        Err(e) => {
            return Check::new(
                "display",
                Status::Skip,
                format!("{e}; none needed: {not_needed}"),
            );
        }
    };
    let mut detail = format!(
        "X11 {name} ({}, {}x{}",
        found.vendor, found.width, found.height
    );
    if let Some(wm) = &found.window_manager {
        detail += &format!(", window manager {wm}");
    }
    detail += ")";
    if wayland.is_some() {
        detail += " through XWayland";
    }
    if !needed {
        return Check::ok("display", format!("{detail}; not driven: {not_needed}"));
    }
    let mut check = Check::ok("display", detail);
    let mut lacks = Vec::new();
    if !found.xtest {
        check.status = Status::Fail;
        lacks.push("no XTest extension, so no input can be sent");
    }
    if !found.shm {
        if check.status == Status::Ok {
            check.status = Status::Warn;
        }
        lacks.push("no MIT-SHM, so captures are slower");
    }
    if found.window_manager.is_none() {
        if check.status == Status::Ok {
            check.status = Status::Warn;
        }
        lacks.push("no EWMH window manager, so windows cannot be raised or closed its way");
    }
    let input = c.config.daemon.input;
    if input != InputSetting::Foreground {
        if found.xinput2 {
            check.detail += &format!(
                "; input = \"{}\": agents type and scroll from seats of their own (XInput 2.2)",
                input.name()
            );
        } else {
            if check.status == Status::Ok {
                check.status = Status::Warn;
            }
            lacks.push(match input {
                InputSetting::Auto => {
                    "no XInput 2.2, so input = \"auto\" sends keys, typing and the wheel in \
                     the foreground"
                }
                _ => "no XInput 2.2, so input = \"background\" refuses keys, typing and the wheel",
            });
        }
    }
    if wayland.is_some() {
        if check.status == Status::Ok {
            check.status = Status::Warn;
        }
        // Said whatever else is lacking: on a Wayland session it is what matters most.
        lacks.push(
            "apps drawing to Wayland directly are out of reach (not listed, shot or driven; see \
             docs/wayland.md); start them with GDK_BACKEND=x11 or QT_QPA_PLATFORM=xcb, or let \
             agents use displays of their own (display = \"per-agent\")",
        );
    }
    if !lacks.is_empty() {
        check.detail += &format!("; {}", lacks.join("; "));
    }
    check
}

/// A Wayland session, when there is one: how it stands for the desk that drives it natively,
/// as its backend reports it.
pub(super) fn wayland(c: &Context) -> Option<Check> {
    let inherit = c.mode == DisplayMode::Inherit;
    let finding =
        crate::platform::PersonsSession::from_env().finding(inherit, c.config.daemon.input)?;
    let status = match finding.level {
        Level::Ok => Status::Ok,
        Level::Warn => Status::Warn,
        Level::Fail => Status::Fail,
        Level::Skip => Status::Skip,
    };
    let check = Check::new("wayland", status, finding.detail);
    Some(match finding.fix {
        Some(fix) => check.fix(fix),
        None => check,
    })
}

/// The accessibility bus, then one check per toolkit.
pub(super) fn accessibility(c: &Context) -> Vec<Check> {
    let needed = c.mode == DisplayMode::Inherit;
    let bus = probe::accessibility(CALL_LIMIT);
    let mut checks = vec![bus_check(&bus, needed)];
    let bus = bus.ok();
    let apps_of = |toolkits: &[&str]| -> Vec<String> {
        bus.iter()
            .flat_map(|b| &b.apps)
            .filter(|a| toolkits.iter().any(|t| a.toolkit.eq_ignore_ascii_case(t)))
            .map(|a| a.name.clone())
            .collect()
    };
    let enabled = bus.as_ref().and_then(|b| b.enabled);
    checks.push(gtk(needed, &apps_of(&["GTK", "gtk"])));
    checks.push(qt(needed, enabled, &apps_of(&["Qt"])));
    checks.push(chromium(&apps_of(&["Chromium", "Chrome"])));
    checks.push(java());
    checks
}

fn bus_check(bus: &Result<BusProbe, desk::DeskError>, needed: bool) -> Check {
    let name = "accessibility bus";
    let own = "each agent's display has a bus of its own";
    let bus = match bus {
        Ok(bus) => bus,
        Err(e) if needed => {
            return Check::new(name, Status::Fail, e.to_string()).fix(
                "install at-spi2-core (sudo apt install at-spi2-core) and log in again, or set \
                 AT_SPI_BUS_ADDRESS",
            );
        }
        Err(e) => {
            return Check::new(name, Status::Skip, format!("the person's: {e}; {own}"));
        }
    };
    let mut detail = format!(
        "{} ({}), {} app{} on it",
        bus.address,
        if bus.from_env {
            "AT_SPI_BUS_ADDRESS"
        } else {
            "from org.a11y.Bus"
        },
        bus.apps.len() + bus.unasked,
        if bus.apps.len() + bus.unasked == 1 {
            ""
        } else {
            "s"
        }
    );
    if !needed {
        return Check::ok(name, format!("the person's: {detail}; {own}"));
    }
    match bus.enabled {
        Some(false) => {
            detail += "; accessibility is off (IsEnabled false): Qt and Chromium apps started now \
                       stay off the bus; the daemon turns it on when it first reads the desktop, not \
                       when it starts";
            Check::new(name, Status::Warn, detail)
                .fix(ENABLE_COMMAND)
                .repair(Repair::EnableAccessibility)
        }
        _ => Check::ok(name, detail),
    }
}

fn listed(apps: &[String]) -> String {
    match apps.len() {
        0 => String::new(),
        n if n <= 4 => format!("; on the bus now: {}", apps.join(", ")),
        n => format!(
            "; on the bus now: {} and {} more",
            apps[..3].join(", "),
            n - 3
        ),
    }
}

fn gtk(needed: bool, apps: &[String]) -> Check {
    let check = gtk3_and_4(needed, apps);
    if !probe::gtk2_installed() {
        return check;
    }
    if probe::gtk2_modules_installed() {
        let detail = format!(
            "{}; GTK 2 apps (GIMP 2.10) join when launch starts them, loading gail and atk-bridge",
            check.detail
        );
        return Check { detail, ..check };
    }
    let detail = format!(
        "{}; GTK 2 is installed without its accessibility modules, so GTK 2 apps (GIMP 2.10) \
         stay off the bus",
        check.detail
    );
    let status = match check.status {
        Status::Ok => Status::Warn,
        other => other,
    };
    let fix = check
        .fix
        .clone()
        .unwrap_or_else(|| "sudo apt install libgail-common libatk-adaptor".into());
    Check {
        detail,
        status,
        ..check
    }
    .fix(fix)
}

fn gtk3_and_4(needed: bool, apps: &[String]) -> Check {
    if !needed {
        return Check::ok("gtk", "agents' displays set what GTK 3 and 4 need");
    }
    if env("NO_AT_BRIDGE").as_deref() == Some("1") {
        return Check::new(
            "gtk",
            Status::Warn,
            "NO_AT_BRIDGE=1 is set: GTK 3 apps started from this environment stay off the bus",
        )
        .fix("unset NO_AT_BRIDGE where your session sets it (~/.profile, ~/.xsessionrc)");
    }
    if env("GTK_A11Y").as_deref() == Some("none") {
        return Check::new(
            "gtk",
            Status::Warn,
            "GTK_A11Y=none is set: GTK 4 apps started from this environment stay off the bus",
        )
        .fix("unset GTK_A11Y where your session sets it");
    }
    Check::ok(
        "gtk",
        format!(
            "GTK 3 and 4 apps join the bus by themselves{}",
            listed(apps)
        ),
    )
}

fn qt(needed: bool, enabled: Option<bool>, apps: &[String]) -> Check {
    if !needed {
        return Check::ok(
            "qt",
            "agents' displays turn accessibility on, which Qt reads",
        );
    }
    if env("QT_LINUX_ACCESSIBILITY_ALWAYS_ON").as_deref() == Some("1") {
        return Check::ok(
            "qt",
            format!(
                "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1: Qt apps join the bus{}",
                listed(apps)
            ),
        );
    }
    match enabled {
        Some(false) => Check::new(
            "qt",
            Status::Warn,
            "Qt apps join only while accessibility is on (IsEnabled), and it is off",
        )
        .fix(ENABLE_COMMAND)
        .repair(Repair::EnableAccessibility),
        Some(true) => Check::ok(
            "qt",
            format!(
                "Qt 5 and 6 apps join while accessibility is on, which it is{}",
                listed(apps)
            ),
        ),
        None => Check::ok(
            "qt",
            format!(
                "Qt 5 and 6 apps join while accessibility is on; the session has no \
                 org.a11y.Bus to say whether it is{}",
                listed(apps)
            ),
        ),
    }
}

/// The first of `names` on PATH.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

fn chromium(apps: &[String]) -> Check {
    const BROWSERS: &[&str] = &[
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
        "brave-browser",
        "microsoft-edge",
    ];
    match on_path(BROWSERS) {
        None => Check::new(
            "chromium",
            Status::Skip,
            "no Chromium-based browser on PATH",
        ),
        Some(browser) => Check::ok(
            "chromium",
            format!(
                "{}: launch adds --force-renderer-accessibility; one you start yourself shows \
                 its pages only when started with it{}",
                browser.display(),
                listed(apps)
            ),
        ),
    }
}

/// Java apps reach the bus through the ATK wrapper, which Debian ships apart and Java loads only
/// when `accessibility.properties` or `JAVA_TOOL_OPTIONS` names it (launch adds the latter).
fn java() -> Check {
    let Some(java) = on_path(&["java"]) else {
        return Check::new("java", Status::Skip, "no Java on PATH");
    };
    let wrapper = Path::new("/usr/share/java/java-atk-wrapper.jar").exists();
    if !wrapper {
        return Check::new(
            "java",
            Status::Warn,
            format!(
                "{}: the ATK wrapper is not installed, so Java apps stay off the bus",
                java.display()
            ),
        )
        .fix("sudo apt install libatk-wrapper-java-jni");
    }
    let named_in = |text: &str| {
        text.lines().any(|l| {
            let l = l.trim();
            l.starts_with("assistive_technologies") && l.contains("AtkWrapper")
        })
    };
    let properties: Vec<PathBuf> = std::fs::read_dir("/etc")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("accessibility.properties"))
        .filter(|p| p.is_file())
        .collect();
    let on = properties
        .iter()
        .any(|p| std::fs::read_to_string(p).is_ok_and(|t| named_in(&t)))
        || env("JAVA_TOOL_OPTIONS").is_some_and(|o| o.contains("AtkWrapper"));
    if on {
        Check::ok("java", "the ATK wrapper is installed and turned on")
    } else {
        let file = properties
            .first()
            .map_or("/etc/java-*/accessibility.properties".into(), |p| {
                p.display().to_string()
            });
        Check::new(
            "java",
            Status::Warn,
            "the ATK wrapper is installed; launch turns it on for the Java apps it starts, but one \
             started otherwise stays off the bus",
        )
        .fix(format!(
            "uncomment assistive_technologies=org.GNOME.Accessibility.AtkWrapper in {file}"
        ))
    }
}
