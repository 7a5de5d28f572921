//! A daemon run in-process on the fake desk, served on a socket of its own: the real wire and
//! pipeline with no display.

use std::path::PathBuf;
use std::sync::Arc;

use desk::fake::{FakeDesk, FakeWindow};
use desk_core::geometry::Rect;
use serde_json::Value;
use shuttle::config::ConfigSource;
use shuttle::serve::{Daemon, serve};

use super::{Reply, Scratch, Wire};

/// A daemon of the test's own, on a fake desktop with two windows: Notes (pid 10, app notes,
/// focused) and Vault (pid 30, app vault).
pub struct InProcess {
    runtime: tokio::runtime::Runtime,
    pub scratch: Scratch,
    pub socket: PathBuf,
    pub fake: FakeDesk,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl InProcess {
    pub fn start(safety: &str) -> Self {
        Self::start_with_plugins(safety, &[])
    }

    /// As [`InProcess::start`], with `plugins` (file name, content) in `tools.d` beside the
    /// config; the daemon starts their services.
    pub fn start_with_plugins(safety: &str, plugins: &[(&str, Value)]) -> Self {
        let scratch = Scratch::new("inprocess");
        if !plugins.is_empty() {
            std::fs::create_dir_all(scratch.path("tools.d")).unwrap();
        }
        for (file, content) in plugins {
            std::fs::write(scratch.path("tools.d").join(file), content.to_string()).unwrap();
        }
        let socket = scratch.path("desk.sock");
        let journal = scratch.path("journal.ndjson");
        let config = format!(
            "{safety}\n[journal]\npath = {:?}\n",
            journal.display().to_string()
        );
        std::fs::write(scratch.path("config.toml"), config).unwrap();
        let fake = FakeDesk::new(1000, 800);
        fake.add(
            FakeWindow::new("0x30", "Vault", 30, Rect::new(500, 100, 300, 300)),
            &["vault"],
        );
        fake.add(
            FakeWindow::new("0x10", "Notes", 10, Rect::new(100, 100, 300, 300)),
            &["notes"],
        );
        fake.focus("0x10");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        // The daemon starts its services on the runtime.
        let inside = runtime.enter();
        let daemon = Daemon::new(
            socket.clone(),
            ConfigSource::new(scratch.path("config.toml")),
            Arc::new(fake.clone()),
        );
        let listener = tokio::net::UnixListener::bind(&socket).unwrap();
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        runtime.spawn(serve(listener, daemon, None, async {
            let _ = stopped.await;
        }));
        drop(inside);
        Self {
            runtime,
            scratch,
            socket,
            fake,
            shutdown: Some(shutdown),
        }
    }

    pub fn call(&self, tool: &str, args: Value) -> Reply {
        Wire::connect(&self.socket).call(tool, args)
    }

    pub fn journal(&self) -> Vec<Value> {
        std::fs::read_to_string(self.scratch.path("journal.ndjson"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The journal's last line.
    pub fn last(&self) -> Value {
        self.journal().pop().expect("a journal line")
    }

    pub fn write_config(&self, text: &str) {
        let journal = self.scratch.path("journal.ndjson");
        let config = format!(
            "{text}\n[journal]\npath = {:?}\n",
            journal.display().to_string()
        );
        std::fs::write(self.scratch.path("config.toml"), config).unwrap();
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        let runtime = std::mem::replace(
            &mut self.runtime,
            tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap(),
        );
        runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    }
}
