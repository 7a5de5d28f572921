//! `shuttle watch [AGENT] [--control]`: an agent's private display, live in a window on yours.

use std::process::ExitCode;

use anyhow::{Context, bail};
use desk_core::status::{Agent, Status};
use serde_json::Value;

use crate::client::{DeskClient, WhenAbsent};
use crate::endpoint;
use crate::platform::{WatchEnd, WatchOptions};

/// Which display to show: the one agent's (or `agent`'s, by id or id prefix) under per-agent
/// displays, the shared one under `private`.
fn pick(status: &Status, agent: Option<&str>) -> anyhow::Result<(String, String)> {
    let display = status.display.as_ref().context("no display in status")?;
    match display.mode.as_str() {
        "private" => {
            let name = display.name.clone().context("no display in status")?;
            Ok((name, "every agent".to_string()))
        }
        "per-agent" => {
            let agents = status
                .agents
                .as_ref()
                .map(|a| a.agents.as_slice())
                .unwrap_or_default();
            let ids: Vec<&str> = agents.iter().map(|a| a.agent.as_str()).collect();
            let chosen: Vec<&Agent> = agents
                .iter()
                .filter(|a| {
                    agent.is_none_or(|wanted| a.agent == wanted || a.agent.starts_with(wanted))
                })
                .collect();
            match chosen.as_slice() {
                [one] => Ok((
                    one.display.clone().context("no display in status")?,
                    one.agent.clone(),
                )),
                [] if ids.is_empty() => bail!(
                    "no agent has a display yet: each agent gets one on its first call; run \
                     `shuttle watch` after that"
                ),
                [] => bail!(
                    "no agent {:?} has a display; agents with one: {}",
                    agent.unwrap_or(""),
                    ids.join(", ")
                ),
                _ => bail!(
                    "{} agents have a display ({}); name one: shuttle watch AGENT",
                    chosen.len(),
                    ids.join(", ")
                ),
            }
        }
        _ => bail!(
            "the daemon drives your own display ([daemon] display = \"inherit\"): there is no \
             private display to watch"
        ),
    }
}

/// Shows the display until its window is closed or the display ends.
pub fn run(
    runtime: tokio::runtime::Runtime,
    agent: Option<String>,
    control: bool,
) -> anyhow::Result<ExitCode> {
    let socket = endpoint::socket_path()?;
    let status = runtime.block_on(async {
        let mut client = DeskClient::new(socket, String::new(), WhenAbsent::Fail);
        client.call("status", Value::Null).await
    })?;
    drop(runtime);
    if status.is_error {
        bail!("{}", status.text);
    }
    let status: Status = serde_json::from_str(&status.text)
        .context("the daemon's status does not read as this version's: restart the daemon")?;
    let (display, whose) = pick(&status, agent.as_deref())?;
    if display.starts_with('/') {
        bail!(
            "{whose}'s display is a headless Wayland one ({display}), and shuttle watch shows X \
             displays only; see it with `shuttle desk shot --agent AGENT path=FILE`, or set [daemon] \
             private_seat = \"xvfb\" to watch agents live"
        );
    }
    let viewer = std::env::var("DISPLAY")
        .ok()
        .filter(|d| !d.is_empty())
        .context("DISPLAY is not set: run shuttle watch from your desktop session")?;
    if let Some(file) = status
        .display
        .as_ref()
        .and_then(|d| d.xauthority.as_deref())
    {
        // SAFETY: the runtime is gone; this process has one thread. The file holds your own
        // cookies and the private displays'.
        unsafe { std::env::set_var("XAUTHORITY", file) };
    }
    let options = WatchOptions {
        title: format!(
            "shuttle watch: {whose} ({display}){}",
            if control { " [control]" } else { "" }
        ),
        source: display.clone(),
        viewer,
        control,
    };
    let ended = crate::platform::watch(&options, |_| {
        eprintln!(
            "watching {whose}'s display {display} ({}); close the window or press Ctrl-C to stop",
            if control {
                "your input goes to it"
            } else {
                "view only"
            }
        );
    })?;
    match ended {
        WatchEnd::Closed => Ok(ExitCode::SUCCESS),
        WatchEnd::SourceGone => {
            eprintln!("the display {display} ended");
            Ok(ExitCode::SUCCESS)
        }
    }
}
