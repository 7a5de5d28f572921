//! `shuttle desk VERB [KEY=VALUE ...]`: one desk call from a shell.
//!
//! Each verb is a subcommand built from its argument struct's schema, so `--help` lists exactly
//! the arguments the daemon accepts, and `KEY=VALUE` pairs are typed the way the verb expects
//! (a title of `123` stays a string; `x=5` becomes a number).

use std::path::Path;
use std::process::ExitCode;

use base64::Engine as _;
use clap::{Arg, ArgAction, ArgMatches, Command};
use desk_core::call::{FieldKind, Verb};
use serde_json::{Map, Value};

use super::{EXIT_FAILED, EXIT_USAGE};
use crate::client::{DeskClient, WhenAbsent};
use crate::endpoint;

/// The `desk` command with a subcommand per verb.
pub fn command() -> Command {
    let mut desk = Command::new("desk")
        .bin_name("shuttle desk")
        .about("Run one desk verb and print its result (JSON)")
        .long_about(
            "Run one desk verb on the daemon and print its result, JSON for every verb.\n\
             Arguments are KEY=VALUE pairs, or a JSON object with --json; `shuttle desk VERB \
             --help` lists a verb's arguments. Starts the daemon when none runs.\n\n\
             Exit status: 0 on success, 1 when the call failed, 2 when the command line is wrong.",
        )
        .subcommand_required(true)
        .arg_required_else_help(true);
    for verb in Verb::ALL {
        desk = desk.subcommand(verb_command(*verb));
    }
    desk
}

fn verb_command(verb: Verb) -> Command {
    let mut fields = String::from("Arguments (KEY=VALUE):\n");
    let all = verb.fields();
    if all.is_empty() {
        fields.push_str("  none\n");
    }
    for f in &all {
        let kind = match f.kind {
            _ if !f.choices.is_empty() => f.choices.join("|"),
            FieldKind::String => "text".into(),
            FieldKind::Integer => "integer".into(),
            FieldKind::Boolean => "true|false".into(),
            FieldKind::Number => "number".into(),
            FieldKind::NumberOrText => "number|text".into(),
            FieldKind::Json => "JSON".into(),
        };
        let need = if f.required { "required" } else { "optional" };
        fields.push_str(&format!(
            "  {:<10} {:<10} {:<8}  {}\n",
            f.name, kind, need, f.about
        ));
    }
    Command::new(verb.name())
        .about(verb.about())
        .after_help(fields)
        .arg(
            Arg::new("pairs")
                .value_name("KEY=VALUE")
                .num_args(0..)
                .action(ArgAction::Append)
                .help("The verb's arguments"),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .value_name("OBJECT")
                .help("Arguments as a JSON object; KEY=VALUE pairs override its keys"),
        )
        .arg(
            Arg::new("image")
                .long("image")
                .value_name("FILE")
                .help("Write the image the verb returns to FILE: a PNG, or a JPEG for computer_state, computer_act and a whole-screen look"),
        )
        .arg(
            Arg::new("agent")
                .long("agent")
                .value_name("ID")
                .default_value("")
                .help("The agent id to call as (status shows it while it holds the desk)"),
        )
}

