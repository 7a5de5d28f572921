//! An in-memory desktop, for tests that need no display.
//!
//! [`FakeDesk`] keeps windows with rectangles in stacking order, a focus that follows focus
//! requests as a window manager's would (raising the window), accessibility nodes, app names,
//! and scripted answers from the person at the desktop. Everything sent to it lands in an input
//! [`Event`] log, each event naming the window that received it, so a test judges an action by
//! what the desktop got rather than by the verb's reply.
//!
//! The desktop's state and its builders live here; each role it plays is a file of its own,
//! as the X11 backend's are: [`display`](self) (windows, pixels), `input`, `presence` (the
//! person's side), `apps`, `a11y` (accessibility).

mod a11y;
mod apps;
mod display;
mod input;
mod presence;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use desk_core::a11y::{Node, role as a11y_role};
use desk_core::call::{Button, ClipFormat, Direction};
use desk_core::geometry::Rect;
use desk_core::window::{Window, role};

use crate::accessibility::{Accessibility, AppWindow, Tree, Truncated, Want};
use crate::cancel::Cancel;
use crate::error::DeskError;
use crate::image::RgbImage;
use crate::progress::Progress;
use crate::system::{
    AccessibilityOff, Answer, Apps, Backend, Background, Clip, Display, DisplayInfo, Ending, Exit,
    FORCE_ACCESSIBILITY, FrameChange, Hotkey, Input, Launched, Opener, Platform, Pong, Presence,
    Question, Sandbox, WindowEvents, WindowState,
};

/// Something the desktop received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Keys pressed while `window` had the focus.
    Keys {
        /// The focused window, if any.
        window: Option<String>,
        /// The keysyms, in press order.
        keysyms: Vec<u32>,
    },
    /// Text typed while `window` had the focus.
    Text {
        /// The focused window, if any.
        window: Option<String>,
        /// What arrived.
        text: String,
    },
    /// A click where the pointer was, on the window on top there.
    Click {
        /// The window on top at the point, if any.
        window: Option<String>,
        /// Desk x.
        x: i32,
        /// Desk y.
        y: i32,
        /// The button.
        button: Button,
        /// How many clicks.
        count: u8,
    },
    /// Wheel notches where the pointer was.
    Scroll {
        /// The window on top at the point, if any.
        window: Option<String>,
        /// The direction.
        direction: Direction,
        /// How many notches.
        amount: u32,
    },
    /// A drag, from the window on top at its start to the one at its end.
    Drag {
        /// The window at the start.
        from: Option<String>,
        /// The window at the end.
        to: Option<String>,
    },
    /// A focus request for a window.
    Focus(String),
    /// A node's text or value set through accessibility: the node, what it was set to.
    SetValue(String, String),
    /// The `index`th child selected within a container.
    SelectChild(String, usize),
    /// A close request for a window.
    Close(String),
    /// An accessibility action run on a node.
    Action(String, usize),
    /// A node selected.
    Select(String),
    /// A node given the focus.
    GrabFocus(String),
    /// A program started.
    Launch(String),
    /// A frame change asked of the window manager for a window.
    Frame(String, FrameChange),
    /// A signal sent to a process.
    End(u32, Ending),
    /// The clipboard written.
    Clipboard,
    /// Input from agent `agent`'s own devices to `window`, which need not have the person's
    /// focus (keys and typing) or be on top (the wheel).
    Behind {
        /// The agent whose devices sent it.
        agent: String,
        /// The window it went to.
        window: String,
        /// What went: `keys 0x61`, `text hello`, `scroll down 3`.
        what: String,
    },
}

/// A window of the fake desktop.
#[derive(Debug, Clone)]
pub struct FakeWindow {
    /// The record `windows` lists (its `active` is kept by the desktop).
    pub window: Window,
    /// Where it is; `None` while minimized.
    pub rect: Option<Rect>,
    /// The colour it draws everywhere.
    pub colour: [u8; 3],
    /// Whether it ignores close requests.
    pub sticky: bool,
    /// A question it asks instead of closing: the title of a window it opens then.
    pub asks_on_close: Option<String>,
    /// Whether it refuses the focus.
    pub refuses_focus: bool,
    /// Whether the window manager makes it active but the keyboard focus stays elsewhere.
    pub focus_stays_out: bool,
    /// Whether it closes when asked to take the focus.
    pub closes_on_focus: bool,
    /// Whether its app never answers a ping, so input to it is answered busy.
    pub silent: bool,
    /// Pings its app still answers late (40 ms each) after answering the first one since the
    /// desktop last received something, as an app busy building a dialog after reading the
    /// input does; each late answer counts it down.
    pub busy_pings: u32,
    /// How long the desktop's log was when its app last answered a ping.
    pub pinged_at: Option<usize>,
}

