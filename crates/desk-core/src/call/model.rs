//! The model calls the daemon makes for scripts and plans, so the key never leaves it. Their
//! arguments and answers belong to the models crate (`shuttle-models`); the wire only names them.

/// One of the model tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelCall {
    /// `model_decide`: questions about a state, answered with probabilities.
    Decide,
    /// `model_ask`: a prompt answered in text.
    Ask,
    /// `model_ground`: a target's point on a screenshot, in desk coordinates.
    Ground,
}

impl ModelCall {
    /// Every model tool.
    pub const ALL: [ModelCall; 3] = [ModelCall::Decide, ModelCall::Ask, ModelCall::Ground];

    /// Its wire name.
    pub fn tool_name(self) -> &'static str {
        match self {
            ModelCall::Decide => "model_decide",
            ModelCall::Ask => "model_ask",
            ModelCall::Ground => "model_ground",
        }
    }

    /// The model tool a wire name stands for.
    pub fn from_tool(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|call| call.tool_name() == name)
    }
}
