//! What shuttle itself needs: the programs private displays run, Node, the socket's directory,
//! the daemon, config.toml, the model endpoint, and which MCP clients start it.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Duration;

use desk_core::status::Status as DaemonStatus;
use serde_json::Value;

use super::{CALL_LIMIT, Check, Context, Repair, Status};
use crate::client::{DeskClient, WhenAbsent};
use crate::config::{DisplayMode, SandboxSetting};
use crate::endpoint;
use crate::node::{self, Source};
use crate::setup::{self, Client, State};

/// What the private displays run (Xvfb and openbox, or sway; the session bus and the AT-SPI
/// launcher): needed unless the daemon drives the person's display.
pub(super) fn private_displays(c: &Context) -> Check {
    let needs = c.config.daemon.private_seat.needs();
    let missing: Vec<_> = needs.iter().filter(|n| n.found.is_none()).collect();
    let name = "private displays";
    if missing.is_empty() {
        return Check::ok(
            name,
            needs
                .iter()
                .map(|n| n.program)
                .collect::<Vec<_>>()
                .join(", ")
                + " installed",
        );
    }
    let programs: Vec<&str> = missing.iter().map(|n| n.program).collect();
    let packages: Vec<&str> = missing.iter().map(|n| n.package).collect();
    let status = if c.mode == DisplayMode::Inherit {
        Status::Skip
    } else {
        Status::Fail
    };
    let mut detail = format!("{} not installed", programs.join(", "));
    if status == Status::Skip {
        detail += " (not needed while the daemon drives the person's display)";
    }
    Check::new(name, status, detail).fix(format!("sudo apt install {}", packages.join(" ")))
}

/// The sandbox of the apps agents launch, on the display they launch them on: in force or not,
/// and why, and how tight it is.
pub(super) fn sandbox(c: &Context) -> Check {
    let probe = crate::platform::probe::sandbox();
    let private = c.mode != DisplayMode::Inherit;
    let apps = &c.config.apps;
    let (setting, key) = if private {
        (apps.sandbox, "sandbox")
    } else {
        (Some(apps.person_sandbox), "person_sandbox")
    };
    let whose = if private {
        "apps agents launch on their displays"
    } else {
        "apps agents launch on your display"
    };
    let name = "sandbox";
    match (setting, &probe.bwrap) {
        (Some(SandboxSetting::None), _) => {
            let status = if private { Status::Warn } else { Status::Ok };
            Check::new(
                name,
                status,
                format!("none ([apps] {key} = \"none\"): {whose} run as you, your files in reach"),
            )
        }
        (None, Err(why)) => Check::new(
            name,
            Status::Warn,
            format!("none: {whose} run as you, your files in reach, because {why}"),
        )
        .fix("sudo apt install bubblewrap"),
        (Some(SandboxSetting::Home), Err(why)) => Check::new(
            name,
            Status::Fail,
            format!("[apps] {key} = \"home\", and {why}: every launch is refused"),
        )
        .fix(format!(
            "sudo apt install bubblewrap, or set [apps] {key} = \"none\""
        )),
        (_, Ok(bwrap)) => {
            let scoped = if probe.scoped {
                "Landlock keeps them from your session's abstract sockets and processes"
            } else {
                "this kernel lacks Landlock's scopes (Linux 6.12+), so an abstract socket of your \
                 session (an X server's, a bus's) stays in their reach"
            };
            let status = if probe.scoped {
                Status::Ok
            } else {
                Status::Warn
            };
            Check::new(
                name,
                status,
                format!(
                    "home: {whose} run under {} with a home of their own ({} shared, {} shown); \
                     {scoped}",
                    bwrap.display(),
                    apps.share.len(),
                    apps.show.len()
                ),
            )
        }
    }
}

