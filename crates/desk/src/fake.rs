//! An in-memory desktop, for tests that need no display.
//!
//! [`FakeDesk`] keeps windows with rectangles in stacking order, a focus that follows focus
//! requests as a window manager's would (raising the window), accessibility nodes, app names,
//! and scripted answers from the person at the desktop. Everything sent to it lands in an input
//! [`Event`] log, each event naming the window that received it, so a test judges an action by
//! what the desktop got rather than by the verb's reply.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use desk_core::a11y::Node;
use desk_core::call::{Button, ClipFormat, Direction};
use desk_core::geometry::Rect;
use desk_core::window::Window;

use crate::accessibility::{Accessibility, AppWindow, Tree, Truncated, Want};
use crate::cancel::Cancel;
use crate::error::DeskError;
use crate::image::RgbImage;
use crate::system::{
    Answer, Apps, Backend, Clip, Display, DisplayInfo, Ending, Exit, FORCE_ACCESSIBILITY,
    FrameChange, Hotkey, Input, Launched, Opener, Platform, Presence, Question, WindowState,
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
    /// Whether its app never answers a ping, so input to it is never confirmed.
    pub silent: bool,
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
    /// The questions the person was asked.
    pub questions: Vec<Question>,
    /// Whether the marker showed, each time it was set.
    pub marker: Vec<bool>,
    /// Stops a `type` after this many characters, as the person's stop would.
    pub stop_typing_after: Option<usize>,
    /// Whether the display can read a window's own pixels.
    pub window_pixels: bool,
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
    /// What the clipboard holds.
    pub clipboard: Option<Clip>,
    pending_focus: Option<(String, u32)>,
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
                .position(|w| w.window.role != "popup")
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
        let Some(at) = self.focused_field() else {
            return;
        };
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
            questions: Vec::new(),
            marker: Vec::new(),
            stop_typing_after: None,
            window_pixels: true,
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
            clipboard: None,
            pending_focus: None,
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

impl Display for FakeDesk {
    fn info(&self) -> DisplayInfo {
        DisplayInfo {
            system: "fake",
            display: "memory".into(),
            capture: "memory",
            window_pixels: self.state().window_pixels,
        }
    }

    fn windows(&self) -> Result<Vec<Window>, DeskError> {
        let mut state = self.state();
        if std::mem::take(&mut state.panic_next) {
            drop(state);
            panic!("the fake desk was told to panic");
        }
        state.tick();
        Ok(state
            .windows
            .iter()
            .map(|w| Window {
                active: state.focus.as_deref() == Some(w.window.id.as_str()),
                ..w.window.clone()
            })
            .collect())
    }

    fn screen(&self) -> Result<Rect, DeskError> {
        Ok(self.state().screen)
    }

    fn window_at(&self, x: i32, y: i32) -> Result<Option<Window>, DeskError> {
        let windows = self.windows()?;
        let state = self.state();
        Ok(state
            .top_at(x, y)
            .and_then(|id| windows.into_iter().find(|w| w.id == id)))
    }

    fn window_rect(&self, id: &str) -> Result<Option<Rect>, DeskError> {
        Ok(self.state().window(id)?.rect)
    }

    fn capture(&self, rect: Rect) -> Result<RgbImage, DeskError> {
        let mut state = self.state();
        state.captures += 1;
        let spin = [(state.captures * 37 % 256) as u8, 0, 0];
        let mut pixels = Vec::with_capacity((rect.w * rect.h * 3) as usize);
        for y in rect.y..rect.y + rect.h as i32 {
            for x in rect.x..rect.x + rect.w as i32 {
                if state.spinner.is_some_and(|r| r.contains_point(x, y)) {
                    pixels.extend(spin);
                    continue;
                }
                let top = state
                    .windows
                    .iter()
                    .find(|w| w.rect.is_some_and(|r| r.contains_point(x, y)));
                pixels.extend(top.map_or([0, 0, 0], |w| w.colour));
            }
        }
        Ok(RgbImage {
            width: rect.w,
            height: rect.h,
            pixels,
        })
    }

    fn capture_scaled(&self, rect: Rect, width: u32) -> Result<RgbImage, DeskError> {
        Ok(crate::image::shrink(&self.capture(rect)?, width))
    }

    fn capture_window(&self, id: &str, area: Rect) -> Result<Option<RgbImage>, DeskError> {
        let state = self.state();
        let window = state.window(id)?;
        Ok(state
            .window_pixels
            .then(|| fill(window.colour, area.w, area.h)))
    }

    fn fingerprint(&self) -> Result<u64, DeskError> {
        use std::hash::{DefaultHasher, Hash, Hasher};
        let mut hasher = DefaultHasher::new();
        for w in &self.state().windows {
            w.window.id.hash(&mut hasher);
        }
        Ok(hasher.finish())
    }

    fn has_focus(&self, id: &str) -> Result<bool, DeskError> {
        let state = self.state();
        let follows = state.window(id).is_ok_and(|w| !w.focus_stays_out);
        Ok(follows && state.focus.as_deref() == Some(id))
    }

    fn read_clipboard(&self, format: ClipFormat) -> Result<Option<Clip>, DeskError> {
        let held = self.state().clipboard.clone();
        Ok(held.filter(|clip| {
            matches!(
                (clip, format),
                (Clip::Text(_), ClipFormat::Text)
                    | (Clip::Png(_), ClipFormat::Image)
                    | (Clip::Files(_), ClipFormat::Files)
            )
        }))
    }

    fn window_state(&self, id: &str) -> Result<WindowState, DeskError> {
        let state = self.state();
        state.window(id)?;
        Ok(WindowState {
            minimized: state.minimized.contains_key(id),
            maximized: state.maximized.contains_key(id),
        })
    }
}

impl Input for FakeDesk {
    fn request_focus(&self, id: &str) -> Result<(), DeskError> {
        let mut state = self.state();
        let window = state.window(id)?;
        let (refuses, closes) = (window.refuses_focus, window.closes_on_focus);
        state.log.push(Event::Focus(id.into()));
        if closes {
            state.windows.retain(|w| w.window.id != id);
        } else if !refuses && state.focus_lag == 0 {
            state.grant_focus(id);
        } else if !refuses {
            state.pending_focus = Some((id.into(), state.focus_lag));
        }
        Ok(())
    }

    fn request_close(&self, id: &str) -> Result<(), DeskError> {
        let mut state = self.state();
        let sticky = state.window(id)?.sticky;
        let asks = state.window(id)?.asks_on_close.clone();
        state.log.push(Event::Close(id.into()));
        if let Some(question) = asks {
            let asking = state.window(id)?.clone();
            let mut dialog = FakeWindow::new(
                &format!("{id}-ask"),
                &question,
                asking.window.pid.unwrap_or_default(),
                asking.rect.unwrap_or(Rect::new(0, 0, 200, 100)),
            );
            dialog.window.role = "dialog".into();
            state.windows.push(dialog);
        } else if !sticky {
            let pid = state.window(id)?.window.pid;
            state.windows.retain(|w| w.window.id != id);
            if state.focus.as_deref() == Some(id) {
                state.focus = None;
            }
            // An app whose last window closed ends, as most do.
            if let Some(pid) = pid
                && !state.windows.iter().any(|w| w.window.pid == Some(pid))
            {
                state.exited.push(pid);
            }
        }
        Ok(())
    }

    fn press_keys(
        &self,
        keysyms: &[u32],
        _focused: Option<&Window>,
        _cancel: &Cancel,
    ) -> Result<(), DeskError> {
        let mut state = self.state();
        let window = state.focus.clone();
        state.log.push(Event::Keys {
            window,
            keysyms: keysyms.to_vec(),
        });
        state.edit_with_keys(keysyms);
        Ok(())
    }

    fn type_text(
        &self,
        text: &str,
        _focused: Option<&Window>,
        cancel: &Cancel,
    ) -> Result<usize, DeskError> {
        let mut state = self.state();
        let window = state.focus.clone();
        let total = text.chars().count();
        let sent = state.stop_typing_after.map_or(total, |n| n.min(total));
        if sent > 0 {
            let typed: String = text.chars().take(sent).collect();
            state.edit_with_text(&typed);
            state.log.push(Event::Text {
                window,
                text: typed,
            });
        }
        if sent < total {
            cancel.stop();
            let ended = DeskError::TypingEnded {
                why: "cancelled before it finished".into(),
                typed: sent,
                total,
            };
            return Err(if sent == 0 { ended.unsent() } else { ended });
        }
        Ok(total)
    }

    fn move_pointer(&self, x: i32, y: i32) -> Result<(), DeskError> {
        self.state().pointer = (x, y);
        Ok(())
    }

    fn click(&self, button: Button, count: u8) -> Result<(), DeskError> {
        let mut state = self.state();
        let (x, y) = state.pointer;
        let window = state.top_at(x, y);
        state.log.push(Event::Click {
            window,
            x,
            y,
            button,
            count,
        });
        Ok(())
    }

    fn scroll(&self, direction: Direction, amount: u32, _cancel: &Cancel) -> Result<(), DeskError> {
        let mut state = self.state();
        let (x, y) = state.pointer;
        let window = state.top_at(x, y);
        state.log.push(Event::Scroll {
            window,
            direction,
            amount,
        });
        Ok(())
    }

    fn drag(&self, from: (i32, i32), to: (i32, i32), _cancel: &Cancel) -> Result<(), DeskError> {
        let mut state = self.state();
        let event = Event::Drag {
            from: state.top_at(from.0, from.1),
            to: state.top_at(to.0, to.1),
        };
        state.log.push(event);
        state.pointer = to;
        Ok(())
    }

    fn settle(&self, id: &str, _limit: Duration) -> bool {
        self.state().window(id).is_ok_and(|w| !w.silent)
    }

    fn release(&self) -> Result<(), DeskError> {
        Ok(())
    }

    fn write_clipboard(&self, clip: Clip) -> Result<(), DeskError> {
        let mut state = self.state();
        state.log.push(Event::Clipboard);
        state.clipboard = Some(clip);
        Ok(())
    }

    fn request_frame(&self, id: &str, change: FrameChange) -> Result<(), DeskError> {
        let mut state = self.state();
        state.window(id)?;
        state.log.push(Event::Frame(id.into(), change));
        let screen = state.screen;
        let index = state
            .windows
            .iter()
            .position(|w| w.window.id == id)
            .unwrap();
        let now = state.windows[index].rect;
        match change {
            FrameChange::Set {
                x,
                y,
                width,
                height,
            } => {
                if let Some(r) = now {
                    state.windows[index].rect = Some(Rect::new(
                        x.unwrap_or(r.x),
                        y.unwrap_or(r.y),
                        width.unwrap_or(r.w),
                        height.unwrap_or(r.h),
                    ));
                }
            }
            FrameChange::Minimize => {
                state.minimized.insert(id.into(), now);
                state.windows[index].rect = None;
            }
            FrameChange::Maximize => {
                state.maximized.insert(id.into(), now);
                state.windows[index].rect = Some(screen);
            }
            FrameChange::Restore => {
                if let Some(before) = state.minimized.remove(id) {
                    state.windows[index].rect = before;
                }
                if let Some(before) = state.maximized.remove(id) {
                    state.windows[index].rect = before;
                }
            }
        }
        Ok(())
    }
}

impl Presence for FakeDesk {
    fn ask(&self, question: &Question, cancel: &Cancel) -> Result<Answer, DeskError> {
        let mut guard = self.state();
        let state = &mut *guard;
        state.questions.push(question.clone());
        if let Some(mut change) = state.while_asked.take() {
            change(state);
            state.while_asked = Some(change);
        }
        if cancel.is_cancelled() {
            return Ok(Answer::Closed);
        }
        Ok(state.answers.pop_front().unwrap_or(Answer::NoAnswer))
    }

    fn indicate(&self, acting: bool) {
        self.state().marker.push(acting);
    }

    fn overlays(&self) -> Vec<Rect> {
        self.state().overlays.clone()
    }
}

impl Apps for FakeDesk {
    fn names(&self, pid: u32) -> Vec<String> {
        self.state().names.get(&pid).cloned().unwrap_or_default()
    }

    fn own_pid(&self) -> u32 {
        self.state().own_pid
    }

    fn launch(&self, app: &str, _args: &[String]) -> Result<Launched, DeskError> {
        let mut state = self.state();
        let crash = state.crashes.get(app).cloned();
        let Some(title) = state
            .programs
            .get(app)
            .cloned()
            .or(crash.as_ref().map(|_| String::new()))
        else {
            let missing = DeskError::Invalid(format!("cannot launch {app:?}: no such program"));
            return Err(missing.unsent());
        };
        state.log.push(Event::Launch(app.into()));
        let pid = state.next_pid;
        state.next_pid += 1;
        if let Some(exit) = crash {
            state.exited.push(pid);
            return Ok(Launched {
                pid,
                scoped: false,
                added: Vec::new(),
                exit: Arc::new(OnceLock::from(exit)),
            });
        }
        let id = format!("0x{pid:x}");
        let rect = Rect::new(10, 10, 200, 100);
        state.windows.push(FakeWindow::new(&id, &title, pid, rect));
        if state.splash_first {
            let mut splash = FakeWindow::new(&format!("{id}0"), "Loading", pid, rect);
            splash.window.role = "splash".into();
            state.windows.insert(0, splash);
        }
        state.names.insert(pid, vec![app.to_string()]);
        let added = if app == "chromium" {
            vec![FORCE_ACCESSIBILITY.to_string()]
        } else {
            Vec::new()
        };
        Ok(Launched {
            pid,
            scoped: false,
            added,
            exit: Arc::default(),
        })
    }

    fn descends_from(&self, pid: u32, ancestor: u32) -> bool {
        pid == ancestor
    }

    fn chromium_based(&self, pid: u32) -> bool {
        self.names(pid).iter().any(|n| n == "chromium")
    }

    fn running(&self, pid: u32) -> bool {
        let state = self.state();
        !state.exited.contains(&pid) && state.names.contains_key(&pid)
    }

    fn end(&self, pid: u32, ending: Ending) -> Result<(), DeskError> {
        let mut state = self.state();
        state.log.push(Event::End(pid, ending));
        if ending == Ending::Kill || !state.ignores_term.contains(&pid) {
            state.exited.push(pid);
            state.windows.retain(|w| w.window.pid != Some(pid));
        }
        Ok(())
    }

    fn opener(&self, target: &str) -> Result<Opener, DeskError> {
        let kind = match target.split_once("://") {
            Some((scheme, _)) => format!("x-scheme-handler/{scheme}"),
            None if target.ends_with(".txt") => "text/plain".into(),
            None => "application/octet-stream".into(),
        };
        let program = self
            .state()
            .openers
            .get(&kind)
            .cloned()
            .ok_or_else(|| DeskError::Invalid(format!("no app opens {kind} here")).unsent())?;
        Ok(Opener {
            entry: format!("{program}.desktop"),
            kind,
            args: vec![target.to_string()],
            program,
        })
    }
}

impl Accessibility for FakeDesk {
    fn windows_of(&self, pid: u32) -> Result<Option<Vec<AppWindow>>, DeskError> {
        let state = self.state();
        let frames: Vec<AppWindow> = state
            .nodes
            .iter()
            .filter(|n| n.pid == pid && n.parent.is_none())
            .map(|n| AppWindow {
                id: n.node.id.clone(),
                name: n.node.name.clone(),
                active: state.windows.iter().any(|w| {
                    state.focus.as_deref() == Some(w.window.id.as_str())
                        && w.window.title == n.node.name
                }),
            })
            .collect();
        Ok((!frames.is_empty()).then_some(frames))
    }

    fn tree(&self, root: &str, want: Want) -> Result<Tree, DeskError> {
        let state = self.state();
        state.node(root)?;
        let mut out: Vec<Node> = Vec::new();
        let mut pending = vec![(root.to_string(), None, 0)];
        while let Some((id, parent, depth)) = pending.pop() {
            if out.len() >= want.budget() {
                return Ok(Tree {
                    truncated: Some(Truncated {
                        reason: format!(
                            "the walk stopped at its budget of {} nodes",
                            want.budget()
                        ),
                        seen: out.len() + pending.len() + 1,
                    }),
                    nodes: out,
                });
            }
            let fake = state.node(&id)?;
            let mut node = state.shown(fake, want);
            node.node_ref = out.len();
            node.parent = parent;
            node.depth = depth;
            let me = node.node_ref;
            out.push(node);
            let children: Vec<&FakeNode> = state
                .nodes
                .iter()
                .filter(|n| n.parent.as_deref() == Some(id.as_str()))
                .collect();
            for child in children.into_iter().rev() {
                pending.push((child.node.id.clone(), Some(me), depth + 1));
            }
        }
        Ok(Tree {
            nodes: out,
            truncated: None,
        })
    }

    fn node(&self, id: &str, want: Want) -> Result<Node, DeskError> {
        let state = self.state();
        Ok(state.shown(state.node(id)?, want))
    }

    fn ancestors(&self, id: &str) -> Result<Vec<Node>, DeskError> {
        let state = self.state();
        let mut chain = Vec::new();
        let mut next = state.node(id)?.parent.clone();
        while let Some(parent) = next {
            let node = state.node(&parent)?;
            chain.push(state.shown(node, Want::default()));
            next = node.parent.clone();
        }
        Ok(chain)
    }

    fn at_point(&self, root: &str, x: i32, y: i32) -> Result<Option<String>, DeskError> {
        let tree = self.tree(
            root,
            Want {
                bounds: true,
                ..Want::default()
            },
        )?;
        let inside = |n: &&Node| {
            n.bounds.is_some_and(|[bx, by, w, h]| {
                Rect::new(bx, by, w as u32, h as u32).contains_point(x, y)
            })
        };
        Ok(tree
            .nodes
            .iter()
            .skip(1)
            .filter(inside)
            .max_by_key(|n| n.depth)
            .map(|n| n.id.clone()))
    }

    fn actions(&self, id: &str) -> Result<Vec<String>, DeskError> {
        Ok(self.state().node(id)?.actions.clone())
    }

    fn do_action(&self, id: &str, index: usize) -> Result<bool, DeskError> {
        let known = self.state().node(id)?.actions.len() > index;
        self.log_event(Event::Action(id.into(), index));
        Ok(known)
    }

    fn select(&self, id: &str) -> Result<bool, DeskError> {
        let selectable = self.state().node(id)?.selectable;
        self.log_event(Event::Select(id.into()));
        Ok(selectable)
    }

    fn select_child(&self, container: &str, index: usize) -> Result<bool, DeskError> {
        let mut state = self.state();
        state.node(container)?;
        state.log.push(Event::SelectChild(container.into(), index));
        // A combo box shows its chosen item's name, as GTK's do.
        let items: Vec<String> = state
            .nodes
            .iter()
            .filter(|n| {
                n.parent.as_deref().is_some_and(|p| {
                    p == container
                        || state
                            .nodes
                            .iter()
                            .any(|m| m.node.id == p && m.parent.as_deref() == Some(container))
                })
            })
            .filter(|n| n.node.role != "menu")
            .map(|n| n.node.name.clone())
            .collect();
        let Some(name) = items.get(index).cloned() else {
            return Ok(false);
        };
        if let Some(node) = state.nodes.iter_mut().find(|n| n.node.id == container) {
            node.node.name = name;
        }
        Ok(true)
    }

    fn set_text(&self, id: &str, text: &str) -> Result<bool, DeskError> {
        let mut state = self.state();
        let deaf = state.node(id)?.deaf;
        let value = state.editable_value(id)?;
        if !deaf {
            *value = Some(text.into());
            state.log.push(Event::SetValue(id.into(), text.into()));
        }
        Ok(true)
    }

    fn insert_text(
        &self,
        id: &str,
        position: Option<usize>,
        text: &str,
    ) -> Result<bool, DeskError> {
        let mut state = self.state();
        if state.node(id)?.deaf {
            return Ok(true);
        }
        let value = state.editable_value(id)?;
        *value = Some(desk_core::a11y::with_inserted(
            value.as_deref().unwrap_or_default(),
            position,
            text,
        ));
        state
            .log
            .push(Event::SetValue(id.into(), format!("+{text}")));
        Ok(true)
    }

    fn select_text(&self, id: &str, start: usize, end: usize) -> Result<bool, DeskError> {
        let mut state = self.state();
        let len = state
            .node(id)?
            .node
            .value
            .as_deref()
            .unwrap_or_default()
            .chars()
            .count();
        if end > len {
            return Ok(false);
        }
        state.log.push(Event::SelectChild(id.into(), start));
        state.selections.insert(id.into(), (start, end));
        Ok(true)
    }

    fn set_caret(&self, id: &str, offset: usize) -> Result<bool, DeskError> {
        let mut state = self.state();
        let len = state
            .editable_value(id)?
            .as_deref()
            .unwrap_or_default()
            .chars()
            .count();
        if offset > len {
            return Ok(false);
        }
        state.carets.insert(id.into(), offset);
        Ok(true)
    }

    fn caret(&self, id: &str) -> Result<Option<usize>, DeskError> {
        let state = self.state();
        let len = state
            .node(id)?
            .node
            .value
            .as_deref()
            .map(|v| v.chars().count());
        Ok(state.carets.get(id).copied().or(len))
    }

    fn selection(&self, id: &str) -> Result<Option<(usize, usize, String)>, DeskError> {
        let state = self.state();
        let text = state.node(id)?.node.value.clone().unwrap_or_default();
        Ok(state.selections.get(id).map(|&(start, end)| {
            (
                start,
                end,
                text.chars().skip(start).take(end - start).collect(),
            )
        }))
    }

    fn set_number(&self, id: &str, value: f64) -> Result<bool, DeskError> {
        let mut state = self.state();
        let numeric = state
            .node(id)?
            .node
            .value
            .as_deref()
            .is_some_and(|v| v.parse::<f64>().is_ok());
        if !numeric {
            return Err(DeskError::Invalid(format!("node {id} has no value")).unsent());
        }
        state
            .log
            .push(Event::SetValue(id.into(), value.to_string()));
        if let Some(node) = state.nodes.iter_mut().find(|n| n.node.id == id) {
            node.node.value = Some(value.to_string());
        }
        Ok(true)
    }

    fn grab_focus(&self, id: &str) -> Result<bool, DeskError> {
        let mut state = self.state();
        state.node(id)?;
        state.log.push(Event::GrabFocus(id.into()));
        for node in &mut state.nodes {
            node.node.states.retain(|s| s != "focused");
            if node.node.id == id {
                node.node.states.push("focused".into());
            }
        }
        Ok(true)
    }

    fn pid_of(&self, id: &str) -> Result<u32, DeskError> {
        Ok(self.state().node(id)?.pid)
    }

    fn focused_in(&self, pid: u32) -> Result<Option<Node>, DeskError> {
        let state = self.state();
        Ok(state
            .nodes
            .iter()
            .find(|n| n.pid == pid && n.node.states.iter().any(|s| s == "focused"))
            .map(|n| state.shown(n, Want::default())))
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
}
