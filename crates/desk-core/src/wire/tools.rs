//! The tools a daemon answers, by their names on the wire.
//!
//! Every desk verb is the tool `desk_<verb>`; besides them there are `status`, `script_run`,
//! `gui_plan`, the model calls (`model_decide`, `model_ask`, `model_ground`), and the person's
//! own controls, `safety_stop` and `safety_resume`, which no MCP tool sends.
//! Plugin and service tools are named by files the daemon reads, so it routes them itself.

use crate::call::model::ModelCall;
use crate::call::{Kind, Verb};

/// The tool that reports the daemon's state.
pub const STATUS: &str = "status";
/// The tool `shuttle stop` and the kill hotkey send.
pub const SAFETY_STOP: &str = "safety_stop";
/// The tool `shuttle resume` sends.
pub const SAFETY_RESUME: &str = "safety_resume";

/// A tool a request can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `status`.
    Status,
    /// `safety_stop`.
    Stop,
    /// `safety_resume`.
    Resume,
    /// `desk_<verb>`.
    Desk(Verb),
    /// `script_run`.
    ScriptRun,
    /// `gui_plan`.
    GuiPlan,
    /// `model_decide`, `model_ask`, `model_ground`.
    Model(ModelCall),
}

impl Tool {
    /// The tool a wire name stands for.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            STATUS => Some(Tool::Status),
            SAFETY_STOP => Some(Tool::Stop),
            SAFETY_RESUME => Some(Tool::Resume),
            crate::call::script::SCRIPT_RUN => Some(Tool::ScriptRun),
            crate::call::script::GUI_PLAN => Some(Tool::GuiPlan),
            _ => ModelCall::from_tool(name)
                .map(Tool::Model)
                .or_else(|| Verb::from_tool(name).map(Tool::Desk)),
        }
    }

    /// Whether it observes, acts, or is one of the person's controls.
    pub fn kind(self) -> Kind {
        match self {
            Tool::Status => Kind::Observe,
            Tool::Stop | Tool::Resume => Kind::Control,
            Tool::Desk(verb) => verb.kind(),
            Tool::ScriptRun | Tool::GuiPlan => Kind::Run,
            Tool::Model(_) => Kind::Model,
        }
    }
}

/// The answer to a request for a tool this daemon does not have.
pub fn unknown(name: &str) -> String {
    let verbs: Vec<String> = Verb::ALL.iter().map(|v| v.tool_name()).collect();
    format!(
        "unknown tool {name:?}; this daemon answers {STATUS}, {SAFETY_STOP}, {SAFETY_RESUME}, \
         {}, {}, the model calls {}, its plugins' and services' tools, and the desk verbs {}",
        crate::call::script::SCRIPT_RUN,
        crate::call::script::GUI_PLAN,
        ModelCall::ALL.map(ModelCall::tool_name).join(", "),
        verbs.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_to_tools_of_their_kind() {
        assert_eq!(Tool::parse("status"), Some(Tool::Status));
        assert_eq!(
            Tool::parse("safety_stop").map(Tool::kind),
            Some(Kind::Control)
        );
        assert_eq!(Tool::parse("desk_click"), Some(Tool::Desk(Verb::Click)));
        assert_eq!(Tool::parse("desk_click").map(Tool::kind), Some(Kind::Act));
        assert_eq!(
            Tool::parse("desk_read").map(Tool::kind),
            Some(Kind::Observe)
        );
        assert_eq!(Tool::parse("click"), None);
        assert_eq!(
            Tool::parse("model_ground").map(Tool::kind),
            Some(Kind::Model)
        );
        assert_eq!(Tool::parse("gui_plan").map(Tool::kind), Some(Kind::Run));
        assert!(
            unknown("desk_fly")
                .starts_with("unknown tool \"desk_fly\"; this daemon answers status")
        );
    }
}
