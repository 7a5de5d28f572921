//! `shuttle status`, `shuttle stop` and `shuttle resume`: one call to the running daemon,
//! never starting one.

use std::process::ExitCode;

use serde_json::Value;

use super::EXIT_FAILED;
use crate::client::{DeskClient, WhenAbsent};
use crate::endpoint;

/// Sends `tool` without arguments and prints the reply; exit 1 on an error reply or when no
/// daemon runs.
pub async fn call(tool: &str) -> anyhow::Result<ExitCode> {
    let socket = endpoint::socket_path()?;
    let mut client = DeskClient::new(socket, String::new(), WhenAbsent::Fail);
    match client.call(tool, Value::Null).await {
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
