//! What `shuttle doctor` reports of the person's native session: each backend's file says how
//! its session stands (`wayland::finding`, `gnome::finding`), so doctor names no backend.

/// How a part of the person's session stands, as doctor grades it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Works.
    Ok,
    /// Works, with a limit worth knowing.
    Warn,
    /// Needed by this configuration, and not working.
    Fail,
    /// Not needed here.
    Skip,
}

/// One finding: its level, what was found, and what the person can do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub level: Level,
    pub detail: String,
    pub fix: Option<String>,
}

impl Finding {
    pub(super) fn new(level: Level, detail: impl Into<String>) -> Self {
        Self {
            level,
            detail: detail.into(),
            fix: None,
        }
    }

    pub(super) fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    /// A session seen but not driven, since agents get displays of their own.
    pub(super) fn not_driven(detail: &str) -> Self {
        Self::new(
            Level::Skip,
            format!("{detail}; not driven: agents get displays of their own"),
        )
    }
}

/// The fix that always applies when the person's desktop cannot be driven.
pub const PER_AGENT_FIX: &str =
    "or let agents use displays of their own: [daemon] display = \"per-agent\" in config.toml";