impl FakeWindow {
    /// An ordinary window `id` titled `title` of process `pid`, at `rect`.
    pub fn new(id: &str, title: &str, pid: u32, rect: Rect) -> Self {
        Self {
            window: Window {
                id: id.into(),
                title: title.into(),
                role: "window".into(),
                pid: Some(pid),
                active: false,
                app: None,
                shell: false,
                owner: None,
                modal: None,
                blocks: None,
            },
            rect: Some(rect),
            colour: [(pid % 251) as u8, 100, 200],
            sticky: false,
            asks_on_close: None,
            refuses_focus: false,
            focus_stays_out: false,
            closes_on_focus: false,
            silent: false,
            busy_pings: 0,
            pinged_at: None,
        }
    }
}

/// An accessibility node of the fake desktop.
#[derive(Debug, Clone)]
pub struct FakeNode {
    /// The node (its `ref`, `parent` and `depth` are filled in per tree read).
    pub node: Node,
    /// The process it belongs to.
    pub pid: u32,
    /// Its parent's id; `None` for an app's top-level window.
    pub parent: Option<String>,
    /// Its actions' names.
    pub actions: Vec<String>,
    /// Whether selecting it works.
    pub selectable: bool,
    /// Whether it takes text through accessibility and changes nothing (as Firefox's fields
    /// do); typing still works.
    pub deaf: bool,
}

impl FakeNode {
    /// A node `id` with `role` and `name` of process `pid`, under `parent`.
    pub fn new(id: &str, role: &str, name: &str, pid: u32, parent: Option<&str>) -> Self {
        Self {
            node: Node {
                node_ref: 0,
                id: id.into(),
                parent: None,
                depth: 0,
                role: role.into(),
                name: name.into(),
                named_by: None,
                states: Vec::new(),
                bounds: None,
                keys: None,
                value: None,
            },
            pid,
            parent: parent.map(Into::into),
            actions: Vec::new(),
            selectable: false,
            deaf: false,
        }
    }

    /// Taking text through accessibility without changing (typing still works).
    pub fn deaf(mut self) -> Self {
        self.deaf = true;
        self
    }

    /// With screen bounds.
    pub fn bounds(mut self, bounds: [i32; 4]) -> Self {
        self.node.bounds = Some(bounds);
        self
    }

    /// With this value (a number, or a field's text).
    pub fn value(mut self, value: &str) -> Self {
        self.node.value = Some(value.into());
        self
    }

    /// With these states.
    pub fn states(mut self, states: &[&str]) -> Self {
        self.node.states = states.iter().map(|s| s.to_string()).collect();
        self
    }

    /// With these actions.
    pub fn actions(mut self, actions: &[&str]) -> Self {
        self.actions = actions.iter().map(|s| s.to_string()).collect();
        self
    }
}

/// Runs while the person is being asked: the test's chance to change the desktop meanwhile.
type WhileAsked = Box<dyn FnMut(&mut State) + Send>;

