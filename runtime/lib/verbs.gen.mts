// Generated from the verb table's JSON schemas by crates/desk-core/tests/runtime_types.rs:
// do not edit. Regenerate with
//   SHUTTLE_UPDATE_RUNTIME_TYPES=1 cargo test -p shuttle-desk-core --test runtime_types

/** The verbs, in the order of the daemon's verb table. */
export const VERBS = [
  "windows",
  "screen",
  "shot",
  "unanswered",
  "wait",
  "still",
  "snapshot",
  "find",
  "read",
  "at",
  "key",
  "type",
  "click",
  "scroll",
  "drag",
  "press",
  "act",
  "set_value",
  "select_option",
  "insert_text",
  "select_text",
  "focus",
  "close",
  "launch",
  "set_frame",
  "minimize",
  "maximize",
  "restore",
  "open",
  "quit",
  "clipboard_read",
  "clipboard_write",
  "computer_state",
  "computer_act",
  "computer_end",
  "computer_scale",
  "look",
  "title_at",
] as const;

/** Each verb's arguments. */
export interface VerbArgs {
  windows: WindowsArgs;
  screen: ScreenArgs;
  shot: ShotArgs;
  unanswered: UnansweredArgs;
  wait: WaitArgs;
  still: StillArgs;
  snapshot: SnapshotArgs;
  find: FindArgs;
  read: ReadArgs;
  at: AtArgs;
  key: KeyArgs;
  type: TypeArgs;
  click: ClickArgs;
  scroll: ScrollArgs;
  drag: DragArgs;
  press: PressArgs;
  act: ActArgs;
  set_value: SetValueArgs;
  select_option: SelectOptionArgs;
  insert_text: InsertTextArgs;
  select_text: SelectTextArgs;
  focus: FocusArgs;
  close: CloseArgs;
  launch: LaunchArgs;
  set_frame: SetFrameArgs;
  minimize: MinimizeArgs;
  maximize: MaximizeArgs;
  restore: RestoreArgs;
  open: OpenArgs;
  quit: QuitArgs;
  clipboard_read: ClipboardReadArgs;
  clipboard_write: ClipboardWriteArgs;
  computer_state: ComputerStateArgs;
  computer_act: ComputerActRequest;
  computer_end: ComputerEndArgs;
  computer_scale: ComputerScaleArgs;
  look: LookArgs;
  title_at: TitleAtArgs;
}

/** Each verb's result: its JSON, or a string for a verb that answers text to read. */
export interface VerbResults {
  windows: Window[];
  screen: ScreenSize;
  shot: Shot;
  unanswered: Unanswered | null;
  wait: Waited;
  still: Still;
  snapshot: SnapshotResult;
  find: Found;
  read: NodeAlone;
  at: At;
  key: Keyed;
  type: Typed;
  click: Clicked;
  scroll: Scrolled;
  drag: Dragged;
  press: Pressed;
  act: Pressed;
  set_value: FieldHolds;
  select_option: OptionPicked;
  insert_text: FieldHolds;
  select_text: TextSelected;
  focus: Focused;
  close: Closed;
  launch: Started;
  set_frame: Framed;
  minimize: Framed;
  maximize: Framed;
  restore: Framed;
  open: Opened;
  quit: Quit;
  clipboard_read: ClipboardRead;
  clipboard_write: ClipboardWrote;
  computer_state: string;
  computer_act: string;
  computer_end: SessionEnded;
  computer_scale: Scale;
  look: string;
  title_at: TitleAt;
}

/** One action on a node. */
export interface ActArgs {
  /** A node id from snapshot or find. */
  id: string;
  /** click, action, select or focus. */
  action: NodeAction;
  /** Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise. */
  allow_auth?: boolean;
  /** Wait up to this many ms (0 to 5000) for windows to open, close or retitle, or "still". */
  settle?: Settle | null;
}

/** One action of `computer_act`, by element index or screenshot pixels. */
export interface ActStep {
  /** What to do. */
  action?: Action | null;
  /** An element [index] from the session's latest computer_state. */
  element?: number | null;
  /** x in screenshot pixels. */
  x?: number | null;
  /** y in screenshot pixels. */
  y?: number | null;
  /** drag's end x in screenshot pixels. */
  to_x?: number | null;
  /** drag's end y in screenshot pixels. */
  to_y?: number | null;
  /** type's text. */
  text?: string | null;
  /** key's key or combination, such as Return or ctrl+s. */
  key?: string | null;
  /** hotkey's keys, pressed together. */
  keys?: string[] | null;
  /** scroll's direction. */
  direction?: Direction | null;
  /** scroll's notches (default 3). */
  amount?: number | null;
  /** launch_app's app: a name on PATH or an absolute path. */
  app?: string | null;
  /** click's button (default left). */
  button?: Button | null;
  /** wait's seconds (up to 10). */
  seconds?: number | null;
  /** Accepted for other desks; on Linux input at a point always goes in the foreground. */
  foreground?: boolean | null;
}

