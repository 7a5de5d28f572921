//! `shuttle setup` as a person runs it: the real binary against client config files in a home
//! of the test's own, judged by the files' bytes afterwards.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SHUTTLE: &str = env!("CARGO_BIN_EXE_shuttle");

/// A home directory of the test's own, removed at the end.
struct Home(PathBuf);

impl Home {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("shuttle-setup-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn setup(&self, args: &[&str]) -> Output {
        Command::new(SHUTTLE)
            .arg("setup")
            .args(args)
            .env_clear()
            .env("HOME", &self.0)
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap()
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn claude_code_gets_an_entry_and_keeps_the_rest_then_loses_it_again() {
    let home = Home::new("claude");
    let before = "{\n  \"numStartups\": 12,\n  \"projects\": {\n    \"/src\": {\"allowedTools\": []}\n  }\n}\n";
    let file = home.write(".claude.json", before);

    let out = home.setup(&["claude-code"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("added shuttle"), "{}", text(&out));
    let after: serde_json::Value = serde_json::from_str(&read(&file)).unwrap();
    assert_eq!(after["numStartups"], 12);
    assert_eq!(
        after["projects"]["/src"]["allowedTools"],
        serde_json::json!([])
    );
    let entry = &after["mcpServers"]["shuttle"];
    assert_eq!(entry["command"], SHUTTLE);
    assert_eq!(entry["args"], serde_json::json!(["mcp"]));
    assert_eq!(entry["type"], "stdio");

    // A second run changes nothing, and the listing shows it set up.
    let written = read(&file);
    let out = home.setup(&["claude-code"]);
    assert!(text(&out).contains("nothing changed"), "{}", text(&out));
    assert_eq!(read(&file), written);
    let listed = text(&home.setup(&[]));
    assert!(
        listed.contains(&format!(
            "claude-code     set up: {} runs {SHUTTLE} mcp",
            file.display()
        )),
        "{listed}"
    );

    let out = home.setup(&["claude-code", "--remove"]);
    assert!(out.status.success(), "{}", text(&out));
    let removed: serde_json::Value = serde_json::from_str(&read(&file)).unwrap();
    let mut original: serde_json::Value = serde_json::from_str(before).unwrap();
    original["mcpServers"] = serde_json::json!({});
    assert_eq!(removed, original);
}

#[test]
fn codex_settings_keep_their_comments_and_order() {
    let home = Home::new("codex");
    let before =
        "# my settings\nmodel = \"o3\"  # fast\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
    let file = home.write(".codex/config.toml", before);
    let out = home.setup(&["codex"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        read(&file),
        format!("{before}\n[mcp_servers.shuttle]\ncommand = \"{SHUTTLE}\"\nargs = [\"mcp\"]\n")
    );
    let out = home.setup(&["codex", "--remove"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(read(&file), before);
}

#[test]
fn a_broken_config_is_refused_by_file_and_line_and_left_alone() {
    let home = Home::new("broken");
    let json = home.write(
        ".cursor/mcp.json",
        "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"}\n  \n",
    );
    let toml = home.write(".codex/config.toml", "model = \"o3\"\n[mcp_servers.x\n");
    let json_before = read(&json);
    let toml_before = read(&toml);
    // The unterminated object is named where it opens.
    for (client, file, line) in [("cursor", &json, 2), ("codex", &toml, 2)] {
        let out = home.setup(&[client]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let said = text(&out);
        assert!(
            said.contains(&format!("{}:{line}:", file.display())),
            "{said}"
        );
        assert!(said.contains("nothing was changed"), "{said}");
        let out = home.setup(&[client, "--remove"]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    }
    assert_eq!(read(&json), json_before);
    assert_eq!(read(&toml), toml_before);
}

#[test]
fn a_config_that_is_a_symlink_is_written_where_it_points() {
    let home = Home::new("link");
    let real = home.write("dotfiles/gemini.json", "{\"theme\": \"x\"}\n");
    std::fs::create_dir_all(home.path(".gemini")).unwrap();
    let link = home.path(".gemini/settings.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = home.setup(&["gemini"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let value: serde_json::Value = serde_json::from_str(&read(&real)).unwrap();
    assert_eq!(value["theme"], "x");
    assert_eq!(value["mcpServers"]["shuttle"]["command"], SHUTTLE);
}

#[test]
fn print_shows_the_entry_and_writes_nothing() {
    let home = Home::new("print");
    let out = home.setup(&["vscode", "--print"]);
    assert!(out.status.success(), "{}", text(&out));
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["servers"]["shuttle"]["command"], SHUTTLE);
    assert!(String::from_utf8_lossy(&out.stderr).contains(".config/Code/User/mcp.json"));
    assert!(!home.path(".config").exists());

    // A file made for shuttle alone goes away with it.
    assert!(home.setup(&["claude-desktop"]).status.success());
    let file = home.path(".config/Claude/claude_desktop_config.json");
    assert!(file.exists());
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(home.setup(&["claude-desktop", "--remove"]).status.success());
    assert!(!file.exists());
}