/// The fake desktop's state.
pub struct State {
    /// The screen.
    pub screen: Rect,
    /// The windows, topmost first.
    pub windows: Vec<FakeWindow>,
    /// The id of the focused window.
    pub focus: Option<String>,
    /// What the desktop received.
    pub log: Vec<Event>,
    /// The accessibility nodes, in document order.
    pub nodes: Vec<FakeNode>,
    /// The names each process goes by.
    pub names: HashMap<u32, Vec<String>>,
    /// What the person answers, in turn; with none left, nobody answers.
    pub answers: VecDeque<Answer>,
    /// The sandbox each launch was asked for, in order.
    pub sandboxes: Vec<Option<Sandbox>>,
    /// The questions the person was asked.
    pub questions: Vec<Question>,
    /// Whether the marker showed, each time it was set.
    pub marker: Vec<bool>,
    /// Stops a `type` after this many characters, as the person's stop would.
    pub stop_typing_after: Option<usize>,
    /// Whether the display can read a window's own pixels.
    pub window_pixels: bool,
    /// Whether an app can be asked if it has read its input (Wayland cannot).
    pub confirms: bool,
    /// Whether agents have devices of their own to send input in the background from.
    pub agent_devices: bool,
    /// Whether the window under an agent's pointer takes the person's focus, as a window
    /// manager that focuses under the pointer and is not MPX-aware does.
    pub focus_follows_agent: bool,
    /// The window manager's decorations around every window: left, right, top, bottom.
    pub decorations: [u32; 4],
    /// The process shuttle's own windows belong to.
    pub own_pid: u32,
    /// Programs that can be launched, with the title of the window each opens (below the
    /// others, as a window manager may place a new window).
    pub programs: HashMap<String, String>,
    /// How many reads of the window list a focus request takes to show, as a window manager
    /// handles it in its own time.
    pub focus_lag: u32,
    /// Parts of the screen shuttle draws on itself.
    pub overlays: Vec<Rect>,
    /// Makes the next read of the window list panic, as a bug in a backend would.
    pub panic_next: bool,
    /// Launched apps show a splash screen first, above their window (as LibreOffice does).
    pub splash_first: bool,
    /// Text nodes' selections: node id to start and end characters.
    pub selections: HashMap<String, (usize, usize)>,
    /// Text nodes' carets, where typing lands: node id to character.
    pub carets: HashMap<String, usize>,
    /// A part of the screen that shows a new colour at every capture (a spinner).
    pub spinner: Option<Rect>,
    /// Maximized windows, with the place each had before.
    pub maximized: HashMap<String, Option<Rect>>,
    /// Minimized windows, with the place each had before.
    pub minimized: HashMap<String, Option<Rect>>,
    /// Processes that ignore SIGTERM.
    pub ignores_term: Vec<u32>,
    /// Processes that have ended.
    pub exited: Vec<u32>,
    /// The default app per kind of target (`text/plain`, `x-scheme-handler/https`, ...).
    pub openers: HashMap<String, String>,
    /// Programs that exit at once, showing no window, and how.
    pub crashes: HashMap<String, Exit>,
    /// Programs that keep a CPU busy this long after they start, then wait for input.
    pub busy_for: HashMap<String, Duration>,
    /// The CPU each started process uses: from when, for how long; unknown for the others.
    pub cpu: HashMap<u32, (std::time::Instant, Duration)>,
    /// What the clipboard holds.
    pub clipboard: Option<Clip>,
    pending_focus: Option<(String, u32)>,
    /// The window events noticed so far, and the windows and focus they were noticed against.
    events: Vec<crate::system::WindowEvent>,
    noticed: (Vec<(String, String)>, Option<String>),
    captures: u32,
    pointer: (i32, i32),
    while_asked: Option<WhileAsked>,
    next_pid: u32,
}

impl State {
    fn window(&self, id: &str) -> Result<&FakeWindow, DeskError> {
        self.windows
            .iter()
            .find(|w| w.window.id == id)
            .ok_or_else(|| DeskError::WindowGone { id: id.into() })
    }

    /// The window on top at a desk point.
    pub fn top_at(&self, x: i32, y: i32) -> Option<String> {
        self.windows
            .iter()
            .find(|w| w.rect.is_some_and(|r| r.contains_point(x, y)))
            .map(|w| w.window.id.clone())
    }

    /// Raises window `id` to the top of the stack, below the popups (menus stay above the
    /// windows a window manager stacks).
    pub fn raise(&mut self, id: &str) {
        if let Some(i) = self.windows.iter().position(|w| w.window.id == id) {
            let window = self.windows.remove(i);
            let top = self
                .windows
                .iter()
                .position(|w| w.window.role != role::POPUP)
                .unwrap_or(self.windows.len());
            self.windows.insert(top, window);
        }
    }

    /// Focuses and raises window `id`, as a window manager grants a focus request.
    fn grant_focus(&mut self, id: &str) {
        self.raise(id);
        self.focus = Some(id.into());
    }