/// The Node scripts run on: found, the pinned version, and the pinned bytes.
pub(super) fn node(c: &Context) -> Check {
    let pin = node::pin();
    let needed = c.config.tools.script_run;
    let found = match node::find() {
        Ok(found) => found,
        Err(e) => {
            let status = if needed { Status::Fail } else { Status::Skip };
            let detail = match e {
                node::NodeError::Missing { beside, installed } => {
                    format!("no Node.js for scripts: not at {beside} nor at {installed}")
                }
                other => other.to_string(),
            };
            return Check::new("node", status, detail).fix(
                "install shuttle from its release archive or .deb (both carry Node), or run \
                 scripts/node.sh in a source tree",
            );
        }
    };
    let path = found.path.display().to_string();
    let version = std::process::Command::new(&found.path)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let Some(version) = version else {
        return Check::new("node", Status::Fail, format!("{path} does not run"))
            .fix("reinstall shuttle, or from a source tree run scripts/node.sh");
    };
    let wanted = format!("v{}", pin.version);
    if found.source == Source::Env {
        let status = if version == wanted {
            Status::Ok
        } else {
            Status::Warn
        };
        return Check::new(
            "node",
            status,
            format!(
                "{version} at {path}, as {} asks (the pin is {wanted})",
                node::NODE_ENV
            ),
        )
        .fix(format!("unset {} to use the pinned Node", node::NODE_ENV));
    }
    let fail = |what: String| {
        Check::new("node", Status::Fail, what)
            .fix("reinstall shuttle, or from a source tree run scripts/node.sh")
    };
    if version != wanted {
        return fail(format!("{path} is {version}; the pin is {wanted}"));
    }
    match node::sha256_file(&found.path) {
        Ok(hash) if hash == pin.binary_sha256 => {
            let place = match found.source {
                Source::Beside => "beside the shuttle binary",
                _ => "installed by scripts/node.sh",
            };
            Check::ok(
                "node",
                format!("{version} at {path} ({place}); its sha256 matches the pin"),
            )
        }
        Ok(hash) => fail(format!(
            "{path} is {version} but its sha256 is {hash}, not the pinned {}: the file was \
             changed or damaged",
            pin.binary_sha256
        )),
        Err(e) => fail(format!("cannot read {path}: {e}")),
    }
}

/// The socket's directory: this user's, closed to others.
pub(super) fn socket(c: &Context) -> Check {
    let socket = match endpoint::socket_path() {
        Ok(socket) => socket,
        Err(e) => return Check::new("socket", Status::Fail, e.to_string()),
    };
    let dir = endpoint::socket_dir(&socket);
    if !dir.exists() {
        return Check::ok(
            "socket",
            format!(
                "{} does not exist yet; the daemon makes it (mode 0700) when it first starts",
                dir.display()
            ),
        );
    }
    let group = match c
        .config
        .daemon
        .socket_group
        .as_deref()
        .map(endpoint::group_id)
    {
        None => None,
        Some(Ok(gid)) => Some(gid),
        Some(Err(e)) => return Check::new("socket", Status::Fail, e),
    };
    match endpoint::check_dir(&socket, group) {
        Ok(()) => Check::ok(
            "socket",
            format!("{} in a private directory", socket.display()),
        ),
        Err(e) => {
            let mode = if group.is_some() { 0o710 } else { 0o700 };
            let mine = std::fs::metadata(dir).is_ok_and(|m| m.uid() == endpoint::current_uid());
            let check = Check::new("socket", Status::Fail, e.to_string())
                .fix(format!("chmod {mode:o} {}", dir.display()));
            if mine {
                check.repair(Repair::CloseSocketDir(dir.to_path_buf(), mode))
            } else {
                check
            }
        }
    }
}

/// The running daemon's `status`, asked with a short deadline. `Ok(None)` when no socket is
/// there; `Err` says why one that is there did not answer.
pub(super) fn daemon_status() -> Result<Option<DaemonStatus>, String> {
    let socket = endpoint::socket_path().map_err(|e| e.to_string())?;
    if !socket.exists() {
        return Ok(None);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let mut client = DeskClient::new(socket, String::new(), WhenAbsent::Fail);
        let call = client.call(desk_core::wire::tools::STATUS, Value::Null);
        match tokio::time::timeout(Duration::from_secs(1), call).await {
            Err(_) => Err("the daemon did not answer status within 1 s".into()),
            Ok(Err(e)) => Err(e.to_string()),
            Ok(Ok(reply)) if reply.is_error => Err(reply.text),
            Ok(Ok(reply)) => serde_json::from_str(&reply.text).map(Some).map_err(|e| {
                format!(
                    "its status does not read as this version's ({e}): a daemon of another \
                     shuttle version runs; stop it (shuttle status names its pid), and the next \
                     agent call starts this one"
                )
            }),
        }
    })
}

