//! `shuttle config check [FILE]`: whether a config file loads, and what it sets.

use std::path::PathBuf;
use std::process::ExitCode;

use super::EXIT_FAILED;
use crate::config;

/// Checks `file` (default: the file the daemon reads) and prints the settings it comes to.
pub fn check(file: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let path = file.unwrap_or_else(config::config_path);
    if !path.exists() {
        println!(
            "{}: no such file; shuttle runs with every default (docs/config.md lists them)",
            path.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    match config::load(&path) {
        Ok(loaded) => {
            println!("{}: OK; the settings it comes to:\n", path.display());
            print!("{}", toml::to_string(&loaded)?);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{e}");
            Ok(ExitCode::from(EXIT_FAILED))
        }
    }
}
