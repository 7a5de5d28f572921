//! The safety controls, applied where no verb can get around them.
//!
//! The daemon wraps its backend in a [`Guarded`] for each call. Verbs see an ordinary
//! [`Backend`]; two things are different:
//!
//! - [`Backend::allows`] applies the app allowlist, so the verbs list, pick and hit only windows
//!   of allowed apps.
//! - [`Backend::admit`] is where an action, its targets resolved, meets the allowlist, the auth
//!   guard, dry run and the person at the desktop (confirm mode).
//!
//! And the input layer checks again: every input primitive, on the backend and on its
//! accessibility API, refuses to run before an admission, during a dry run or read-only, or
//! after a stop. So a verb that forgot to ask fails loudly instead of acting. The gate also
//! records whether any input went out, which is what makes an outcome `unknown` rather than
//! `refused`.

pub mod apps;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use desk_core::a11y::Node;
use desk_core::call::{Button, Direction};
use desk_core::geometry::Rect;
use desk_core::window::Window;

use crate::accessibility::{Accessibility, AppWindow, Want};
use crate::backend::{Answer, Backend, BackendInfo, Question};
use crate::cancel::Cancel;
use crate::error::DeskError;
use crate::image::RgbImage;
use crate::intent::{Intent, Target};
use crate::keys::KeyCombo;

/// The role AT-SPI gives a password entry.
const PASSWORD_ROLE: &str = "password text";

/// The safety settings one call runs under.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// When set, the apps whose windows agents may see and touch.
    pub apps: Option<Vec<String>>,
    /// Refuse typing into password fields and any input into authentication dialogs.
    pub auth_guard: bool,
    /// Ask the person at the desktop before each action, waiting this long for an answer.
    pub confirm: Option<Duration>,
    /// Check and describe actions, deliver none.
    pub dry_run: bool,
    /// Serve observations only.
    pub read_only: bool,
}

/// What one call may still do, shared by the backend and its accessibility API.
struct Gate {
    cancel: Cancel,
    dry_run: bool,
    read_only: bool,
    admitted: AtomicBool,
    sent: AtomicBool,
}

impl Gate {
    /// Lets one input primitive through, or says why not. `sends` marks input an app receives
    /// (a key, a click, an action), as opposed to moving the pointer or the focus.
    fn pass(&self, what: &str, sends: bool) -> Result<(), DeskError> {
        if self.cancel.is_cancelled() {
            return Err(DeskError::Cancelled {
                done: format!("it stopped before {what}"),
            });
        }
        if self.dry_run {
            return Err(DeskError::Refused(format!(
                "dry run is on, and {what} reached the input layer; this is a bug in shuttle, \
                 please report it"
            )));
        }
        if self.read_only {
            return Err(DeskError::Refused(format!(
                "shuttle is read-only, and {what} reached the input layer; this is a bug in \
                 shuttle, please report it"
            )));
        }
        if !self.admitted.load(Ordering::SeqCst) {
            return Err(DeskError::Refused(format!(
                "{what} came before the safety checks; this is a bug in shuttle, please report it"
            )));
        }
        if sends {
            self.sent.store(true, Ordering::SeqCst);
        }
        Ok(())
    }
}

/// A backend under a policy, for one call.
pub struct Guarded {
    inner: Arc<dyn Backend>,
    policy: Arc<Policy>,
    agent: String,
    allow_auth: bool,
    gate: Arc<Gate>,
    names: Mutex<HashMap<u32, Vec<String>>>,
}

impl Guarded {
    /// Wraps `inner` for one call by `agent`. `allow_auth` is the call's own override of the
    /// auth guard; `cancel` is the call's cancel flag.
    pub fn new(
        inner: Arc<dyn Backend>,
        policy: Arc<Policy>,
        agent: &str,
        allow_auth: bool,
        cancel: Cancel,
    ) -> Self {
        let gate = Gate {
            cancel,
            dry_run: policy.dry_run,
            read_only: policy.read_only,
            admitted: AtomicBool::new(false),
            sent: AtomicBool::new(false),
        };
        Self {
            inner,
            policy,
            agent: agent.into(),
            allow_auth,
            gate: Arc::new(gate),
            names: Mutex::default(),
        }
    }

    /// Whether any input went out during the call: when it then failed, its outcome is unknown.
    pub fn sent(&self) -> bool {
        self.gate.sent.load(Ordering::SeqCst)
    }

    fn names(&self, pid: u32) -> Vec<String> {
        let mut names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        names
            .entry(pid)
            .or_insert_with(|| apps::names_of(pid))
            .clone()
    }

    fn allowlist(&self) -> String {
        self.policy
            .apps
            .as_ref()
            .map(|apps| apps.join(", "))
            .unwrap_or_default()
    }

