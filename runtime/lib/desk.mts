// The desk API a script sees as `desk`: one function per desk verb, named as the verb is.
//
// Every function sends `desk_<verb>` to the daemon over the desk wire (./wire.mts). The
// argument types mirror the Rust structs in crates/desk-core/src/call/args.rs and vision.rs;
// the daemon checks every value again, so a type that is off here costs an error, never a
// wrong action. Results are the daemon's JSON as it is: their shapes are in each verb's help
// (`shuttle desk <verb> --help`).

import { WireClient } from "./wire.mts";
import type { Reply } from "./wire.mts";

export type { Reply } from "./wire.mts";

/** The verbs this module has a function for, in the order of the daemon's verb table. */
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

export type Verb = (typeof VERBS)[number];

/** A failed call: the daemon answered, and its text says why and what to do. */
export class DeskError extends Error {
  /** The wire tool that failed, such as `desk_click`. */
  readonly tool: string;
  /** The daemon's reason, as it sent it. */
  readonly text: string;

  constructor(tool: string, text: string) {
    super(text);
    this.name = "DeskError";
    this.tool = tool;
    this.text = text;
  }
}

/** An image a reply carried, decoded. */
export interface Image {
  mime: string;
  data: Buffer;
}

/**
 * What a call answers: the reply's JSON when it is JSON, else its text. With an image, an
 * object result gains `image`; any other result comes as `{text, image}`.
 */
// The shapes vary by verb and are the daemon's to define, so they are left open here.
export type DeskResult = any;

// ----- shared shapes -----

/** A window as `windows` lists it; `wait` takes a list of them back. */
export interface Window {
  id: string;
  title: string;
  role: string;
  pid?: number;
  active?: boolean;
  app?: string;
  shell?: boolean;
  owner?: string;
  modal?: string;
  blocks?: string;
}

export type Button = "left" | "right" | "middle";
export type Direction = "up" | "down" | "left" | "right";

/** Names a window by id or title from `windows`, or by its process. */
export interface WindowTarget {
  /** An id or title from `windows`. */
  window?: string;
  /** The window of this process. */
  pid?: number;
}

/** Input that may reach a password field or an authentication dialog only when asked to. */
export interface AuthGuard {
  /** Let input reach a password field or an authentication dialog, which the guard refuses otherwise. */
  allow_auth?: boolean;
}

// ----- one argument type per verb -----

export type WindowsArgs = Record<string, never>;
export type ScreenArgs = Record<string, never>;
export type UnansweredArgs = Record<string, never>;

/** x, y, w and h go together, or none of them for the whole image. */
export interface ShotArgs extends WindowTarget {
  x?: number;
  y?: number;
  w?: number;
  h?: number;
  /** Also write the PNG to this file. */
  path?: string;
}

export interface WaitArgs {
  /** A result of `windows` to compare against. */
  since: Window[];
  /** At most 5000 (the default). */
  timeout_ms?: number;
}

export interface StillArgs {
  /** Give up after this long (default 600, at most 5000). */
  timeout_ms?: number;
  /** How long the screen must stay unchanged (default 40). */
  hold_ms?: number;
}

export interface SnapshotArgs extends WindowTarget {
  /** A window id from `windows`, in place of window. */
  id?: string;
  keys?: boolean;
  /** macOS only; accepted and ignored elsewhere. */
  menus?: boolean;
  bounds?: boolean;
  /** An indented outline instead of JSON nodes. */
  text?: boolean;
  max_chars?: number;
  view?: "shown" | "interactive" | "all";
  /** Default 5000, at most 100000. */
  max_nodes?: number;
}

export interface FindArgs extends WindowTarget {
  /** Exact first, then case-insensitive substring. */
  name: string;
  role?: string;
}

export interface ReadArgs {
  /** A node id from snapshot or find. */
  id: string;
  text?: boolean;
}

/** With window, x and y are pixels of that window's shot. */
export interface AtArgs extends WindowTarget {
  x: number;
  y: number;
}

export interface KeyArgs extends WindowTarget, AuthGuard {
  /** Modifiers and one key joined by +, such as ctrl+s. */
  keys: string;
}

export interface TypeArgs extends WindowTarget, AuthGuard {
  text: string;
}

/** With window, x and y are pixels of that window's shot. */
export interface ClickArgs extends WindowTarget, AuthGuard {
  x: number;
  y: number;
  button?: Button;
  count?: 1 | 2 | 3;
}

/** Without x and y, scrolls the focused window's centre. */
export interface ScrollArgs extends WindowTarget, AuthGuard {
  direction: Direction;
  /** Notches (default 3, at most 50). */
  amount?: number;
  x?: number;
  y?: number;
}

