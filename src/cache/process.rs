//! Who this process is, and whether another one is still running: what the cache lock records
//! and checks. No process API beyond `std` and, on Unix, one `libc` call (already a dependency).

/// This machine's name, as far as it can be told ("unknown host" otherwise).
pub fn host_name() -> String {
    let name = system_host_name()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty());
    name.unwrap_or_else(|| "unknown host".to_string())
}

#[cfg(unix)]
fn system_host_name() -> Option<String> {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes at most that many bytes.
    let ok = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) } == 0;
    let end = buffer.iter().position(|&b| b == 0)?;
    ok.then(|| String::from_utf8_lossy(&buffer[..end]).into_owned())
}

#[cfg(not(unix))]
fn system_host_name() -> Option<String> {
    None
}

/// When process `pid` started, in clock ticks since boot (field 22 of `/proc/<pid>/stat`).
/// With the pid, it names one process for good: a pid reused after a crash has another start
/// time. `None` where there is no `/proc` (macOS, Windows) or the process does not exist.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat_fields(&stat)?.nth(19)?.parse().ok()
}

/// The fields of a `/proc/<pid>/stat` line after the command name, from field 3 (the state)
/// on. The name is in parentheses and may itself hold spaces and parentheses, hence the
/// last `)`.
fn stat_fields(stat: &str) -> Option<std::str::SplitWhitespace<'_>> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    Some(after_name.split_whitespace())
}

/// Is the process `pid` on this machine, started at `started` (if recorded), still running?
/// Errs on the side of "running": a live bake's lock must never be taken over, while a
/// stale lock wrongly thought live only asks the user to remove it.
pub fn is_running(pid: u32, started: Option<u64>) -> bool {
    if std::path::Path::new("/proc/self/stat").exists() {
        // Linux: /proc tells existence, zombies (killed but not yet reaped: not running) and
        // the start time that tells a reused pid apart.
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        let mut fields = match stat_fields(&stat) {
            Some(fields) => fields,
            None => return true,
        };
        if matches!(fields.next(), Some("Z" | "X")) {
            return false;
        }
        return match (started, fields.nth(18).and_then(|s| s.parse::<u64>().ok())) {
            (Some(recorded), Some(now)) => recorded == now,
            _ => true,
        };
    }
    signal_zero_says_running(pid)
}

/// Other Unix (macOS, the BSDs): `kill(pid, 0)` checks existence without sending anything;
/// EPERM means the process exists but belongs to someone else. No start time to check there.
#[cfg(unix)]
fn signal_zero_says_running(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    // SAFETY: signal 0 only checks whether the process exists and may be signalled.
    if unsafe { libc::kill(pid, 0) } == 0 {
        return true;
    }
    std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Elsewhere (Windows) there is no check without a new dependency: a lock is taken as live,
/// and the message tells the user which file to delete if its bake is gone.
#[cfg(not(unix))]
fn signal_zero_says_running(_pid: u32) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_runs_and_a_made_up_one_does_not() {
        let me = std::process::id();
        assert!(is_running(me, start_time(me)));
        // Pids above the kernel's maximum (4194304 at most on Linux) never exist.
        assert!(!is_running(99_999_999, None));
        if let Some(started) = start_time(me) {
            assert!(!is_running(me, Some(started + 1)), "a reused pid is not us");
        }
    }

    #[test]
    fn stat_fields_skip_a_name_with_spaces_and_parentheses() {
        let line = "42 (a (weird) name) S 1 42 42 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 777 0";
        let mut fields = stat_fields(line).unwrap();
        assert_eq!(fields.next(), Some("S"));
        assert_eq!(fields.nth(18), Some("777"));
    }

    #[test]
    fn host_name_is_never_empty() {
        assert!(!host_name().is_empty());
    }
}