/** What one `computer_act` step does. */
export type Action = "click" | "left_click" | "double_click" | "right_click" | "triple_click" | "type" | "key" | "hotkey" | "scroll" | "drag" | "wait" | "launch_app";

/** What the app that got the input answered after it. `busy` is not a failure: the input is queued in the app, whose effect is not known yet. */
export type AppAnswer = "read" | "busy" | "unknown";

/** `at`: the node at a point, its ancestors, and what covers the point. */
export interface At {
  /** The screen point read. */
  at: [number, number];
  /** The window read. */
  window: WindowRef;
  /** Its process. */
  pid?: number | null;
  /** The deepest node there. */
  node: NodeAlone;
  /** Its ancestors, nearest first. */
  ancestors: NodeAlone[];
  /** Another window on top at the point, which input there would reach instead. */
  covered?: Covered | null;
}

/** The node at a point, its ancestors and pid; covered: a window on top there. */
export interface AtArgs {
  /** x in screen pixels (with window: in the window's shot). */
  x: number;
  /** y in screen pixels (with window: in the window's shot). */
  y: number;
  /** x and y are pixels of this window's shot; read in it even where another covers it. */
  window?: string | null;
  /** Read in this process's window. */
  pid?: number | null;
}

/** A dialog of a launched app that stands in front of its main window. */
export interface BlockingDialog {
  /** Its id, as `windows` lists it. */
  id: string;
  /** Its title. */
  title: string;
  /** Why it counts: `transient` (it belongs to the main window) or `newer` (a dialog of the same app that appeared after the main window). */
  blocking: string;
}

/** A mouse button. */
export type Button = "left" | "right" | "middle";

/** Click at x,y. */
export interface ClickArgs {
  /** x in screen pixels (with window: in the window's shot). */
  x: number;
  /** y in screen pixels (with window: in the window's shot). */
  y: number;
  /** left (default), right or middle. */
  button?: Button | null;
  /** 1 to 3 clicks (default 1). */
  count?: number | null;
  /** x and y are pixels of this window's shot. */
  window?: string | null;
  /** With window: the process that owns it. */
  pid?: number | null;
  /** x and y are pixels of a shot shrunk by this scale (its reply's scale: screen pixels per image pixel). */
  scale?: number | null;
  /** Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise. */
  allow_auth?: boolean;
  /** Wait up to this many ms (0 to 5000) for windows to open, close or retitle, or "still". */
  settle?: Settle | null;
}

/** `click`: where the click went. */
export interface Clicked {
  /** Screen x. */
  x: number;
  /** Screen y. */
  y: number;
  /** left, middle or right. */
  button: string;
  /** 1, 2 or 3 clicks. */
  count: number;
  /** The window on top at the point; null over the bare desktop. */
  window?: string | null;
  /** What its app answered after the click; absent when no window got them. */
  app_answer?: AppAnswer | null;
  /** How the input went; present when `[daemon] input` is background or auto. */
  input?: InputWay | null;
  /** Present when the input was sent in the background and its effect was not read back. */
  unverified?: Unverified | null;
}

/** What `clipboard_read` asks for. */
export type ClipFormat = "text" | "image" | "files";

/** `clipboard_read`: what the clipboard holds in the format asked (an image is the reply's image). */
export interface ClipboardRead {
  /** Whether it holds that format. */
  present: boolean;
  /** text, image or files. */
  format: string;
  /** An image's width. */
  width?: number | null;
  /** An image's height. */
  height?: number | null;
  /** The text's or the PNG's size in bytes. */
  bytes?: number | null;
  /** The text. */
  text?: string | null;
  /** The files' paths. */
  files?: string[] | null;
  /** The first 64 bits of the PNG's SHA-256, in hex. */
  sha256_64?: string | null;
}

/** Read the clipboard; present false when empty. */
export interface ClipboardReadArgs {
  /** text (default), image or files. */
  format?: ClipFormat;
}

/** Put text, a PNG file or file paths on the clipboard. */
export interface ClipboardWriteArgs {
  /** Text. */
  text?: string | null;
  /** A PNG file's absolute path. */
  image?: string | null;
  /** Absolute paths of files. */
  files?: string[] | null;
}

/** `clipboard_write`: what went on the clipboard. */
export interface ClipboardWrote {
  /** text, image or files. */
  wrote: string;
  /** An image's width. */
  width?: number | null;
  /** An image's height. */
  height?: number | null;
  /** The text's or the PNG's size in bytes. */
  bytes?: number | null;
  /** How many files. */
  files?: number | null;
  /** The first 64 bits of the text's SHA-256, in hex. */
  sha256_64?: string | null;
}

/** Close a window; says whether it went. */
export interface CloseArgs {
  /** An id or title from `windows`. */
  window?: string | null;
  /** This process's window. */
  pid?: number | null;
}

/** `close`: whether the window went. */
export interface Closed {
  /** Whether it is gone. */
  closed: boolean;
  /** Its id. */
  window: string;
  /** Its title. */
  title: string;
  /** Windows its app opened instead, most likely a question such as whether to save. */
  questions?: WindowRef[] | null;
  /** What to do when it did not close. */
  note?: string | null;
}