    /// Lets a pending focus request take effect once its lag has passed.
    /// Records, as events happening now, how the windows and the focus differ from when
    /// they were last noticed: the fake's stand-in for a display's event stream.
    fn notice(&mut self) {
        use crate::system::{WindowEvent, WindowEventKind};
        let now: Vec<(String, String)> = self
            .windows
            .iter()
            .map(|w| (w.window.id.clone(), w.window.title.clone()))
            .collect();
        let at = std::time::Instant::now();
        let event = |kind, id: &str| WindowEvent {
            at,
            window: Some(id.to_string()),
            kind,
        };
        let (before, focus) = &self.noticed;
        let mut events = Vec::new();
        for (id, title) in &now {
            match before.iter().find(|(b, _)| b == id) {
                None => events.push(event(WindowEventKind::Opened, id)),
                Some((_, was)) if was != title => events.push(event(WindowEventKind::Retitled, id)),
                Some(_) => {}
            }
        }
        for (id, _) in before {
            if !now.iter().any(|(n, _)| n == id) {
                events.push(event(WindowEventKind::Closed, id));
            }
        }
        if *focus != self.focus {
            events.push(WindowEvent {
                at,
                window: None,
                kind: WindowEventKind::Activated,
            });
        }
        self.events.extend(events);
        self.noticed = (now, self.focus.clone());
    }

    fn tick(&mut self) {
        match self.pending_focus.take() {
            Some((id, 0)) => self.grant_focus(&id),
            Some((id, left)) => self.pending_focus = Some((id, left - 1)),
            None => {}
        }
    }

    fn node(&self, id: &str) -> Result<&FakeNode, DeskError> {
        self.nodes
            .iter()
            .find(|n| n.node.id == id)
            .ok_or_else(|| DeskError::NodeGone {
                id: id.into(),
                reason: "the fake desktop has no such node".into(),
            })
    }

    /// The value of editable node `id`, to change; refused, nothing sent, for any other node.
    fn editable_value(&mut self, id: &str) -> Result<&mut Option<String>, DeskError> {
        if !self.node(id)?.node.states.iter().any(|s| s == "editable") {
            return Err(DeskError::Invalid(format!("node {id} takes no text")).unsent());
        }
        let node = self.nodes.iter_mut().find(|n| n.node.id == id);
        Ok(&mut node.expect("found above").node.value)
    }

    /// The editable node with the keyboard focus, in the focused window's process.
    fn focused_field(&self) -> Option<usize> {
        let pid = self.window(self.focus.as_deref()?).ok()?.window.pid?;
        self.focused_field_of(pid)
    }

    /// The editable field with the focus in process `pid`'s windows.
    fn focused_field_of(&self, pid: u32) -> Option<usize> {
        self.nodes.iter().position(|n| {
            n.pid == pid
                && n.node.states.iter().any(|s| s == "focused")
                && n.node.states.iter().any(|s| s == "editable")
        })
    }

    /// Keys as a focused field takes them: ctrl+a selects all of it, backspace deletes the
    /// selection.
    fn edit_with_keys(&mut self, keysyms: &[u32]) {
        const CONTROL_L: u32 = 0xffe3;
        const BACKSPACE: u32 = 0xff08;
        let Some(at) = self.focused_field() else {
            return;
        };
        let id = self.nodes[at].node.id.clone();
        let text = self.nodes[at].node.value.clone().unwrap_or_default();
        match keysyms {
            [CONTROL_L, key] if *key == u32::from(b'a') => {
                self.selections.insert(id, (0, text.chars().count()));
            }
            [BACKSPACE] => {
                if let Some((start, end)) = self.selections.remove(&id) {
                    let kept: String = text
                        .chars()
                        .take(start)
                        .chain(text.chars().skip(end))
                        .collect();
                    self.nodes[at].node.value = Some(kept);
                    self.carets.insert(id, start);
                }
            }
            _ => {}
        }
    }

    /// Typed text as a focused field takes it: over its selection, else at its caret.
    fn edit_with_text(&mut self, typed: &str) {
        if let Some(at) = self.focused_field() {
            self.insert_at_caret(at, typed);
        }
    }

    /// Text typed into the field with the focus in process `pid`'s windows (from an agent's
    /// own devices, whose keyboard focus is its own).
    fn edit_app_with_text(&mut self, pid: u32, typed: &str) {
        if let Some(at) = self.focused_field_of(pid) {
            self.insert_at_caret(at, typed);
        }
    }

    /// Replaces field `at`'s selection, or inserts at its caret, with `typed`.
    fn insert_at_caret(&mut self, at: usize, typed: &str) {
        let id = self.nodes[at].node.id.clone();
        let text = self.nodes[at].node.value.clone().unwrap_or_default();
        let len = text.chars().count();
        let (start, end) = self.selections.remove(&id).unwrap_or_else(|| {
            let caret = self.carets.get(&id).copied().unwrap_or(len).min(len);
            (caret, caret)
        });
        let edited: String = text
            .chars()
            .take(start)
            .chain(typed.chars())
            .chain(text.chars().skip(end))
            .collect();
        self.nodes[at].node.value = Some(edited);
        self.carets.insert(id, start + typed.chars().count());
    }

