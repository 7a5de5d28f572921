//! What `/proc` says about a process: the names it goes by, its parent, group, session,
//! terminal and times.

use std::path::Path;

/// Interpreters whose scripts are the apps people mean: `fixture.py`, not `python3`.
const INTERPRETERS: [&str; 8] = [
    "python", "python3", "perl", "ruby", "node", "gjs", "bash", "sh",
];

/// The names process `pid` goes by: its executable's file name, its process name (`comm`) and,
/// for an interpreter running a script, the script's file name. Empty when the process is gone.
pub fn names_of(pid: u32) -> Vec<String> {
    let mut names = Vec::new();
    let mut push = |name: String| {
        if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    };
    if let Ok(exe) = std::fs::read_link(format!("/proc/{pid}/exe"))
        && let Some(name) = exe.file_name()
    {
        push(
            name.to_string_lossy()
                .trim_end_matches(" (deleted)")
                .to_string(),
        );
    }
    if let Ok(comm) = std::fs::read_to_string(format!("/proc/{pid}/comm")) {
        push(comm.trim_end().to_string());
    }
    if let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) {
        let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
        let base = |arg: &[u8]| {
            Path::new(&*String::from_utf8_lossy(arg))
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        if let [first, rest @ ..] = args.as_slice() {
            let program = base(first);
            let interpreted = INTERPRETERS
                .iter()
                .any(|i| program == *i || program.starts_with(&format!("{i}.")));
            if interpreted && let Some(script) = rest.iter().find(|a| !a.is_empty() && a[0] != b'-')
            {
                push(base(script));
            }
        }
    }
    names
}

/// The executable's file name, else the process name: the app a window belongs to, in one word.
pub fn exe_name(pid: u32) -> Option<String> {
    let from_exe = std::fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .and_then(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            Some(name.trim_end_matches(" (deleted)").to_string())
        });
    from_exe.or_else(|| {
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
        Some(comm.trim_end().to_string()).filter(|c| !c.is_empty())
    })
}

/// Whether process `pid` is `ancestor` or one of its descendants.
pub fn descends_from(mut pid: u32, ancestor: u32) -> bool {
    for _ in 0..64 {
        if pid == ancestor {
            return true;
        }
        match stat(pid).map(|s| s.parent) {
            Some(parent) if parent > 1 => pid = parent,
            _ => return false,
        }
    }
    false
}

/// What `/proc/PID/stat` says of a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    /// Its state: `R`, `S`, `Z` (a zombie) ...
    pub state: char,
    pub parent: u32,
    pub group: u32,
    pub session: u32,
    /// Its controlling terminal's device number; 0 when it has none.
    pub tty: u64,
    /// CPU time in user and in system mode, in clock ticks.
    pub user: u64,
    pub system: u64,
    /// When it started, in clock ticks since boot.
    pub started: u64,
}

/// Parses a `/proc/PID/stat` line. The command name (field 2) may hold spaces and parentheses,
/// so fields are counted from its last `)`: state (3), parent, group, session, terminal (7),
/// ..., utime (14), stime (15), ..., start time (22).
pub fn parse_stat(line: &str) -> Option<Stat> {
    let fields: Vec<&str> = line[line.rfind(')')? + 1..].split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3).copied();
    Some(Stat {
        state: field(3)?.chars().next()?,
        parent: field(4)?.parse().ok()?,
        group: field(5)?.parse().ok()?,
        session: field(6)?.parse().ok()?,
        // Printed as a signed int; the device number's bits are what count.
        tty: u64::from(field(7)?.parse::<i32>().ok()? as u32),
        user: field(14)?.parse().ok()?,
        system: field(15)?.parse().ok()?,
        started: field(22)?.parse().ok()?,
    })
}

/// What `/proc/PID/stat` says of process `pid`; `None` when it is gone.
pub fn stat(pid: u32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The CPU time process `pid` has used (user and system), from `/proc/PID/stat`.
pub fn cpu_time(pid: u32) -> Option<std::time::Duration> {
    let stat = stat(pid)?;
    // SAFETY: sysconf only reads a configuration value.
    let ticks_per_s = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) })
        .ok()
        .filter(|&t| t > 0)?;
    Some(std::time::Duration::from_millis(
        (stat.user + stat.system) * 1000 / ticks_per_s,
    ))
}

/// Whether process `pid` runs: it exists and is not a zombie waiting to be reaped.
pub fn running(pid: u32) -> bool {
    stat(pid).is_some_and(|s| s.state != 'Z' && s.state != 'X')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_named_and_a_gone_one_is_not() {
        let me = names_of(std::process::id());
        assert!(!me.is_empty());
        assert!(names_of(u32::MAX).is_empty());
        assert!(exe_name(std::process::id()).is_some());
        assert_eq!(exe_name(u32::MAX), None);
    }

    #[test]
    fn descent_follows_parents() {
        let me = std::process::id();
        assert!(descends_from(me, me));
        let parent = stat(me).unwrap().parent;
        assert!(descends_from(me, parent));
        assert!(!descends_from(parent, me));
    }

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let line = "42 (a (b) c) S 7 42 40 34816 -1 4194560 1 0 0 0 15 4 0 0 20 0 1 0 12345 0 0";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                state: 'S',
                parent: 7,
                group: 42,
                session: 40,
                tty: 34816,
                user: 15,
                system: 4,
                started: 12345
            })
        );
    }
}