/** One action, or actions run in order to the first failure (a bad list runs none), each waited out until the screen is still; answers what each did, changed windows, a screenshot. */
export interface ComputerActRequest {
  /** Whose elements and scale to use (default: your own session). */
  session?: string | null;
  /** Instead of one action: a list of them (up to 50), each an object of the same fields. */
  actions?: ActStep[] | null;
  /** Long edge of the screenshot that follows (default: as the latest; 0 = full size). */
  max_edge?: number | null;
  /** Screen pixels per screenshot pixel of the image you read x,y on (default: the latest). */
  scale?: number | null;
  /** What to do. */
  action?: Action | null;
  /** An element [index] from the session's latest computer_state. */
  element?: number | null;
  /** x in screenshot pixels. */
  x?: number | null;
  /** y in screenshot pixels. */
  y?: number | null;
  /** drag's end x in screenshot pixels. */
  to_x?: number | null;
  /** drag's end y in screenshot pixels. */
  to_y?: number | null;
  /** type's text. */
  text?: string | null;
  /** key's key or combination, such as Return or ctrl+s. */
  key?: string | null;
  /** hotkey's keys, pressed together. */
  keys?: string[] | null;
  /** scroll's direction. */
  direction?: Direction | null;
  /** scroll's notches (default 3). */
  amount?: number | null;
  /** launch_app's app: a name on PATH or an absolute path. */
  app?: string | null;
  /** click's button (default left). */
  button?: Button | null;
  /** wait's seconds (up to 10). */
  seconds?: number | null;
  /** Accepted for other desks; on Linux input at a point always goes in the foreground. */
  foreground?: boolean | null;
}

/** End a session, forgetting its elements and scale. */
export interface ComputerEndArgs {
  /** The session to end. */
  session: string;
}

/** Screen pixels per pixel of the session's latest screenshot. */
export interface ComputerScaleArgs {
  /** Whose scale (default: your own session). */
  session?: string | null;
}

/** Windows frontmost first, modal dialogs the screen hides, the front app's (or pid's, window_id's) elements as [index] with centres, a JPEG of max_edge (1024; 0: full size). */
export interface ComputerStateArgs {
  /** Whose elements and scale to keep (default: your own session). */
  session?: string | null;
  /** List the elements of this process's frontmost window. */
  pid?: number | null;
  /** List the elements of this window (an id from windows). */
  window_id?: string | null;
  /** Keep only elements whose role, name or value contains this (any case). */
  query?: string | null;
  /** Long edge of the screenshot in pixels (default 1024; 0 = full size). */
  max_edge?: number | null;
  /** List only windows shown on the current workspace. */
  workspace_only?: boolean;
}

/** A window over the point `at` read. */
export interface Covered {
  /** Its title; null for an app outside the allowlist. */
  title?: string | null;
  /** Its process; null for an app outside the allowlist. */
  pid?: number | null;
  /** Why title and pid are null. */
  note?: string | null;
}

/** A scroll direction. */
export type Direction = "up" | "down" | "left" | "right";

/** Press at x,y, move and release at to_x,to_y. */
export interface DragArgs {
  /** Start x. */
  x: number;
  /** Start y. */
  y: number;
  /** End x. */
  to_x: number;
  /** End y. */
  to_y: number;
  /** The points are pixels of this window's shot. */
  window?: string | null;
  /** With window: the process that owns it. */
  pid?: number | null;
  /** The points are pixels of a shot shrunk by this scale (its reply's scale). */
  scale?: number | null;
  /** Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise. */
  allow_auth?: boolean;
}

/** `drag`: from where to where. */
export interface Dragged {
  /** Screen x, y of the press. */
  from: [number, number];
  /** Screen x, y of the release. */
  to: [number, number];
  /** The window the drag started in. */
  window?: string | null;
  /** What its app answered after the drag; absent when no window got them. */
  app_answer?: AppAnswer | null;
  /** How the input went; present when `[daemon] input` is background or auto. */
  input?: InputWay | null;
  /** Present when the input was sent in the background and its effect was not read back. */
  unverified?: Unverified | null;
}

/** `set_value` and `insert_text`: what the field holds now. */
export interface FieldHolds {
  /** The field's id. */
  id: string;
  /** Its text or number as read back; null when it could not be read. */
  holds?: string | null;
  /** How it was changed. */
  how: FieldHow;
  /** Whether it holds what was asked; left out when too long to compare. */
  as_asked?: boolean | null;
  /** When it does not hold what was asked: what that means and what to do. */
  note?: string | null;
}

/** How a field verb changed the field. */
export type FieldHow = "set" | "inserted" | "typed";

/** What `set_value` puts in a node: text for a field, a number for a slider or spin button. */
export type FieldValue = number | string;

/** Nodes whose name matches (exact first), with their window. */
export interface FindArgs {
  /** The name to look for: exact first, then case-insensitive substring. */
  name: string;
  /** Only nodes of this role. */
  role?: string | null;
  /** Search this window. */
  window?: string | null;
  /** Search this process's window. */
  pid?: number | null;
}

