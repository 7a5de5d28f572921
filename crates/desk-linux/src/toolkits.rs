//! Accessibility switched on for toolkits that keep it off unless asked, in the environment of
//! the apps `launch` starts, and recognised as off in an app already running.
//!
//! - Java's Swing and AWT reach the accessibility bus through the ATK wrapper, which Java loads
//!   only when told to (Debian ships it, off, in libatk-wrapper-java-jni); an app launched here
//!   is told to through `JAVA_TOOL_OPTIONS`, which every JVM reads and other programs ignore,
//!   so a Java app started by a shell script is reached too.
//! - GTK 2 (GIMP 2.10) loads its accessibility (gail) and the bridge to the bus (atk-bridge)
//!   only as modules `GTK_MODULES` names (Debian: libgail-common, libatk-adaptor). GTK 3 has
//!   both built in and skips those two names, and GTK 4 reads no `GTK_MODULES`, so naming them
//!   reaches GTK 2 apps and changes nothing for the rest.
//! - Qt joins the bus only while the bus says accessibility is on, and Firefox only when it
//!   sees a screen reader; each has a variable that turns it on whatever the bus says
//!   (`QT_LINUX_ACCESSIBILITY_ALWAYS_ON`, `GNOME_ACCESSIBILITY`), set unless the person set it.

use std::path::Path;

/// Where Debian puts the ATK wrapper: its classes, and its native half.
const ATK_WRAPPER_JAR: &str = "/usr/share/java/java-atk-wrapper.jar";
const ATK_WRAPPER_JNI: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu/jni/libatk-wrapper.so",
    "/usr/lib/aarch64-linux-gnu/jni/libatk-wrapper.so",
    "/usr/lib/jni/libatk-wrapper.so",
];

/// The options that load the ATK wrapper into a JVM, from its jar at `jar`.
fn java_options(jar: &str) -> String {
    format!(
        "-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper \
         -Xbootclasspath/a:{jar}"
    )
}

/// The GTK 2 modules that put an app on the accessibility bus, and where Debian puts them.
const GTK2_MODULES: &[&str] = &["gail", "atk-bridge"];
const GTK2_MODULE_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu/gtk-2.0/modules",
    "/usr/lib/aarch64-linux-gnu/gtk-2.0/modules",
    "/usr/lib/gtk-2.0/modules",
];

/// Whether GTK 2 is installed.
pub fn gtk2_installed() -> bool {
    GTK2_MODULE_DIRS.iter().any(|dir| {
        Path::new(dir)
            .parent()
            .and_then(Path::parent)
            .is_some_and(|lib| lib.join("libgtk-x11-2.0.so.0").is_file())
    })
}

/// Whether GTK 2's gail and atk-bridge modules are installed.
pub fn gtk2_modules_installed() -> bool {
    GTK2_MODULE_DIRS.iter().any(|dir| {
        GTK2_MODULES
            .iter()
            .all(|m| Path::new(dir).join(format!("lib{m}.so")).is_file())
    })
}

/// Whether process `pid` runs GTK 2 without the bridge to the accessibility bus loaded: it
/// was started without `GTK_MODULES` naming it, or the module is not installed.
pub fn gtk2_without_accessibility(pid: u32) -> bool {
    let Ok(maps) = std::fs::read_to_string(format!("/proc/{pid}/maps")) else {
        return false;
    };
    maps.contains("/libgtk-x11-2.0.so") && !maps.contains("gtk-2.0/modules/libatk-bridge.so")
}

/// Whether process `pid` runs GTK 4, which counts its accessibility positions from its window
/// on X11 as on Wayland.
pub fn runs_gtk4(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .is_ok_and(|maps| maps.contains("/libgtk-4.so"))
}

