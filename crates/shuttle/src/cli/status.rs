//! `shuttle status`: the daemon's state, without starting one.

use std::process::ExitCode;

use serde_json::Value;

use super::EXIT_FAILED;
use crate::client::{DeskClient, WhenAbsent};
use crate::endpoint;
use crate::serve::dispatch::STATUS_TOOL;

/// Prints the daemon's state as JSON; exit 1 when no daemon runs.
pub async fn run() -> anyhow::Result<ExitCode> {
    let socket = endpoint::socket_path()?;
    let mut client = DeskClient::new(socket, String::new(), WhenAbsent::Fail);
    match client.call(STATUS_TOOL, Value::Null).await {
        Ok(reply) if !reply.is_error => {
            super::print_result(&reply.text)?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(reply) => {
            eprintln!("{}", reply.text);
            Ok(ExitCode::from(EXIT_FAILED))
        }
        Err(e) => {
            eprintln!("{e}");
            Ok(ExitCode::from(EXIT_FAILED))
        }
    }
}