/** Focus a window. */
export interface FocusArgs {
  /** An id or title from `windows`. */
  window?: string | null;
  /** This process's window. */
  pid?: number | null;
}

/** `focus`: the window that has the focus now. */
export interface Focused {
  /** Always true: a window that did not take the focus is an error. */
  focused: boolean;
  /** Its id. */
  window: string;
  /** Its title. */
  title: string;
}

/** `find`: the window searched and the nodes whose name matches. */
export interface Found {
  /** The window. */
  window: WindowRef;
  /** The matches, exact names first, with their bounds. */
  nodes: Node[];
  /** Why the walk stopped early, when it did: a match may lie beyond. */
  truncated?: Truncated | null;
}

/** What a frame verb asked for. */
export type FrameAsked = { x?: number | null; y?: number | null; width?: number | null; height?: number | null; } | string;

/** `set_frame`, `minimize`, `maximize` and `restore`: where the window manager put it. */
export interface Framed {
  /** The window's id. */
  window: string;
  /** Its title. */
  title: string;
  /** Its frame now, the window manager's decorations included, as the screen shows it: x, y, width, height; null while minimized. */
  frame?: [number, number, number, number] | null;
  /** The app's area inside the decorations (what `windows`, shots and clicks by window measure from); null while minimized. */
  client?: [number, number, number, number] | null;
  /** normal, maximized or minimized. */
  state: string;
  /** What was asked. */
  asked: FrameAsked;
  /** Why the frame or state is not what was asked. */
  note?: string | null;
}

/** How the input went: on the person's own pointer and keyboard, or on the agent's own pair, which leaves the person's pointer, focus and stacking as they were (`[daemon] input`). */
export type InputWay = "foreground" | "background";

/** Insert text at a character position (default: end); answers holds, as_asked, how. */
export interface InsertTextArgs {
  /** A node id from snapshot or find. */
  id: string;
  /** The text to insert. */
  text: string;
  /** Characters before the insertion point (0 is the start); the end if left out. */
  position?: number | null;
  /** Let it reach a password field or an authentication dialog, which the auth guard refuses otherwise. */
  allow_auth?: boolean;
}

/** Press keys, such as ctrl+s or alt+F4. */
export interface KeyArgs {
  /** The combination: modifiers and one key joined by +. */
  keys: string;
  /** Focus this window first; with background input, the window the keys go to (required). */
  window?: string | null;
  /** Focus this process's window first. */
  pid?: number | null;
  /** Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise. */
  allow_auth?: boolean;
  /** Wait up to this many ms (0 to 5000) for windows to open, close or retitle, or "still". */
  settle?: Settle | null;
}

/** `key`: the combination pressed. */
export interface Keyed {
  /** The combination, as given. */
  keys: string;
  /** The window the keys went to; null when no window had the focus. */
  window?: string | null;
  /** What its app answered after the keys; absent when no window got them. */
  app_answer?: AppAnswer | null;
  /** How the input went; present when `[daemon] input` is background or auto. */
  input?: InputWay | null;
  /** Present when the input was sent in the background and its effect was not read back. */
  unverified?: Unverified | null;
}

/** Start an app; answers pid, main window (null after 15 s), its dialogs, or an early exit's output. */
export interface LaunchArgs {
  /** The program to start: a name on PATH or an absolute path. */
  app: string;
  /** Arguments to pass it. */
  args?: string[];
}

/** A screenshot of max_edge, or region {x,y,w,h} of the latest at full size, with how its pixels map to x,y. */
export interface LookArgs {
  /** Whose scale to read region by and to update (default: your own session). */
  session?: string | null;
  /** Long edge of a whole-screen image (default 1024; 0 = full size). */
  max_edge?: number | null;
  /** Accepted for other desks: the screen shows only the current workspace. */
  workspace_only?: boolean;
  /** {x, y, w, h} in pixels of the session's latest screenshot: that part at full resolution. */
  region?: Region | null;
}

/** Maximize a window. */
export interface MaximizeArgs {
  /** An id or title from `windows`. */
  window?: string | null;
  /** This process's window. */
  pid?: number | null;
}

/** Minimize a window. */
export interface MinimizeArgs {
  /** An id or title from `windows`. */
  window?: string | null;
  /** This process's window. */
  pid?: number | null;
}

/** Where a derived name comes from. */
export type NamedBy = "label" | "description" | "box";

/** One node of a window's accessibility tree. */
export interface Node {
  /** Its position in this snapshot, for `parent` links. */
  ref: number;
  /** A handle that stays the same for the same object across snapshots, for read, press and act. */
  id: string;
  /** The `ref` of its parent; none for the snapshot's root. */
  parent?: number | null;
  /** How deep it sits below the root (0). */
  depth: number;
  /** Its role, such as `push button` or `page tab`. */
  role: string;
  /** Its accessible name; may be empty. */
  name: string;
  /** Set when the toolkit gave no name and `name` was derived: from the node's `description` (mostly its tooltip), or from the named `box` around it. */
  named_by?: NamedBy | null;
  /** Notable states, such as `checked`, `focused`, `selected`, `disabled`, `hidden`. */
  states?: string[];
  /** Where it is on the screen: x, y, width, height. */
  bounds?: [number, number, number, number] | null;
  /** Its key binding, as the toolkit states it. */
  keys?: string | null;
  /** Its current value: a slider's number, a field's text. */
  value?: string | null;
}

