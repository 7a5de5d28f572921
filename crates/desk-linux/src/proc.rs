//! What `/proc` says about a process: the names it goes by and its parent.

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
        match parent_of(pid) {
            Some(parent) if parent > 1 => pid = parent,
            _ => return false,
        }
    }
    false
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses; the fields after its last ')' do not.
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The CPU time process `pid` has used (user and system), from `/proc/PID/stat`.
pub fn cpu_time(pid: u32) -> Option<std::time::Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // utime and stime are fields 14 and 15; the fields after the name start at field 3.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let ticks_per_s = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) })
        .ok()
        .filter(|&t| t > 0)?;
    Some(std::time::Duration::from_millis(
        (user + system) * 1000 / ticks_per_s,
    ))
}

/// Whether process `pid` runs: it exists and is not a zombie waiting to be reaped.
pub fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat[stat.rfind(')')? + 1..].trim_start().chars().next()?;
            Some(state != 'Z' && state != 'X')
        })
        .unwrap_or(false)
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
        assert!(descends_from(me, parent_of(me).unwrap()));
        assert!(!descends_from(parent_of(me).unwrap(), me));
    }
}