/// What a launched app's environment gets, given the daemon's value of a variable
/// (`inherited`): `JAVA_TOOL_OPTIONS` with the ATK wrapper added where it is installed and not
/// named already, `GTK_MODULES` with GTK 2's accessibility modules where they are installed,
/// and Qt's and Firefox's switches unless set. Empty where nothing is needed.
pub fn accessibility_env(inherited: impl Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    let mut env = Vec::new();
    let wrapper = Path::new(ATK_WRAPPER_JAR).is_file()
        && ATK_WRAPPER_JNI.iter().any(|p| Path::new(p).is_file());
    if wrapper && let Some(options) = with_wrapper(inherited("JAVA_TOOL_OPTIONS"), ATK_WRAPPER_JAR)
    {
        env.push(("JAVA_TOOL_OPTIONS".to_string(), options));
    }
    if gtk2_modules_installed()
        && let Some(modules) = with_gtk2_modules(inherited("GTK_MODULES"))
    {
        env.push(("GTK_MODULES".to_string(), modules));
    }
    for switch in ALWAYS_ON {
        if inherited(switch).is_none() {
            env.push((switch.to_string(), "1".to_string()));
        }
    }
    env
}

/// Qt's and Firefox's switches that keep their accessibility on whatever the bus says.
const ALWAYS_ON: &[&str] = &["QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "GNOME_ACCESSIBILITY"];

/// `GTK_MODULES` as it was (`modules`, colon-separated) with GTK 2's accessibility modules
/// added after it; `None` when it names them already.
fn with_gtk2_modules(modules: Option<String>) -> Option<String> {
    let mut named: Vec<String> = modules
        .iter()
        .flat_map(|m| m.split(':'))
        .filter(|m| !m.is_empty())
        .map(str::to_string)
        .collect();
    let before = named.len();
    for module in GTK2_MODULES {
        if !named.iter().any(|m| m == module) {
            named.push(module.to_string());
        }
    }
    (named.len() > before).then(|| named.join(":"))
}

/// `JAVA_TOOL_OPTIONS` as it was (`options`) with the wrapper added; `None` when it names the
/// wrapper already.
fn with_wrapper(options: Option<String>, jar: &str) -> Option<String> {
    match options.filter(|o| !o.trim().is_empty()) {
        Some(options) if options.contains("AtkWrapper") => None,
        Some(options) => Some(format!("{options} {}", java_options(jar))),
        None => Some(java_options(jar)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrapper_is_added_to_what_the_jvm_is_told_once() {
        let jar = "/j.jar";
        let alone = with_wrapper(None, jar).unwrap();
        assert!(alone.contains("assistive_technologies=org.GNOME.Accessibility.AtkWrapper"));
        assert!(alone.ends_with("-Xbootclasspath/a:/j.jar"));
        let kept = with_wrapper(Some("-Xmx1g".into()), jar).unwrap();
        assert!(kept.starts_with("-Xmx1g -D"), "{kept}");
        assert_eq!(with_wrapper(Some(alone.clone()), jar), None);
    }

    #[test]
    fn qt_and_firefox_are_switched_on_unless_the_person_chose() {
        let unset = accessibility_env(|_| None);
        for switch in ALWAYS_ON {
            assert!(
                unset.contains(&(switch.to_string(), "1".into())),
                "{unset:?}"
            );
        }
        let chosen = accessibility_env(|name| (name == "GNOME_ACCESSIBILITY").then(|| "0".into()));
        assert!(
            !chosen.iter().any(|(k, _)| k == "GNOME_ACCESSIBILITY"),
            "{chosen:?}"
        );
    }

    #[test]
    fn gtk2_modules_are_added_to_what_the_app_names_once() {
        assert_eq!(with_gtk2_modules(None).as_deref(), Some("gail:atk-bridge"));
        assert_eq!(
            with_gtk2_modules(Some("canberra-gtk-module".into())).as_deref(),
            Some("canberra-gtk-module:gail:atk-bridge")
        );
        assert_eq!(
            with_gtk2_modules(Some("atk-bridge".into())).as_deref(),
            Some("atk-bridge:gail")
        );
        assert_eq!(with_gtk2_modules(Some("gail:atk-bridge".into())), None);
    }
}