/// Runs `shuttle desk` with the words after `desk`.
pub async fn run(words: Vec<String>) -> anyhow::Result<ExitCode> {
    let matches =
        match command().try_get_matches_from(std::iter::once("desk".to_string()).chain(words)) {
            Ok(matches) => matches,
            Err(e) => {
                let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
                e.print()?;
                return Ok(ExitCode::from(code));
            }
        };
    let (name, sub) = matches.subcommand().expect("a verb is required");
    let verb = Verb::from_name(name).expect("subcommands are verbs");
    let cwd = std::env::current_dir()?;
    let args = match build_args(verb, sub, &cwd) {
        Ok(args) => args,
        Err(usage) => {
            eprintln!(
                "error: {usage}\n\nFor the arguments of {name}, try 'shuttle desk {name} --help'."
            );
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let agent = sub.get_one::<String>("agent").cloned().unwrap_or_default();
    let mut client = DeskClient::new(endpoint::socket_path()?, agent, WhenAbsent::Start);
    let reply = match client.call(&verb.tool_name(), Value::Object(args)).await {
        Ok(reply) => reply,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::from(EXIT_FAILED));
        }
    };
    if reply.is_error {
        eprintln!("{}", reply.text);
        return Ok(ExitCode::from(EXIT_FAILED));
    }
    super::print_result(&reply.text)?;
    if let Some(file) = sub.get_one::<String>("image") {
        let Some(png) = reply.image_b64 else {
            eprintln!("{name} returned no image; nothing was written to {file}");
            return Ok(ExitCode::from(EXIT_FAILED));
        };
        let png = base64::engine::general_purpose::STANDARD.decode(png)?;
        if let Err(e) = std::fs::write(file, png) {
            eprintln!("cannot write {file}: {e}");
            return Ok(ExitCode::from(EXIT_FAILED));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The call's arguments from `--json` and the `KEY=VALUE` pairs, typed per the verb's fields.
fn build_args(verb: Verb, sub: &ArgMatches, cwd: &Path) -> Result<Map<String, Value>, String> {
    let fields = verb.fields();
    let mut args = match sub.get_one::<String>("json") {
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err("--json takes a JSON object, such as '{\"x\": 10}'".into()),
            Err(e) => return Err(format!("--json is not valid JSON: {e}")),
        },
        None => Map::new(),
    };
    for pair in sub.get_many::<String>("pairs").into_iter().flatten() {
        let (key, raw) = pair
            .split_once('=')
            .ok_or_else(|| format!("expected KEY=VALUE, got {pair:?}"))?;
        let field = fields.iter().find(|f| f.name == key).ok_or_else(|| {
            let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
            if names.is_empty() {
                format!("{} takes no arguments, got {key:?}", verb.name())
            } else {
                format!(
                    "{} has no argument {key:?}; it takes {}",
                    verb.name(),
                    names.join(", ")
                )
            }
        })?;
        args.insert(key.to_string(), typed(key, raw, field.kind)?);
    }
    // The daemon runs elsewhere: a relative path means the caller's directory, so say so.
    if let Some(Value::String(path)) = args.get_mut("path")
        && Path::new(path.as_str()).is_relative()
    {
        *path = cwd.join(&*path).display().to_string();
    }
    Ok(args)
}

fn typed(key: &str, raw: &str, kind: FieldKind) -> Result<Value, String> {
    match kind {
        FieldKind::String => Ok(Value::String(raw.to_string())),
        FieldKind::Integer => raw
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("{key} takes a whole number, got {raw:?}")),
        FieldKind::Boolean => match raw {
            "true" | "yes" | "1" => Ok(Value::Bool(true)),
            "false" | "no" | "0" => Ok(Value::Bool(false)),
            _ => Err(format!("{key} takes true or false, got {raw:?}")),
        },
        FieldKind::Number => raw
            .parse::<f64>()
            .ok()
            .and_then(|n| serde_json::Number::from_f64(n).map(Value::Number))
            .ok_or_else(|| format!("{key} takes a number, got {raw:?}")),
        FieldKind::NumberOrText => Ok(raw
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Value::String(raw.to_string()), Value::Number)),
        FieldKind::Json => serde_json::from_str(raw).map_err(|e| format!("{key} takes JSON: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args_of(words: &[&str]) -> Result<Value, String> {
        let matches = command()
            .try_get_matches_from(std::iter::once("desk").chain(words.iter().copied()))
            .map_err(|e| e.to_string())?;
        let (name, sub) = matches.subcommand().unwrap();
        build_args(Verb::from_name(name).unwrap(), sub, Path::new("/work")).map(Value::Object)
    }

    #[test]
    fn pairs_are_typed_by_the_verb() {
        assert_eq!(
            args_of(&[
                "shot",
                "x=0",
                "y=10",
                "w=20",
                "h=30",
                "window=123",
                "path=a.png"
            ])
            .unwrap(),
            json!({"x": 0, "y": 10, "w": 20, "h": 30, "window": "123", "path": "/work/a.png"})
        );
        assert_eq!(
            args_of(&["shot", "--json", r#"{"x":1,"y":1,"w":1,"h":1}"#, "x=5"]).unwrap(),
            json!({"x": 5, "y": 1, "w": 1, "h": 1})
        );
    }

    #[test]
    fn a_field_value_is_a_number_when_it_reads_as_one_else_text() {
        assert_eq!(
            args_of(&["set_value", "id=1.3:80", "value=Ada Lovelace"]).unwrap(),
            json!({"id": "1.3:80", "value": "Ada Lovelace"})
        );
        assert_eq!(
            args_of(&["set_value", "id=1.3:87", "value=42"]).unwrap(),
            json!({"id": "1.3:87", "value": 42.0})
        );
    }

    #[test]
    fn bad_pairs_are_usage_errors() {
        assert!(
            args_of(&["shot", "x"])
                .unwrap_err()
                .contains("expected KEY=VALUE")
        );
        assert!(
            args_of(&["shot", "x=left"])
                .unwrap_err()
                .contains("x takes a whole number")
        );
        assert!(
            args_of(&["shot", "z=1"])
                .unwrap_err()
                .contains("shot has no argument \"z\"")
        );
        assert!(
            args_of(&["windows", "all=1"])
                .unwrap_err()
                .contains("windows takes no arguments")
        );
        assert!(
            args_of(&["shot", "--json", "[1]"])
                .unwrap_err()
                .contains("takes a JSON object")
        );
    }
}
