//! The safety controls, applied where no verb can get around them.
//!
//! - [`policy`]: the settings of one call and the pure verdicts on names and titles.
//! - [`desk`]: [`Desk`], the only way a verb sees the desktop. Every read is filtered by the
//!   app allowlist here, and [`Desk::admit`] is where an action, its targets resolved, meets the
//!   allowlist, the auth guard, read-only, dry run and the person at the desktop.
//! - [`admitted`]: [`Admitted`], what admission hands back. Input methods exist only on it, so
//!   input that skipped admission does not compile; each one sends only to the targets that
//!   were admitted, checks again that they are still where the input lands (the focus, the
//!   window on top at a point), and records that input went out.
//! - [`nodes`]: the accessibility tree under the same rules.
//! - [`way`]: whether an action's input goes on the person's devices or the agent's own devices.
//! - [`finish`]: how a call ended ([`desk_core::outcome::Outcome`]), decided from what the
//!   gate saw go out.

pub mod admitted;
pub mod desk;
mod finish;
pub mod nodes;
pub mod policy;
pub mod way;

pub use admitted::Admitted;
pub use desk::{Caller, Desk, ScreenSource, Seen, Spot, Watch};
pub use finish::Ran;
pub use nodes::{ActingNodes, Nodes};
pub use policy::{InputMode, Policy, read_only_refusal};
pub use way::Way;