    /// The allowlist's verdict on one target.
    fn check_target(&self, target: &Target) -> Result<(), DeskError> {
        match target {
            Target::Window { pid, .. } => self
                .allows(*pid)
                .map_err(|why| DeskError::Refused(format!("{target}: {why}"))),
            Target::Bare(place) if self.policy.apps.is_some() => Err(DeskError::Refused(format!(
                "the input would land on {place}, which is no window of an allowed app \
                 ([safety] apps: {})",
                self.allowlist()
            ))),
            Target::Bare(_) => Ok(()),
            Target::Program(program) => match &self.policy.apps {
                Some(list) => {
                    let name = std::path::Path::new(program)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| program.clone());
                    if list
                        .iter()
                        .any(|entry| apps::listed(entry, std::slice::from_ref(&name)))
                    {
                        Ok(())
                    } else {
                        Err(DeskError::Refused(format!(
                            "{name:?} is not in the app allowlist ([safety] apps: {})",
                            self.allowlist()
                        )))
                    }
                }
                None => Ok(()),
            },
        }
    }

    /// The auth guard's verdict on one target: no input into authentication dialogs.
    fn check_auth_dialog(&self, target: &Target) -> Result<(), DeskError> {
        let Target::Window { title, pid, .. } = target else {
            return Ok(());
        };
        let names = pid.map(|pid| self.names(pid)).unwrap_or_default();
        if apps::is_auth_prompt(&names, title) {
            return Err(DeskError::Refused(format!(
                "{target} is an authentication dialog and the auth guard is on; pass \
                 allow_auth: true only if the person at the desktop asked you to answer it"
            )));
        }
        Ok(())
    }

    fn auth_guarded(&self) -> bool {
        self.policy.auth_guard && !self.allow_auth
    }

    /// Refuses typing while a password field has the focus in the app of `focused`. Where
    /// accessibility cannot tell, typing goes ahead.
    fn check_password_field(&self, focused: Option<&Window>) -> Result<(), DeskError> {
        if !self.auth_guarded() {
            return Ok(());
        }
        let Some(pid) = focused.and_then(|w| w.pid) else {
            return Ok(());
        };
        let Ok(acc) = self.inner.accessibility() else {
            return Ok(());
        };
        match acc.focused_in(pid) {
            Ok(Some(node)) if node.role == PASSWORD_ROLE => Err(DeskError::Refused(format!(
                "the focused field {:?} is a password field and the auth guard is on; pass \
                 allow_auth: true only if the person at the desktop asked you to type it",
                node.name
            ))),
            _ => Ok(()),
        }
    }

    fn confirm(&self, intent: &Intent, timeout: Duration) -> Result<(), DeskError> {
        let question = Question {
            agent: self.agent.clone(),
            action: intent.describe(),
            text: intent.text.clone(),
            timeout,
        };
        match self.inner.ask(&question, &self.gate.cancel)? {
            Answer::Allow => Ok(()),
            Answer::Deny => Err(DeskError::Refused(
                "the person at the desktop denied it (confirm mode)".into(),
            )),
            Answer::Closed if self.gate.cancel.is_cancelled() => Err(DeskError::Cancelled {
                done: "it stopped while the person was being asked; nothing was sent".into(),
            }),
            Answer::Closed => Err(DeskError::Refused(
                "the person at the desktop closed the confirm dialog without allowing it \
                 (confirm mode)"
                    .into(),
            )),
            Answer::NoAnswer => Err(DeskError::Refused(format!(
                "the person at the desktop did not answer within {} s, which counts as deny \
                 (confirm mode)",
                timeout.as_secs()
            ))),
        }
    }
}

impl Backend for Guarded {
    fn info(&self) -> BackendInfo {
        self.inner.info()
    }

    fn windows(&self) -> Result<Vec<Window>, DeskError> {
        self.inner.windows()
    }

    fn screen(&self) -> Result<Rect, DeskError> {
        self.inner.screen()
    }

    fn window_rect(&self, id: &str) -> Result<Option<Rect>, DeskError> {
        self.inner.window_rect(id)
    }

    fn capture(&self, rect: Rect) -> Result<RgbImage, DeskError> {
        self.inner.capture(rect)
    }

    fn capture_scaled(&self, rect: Rect, width: u32) -> Result<RgbImage, DeskError> {
        self.inner.capture_scaled(rect, width)
    }

    fn fingerprint(&self) -> Result<u64, DeskError> {
        self.inner.fingerprint()
    }

    fn has_focus(&self, id: &str) -> Result<bool, DeskError> {
        self.inner.has_focus(id)
    }

    fn request_focus(&self, id: &str) -> Result<(), DeskError> {
        self.gate.pass("moving the focus", false)?;
        self.inner.request_focus(id)
    }

    fn request_close(&self, id: &str) -> Result<(), DeskError> {
        self.gate.pass("closing a window", true)?;
        self.inner.request_close(id)
    }

    fn press_keys(
        &self,
        keysyms: &[u32],
        focused: Option<&Window>,
        cancel: &Cancel,
    ) -> Result<(), DeskError> {
        let combo = KeyCombo {
            keysyms: keysyms.to_vec(),
        };
        if combo.types_text() {
            self.check_password_field(focused)?;
        }
        self.gate.pass("pressing keys", true)?;
        self.inner.press_keys(keysyms, focused, cancel)
    }

