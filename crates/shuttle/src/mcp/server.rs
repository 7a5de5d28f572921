//! The MCP server handler: lists the tools and forwards each call to the daemon.

use std::borrow::Cow;
use std::path::PathBuf;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use tokio::sync::Mutex;

use super::tools;
use crate::client::DeskClient;

/// The MCP protocol revisions this server speaks; it answers with the client's when listed here.
const PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2024_11_05,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
];

/// Serves the shuttle tools to one agent session.
pub struct DeskServer {
    client: Mutex<DeskClient>,
    cwd: PathBuf,
}

impl DeskServer {
    /// A server forwarding calls through `client`; relative paths resolve against `cwd`.
    pub fn new(client: DeskClient, cwd: PathBuf) -> Self {
        Self {
            client: Mutex::new(client),
            cwd,
        }
    }
}

impl ServerHandler for DeskServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("shuttle", env!("CARGO_PKG_VERSION")))
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
            .with_instructions(
                "shuttle reads and drives this computer's desktop. Start with desk verb=windows \
                 or screenshot; name windows by the ids it returns.",
            )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::list(
            tools::Mode::from_config(),
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let (tool, args) = match tools::to_wire(&request.name, request.arguments, &self.cwd) {
            Ok(call) => call,
            Err(message) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into());
            }
        };
        let mut client = self.client.lock().await;
        let outcome = tokio::select! {
            outcome = client.call(&tool, args) => Some(outcome),
            () = context.ct.cancelled() => None,
        };
        let Some(outcome) = outcome else {
            // Closing the connection is what cancels the call in the daemon. rmcp sends no reply
            // for a cancelled request, so this result goes nowhere.
            client.disconnect();
            return Ok(CallToolResult::error(vec![ContentBlock::text("cancelled")]).into());
        };
        Ok(match outcome {
            Ok(reply) => tools::to_result(reply),
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
        }
        .into())
    }
}