export interface DragArgs extends WindowTarget, AuthGuard {
  x: number;
  y: number;
  to_x: number;
  to_y: number;
}

export interface PressArgs extends AuthGuard {
  /** A node id from snapshot or find. */
  id: string;
}

export interface ActArgs extends AuthGuard {
  id: string;
  action: "click" | "action" | "select" | "focus";
}

export interface SetValueArgs extends AuthGuard {
  id: string;
  /** Text for a field, a number for a slider or spin button. */
  value: string | number;
}

export interface SelectOptionArgs {
  id: string;
  /** The item's name, exactly (any case). */
  option: string;
}

export interface InsertTextArgs extends AuthGuard {
  id: string;
  text: string;
  /** Characters before the insertion point; the end if left out. */
  position?: number;
}

export interface SelectTextArgs {
  id: string;
  start: number;
  /** The character after the last one selected. */
  end: number;
}

/** Pass window or pid. */
export type FocusArgs = WindowTarget;
/** Pass window or pid. */
export type CloseArgs = WindowTarget;

export interface LaunchArgs {
  /** A name on PATH or an absolute path. */
  app: string;
  args?: string[];
}

export interface SetFrameArgs extends WindowTarget {
  /** The client area's new left and top edges, width and height: any of them. */
  x?: number;
  y?: number;
  width?: number;
  height?: number;
}

export type MinimizeArgs = WindowTarget;

export type MaximizeArgs = WindowTarget;

export type RestoreArgs = WindowTarget;

export interface OpenArgs {
  /** An absolute path or a URL. */
  target: string;
}

export interface QuitArgs extends WindowTarget {
  /** Seconds its windows get to close before SIGTERM (default 5, at most 30). */
  grace_s?: number;
  /** End it by SIGTERM even when it answered the close with a question (such as whether to save). */
  force?: boolean;
}

export interface ClipboardReadArgs {
  /** text (default), image (answered as a PNG) or files. */
  format?: "text" | "image" | "files";
}

/** Exactly one of text, image (the absolute path of a PNG file) or files (absolute paths). */
export interface ClipboardWriteArgs {
  text?: string;
  image?: string;
  files?: string[];
}

export interface ComputerStateArgs {
  /** Whose elements and scale to keep (default: this agent's own session). */
  session?: string;
  pid?: number;
  /** An id from windows. */
  window_id?: string;
  /** Keep only elements whose role, name or value contains this (any case). */
  query?: string;
  /** Long edge of the screenshot (default 1024; 0 = full size, else at least 64). */
  max_edge?: number;
  workspace_only?: boolean;
}

export type Action =
  | "click"
  | "left_click"
  | "double_click"
  | "right_click"
  | "triple_click"
  | "type"
  | "key"
  | "hotkey"
  | "scroll"
  | "drag"
  | "wait"
  | "launch_app";

/** One `computer_act` step; which fields it takes depends on action. Points are screenshot pixels. */
export interface ActStep {
  action?: Action;
  /** An element [index] from the session's latest computer_state. */
  element?: number;
  x?: number;
  y?: number;
  to_x?: number;
  to_y?: number;
  text?: string;
  /** One key or combination, such as Return or ctrl+s. */
  key?: string;
  /** Keys pressed together, such as ["ctrl", "s"]. */
  keys?: string[];
  direction?: Direction;
  amount?: number;
  app?: string;
  button?: Button;
  /** Up to 10. */
  seconds?: number;
  foreground?: boolean;
}

/** One action's fields, or `actions`: a list of steps (up to 50), not both. */
export interface ComputerActArgs extends ActStep {
  session?: string;
  actions?: ActStep[];
  max_edge?: number;
  /** Screen pixels per screenshot pixel of the image x,y were read on (default: the latest). */
  scale?: number;
}

export interface ComputerEndArgs {
  session: string;
}

export interface ComputerScaleArgs {
  session?: string;
}