/// Whether a daemon runs, and whether it is this version.
pub(super) fn daemon(c: &Context) -> Check {
    let Some(status) = &c.daemon else {
        return match &c.daemon_absent {
            None => Check::ok(
                "daemon",
                "not running; an agent's first call (shuttle mcp) starts it",
            ),
            Some(why) => Check::new(
                "daemon",
                Status::Warn,
                format!("a socket is there, but: {why}"),
            ),
        };
    };
    let (pid, version) = (status.pid, &status.version);
    let ours = env!("CARGO_PKG_VERSION");
    if version != ours {
        return Check::new(
            "daemon",
            Status::Warn,
            format!("running (pid {pid}) version {version}, while this binary is {ours}"),
        )
        .fix(format!(
            "kill {pid}; the next agent call starts this version"
        ));
    }
    Check::ok("daemon", format!("running, pid {pid}, version {version}"))
}

/// config.toml: missing (every default) or loading.
pub(super) fn config(c: &Context) -> Check {
    let path = c.config_path.display();
    match &c.config_error {
        Some(e) => Check::new("config", Status::Fail, e.clone()).fix(format!(
            "edit {path}; shuttle config check shows what it comes to"
        )),
        None if !c.config_path.exists() => Check::ok(
            "config",
            format!("no {path}: every default (docs/config.md)"),
        ),
        None => Check::ok("config", format!("{path} loads")),
    }
}

/// The model endpoint, when a model is configured: the key is there, and the endpoint answers.
pub(super) fn models(c: &Context) -> Check {
    let config = &c.config.models;
    let roles = [&config.decide, &config.verify, &config.ground, &config.ask];
    if config.decisions_url.is_none() && roles.iter().all(|r| r.is_none()) {
        return Check::new(
            "models",
            Status::Skip,
            "no model configured; decide, ground and ask need one (docs/models.md)",
        );
    }
    let var = &config.api_key_env;
    let key = if var.is_empty() {
        "no key (the config asks for none)".to_string()
    } else {
        let set = match &c.daemon {
            Some(status) => status.models.key_set,
            None => std::env::var_os(var).is_some_and(|v| !v.is_empty()),
        };
        if !set {
            let whose = if c.daemon.is_some() {
                "the running daemon has no"
            } else {
                "this environment has no"
            };
            return Check::new("models", Status::Fail, format!("{whose} {var}")).fix(format!(
                "export {var}=... in the environment the daemon starts from, then restart it"
            ));
        }
        format!("{var} is set")
    };
    let endpoint = models::Models::new(config.clone());
    match endpoint.reachable(CALL_LIMIT * 2) {
        Ok(status) => Check::ok(
            "models",
            format!("{} answers (HTTP {status}); {key}", config.base_url),
        ),
        Err(e) => Check::new("models", Status::Fail, e)
            .fix("check [models] base_url in config.toml and the network"),
    }
}

/// Each MCP client: set up (and whether what it runs exists), or not.
pub(super) fn clients() -> Vec<Check> {
    Client::ALL
        .iter()
        .map(|&client| {
            let name = format!("client {}", client.name());
            let add = format!("shuttle setup {}", client.name());
            match setup::state(client) {
                Ok((file, State::SetUp(entry))) => {
                    if Path::new(&entry.command).is_file() {
                        Check::ok(name, format!("{} runs {}", file.display(), entry.shown()))
                    } else {
                        Check::new(
                            name,
                            Status::Warn,
                            format!(
                                "{} runs {}, which does not exist",
                                file.display(),
                                entry.shown()
                            ),
                        )
                        .fix(add)
                    }
                }
                Ok((_, State::NotSetUp | State::NoFile)) => {
                    Check::new(name, Status::Skip, format!("not set up ({add})"))
                }
                Err(e) => Check::new(name, Status::Warn, e.to_string()),
            }
        })
        .collect()
}