    fn type_text(
        &self,
        text: &str,
        focused: Option<&Window>,
        cancel: &Cancel,
    ) -> Result<usize, DeskError> {
        self.check_password_field(focused)?;
        self.gate.pass("typing", true)?;
        self.inner.type_text(text, focused, cancel)
    }

    fn move_pointer(&self, x: i32, y: i32) -> Result<(), DeskError> {
        self.gate.pass("moving the pointer", false)?;
        self.inner.move_pointer(x, y)
    }

    fn click(&self, button: Button, count: u8) -> Result<(), DeskError> {
        self.gate.pass("clicking", true)?;
        self.inner.click(button, count)
    }

    fn scroll(&self, direction: Direction, amount: u32, cancel: &Cancel) -> Result<(), DeskError> {
        self.gate.pass("scrolling", true)?;
        self.inner.scroll(direction, amount, cancel)
    }

    fn drag(&self, from: (i32, i32), to: (i32, i32), cancel: &Cancel) -> Result<(), DeskError> {
        self.gate.pass("dragging", true)?;
        self.inner.drag(from, to, cancel)
    }

    fn settle(&self, id: &str, limit: Duration) -> bool {
        self.inner.settle(id, limit)
    }

    fn accessibility(&self) -> Result<Arc<dyn Accessibility>, DeskError> {
        Ok(Arc::new(GuardedAccessibility {
            inner: self.inner.accessibility()?,
            gate: self.gate.clone(),
        }))
    }

    fn allows(&self, pid: Option<u32>) -> Result<(), String> {
        if pid == Some(std::process::id()) {
            return Err("that is shuttle's own window".into());
        }
        let Some(list) = &self.policy.apps else {
            return Ok(());
        };
        let Some(pid) = pid else {
            return Err(format!(
                "its process is unknown, so it cannot be matched to an allowed app ([safety] \
                 apps: {})",
                self.allowlist()
            ));
        };
        let names = self.names(pid);
        if list.iter().any(|entry| apps::listed(entry, &names)) {
            Ok(())
        } else {
            Err(format!(
                "its app (named {}) is not in the app allowlist ([safety] apps: {})",
                names.join(", "),
                self.allowlist()
            ))
        }
    }

    fn admit(&self, intent: &Intent) -> Result<(), DeskError> {
        if self.gate.cancel.is_cancelled() {
            return Err(DeskError::Cancelled {
                done: "nothing was sent".into(),
            });
        }
        if self.policy.read_only {
            return Err(DeskError::Refused(
                "shuttle is read-only ([safety] read_only); only observations are served".into(),
            ));
        }
        for target in &intent.targets {
            self.check_target(target)?;
            if self.auth_guarded() {
                self.check_auth_dialog(target)?;
            }
        }
        if self.policy.dry_run {
            return Err(DeskError::DryRun(intent.describe()));
        }
        if let Some(timeout) = self.policy.confirm {
            self.confirm(intent, timeout)?;
        }
        self.gate.admitted.store(true, Ordering::SeqCst);
        Ok(())
    }

    fn ask(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        self.inner.ask(question, cancel)
    }

    fn indicate(&self, acting: bool) {
        self.inner.indicate(acting);
    }

    fn overlays(&self) -> Vec<Rect> {
        self.inner.overlays()
    }

    fn release(&self) -> Result<(), DeskError> {
        self.inner.release()
    }
}

/// The accessibility API under the same gate as its backend.
struct GuardedAccessibility {
    inner: Arc<dyn Accessibility>,
    gate: Arc<Gate>,
}

impl Accessibility for GuardedAccessibility {
    fn windows_of(&self, pid: u32) -> Result<Option<Vec<AppWindow>>, DeskError> {
        self.inner.windows_of(pid)
    }

    fn tree(&self, root: &str, want: Want) -> Result<Vec<Node>, DeskError> {
        self.inner.tree(root, want)
    }

    fn node(&self, id: &str, want: Want) -> Result<Node, DeskError> {
        self.inner.node(id, want)
    }

    fn ancestors(&self, id: &str) -> Result<Vec<Node>, DeskError> {
        self.inner.ancestors(id)
    }

    fn at_point(&self, root: &str, x: i32, y: i32) -> Result<Option<String>, DeskError> {
        self.inner.at_point(root, x, y)
    }

    fn actions(&self, id: &str) -> Result<Vec<String>, DeskError> {
        self.inner.actions(id)
    }

    fn do_action(&self, id: &str, index: usize) -> Result<bool, DeskError> {
        self.gate.pass("running an accessibility action", true)?;
        self.inner.do_action(id, index)
    }

    fn select(&self, id: &str) -> Result<bool, DeskError> {
        self.gate.pass("selecting a node", true)?;
        self.inner.select(id)
    }

    fn grab_focus(&self, id: &str) -> Result<bool, DeskError> {
        self.gate.pass("focusing a node", true)?;
        self.inner.grab_focus(id)
    }

    fn pid_of(&self, id: &str) -> Result<u32, DeskError> {
        self.inner.pid_of(id)
    }

    fn focused_in(&self, pid: u32) -> Result<Option<Node>, DeskError> {
        self.inner.focused_in(pid)
    }
}
