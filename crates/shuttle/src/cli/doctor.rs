//! `shuttle doctor [--json] [--fix]`: what works, what does not, and the fix for each.

use std::process::ExitCode;

use serde_json::json;

use super::EXIT_FAILED;
use crate::doctor::{self, Report};

/// Runs the checks and prints the report; with `fix`, first makes the repairs the report
/// names, then checks again. Exit 0 only when all that the configuration needs is in place.
pub fn run(as_json: bool, fix: bool) -> anyhow::Result<ExitCode> {
    let mut report = doctor::run();
    let mut fixed = Vec::new();
    if fix {
        let repairs = report.repairs();
        if !repairs.is_empty() {
            fixed = doctor::repair(&repairs);
            report = doctor::run();
        }
    }
    if as_json {
        let fixed: Vec<_> = fixed
            .iter()
            .map(|(what, result)| json!({"repair": what, "error": result.as_ref().err()}))
            .collect();
        let mut value = serde_json::to_value(&report)?;
        if fix {
            value["fixed"] = json!(fixed);
        }
        super::print_result(&serde_json::to_string_pretty(&value)?)?;
    } else {
        for (what, result) in &fixed {
            match result {
                Ok(()) => println!("fixed: {what}"),
                Err(e) => println!("could not {what}: {e}"),
            }
        }
        if fix && fixed.is_empty() {
            println!("nothing here that --fix can do itself\n");
        } else if !fixed.is_empty() {
            println!();
        }
        print!("{}", shown(&report, fix));
    }
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAILED)
    })
}

/// The report, without the --fix offer once --fix has run.
fn shown(report: &Report, fixed: bool) -> String {
    let text = report.text();
    match (fixed, text.find("shuttle doctor --fix would:")) {
        (true, Some(cut)) => text[..cut].to_string(),
        _ => text,
    }
}
