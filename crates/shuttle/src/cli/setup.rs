//! `shuttle setup [CLIENT...] [--print | --remove]`: shuttle's entry in MCP clients' configs.

use std::process::ExitCode;

use super::EXIT_FAILED;
use crate::setup::{self, Change, Client, Entry, State};

/// What to do with each client's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Write it.
    Add,
    /// Print it, changing nothing.
    Print,
    /// Take it out.
    Remove,
}

/// Does `action` for each of `clients`; with none, lists every client and whether it is set up.
pub fn run(clients: &[Client], action: Action) -> anyhow::Result<ExitCode> {
    if clients.is_empty() {
        list();
        return Ok(ExitCode::SUCCESS);
    }
    let entry = Entry::this_binary()?;
    let mut failed = false;
    for &client in clients {
        let title = client.title();
        let done = match action {
            Action::Print => {
                let file = client.file()?;
                eprintln!(
                    "# {title}: this goes in {}, under {}",
                    file.display(),
                    client.place()
                );
                print!("{}", setup::snippet(client, &entry));
                continue;
            }
            Action::Add => setup::add(client, &entry),
            Action::Remove => setup::remove(client),
        };
        match done {
            Ok((file, change)) => {
                let file = file.display();
                let shown = entry.shown();
                println!(
                    "{title}: {}",
                    match change {
                        Change::Added => format!(
                            "added shuttle to {file} (it runs {shown}); restart {title} to load it"
                        ),
                        Change::Replaced { was } => format!(
                            "shuttle's entry in {file} ran {}; it runs {shown} now; restart \
                             {title} to load it",
                            was.shown()
                        ),
                        Change::Unchanged =>
                            format!("{file} already runs {shown}; nothing changed"),
                        Change::Removed => format!("took shuttle out of {file}"),
                        Change::Absent => format!("{file} has no shuttle entry; nothing changed"),
                    }
                );
            }
            Err(e) => {
                eprintln!("shuttle setup {}: {e}", client.name());
                failed = true;
            }
        }
    }
    Ok(if failed {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// One line per client: set up (and what it runs), not set up, or why its file is unreadable.
fn list() {
    for client in Client::ALL {
        let line = match setup::state(client) {
            Ok((file, State::SetUp(entry))) => {
                format!("set up: {} runs {}", file.display(), entry.shown())
            }
            Ok((file, State::NotSetUp)) => {
                format!("not set up: {} has no shuttle entry", file.display())
            }
            Ok((file, State::NoFile)) => format!("not set up: no {}", file.display()),
            Err(e) => format!("unreadable: {e}"),
        };
        println!("{:<15} {line}", client.name());
    }
    println!(
        "\nshuttle setup CLIENT adds shuttle to a client; --print shows the entry, --remove takes it out."
    );
}
