//! The end-to-end tests: the real daemon, the real MCP server and the CLI on a virtual desktop
//! (Xvfb, openbox, a session D-Bus and the AT-SPI bus), driving real GTK apps and judging by
//! what the apps and independent readers (wmctrl, xprop, pyatspi) say.
//!
//! One test binary, built only with the `e2e` feature, so that a plain `cargo test` needs no
//! desktop. `scripts/test.sh` starts the desktop and runs them all, one at a time (they share a
//! screen, a keyboard and a focus):
//!
//! ```sh
//! scripts/desktop.sh run cargo test -p shuttle --features e2e --test e2e -- --test-threads=1
//! ```

#[path = "../common/mod.rs"]
mod common;

mod a11y;
mod app_text;
mod apps;
mod background;
mod cli;
mod clipboard;
#[cfg(feature = "bench")]
mod costs;
mod covered;
mod crash;
mod desk_read;
mod doctor;
mod gnome;
mod gnome48;
mod input;
mod kde;
mod kde6;
mod keys;
mod mcp;
mod plans;
mod private_display;
mod reach;
mod safety;
mod sandbox;
mod scripts;
mod soak;
mod trixie;
mod vision;
mod wayland;
mod window_apps;
mod wire;