/** One action on a node. */
export type NodeAction = "click" | "action" | "select" | "focus";

/** One node on its own (`read`, `at`): without the places that mean something only inside a snapshot. */
export interface NodeAlone {
  /** A handle for read, press and act. */
  id: string;
  /** Its role. */
  role: string;
  /** Its accessible name; may be empty. */
  name: string;
  /** Set when the name was derived: from its description, or the box around it. */
  named_by?: NamedBy | null;
  /** Notable states. */
  states?: string[];
  /** Where it is on the screen: x, y, width, height. */
  bounds?: [number, number, number, number] | null;
  /** Its key binding. */
  keys?: string | null;
  /** Its value (with `text`, a field's whole text). */
  value?: string | null;
}

/** Open a file or URL in its default app; answers app, pid, window. */
export interface OpenArgs {
  /** An absolute path or a URL. */
  target: string;
}

/** `open`: what opened the file or URL. */
export interface Opened {
  /** The process started. */
  pid: number;
  /** Whether it runs in a systemd scope of its own (false: it stays in the daemon's cgroup). */
  scoped: boolean;
  /** Its main window, once its windows and titles stopped changing; null when none showed (see note). */
  window?: Window | null;
  /** The app's dialogs in front of the main window, which take its input first: what an agent must answer (or close) before the window itself. */
  dialogs?: BlockingDialog[] | null;
  /** It runs in a sandbox: it sees a home of its own in place of the person's, with only the parts of theirs `[apps] share` and `show` name. */
  sandboxed: boolean;
  /** Switches shuttle added (a Chromium-based app's accessibility switch). */
  added_args?: string[] | null;
  /** Why there is no window, or why the app's accessibility is off. */
  note?: string | null;
  /** The window is another process's: a running instance the file went to, or anything else that opened meanwhile. */
  from_other_process?: boolean | null;
  /** The file or URL. */
  opened: string;
  /** Its MIME type, or `x-scheme-handler/SCHEME`. */
  kind: string;
  /** The desktop entry set to open it. */
  app: string;
  /** The program that entry runs. */
  program: string;
}

/** `select_option`: the item picked and what the control shows now. */
export interface OptionPicked {
  /** The control's id. */
  id: string;
  /** The item's name. */
  picked: string;
  /** What the control shows, or the item's name when it is selected; null when not. */
  holds?: string | null;
  /** How it was picked. */
  how: PickHow;
  /** Whether the control shows the item asked for. */
  as_asked: boolean;
}

/** How `select_option` picked the item. */
export type PickHow = "selection" | "keys" | "already" | "item action";

/** Press a node: select a tab, row or item, run a menu item, else click; how says which. */
export interface PressArgs {
  /** A node id from snapshot or find. */
  id: string;
  /** Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise. */
  allow_auth?: boolean;
  /** Wait up to this many ms (0 to 5000) for windows to open, close or retitle, or "still". */
  settle?: Settle | null;
}

/** How `press` or `act` pressed a node. */
export type PressHow = "selected" | "clicked" | "action" | "focused" | "picked";

/** `press` and `act`: which node, and how. */
export interface Pressed {
  /** The node's id. */
  pressed: string;
  /** How it was pressed. */
  how: PressHow;
  /** With how: action, the action's name. */
  action?: string | null;
  /** With how: clicked, the screen point. */
  at?: [number, number] | null;
  /** With how: clicked, what its app answered after the click. */
  app_answer?: AppAnswer | null;
  /** The closed menus opened on the way, outermost first. */
  opened?: string[] | null;
  /** With how: picked, what the combo box shows after the pick. */
  holds?: string | null;
  /** Why it was pressed another way than a click. */
  note?: string | null;
  /** How the input went; present when `[daemon] input` is background or auto. */
  input?: InputWay | null;
  /** Present when the input was sent in the background and its effect was not read back. */
  unverified?: Unverified | null;
}

/** `quit`: how the app ended. */
export interface Quit {
  /** Its process. */
  pid: number;
  /** Its name. */
  app: string;
  /** How it ended. */
  ended: QuitEnding;
  /** Windows asked to close. */
  close_requests: number;
  /** What happened, in words. */
  note: string;
  /** Windows it opened when asked to close, left unanswered. */
  questions?: WindowRef[] | null;
}

/** Quit an app: close its windows, SIGTERM after grace_s, then SIGKILL; one asking (save?) stays unless force. */
export interface QuitArgs {
  /** An id or title from `windows`. */
  window?: string | null;
  /** The app's process. */
  pid?: number | null;
  /** Seconds before SIGTERM (default 5, at most 30). */
  grace_s?: number | null;
  /** SIGTERM even if the app asked a question (such as whether to save) instead of closing. */
  force?: boolean;
}

