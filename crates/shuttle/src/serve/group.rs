//! Process groups: how the daemon ends a run or a service with everything it started.

/// Sends `signal` to every process of `group`.
pub fn signal(group: i32, signal: i32) {
    // SAFETY: kill(2) with a negative pid signals a process group; it touches no memory.
    unsafe {
        libc::kill(-group, signal);
    }
}

/// Whether `group` still has a process (a zombie counts until it is reaped).
pub fn alive(group: i32) -> bool {
    // SAFETY: signal 0 only checks that the group has a process we may signal.
    unsafe { libc::kill(-group, 0) == 0 }
}

/// How often [`end`] looks whether the group is gone.
const POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// Ends `child` and its `group`: SIGTERM, then SIGKILL to what is left once `grace` has passed
/// or `hurry` resolves (whichever is first), then reaps the child. Returns early when the
/// group is gone.
pub async fn end(
    group: i32,
    child: &mut tokio::process::Child,
    grace: std::time::Duration,
    hurry: impl std::future::Future<Output = ()>,
) {
    signal(group, libc::SIGTERM);
    let kill_at = tokio::time::Instant::now() + grace;
    tokio::pin!(hurry);
    loop {
        // Reap the child itself, so its zombie does not count as the group still running.
        let _ = child.try_wait();
        if !alive(group) {
            break;
        }
        tokio::select! {
            () = tokio::time::sleep_until(kill_at) => break,
            () = &mut hurry => break,
            () = tokio::time::sleep(POLL) => {}
        }
    }
    signal(group, libc::SIGKILL);
    let _ = child.wait().await;
}
