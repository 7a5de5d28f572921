//! A run's news: the lines its module passes to `desk.progress`, which the runtime writes to a
//! FIFO in the run's private directory, told on to the caller as the call's progress, quoted
//! as the script's words (`⟪"…"⟫`): they may hold any app's text.

use std::ffi::CString;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use desk::Progress;
use desk_core::app_text::Quoted;
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe::Receiver;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The FIFO's name in the run's directory.
const FIFO: &str = "progress";
/// The most characters of one line told on (the runtime sends no more); the rest is dropped.
const LINE_MOST: usize = 400;
/// The most bytes of one line read: [`LINE_MOST`] characters of four bytes.
const LINE_BYTES: usize = LINE_MOST * 4;

/// Reads a run's news off its FIFO until [`Listening::end`].
pub struct Listening {
    /// The FIFO's path, for the runtime.
    pub path: PathBuf,
    ended: oneshot::Sender<()>,
    reader: JoinHandle<()>,
}

impl Listening {
    /// Tells what the run wrote before it ended, then stops reading.
    pub async fn end(self) {
        let _ = self.ended.send(());
        let _ = self.reader.await;
    }
}

/// Makes a FIFO in `dir` and reads the run's news off it, telling each line to `progress`.
pub fn listen(dir: &Path, progress: Progress) -> std::io::Result<Listening> {
    let path = dir.join(FIFO);
    let name = CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: mkfifo reads a NUL-terminated path and nothing else.
    if unsafe { libc::mkfifo(name.as_ptr(), 0o600) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // Opened for writing too, so that it never reads as ended while the run has it closed.
    let fifo = tokio::net::unix::pipe::OpenOptions::new()
        .read_write(true)
        .open_receiver(&path)?;
    let (ended, end) = oneshot::channel();
    let reader = tokio::spawn(read(fifo, progress, end));
    Ok(Listening {
        path,
        ended,
        reader,
    })
}

async fn read(mut fifo: Receiver, progress: Progress, mut end: oneshot::Receiver<()>) {
    let mut lines = Lines::default();
    let mut chunk = [0u8; 4096];
    loop {
        tokio::select! {
            read = fifo.read(&mut chunk) => match read {
                Ok(read) => lines.take(&chunk[..read], &progress),
                Err(_) => return,
            },
            _ = &mut end => break,
        }
    }
    // The run has ended: what it wrote last may still be in the FIFO. It is read straight off
    // the descriptor, which is non-blocking, as tokio may not have seen it become readable.
    loop {
        // SAFETY: read(2) writes at most `chunk.len()` bytes into `chunk`.
        let read = unsafe { libc::read(fifo.as_raw_fd(), chunk.as_mut_ptr().cast(), chunk.len()) };
        let Ok(read @ 1..) = usize::try_from(read) else {
            break;
        };
        lines.take(&chunk[..read], &progress);
    }
}

/// Bytes read so far of the line not yet ended.
#[derive(Default)]
struct Lines {
    line: Vec<u8>,
}

impl Lines {
    fn take(&mut self, bytes: &[u8], progress: &Progress) {
        for &byte in bytes {
            if byte == b'\n' {
                tell(progress, &self.line);
                self.line.clear();
            } else if self.line.len() < LINE_BYTES {
                self.line.push(byte);
            }
        }
    }
}

fn tell(progress: &Progress, line: &[u8]) {
    let text = String::from_utf8_lossy(line);
    let text: String = text.trim().chars().take(LINE_MOST).collect();
    if !text.is_empty() {
        progress.tell(|| Quoted(&text).to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    #[tokio::test]
    async fn lines_are_told_quoted_long_ones_cut_and_the_last_ones_read_at_the_end() {
        let dir = std::env::temp_dir().join(format!("shuttle-news-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let heard = Arc::new(Mutex::new(Vec::new()));
        let ear = heard.clone();
        let listening = listen(
            &dir,
            Progress::to(move |line| ear.lock().unwrap().push(line)),
        )
        .unwrap();
        let mut writer = std::fs::OpenOptions::new()
            .write(true)
            .open(&listening.path)
            .unwrap();
        let long = "字".repeat(900);
        writeln!(writer, "step 1 of 3: click\n\n{long}\nlast\u{1b}[31m").unwrap();
        drop(writer);
        listening.end().await;
        let heard = heard.lock().unwrap().clone();
        assert_eq!(heard.len(), 3, "an empty line is not told: {heard:?}");
        assert_eq!(heard[0], "⟪\"step 1 of 3: click\"⟫");
        assert_eq!(
            heard[1].chars().filter(|&c| c == '字').count(),
            400,
            "{}",
            heard[1]
        );
        assert_eq!(
            heard[2], "⟪\"last\\u{1b}[31m\"⟫",
            "control characters escaped"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