    fn shown(&self, fake: &FakeNode, want: Want) -> Node {
        let mut node = fake.node.clone();
        if !want.bounds {
            node.bounds = None;
        }
        node
    }
}

/// An in-memory desktop; clone the handle freely, every clone is the same desktop.
#[derive(Clone)]
pub struct FakeDesk(Arc<Mutex<State>>);

impl FakeDesk {
    /// An empty desktop with a screen of `w` by `h`.
    pub fn new(w: u32, h: u32) -> Self {
        Self(Arc::new(Mutex::new(State {
            screen: Rect::new(0, 0, w, h),
            windows: Vec::new(),
            focus: None,
            log: Vec::new(),
            nodes: Vec::new(),
            names: HashMap::new(),
            answers: VecDeque::new(),
            sandboxes: Vec::new(),
            questions: Vec::new(),
            marker: Vec::new(),
            stop_typing_after: None,
            window_pixels: true,
            confirms: true,
            agent_devices: false,
            focus_follows_agent: false,
            decorations: [0; 4],
            own_pid: 1,
            programs: HashMap::new(),
            focus_lag: 0,
            overlays: Vec::new(),
            panic_next: false,
            splash_first: false,
            selections: HashMap::new(),
            carets: HashMap::new(),
            spinner: None,
            maximized: HashMap::new(),
            minimized: HashMap::new(),
            ignores_term: Vec::new(),
            exited: Vec::new(),
            openers: HashMap::new(),
            crashes: HashMap::new(),
            busy_for: HashMap::new(),
            cpu: HashMap::new(),
            clipboard: None,
            pending_focus: None,
            events: Vec::new(),
            noticed: (Vec::new(), None),
            captures: 0,
            pointer: (0, 0),
            while_asked: None,
            next_pid: 5000,
        })))
    }

    /// The state, to arrange a scene or read what happened.
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds `window` on top of the others, its app going by `names`.
    pub fn add(&self, window: FakeWindow, names: &[&str]) {
        let mut state = self.state();
        if let Some(pid) = window.window.pid {
            state
                .names
                .insert(pid, names.iter().map(|n| n.to_string()).collect());
        }
        state.windows.insert(0, window);
    }

    /// Gives window `id` the focus, raising it.
    pub fn focus(&self, id: &str) {
        let mut state = self.state();
        state.raise(id);
        state.focus = Some(id.into());
    }

    /// Adds an accessibility node.
    pub fn node(&self, node: FakeNode) {
        self.state().nodes.push(node);
    }

    /// The person's next answer.
    pub fn answer(&self, answer: Answer) {
        self.state().answers.push_back(answer);
    }

    /// Changes the desktop while the person is being asked.
    pub fn while_asked(&self, change: impl FnMut(&mut State) + Send + 'static) {
        self.state().while_asked = Some(Box::new(change));
    }

    /// What the desktop received.
    pub fn log(&self) -> Vec<Event> {
        self.state().log.clone()
    }

    /// This desktop as a backend.
    pub fn backend(&self) -> Backend {
        Backend {
            display: Arc::new(self.clone()),
            input: Arc::new(self.clone()),
            presence: Arc::new(self.clone()),
            apps: Arc::new(self.clone()),
            accessibility: Arc::new(self.clone()),
            background: self
                .state()
                .agent_devices
                .then(|| Arc::new(self.clone()) as Arc<dyn Background>),
        }
    }

    fn log_event(&self, event: Event) {
        self.state().log.push(event);
    }
}

fn fill(colour: [u8; 3], w: u32, h: u32) -> RgbImage {
    RgbImage {
        width: w,
        height: h,
        pixels: colour.repeat((w * h) as usize),
    }
}

/// A grab that holds as long as the fake desktop does.
struct FakeHotkey;

impl Hotkey for FakeHotkey {
    fn alive(&self) -> bool {
        true
    }
}

impl Platform for FakeDesk {
    fn connect(&self) -> Result<Backend, DeskError> {
        Ok(self.backend())
    }

    fn grab_hotkey(
        &self,
        combo: &str,
        _pressed: Box<dyn Fn() + Send + Sync>,
    ) -> Result<Box<dyn Hotkey>, DeskError> {
        crate::keys::parse_combo(combo)?;
        Ok(Box::new(FakeHotkey))
    }

    fn ask_person(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        self.ask(question, cancel)
    }
}