/** A rectangle in pixels of the session's latest screenshot. */
export interface Region {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface LookArgs {
  session?: string;
  max_edge?: number;
  workspace_only?: boolean;
  /** That part of the latest screenshot, at full resolution. */
  region?: Region;
  /**
   * Questions about what the screen shows: the screenshot then goes to model_decide (the verify
   * role, at most 5000 ms), and look answers its {answers, from_logprobs, served, usage}.
   */
  questions?: ModelDecideArgs["questions"];
}

/** How long desk.look lets a model look at the screen. */
export const LOOK_TIMEOUT_MS = 5000;

/** The wire tools only the person sends: a script cannot stop or resume shuttle. */
const PERSON_ONLY = new Set(["safety_stop", "safety_resume"]);

export interface TitleAtArgs {
  x: number;
  y: number;
}

/** A part of a model_decide state: text, or a screenshot as a data URL. */
export type StatePart = string | { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/** model_decide: questions about a state (docs/models.md). */
export interface ModelDecideArgs {
  state: string | StatePart[] | object;
  questions: Record<string, { type: "noul" | "choice"; instructions: string; criteria?: string; choices?: string[] }>;
  /** The state holds a screenshot: the verify model answers. */
  image?: boolean;
  timeout_ms?: number;
}

/** model_ask: a prompt, with screenshots as base64 PNGs. */
export interface ModelAskArgs {
  prompt: string;
  images?: string[];
}

/** model_ground: a target on a screenshot; area is the desk rectangle the PNG shows. */
export interface ModelGroundArgs {
  png_b64: string;
  target: string;
  area: { left?: number; top?: number; width: number; height: number };
  timeout_ms?: number;
}

/** The desk as a script uses it. */
export interface Desk {
  windows(args?: WindowsArgs): Promise<DeskResult>;
  screen(args?: ScreenArgs): Promise<DeskResult>;
  shot(args?: ShotArgs): Promise<DeskResult>;
  unanswered(args?: UnansweredArgs): Promise<DeskResult>;
  wait(args: WaitArgs): Promise<DeskResult>;
  still(args?: StillArgs): Promise<DeskResult>;
  snapshot(args?: SnapshotArgs): Promise<DeskResult>;
  find(args: FindArgs): Promise<DeskResult>;
  read(args: ReadArgs): Promise<DeskResult>;
  at(args: AtArgs): Promise<DeskResult>;
  key(args: KeyArgs): Promise<DeskResult>;
  type(args: TypeArgs): Promise<DeskResult>;
  click(args: ClickArgs): Promise<DeskResult>;
  scroll(args: ScrollArgs): Promise<DeskResult>;
  drag(args: DragArgs): Promise<DeskResult>;
  press(args: PressArgs): Promise<DeskResult>;
  act(args: ActArgs): Promise<DeskResult>;
  set_value(args: SetValueArgs): Promise<DeskResult>;
  select_option(args: SelectOptionArgs): Promise<DeskResult>;
  insert_text(args: InsertTextArgs): Promise<DeskResult>;
  select_text(args: SelectTextArgs): Promise<DeskResult>;
  focus(args: FocusArgs): Promise<DeskResult>;
  /** Closes a window (the verb); `disconnect` closes the connection to the daemon. */
  close(args: CloseArgs): Promise<DeskResult>;
  launch(args: LaunchArgs): Promise<DeskResult>;
  set_frame(args: SetFrameArgs): Promise<DeskResult>;
  minimize(args: MinimizeArgs): Promise<DeskResult>;
  maximize(args: MaximizeArgs): Promise<DeskResult>;
  restore(args: RestoreArgs): Promise<DeskResult>;
  open(args: OpenArgs): Promise<DeskResult>;
  quit(args: QuitArgs): Promise<DeskResult>;
  clipboard_read(args?: ClipboardReadArgs): Promise<DeskResult>;
  clipboard_write(args: ClipboardWriteArgs): Promise<DeskResult>;
  computer_state(args?: ComputerStateArgs): Promise<DeskResult>;
  computer_act(args: ComputerActArgs): Promise<DeskResult>;
  computer_end(args: ComputerEndArgs): Promise<DeskResult>;
  computer_scale(args?: ComputerScaleArgs): Promise<DeskResult>;
  /** A screenshot; with questions, a model's answers about it instead (see LookArgs). */
  look(args?: LookArgs): Promise<DeskResult>;
  title_at(args: TitleAtArgs): Promise<DeskResult>;

  /** The daemon's status. */
  status(): Promise<DeskResult>;
  /** Answers each question with probabilities: {answers, from_logprobs, served, usage}. */
  model_decide(args: ModelDecideArgs): Promise<DeskResult>;
  /** Answers {text, served, usage}. */
  model_ask(args: ModelAskArgs): Promise<DeskResult>;
  /** Answers {x, y} in desk pixels, {model_point, served, usage}. */
  model_ground(args: ModelGroundArgs): Promise<DeskResult>;

  /**
   * Any wire tool by name but safety_stop and safety_resume, which only the person sends;
   * answers the reply as it came, an error reply included.
   */
  call(tool: string, args?: object): Promise<Reply>;
  /** Ends the connection to the daemon; a later call opens a new one. */
  disconnect(): Promise<void>;
}

/** Where a desk connects and who it says it is; left out, they come from the environment. */
export interface DeskOptions {
  socket?: string;
  agentId?: string;
}

/** The result a reply stands for, or the DeskError it is. */
export function resultOf(tool: string, reply: Reply): DeskResult {
  if (reply.is_error) throw new DeskError(tool, reply.text);
  let value: DeskResult;
  try {
    value = JSON.parse(reply.text);
  } catch {
    // Some verbs answer plain text, such as a snapshot outline.
    value = reply.text;
  }
  if (reply.image_b64 === undefined) return value;
  const image: Image = {
    mime: reply.image_mime ?? "image/png",
    data: Buffer.from(reply.image_b64, "base64"),
  };
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return { ...value, image };
  }
  return { text: reply.text, image };
}

/**
 * A desk of its own. The environment is read on the first call, not at import, so a script can
 * be loaded (and its types checked) outside shuttle.
 */
export function createDesk(options: DeskOptions = {}): Desk {
  let client: WireClient | null = null;
  let agentId = "";

  const connection = (): WireClient => {
    if (client !== null) return client;
    const socket = options.socket ?? process.env.SHUTTLE_SOCKET;
    if (!socket) {
      throw new Error("SHUTTLE_SOCKET is not set: scripts run by shuttle get it from the daemon");
    }
    agentId = options.agentId ?? process.env.SHUTTLE_AGENT ?? "";
    client = new WireClient(socket);
    return client;
  };

  const call = async (tool: string, args?: object): Promise<Reply> => {
    if (PERSON_ONLY.has(tool)) {
      throw new DeskError(
        tool,
        `${tool} is not sent from a script: only the person stops and resumes shuttle (shuttle stop, shuttle resume, the kill hotkey)`,
      );
    }
    const wire = connection();
    return wire.call(tool, args ?? {}, agentId);
  };

  const run = async (tool: string, args?: object): Promise<DeskResult> => resultOf(tool, await call(tool, args));

  const verb = (name: Verb) => (args?: object) => run(`desk_${name}`, args);

  // A look with questions shows the screenshot to a model instead of to the script.
  const look = async (args: LookArgs = {}): Promise<DeskResult> => {
    const { questions, ...shot } = args;
    const seen = await run("desk_look", shot);
    if (questions === undefined) return seen;
    const image = typeof seen === "object" && seen !== null && "image" in seen ? (seen.image as Image) : undefined;
    if (image === undefined) throw new DeskError("desk_look", "the look answered no screenshot to ask a model about");
    const url = `data:${image.mime};base64,${image.data.toString("base64")}`;
    return run("model_decide", {
      state: [{ type: "image_url", image_url: { url } }],
      questions,
      image: true,
      timeout_ms: LOOK_TIMEOUT_MS,
    });
  };

  return {
    windows: verb("windows"),
    screen: verb("screen"),
    shot: verb("shot"),
    unanswered: verb("unanswered"),
    wait: verb("wait"),
    still: verb("still"),
    snapshot: verb("snapshot"),
    find: verb("find"),
    read: verb("read"),
    at: verb("at"),
    key: verb("key"),
    type: verb("type"),
    click: verb("click"),
    scroll: verb("scroll"),
    drag: verb("drag"),
    press: verb("press"),
    act: verb("act"),
    set_value: verb("set_value"),
    select_option: verb("select_option"),
    insert_text: verb("insert_text"),
    select_text: verb("select_text"),
    focus: verb("focus"),
    close: verb("close"),
    launch: verb("launch"),
    set_frame: verb("set_frame"),
    minimize: verb("minimize"),
    maximize: verb("maximize"),
    restore: verb("restore"),
    open: verb("open"),
    quit: verb("quit"),
    clipboard_read: verb("clipboard_read"),
    clipboard_write: verb("clipboard_write"),
    computer_state: verb("computer_state"),
    computer_act: verb("computer_act"),
    computer_end: verb("computer_end"),
    computer_scale: verb("computer_scale"),
    look,
    title_at: verb("title_at"),

    status: () => run("status"),
    model_decide: (args: ModelDecideArgs) => run("model_decide", args),
    model_ask: (args: ModelAskArgs) => run("model_ask", args),
    model_ground: (args: ModelGroundArgs) => run("model_ground", args),

    call,
    disconnect: async () => {
      const open = client;
      client = null;
      if (open !== null) await open.close();
    },
  };
}

/** The desk of this process, as scripts run by shuttle use it. */
export const desk: Desk = createDesk();

export default desk;

declare global {
  /** Set by the runner (run.mts) before a script is imported. */
  var desk: Desk;
}
