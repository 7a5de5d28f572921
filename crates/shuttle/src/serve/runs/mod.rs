//! `script_run`, `gui_plan` and the tool plugins: one module run by Node (or a plugin's program)
//! with the desk API, reported as `{result, logs, stderr, exit_code?, duration_ms, error?}`.
//! `gui_plan` is the runtime's plan executor (`gui_plan.mts`) run with the plan as its params;
//! it answers the plan's result rather than the report.
//!
//! - `program`: finding Node, and the runtime it runs.
//! - `process`: the run's process group, its output and how it is ended.
//! - `news`: what the module tells of its progress (`desk.progress`), passed on to the caller.
//!
//! A run owns the desk from start to end: it holds the desk turn, and only calls carrying its
//! name (`SHUTTLE_AGENT`, which the runtime sends as agent_id) act meanwhile.

mod news;
mod process;
mod program;

use std::collections::BTreeSet;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use desk::Done;
use desk_core::call::Kind;
use desk_core::call::script::{GUI_PLAN, ScriptRun, Source};
use desk_core::outcome::{Control, Outcome};
use desk_core::wire::Request;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::daemon::Daemon;
use super::ended::Ended;
use super::stop::STOPPED;
use crate::config::{self, Config};
use crate::plugins::ToolPlugin;
use desk_core::results::script::{ErrorKind, Report, RunError};
use process::{Ending, Launch};

