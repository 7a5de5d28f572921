//! A run's news: the lines its module passes to `desk.progress`, which the runtime writes to a
//! FIFO in the run's private directory, told on to the caller as the call's progress.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use desk::Progress;
use tokio::io::AsyncReadExt;
use tokio::task::JoinHandle;

/// The FIFO's name in the run's directory.
const FIFO: &str = "progress";
/// The most bytes of one line told on; the rest of a longer line is dropped.
const LINE_MOST: usize = 1000;

/// Reads the run's news off a FIFO it makes in `dir` until aborted, telling each line to
/// `progress`. Answers the FIFO's path, for the runtime, and the reader.
pub fn listen(dir: &Path, progress: Progress) -> std::io::Result<(PathBuf, JoinHandle<()>)> {
    let path = dir.join(FIFO);
    let name = CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: mkfifo reads a NUL-terminated path and nothing else.
    if unsafe { libc::mkfifo(name.as_ptr(), 0o600) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // Opened for writing too, so that it never reads as ended while the run has it closed.
    let mut fifo = tokio::net::unix::pipe::OpenOptions::new()
        .read_write(true)
        .open_receiver(&path)?;
    let reader = tokio::spawn(async move {
        let mut line = Vec::new();
        let mut chunk = [0u8; 4096];
        while let Ok(read) = fifo.read(&mut chunk).await {
            for &byte in &chunk[..read] {
                if byte == b'\n' {
                    tell(&progress, &line);
                    line.clear();
                } else if line.len() < LINE_MOST {
                    line.push(byte);
                }
            }
        }
    });
    Ok((path, reader))
}

fn tell(progress: &Progress, line: &[u8]) {
    let text = String::from_utf8_lossy(line);
    let text = text.trim();
    if !text.is_empty() {
        progress.tell(|| text.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    #[tokio::test]
    async fn lines_written_to_the_fifo_are_told_and_long_ones_cut() {
        let dir = std::env::temp_dir().join(format!("shuttle-news-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let heard = Arc::new(Mutex::new(Vec::new()));
        let ear = heard.clone();
        let (path, reader) = listen(
            &dir,
            Progress::to(move |line| ear.lock().unwrap().push(line)),
        )
        .unwrap();
        let mut writer = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let long = "x".repeat(3000);
        writeln!(writer, "step 1 of 3: click\n\n{long}").unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while heard.lock().unwrap().len() < 2 && std::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        reader.abort();
        let heard = heard.lock().unwrap().clone();
        assert_eq!(heard.len(), 2, "an empty line is not told");
        assert_eq!(heard[0], "step 1 of 3: click");
        assert_eq!(heard[1].len(), LINE_MOST);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
