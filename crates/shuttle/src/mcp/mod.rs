//! `shuttle mcp`: an MCP server on stdin/stdout that forwards to the daemon.
//!
//! - [`server`]: the rmcp handler.
//! - [`tools`]: the tool list and the mapping of calls onto the desk wire.
//! - [`ordered`]: one tool call at a time, in order, with cancellation.
//! - [`budget`]: replies cut to the session's budget, the whole kept as resources.
//! - [`progress`]: a call's progress notifications.

mod budget;
mod ordered;
mod progress;
mod server;
mod tools;

use anyhow::Context;
use rmcp::ServiceExt;
use rmcp::transport::async_rw::AsyncRwTransport;

use crate::client::{DeskClient, WhenAbsent};
use crate::endpoint;

/// Serves MCP on stdio until the client closes its end; with `image_links`, images over the
/// reply budget go as resource links.
pub async fn run(image_links: bool) -> anyhow::Result<()> {
    // The proxy holds the agent client's environment, keys among them.
    crate::private_memory::seal()
        .context("cannot make the proxy's memory private to it (prctl PR_SET_DUMPABLE)")?;
    let socket = endpoint::socket_path()?;
    // Without a working directory only a relative script path is refused, not the session.
    let cwd = std::env::current_dir().ok();
    let agent_id = desk_core::wire::session_agent_id(std::process::id());
    let client = DeskClient::new(socket, agent_id, WhenAbsent::Start);
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    let transport = ordered::Ordered::new(AsyncRwTransport::new_server(stdin, stdout));
    let service = server::DeskServer::new(client, cwd, image_links)
        .serve(transport)
        .await
        .context("the MCP handshake failed")?;
    service.waiting().await.context("the MCP session failed")?;
    Ok(())
}
