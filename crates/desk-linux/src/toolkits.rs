//! Accessibility switched on for toolkits that keep it off unless asked, in the environment of
//! the apps `launch` starts. Java's Swing and AWT reach the accessibility bus through the ATK
//! wrapper, which Java loads only when told to (Debian ships it, off, in
//! libatk-wrapper-java-jni); an app launched here is told to through `JAVA_TOOL_OPTIONS`, which
//! every JVM reads and other programs ignore, so a Java app started by a shell script is
//! reached too.

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

/// What a launched app's environment gets, given the daemon's value of a variable
/// (`inherited`): `JAVA_TOOL_OPTIONS` with the ATK wrapper added where it is installed and not
/// named already. Empty where nothing is needed or nothing can be done.
pub fn accessibility_env(inherited: impl Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    let installed = Path::new(ATK_WRAPPER_JAR).is_file()
        && ATK_WRAPPER_JNI.iter().any(|p| Path::new(p).is_file());
    if !installed {
        return Vec::new();
    }
    with_wrapper(inherited("JAVA_TOOL_OPTIONS"), ATK_WRAPPER_JAR)
        .map(|options| vec![("JAVA_TOOL_OPTIONS".to_string(), options)])
        .unwrap_or_default()
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
}