impl Daemon {
    /// Runs `script_run`, or the tool plugin `plugin`, for `request`.
    pub(super) async fn run_call(
        &self,
        request: &Request,
        plugin: Option<&ToolPlugin>,
        config: Arc<Config>,
        progress: desk::Progress,
    ) -> Ended {
        if !config.tools.script_run {
            return Ended::not_run(
                Kind::Run,
                Outcome::refused_by(
                    Control::Config,
                    format!(
                        "refused: scripts are turned off ([tools] script_run = false in {}), \
                         and with them every plugin tool",
                        self.config.path().display()
                    ),
                ),
            );
        }
        let plan = request.tool == GUI_PLAN;
        let parsed = if plan {
            ScriptRun::plan(request.args.clone())
        } else {
            ScriptRun::parse(&request.tool, request.args.clone())
        };
        let run = match parsed {
            Ok(run) => run,
            Err(reason) => return Ended::failed(Kind::Run, reason),
        };
        let program = match plugin {
            Some(plugin) => Ok(plugin.bin.clone()),
            None => program::node(),
        };
        let prepared = program.and_then(|program| {
            let entry = program::entry(self.socket_dir())?;
            Ok((program, entry))
        });
        let (program, entry) = match prepared {
            Ok(found) => found,
            Err(reason) => return Ended::failed(Kind::Run, format!("{}: {reason}", request.tool)),
        };
        let cancel = desk::Cancel::default();
        let _running = match self.stop.register(&cancel) {
            Ok(running) => running,
            Err(stopped) => {
                return Ended::not_run(Kind::Run, Outcome::refused_by(Control::Stop, stopped));
            }
        };
        let number = self.runs.fetch_add(1, Ordering::Relaxed) + 1;
        let name = match request.agent_id.as_str() {
            "" => format!("run-{number}"),
            agent => format!("{agent}/run-{number}"),
        };
        let seat = tokio::select! {
            found = self.seats.seat_for(&request.agent_id) => match found {
                Ok(seat) => seat,
                Err(reason) => return Ended::failed(Kind::Run, format!("{}: {reason}", request.tool)),
            },
            () = self.stop.stopped() => {
                return Ended::not_run(Kind::Run, Outcome::refused_by(Control::Stop, STOPPED));
            }
        };
        let wait = Duration::from_millis(config.daemon.turn_wait_ms);
        let turn = tokio::select! {
            taken = seat.turn.take_for_run(&name, &request.tool, wait) => match taken {
                Ok(turn) => turn,
                Err(busy) => return Ended::failed(Kind::Run, busy),
            },
            () = self.stop.stopped() => {
                return Ended::not_run(Kind::Run, Outcome::refused_by(Control::Stop, STOPPED));
            }
        };
        let dir = match RunDir::create(&self.socket_dir().join("runs"), self.run_slots.take()) {
            Ok(dir) => dir,
            Err(reason) => return Ended::failed(Kind::Run, format!("{}: {reason}", request.tool)),
        };
        let script = match dir.prepare(&run, &entry) {
            Ok(script) => script,
            Err(reason) => return Ended::failed(Kind::Run, format!("{}: {reason}", request.tool)),
        };
        let news = match news::listen(&dir.path, progress) {
            Ok(listening) => listening,
            Err(e) => {
                return Ended::failed(
                    Kind::Run,
                    format!("{}: cannot make the run's progress FIFO: {e}", request.tool),
                );
            }
        };
        let launch = Launch {
            program,
            entry,
            env: [
                ("SHUTTLE_SOCKET".into(), self.socket.display().to_string()),
                ("SHUTTLE_AGENT".into(), name.clone()),
                ("SHUTTLE_SCRIPT".into(), script.display().to_string()),
                ("SHUTTLE_RUN".into(), dir.path.display().to_string()),
                ("SHUTTLE_PROGRESS".into(), news.path.display().to_string()),
                (
                    "SHUTTLE_FLOWS".into(),
                    config::flows_dir(self.config.path()).display().to_string(),
                ),
                // Node keeps compiled (and type-stripped) modules here, by path and content:
                // a run then starts in half the time. Run directories reuse their numbers, so
                // a code script's entry is replaced, not added, run after run.
                (
                    "NODE_COMPILE_CACHE".into(),
                    self.socket_dir().join("node-cache").display().to_string(),
                ),
            ]
            .into_iter()
            // The agent's own display, under per-agent displays: what the script starts runs there.
            .chain(seat.env.iter().cloned())
            .collect(),
            hidden: config
                .models
                .key_variables()
                .into_iter()
                .chain(seat.unset.iter().cloned())
                .collect(),
            cwd: home(),
            timeout: run.timeout,
        };
        tracing::info!(run = %name, tool = %request.tool, "run starts");
        let started = Instant::now();
        let closed = CancellationToken::new();
        // The caller going away (this future dropped) is a cancel; the run is still ended in
        // order, on its own task, and keeps the desk until its processes are gone.
        let _closed_on_drop = closed.clone().drop_guard();
        let stop = self.stop.clone();
        let timeout = run.timeout;
        let supervised = tokio::spawn(async move {
            let finished = process::run(launch, stop.stopped_owned(), closed).await;
            news.end().await;
            let report = finished.map(|f| build_report(f, &dir, timeout, started));
            drop(turn);
            drop(dir);
            report
        });
        let report = match supervised.await {
            Ok(Ok(report)) => report,
            Ok(Err(reason)) => Report {
                result: Value::Null,
                logs: String::new(),
                stderr: String::new(),
                exit_code: None,
                duration_ms: started.elapsed().as_millis() as u64,
                error: Some(RunError {
                    kind: ErrorKind::Exit,
                    message: reason,
                }),
            },
            Err(join) => {
                return Ended::failed(Kind::Run, format!("the run failed internally: {join}"));
            }
        };
        tracing::info!(run = %name, ms = report.duration_ms, "run ends");
        let (outcome, answer) = match &report.error {
            None if plan => plan_outcome(report.result),
            None => (Outcome::Completed, report.to_json()),
            Some(error) => (
                Outcome::Failed {
                    reason: error.message.clone(),
                },
                report.to_json(),
            ),
        };
        Ended {
            kind: Kind::Run,
            outcome,
            done: Some(Done::json(answer)),
            dry_run: false,
            display: None,
        }
    }

    fn socket_dir(&self) -> &Path {
        crate::endpoint::socket_dir(&self.socket)
    }
}

/// A plan's result as its answer: completed, or failed with the step's reason.
fn plan_outcome(result: Value) -> (Outcome, Value) {
    if result["completed"] == Value::Bool(true) {
        return (Outcome::Completed, result);
    }
    let reason = result["error"]["message"]
        .as_str()
        .unwrap_or("the plan did not complete")
        .to_string();
    (Outcome::Failed { reason }, result)
}

