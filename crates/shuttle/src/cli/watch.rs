//! `shuttle watch [AGENT] [--control]`: an agent's private display, live in a window on yours.

use std::process::ExitCode;

use anyhow::{Context, bail};
use serde_json::Value;

use crate::client::{DeskClient, WhenAbsent};
use crate::endpoint;
use crate::platform::{WatchEnd, WatchOptions};

/// Which display to show: the one agent's (or `agent`'s, by id or id prefix) under per-agent
/// displays, the shared one under `private`.
fn pick(status: &Value, agent: Option<&str>) -> anyhow::Result<(String, String)> {
    let mode = status["display"]["mode"].as_str().unwrap_or("");
    match mode {
        "private" => {
            let name = status["display"]["name"]
                .as_str()
                .context("no display in status")?;
            Ok((name.to_string(), "every agent".to_string()))
        }
        "per-agent" => {
            let agents = status["agents"]["agents"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let ids: Vec<&str> = agents.iter().filter_map(|a| a["agent"].as_str()).collect();
            let chosen: Vec<&Value> = agents
                .iter()
                .filter(|a| {
                    let id = a["agent"].as_str().unwrap_or("");
                    agent.is_none_or(|wanted| id == wanted || id.starts_with(wanted))
                })
                .collect();
            match chosen.as_slice() {
                [one] => Ok((
                    one["display"]
                        .as_str()
                        .context("no display in status")?
                        .to_string(),
                    one["agent"].as_str().unwrap_or("").to_string(),
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
    let status: Value = serde_json::from_str(&status.text).context("status is not JSON")?;
    let (display, whose) = pick(&status, agent.as_deref())?;
    if display.starts_with('/') {
        bail!(
            "{whose}'s display is a headless sway ({display}), and shuttle watch shows X displays \
             only; see it with `shuttle desk shot --agent AGENT path=FILE`, or set [daemon] \
             private_seat = \"xvfb\" to watch agents live"
        );
    }
    let viewer = std::env::var("DISPLAY")
        .ok()
        .filter(|d| !d.is_empty())
        .context("DISPLAY is not set: run shuttle watch from your desktop session")?;
    if let Some(file) = status["display"]["xauthority"].as_str() {
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