/** How `quit` ended an app. */
export type QuitEnding = "closed" | "terminated" | "killed";

/** One node with its value (and text). */
export interface ReadArgs {
  /** A node id from snapshot or find. */
  id: string;
  /** Include the node's text. */
  text?: boolean;
}

/** A rectangle of the latest screenshot, in its pixels. */
export interface Region {
  /** Left edge. */
  x: number;
  /** Top edge. */
  y: number;
  /** Width. */
  w: number;
  /** Height. */
  h: number;
}

/** Undo minimize and maximize, raised. */
export interface RestoreArgs {
  /** An id or title from `windows`. */
  window?: string | null;
  /** This process's window. */
  pid?: number | null;
}

/** A window that took a new title. */
export interface Retitled {
  /** Its id. */
  id: string;
  /** Its title now. */
  title: string;
  /** Its title before. */
  was: string;
  /** How long after the caller's latest action it happened, in milliseconds, when known. */
  after_ms?: number | null;
}

/** `computer_scale`: the session's latest screenshot scale. */
export interface Scale {
  /** The session. */
  session: string;
  /** Screen pixels per screenshot pixel. */
  scale: number;
  /** The screenshot's width. */
  width: number;
  /** The screenshot's height. */
  height: number;
}

/** Screen width and height in pixels. */
export type ScreenArgs = Record<string, never>;

/** `screen`: its size. */
export interface ScreenSize {
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
}

/** Wheel notches at x,y, else at the focused window's centre. */
export interface ScrollArgs {
  /** up, down, left or right. */
  direction: Direction;
  /** Notches (default 3); more than 50 scroll 50. */
  amount?: number | null;
  /** Screen x (with window: in the window's shot). */
  x?: number | null;
  /** Screen y (with window: in the window's shot). */
  y?: number | null;
  /** x and y are pixels of this window's shot. */
  window?: string | null;
  /** With window: the process that owns it. */
  pid?: number | null;
  /** Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise. */
  allow_auth?: boolean;
}

/** `scroll`: where the wheel turned. */
export interface Scrolled {
  /** Screen x. */
  x: number;
  /** Screen y. */
  y: number;
  /** Notches sent. */
  amount: number;
  /** The window on top at the point. */
  window?: string | null;
  /** What its app answered after the notches; absent when no window got them. */
  app_answer?: AppAnswer | null;
  /** Why fewer notches went than asked. */
  note?: string | null;
  /** How the input went; present when `[daemon] input` is background or auto. */
  input?: InputWay | null;
  /** Present when the input was sent in the background and its effect was not read back. */
  unverified?: Unverified | null;
}

/** Pick a combo box's or list's item by name; answers holds, as_asked, how. */
export interface SelectOptionArgs {
  /** The combo box or list: a node id from snapshot or find. */
  id: string;
  /** The item's name, exactly (any case). */
  option: string;
}

/** Select characters start..end (end excluded); answers what the app selected. */
export interface SelectTextArgs {
  /** A node id from snapshot or find. */
  id: string;
  /** The first character selected (0 is the start). */
  start: number;
  /** The character after the last one selected. */
  end: number;
}

/** `computer_end`: the session ended. */
export interface SessionEnded {
  /** Its name. */
  ended: string;
  /** Whether it held elements or a screenshot scale. */
  held: boolean;
}

/** Move/resize a window's outer frame; answers what it got. */
export interface SetFrameArgs {
  /** An id or title from `windows`. */
  window?: string | null;
  /** This process's window. */
  pid?: number | null;
  /** New left edge. */
  x?: number | null;
  /** New top edge. */
  y?: number | null;
  /** New width. */
  width?: number | null;
  /** New height. */
  height?: number | null;
}

/** Replace a field's text or a slider's number; answers holds, as_asked, how. */
export interface SetValueArgs {
  /** A node id from snapshot or find. */
  id: string;
  /** The text, or a number. */
  value: FieldValue;
  /** Let it reach a password field or an authentication dialog, which the auth guard refuses otherwise. */
  allow_auth?: boolean;
}

/** Milliseconds (0 to 5000) to wait for windows to settle, or "still". */
export type Settle = number | "still";

/** `shot`: the PNG's size (the PNG itself is the reply's image), and where a window's part of it lies. */
export interface Shot {
  /** Image width. */
  width: number;
  /** Image height. */
  height: number;
  /** With window: the image's top left in the whole window image ([0, 0] uncropped and on the screen). */
  origin?: [number, number] | null;
  /** With window: the image's top left on the screen. */
  screen_origin?: [number, number] | null;
  /** With window: its id. */
  window?: string | null;
  /** With path: the file the PNG went to. */
  path?: string | null;
  /** With max_edge: screen pixels per image pixel (1 when the image was small enough); pass it to click or drag with points of this image. */
  scale?: number | null;
}