/// The report of a finished run, from how it ended and the files the runtime left.
fn build_report(
    finished: process::Finished,
    dir: &RunDir,
    timeout: Duration,
    started: Instant,
) -> Report {
    let mut result = Value::Null;
    let mut exit_code = None;
    let error = match finished.ending {
        Ending::TimedOut => Some(RunError {
            kind: ErrorKind::Timeout,
            message: format!(
                "the run passed its timeout of {} s and was ended (SIGTERM, then SIGKILL 2 s \
                 later); raise timeout_s (at most 110) or split the work",
                timeout.as_secs_f64()
            ),
        }),
        Ending::Stopped => Some(RunError {
            kind: ErrorKind::Stopped,
            message: STOPPED.into(),
        }),
        Ending::Cancelled => Some(RunError {
            kind: ErrorKind::Stopped,
            message: "the caller cancelled the call or closed its connection".into(),
        }),
        Ending::Exited(status) => {
            exit_code = process::exit_code(status);
            match dir.outcome() {
                Ok(Ok(value)) => {
                    result = value;
                    None
                }
                Ok(Err(error)) => Some(error),
                Err(()) => Some(RunError {
                    kind: ErrorKind::Exit,
                    message: format!(
                        "the program exited ({}) without a result or an error: it may have \
                         called process.exit or crashed; see stderr",
                        match exit_code {
                            Some(code) if code > 128 && status.code().is_none() =>
                                format!("signal {}", code - 128),
                            Some(code) => format!("code {code}"),
                            None => "status unknown".into(),
                        }
                    ),
                }),
            }
        }
    };
    Report {
        result,
        logs: finished.logs,
        stderr: finished.stderr,
        exit_code,
        duration_ms: started.elapsed().as_millis() as u64,
        error,
    }
}

/// The numbers of the run directories in use; a new run takes the lowest free one.
#[derive(Default)]
pub(super) struct RunSlots(Arc<Mutex<BTreeSet<u32>>>);

impl RunSlots {
    fn take(&self) -> RunSlot {
        let mut taken = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let number = (0..).find(|n| !taken.contains(n)).unwrap_or(u32::MAX);
        taken.insert(number);
        RunSlot {
            number,
            slots: self.0.clone(),
        }
    }
}

/// A run directory's number, free again when dropped.
struct RunSlot {
    number: u32,
    slots: Arc<Mutex<BTreeSet<u32>>>,
}

impl Drop for RunSlot {
    fn drop(&mut self) {
        let mut taken = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        taken.remove(&self.number);
    }
}

/// A run's private directory: `params.json` in, `result.json` or `error.json` out, and the
/// module when it came as code. Removed when dropped, before its number is freed.
struct RunDir {
    path: PathBuf,
    _slot: RunSlot,
}

impl RunDir {
    fn create(parent: &Path, slot: RunSlot) -> Result<Self, String> {
        let dir = parent.join(slot.number.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| format!("cannot create the run directory {}: {e}", dir.display()))?;
        Ok(Self {
            path: dir,
            _slot: slot,
        })
    }

    /// Writes the params (and the code) and answers the module's path; `entry` is the
    /// runtime's entry module, beside the plan executor.
    fn prepare(&self, run: &ScriptRun, entry: &Path) -> Result<PathBuf, String> {
        let write = |name: &str, text: &[u8]| {
            let path = self.path.join(name);
            std::fs::write(&path, text)
                .map(|()| path)
                .map_err(|e| format!("cannot write {name} for the run: {e}"))
        };
        write(
            "params.json",
            Value::Object(run.params.clone()).to_string().as_bytes(),
        )?;
        match &run.source {
            Source::Code(code) => write("script.mts", code.as_bytes()),
            Source::Path(path) => Ok(PathBuf::from(path)),
            Source::Plan => Ok(entry.with_file_name(program::PLAN_EXECUTOR)),
        }
    }

    /// What the runtime reported: the result, or its error; `Err(())` when it wrote neither.
    fn outcome(&self) -> Result<Result<Value, RunError>, ()> {
        if let Ok(text) = std::fs::read_to_string(self.path.join("error.json")) {
            let reported: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            let kind = reported["kind"]
                .as_str()
                .and_then(ErrorKind::parse)
                .unwrap_or(ErrorKind::Exception);
            let message = match &reported["message"] {
                Value::String(message) => message.clone(),
                _ => format!("the runtime reported an error it could not describe: {text}"),
            };
            return Ok(Err(RunError { kind, message }));
        }
        match std::fs::read_to_string(self.path.join("result.json")) {
            Ok(text) => Ok(Ok(
                serde_json::from_str(&text).unwrap_or(Value::String(text))
            )),
            Err(_) => Err(()),
        }
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Runs start in the person's home directory, as services do.
fn home() -> PathBuf {
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}
