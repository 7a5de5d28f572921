//! End to end: the model keys stay in the daemon. The daemon starts with three keys in its
//! environment (the default variable, the one config.toml names, and another `*_API_KEY`), and
//! every way an agent can start a program (launch, open, a vision action's launch_app, a
//! script's desk.launch, a script itself, a plugin, a service) starts a probe that writes its
//! environment to a file. None of them may hold a key; the model calls still send it.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::*;
use serde_json::json;

const KEYS: [(&str, &str); 3] = [
    ("OPENROUTER_API_KEY", "sk-or-leak-3f9a1c"),
    ("MY_MODEL_KEY", "sk-mine-leak-8e2d40"),
    ("SOME_OTHER_API_KEY", "sk-other-leak-5b7e11"),
];

/// An executable shell script at `dir/NAME` that writes its environment to `dir/NAME.env`,
/// then runs `then`.
fn probe(dir: &Path, name: &str, then: &str) -> PathBuf {
    let path = dir.join(name);
    let out = dir.join(format!("{name}.env"));
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nenv > '{}.tmp'\nmv '{0}.tmp' '{0}'\n{then}\n",
            out.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The environment `probe` NAME wrote, once it has.
fn written(dir: &Path, name: &str) -> String {
    wait_for(
        &format!("{name} to write its environment"),
        Duration::from_secs(20),
        || std::fs::read_to_string(dir.join(format!("{name}.env"))).ok(),
    )
}

/// A process this test started through the daemon, ended when the test ends, pass or fail.
struct Ended(i32);

impl Drop for Ended {
    fn drop(&mut self) {
        // SAFETY: a process this test started; signalling it touches nothing else.
        unsafe { libc::kill(self.0, libc::SIGTERM) };
    }
}

#[test]
fn no_model_key_reaches_anything_an_agent_starts() {
    require_desktop();
    let probes = Scratch::new("key-probes");
    let dir = probes.0.clone();
    let launched = probe(&dir, "launched", "");
    // A window, so that open answers when it maps rather than at its deadline.
    let opened = probe(&dir, "opened", "exec xmessage -title 'Key probe' probe");
    let acted = probe(&dir, "acted", "");
    let scripted = probe(&dir, "scripted", "");
    let plugin = probe(&dir, "plugin", "printf '{}' > \"$SHUTTLE_RUN/result.json\"");
    let service = probe(&dir, "service", "exec sleep 600");
    let data = dir.join("data");
    let xdg_config = dir.join("xdg-config");
    std::fs::create_dir_all(data.join("applications")).unwrap();
    std::fs::create_dir_all(&xdg_config).unwrap();
    // `open keyprobe://x` runs the probe as the scheme's default app.
    std::fs::write(
        data.join("applications/keyprobe.desktop"),
        format!(
            "[Desktop Entry]\nType=Application\nName=Key probe\nExec={} %u\n",
            opened.display()
        ),
    )
    .unwrap();
    std::fs::write(
        xdg_config.join("mimeapps.list"),
        "[Default Applications]\nx-scheme-handler/keyprobe=keyprobe.desktop\n",
    )
    .unwrap();
    let mut env: Vec<(&str, &str)> = KEYS.to_vec();
    let (data_s, config_s) = (data.display().to_string(), xdg_config.display().to_string());
    env.push(("XDG_DATA_HOME", &data_s));
    env.push(("XDG_CONFIG_HOME", &config_s));
    let daemon = Daemon::start_prepared(
        Some("[models]\napi_key_env = \"MY_MODEL_KEY\"\n"),
        &env,
        |scratch| {
            let tools = scratch.path("tools.d");
            std::fs::create_dir_all(&tools).unwrap();
            std::fs::write(
                tools.join("probe.json"),
                json!({"name": "probe_run", "description": "Probe.", "bin": plugin}).to_string(),
            )
            .unwrap();
            std::fs::write(
                tools.join("probesvc.json"),
                json!({"service": "probesvc", "bin": service, "tools": [
                    {"name": "probesvc_ping", "description": "Ping.", "input_schema": {"type": "object"}}
                ]})
                .to_string(),
            )
            .unwrap();
        },
    );

    let ok = |tool: &str, args: serde_json::Value| {
        let reply = daemon.call(tool, args);
        assert!(!reply.is_error, "{tool}: {}", reply.text);
        reply
    };
    ok("desk_launch", json!({"app": launched}));
    let open = ok("desk_open", json!({"target": "keyprobe://x"}));
    let _window = Ended(open.json()["pid"].as_i64().unwrap() as i32);
    ok(
        "desk_computer_act",
        json!({"action": "launch_app", "app": acted}),
    );
    let code = format!(
        "export async function main() {{ await desk.launch({{ app: {:?} }}); return Object.entries(process.env).map(([k, v]) => `${{k}}=${{v}}`).join('\\n'); }}",
        scripted.display().to_string()
    );
    let run = daemon.call("script_run", json!({"code": code}));
    assert!(!run.is_error, "{}", run.text);
    ok("probe_run", json!({"code": "unused"}));

    let mut seen = vec![("script_run's own environment", run.text.clone())];
    for name in [
        "launched", "opened", "acted", "scripted", "plugin", "service",
    ] {
        seen.push((name, written(&dir, name)));
    }
    for (who, environment) in &seen {
        assert!(
            environment.contains("PATH="),
            "{who}: no environment read: {environment}"
        );
        for (var, secret) in KEYS {
            assert!(
                !environment.contains(secret),
                "{who} inherited {var}: {environment}"
            );
        }
    }
    // The daemon still holds the key it names, and says so.
    let status = daemon.call("status", json!({})).json();
    assert_eq!(status["models"]["key_set"], true, "{status}");
    let journal = std::fs::read_to_string(daemon.journal_path()).unwrap_or_default();
    for (_, secret) in KEYS {
        assert!(!daemon.log().contains(secret) && !journal.contains(secret));
    }
}