/** A PNG of the screen, x,y,w,h, or one window's own pixels (x,y,w,h crop it; origin, screen_origin say where). */
export interface ShotArgs {
  /** Left edge of the rectangle. */
  x?: number | null;
  /** Top edge of the rectangle. */
  y?: number | null;
  /** Width of the rectangle. */
  w?: number | null;
  /** Height of the rectangle. */
  h?: number | null;
  /** Also write the PNG to this file. */
  path?: string | null;
  /** Shoot this window alone: an id or title from `windows`. */
  window?: string | null;
  /** Shoot this process's window. */
  pid?: number | null;
  /** Shrink the image so its long edge is at most this many pixels (default: full size); the reply's scale turns its pixels back into the screen's, for click and drag. */
  max_edge?: number | null;
}

/** A window's nodes. */
export interface Snapshot {
  /** The window. */
  window: WindowRef;
  /** Which nodes: shown, interactive or all. */
  view: View;
  /** Nodes read, before the view left some out. */
  read: number;
  /** The nodes, each after its parent; with `changes`, only those new or changed. */
  nodes: Node[];
  /** With `changes`: what changed since the caller's previous snapshot of the window. */
  changes?: TreeChanges | null;
  /** Why the walk stopped early, when it did. */
  truncated?: Truncated | null;
  /** What the tree lacks and how to get it (a Chromium app started without accessibility). */
  note?: string | null;
}

/** A window's accessibility tree as nodes, or with text an outline. */
export interface SnapshotArgs {
  /** The window: an id or title from `windows`. */
  window?: string | null;
  /** The window of this process. */
  pid?: number | null;
  /** A window id from `windows`, in place of window. */
  id?: string | null;
  /** Include key bindings. */
  keys?: boolean;
  /** Include screen bounds. */
  bounds?: boolean;
  /** Answer an indented outline instead of JSON nodes. */
  text?: boolean;
  /** Cut the outline at this many characters. */
  max_chars?: number | null;
  /** shown (default: what is on the screen), interactive (only controls, fields and text) or all (hidden menus and pages too). */
  view?: View | null;
  /** The most nodes to read (default 5000); a container with more children is not walked, and truncated says so. */
  max_nodes?: number | null;
  /** Only what changed since your previous snapshot of the window in this view. */
  changes?: boolean;
}

/** `snapshot`: a window's tree as nodes, or (with `text`) as an outline to read. */
export type SnapshotResult = Snapshot | string;

/** `launch`: the process started, its main window and the dialogs in front of it. */
export interface Started {
  /** The process started. */
  pid: number;
  /** Whether it runs in a systemd scope of its own (false: it stays in the daemon's cgroup). */
  scoped: boolean;
  /** Its main window, once its windows and titles stopped changing; null when none showed (see note). */
  window?: Window | null;
  /** The app's dialogs in front of the main window, which take its input first: what an agent must answer (or close) before the window itself. */
  dialogs?: BlockingDialog[] | null;
  /** It runs in a sandbox: it sees a home of its own in place of the person's, with only the parts of theirs `[apps] share` and `show` name. */
  sandboxed: boolean;
  /** Switches shuttle added (a Chromium-based app's accessibility switch). */
  added_args?: string[] | null;
  /** Why there is no window, or why the app's accessibility is off. */
  note?: string | null;
}

/** `still`: whether the screen stopped changing. */
export interface Still {
  /** Whether nothing that counts changed for hold_ms. */
  still: boolean;
  /** Whether anything that counts changed during the wait. */
  changed: boolean;
  /** How long the wait took. */
  ms: number;
  /** Blocks that changed too often to count (a clock, a spinner). */
  volatile: number;
}

/** Until the screen holds still for hold_ms (40), at most timeout_ms (600, max 5000); answers still. */
export interface StillArgs {
  /** Give up after this long (default 600); a longer wait is cut to 5000 ms. */
  timeout_ms?: number | null;
  /** How long the screen must stay unchanged (default 40); a hold longer than the timeout answers still: false at the timeout. */
  hold_ms?: number | null;
}

/** `select_text`: the selection the app reports. */
export interface TextSelected {
  /** The field's id. */
  id: string;
  /** First selected character. */
  start?: number | null;
  /** One past the last selected character. */
  end?: number | null;
  /** The selected text; null when nothing is selected. */
  selected?: string | null;
  /** Whether the selection is the one asked for. */
  as_asked: boolean;
}

/** `title_at`: whether the point shows a window title. */
export interface TitleAt {
  /** Whether it does. */
  title: boolean;
  /** `title bar` or `panel`. */
  where?: string | null;
  /** The window (or panel) at the point. */
  window?: string | null;
  /** The title shown. */
  text?: string | null;
  /** In a panel: the window whose title it shows. */
  of?: string | null;
}

/** Whether a point shows a window title (title bar, panel). */
export interface TitleAtArgs {
  /** x in screen pixels. */
  x: number;
  /** y in screen pixels. */
  y: number;
}

/** What changed in a window's tree since the caller's previous snapshot of it, in the same view. Node ids are as before; `ref` and `parent` are places in the whole tree now, and `parent_ids` names the parents the listed nodes point to. */
export interface TreeChanges {
  /** Nodes there now that were not before (listed in `nodes`). */
  added: number;
  /** Nodes whose role, name, states, bounds, keys, value or parent changed (listed in `nodes`). */
  changed: number;
  /** Ids of the nodes gone. */
  removed: string[];
  /** Nodes as they were, left out. */
  unchanged: number;
  /** The id of each parent that listed nodes name by `ref`. */
  parent_ids: Record<string, never>;
  /** Set when there was nothing to compare with, and every node is listed: why. */
  whole?: string | null;
}

/** Why a tree walk stopped before the end. */
export interface Truncated {
  /** What stopped it, in words for the agent. */
  reason: string;
  /** How many nodes it had seen (listed by their parents) when it stopped. */
  seen: number;
}

/** Type text exactly, any Unicode. */
export interface TypeArgs {
  /** The text to type. */
  text: string;
  /** Focus this window first; with background input, the window the text goes to (required). */
  window?: string | null;
  /** Focus this process's window first. */
  pid?: number | null;
  /** Let input reach a password field or an authentication dialog, which the auth guard refuses otherwise. */
  allow_auth?: boolean;
}

/** `type`: the text typed. */
export interface Typed {
  /** Characters that went out, all of them when the call completed. */
  typed: number;
  /** The window the text went to; null when no window had the focus. */
  window?: string | null;
  /** What its app answered after the text; absent when no window got them. */
  app_answer?: AppAnswer | null;
  /** How the input went; present when `[daemon] input` is background or auto. */
  input?: InputWay | null;
  /** Present when the input was sent in the background and its effect was not read back. */
  unverified?: Unverified | null;
}

/** `unanswered`: the focused window whose app does not answer accessibility. */
export interface Unanswered {
  /** Always empty: the app lists no accessible window to give an id of. */
  id: string;
  /** The window's title. */
  title: string;
  /** Its process. */
  pid: number;
  /** Its role. */
  role: string;
  /** Its app's name, when known. */
  app?: string | null;
}

/** The focused window if its app stopped answering accessibility, else null. */
export type UnansweredArgs = Record<string, never>;

/** Input that went out but whose effect was not read back: it may or may not have landed. */
export interface Unverified {
  /** What was sent, and where. */
  effect: string;
  /** What to do before relying on it. */
  note: string;
  /** What to try when it did not land. */
  escalation: string;
}

/** Which nodes of a window a snapshot answers. */
export type View = "all" | "shown" | "interactive";

/** Until the window list differs from since (a windows result), at most timeout_ms (5000 max); answers changed, windows. */
export interface WaitArgs {
  /** A result of `windows` to compare against. */
  since: Window[];
  /** How long to wait (default 5000); a longer wait is cut to 5000 ms. */
  timeout_ms?: number | null;
}

/** `wait`: whether the window list changed, and the list. */
export interface Waited {
  /** Whether it differs from since. */
  changed: boolean;
  /** The window list at the answer. */
  windows: Window[];
}

/** One top-level window, as `windows` lists it. Optional fields are left out when unknown, so readers written for fewer fields keep working. */
export interface Window {
  /** The window's id on this desk (on X11 the client window's XID as `0x…` hex). */
  id: string;
  /** The title as the window manager shows it; may be empty. */
  title: string;
  /** `window` for an ordinary window, else its kind: `dialog`, `dock`, `desktop`, `utility`, … */
  role: string;
  /** The process that owns the window, when it says. */
  pid?: number | null;
  /** Whether this is the focused window. */
  active?: boolean;
  /** The owning process's executable name. */
  app?: string | null;
  /** True for a window of a process that owns a dock or desktop window (a panel, the desktop). */
  shell?: boolean;
  /** For a transient window (a dialog), the id of the window it belongs to. */
  owner?: string | null;
  /** For a modal dialog the screen does not show, why not: `hidden`, `off the screen` or `behind "TITLE"`. */
  modal?: string | null;
  /** With modal: the title of the window the dialog blocks. */
  blocks?: string | null;
}

/** A window that opened, closed or came forward, as a change names it. */
export interface WindowBrief {
  /** Its id. */
  id: string;
  /** Its title. */
  title: string;
  /** Its role, such as `window` or `dialog`. */
  role: string;
  /** How long after the caller's latest action it happened, in milliseconds, when known. */
  after_ms?: number | null;
}

/** What changed between two window lists (topmost first): the windows that opened, closed, came to the front or took a new title. Each part is left out when empty. */
export interface WindowChanges {
  /** Windows that opened. */
  opened?: WindowBrief[];
  /** Windows that closed. */
  closed?: WindowBrief[];
  /** A window that was there before and is now the front one (panels and desktops aside). */
  raised?: WindowBrief | null;
  /** Windows that took a new title. */
  retitled?: Retitled[];
  /** Changes left out of the lists above, which hold at most [`WindowChanges::LISTED`] each (an app that opens thousands of windows is summed up, not listed). */
  more?: number | null;
}

/** A window as a result names it. */
export interface WindowRef {
  /** Its id, as `windows` lists it. */
  id: string;
  /** Its title. */
  title: string;
}

/** Top-level windows, topmost first (modal, blocks: a dialog the screen hides). */
export type WindowsArgs = Record<string, never>;
