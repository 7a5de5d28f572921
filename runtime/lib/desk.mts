// The desk API a script sees as `desk`: one function per desk verb, named as the verb is.
//
// Every function sends `desk_<verb>` to the daemon over the desk wire (./wire.mts). The
// argument and result types come from ./verbs.gen.mts, which is generated from the daemon's
// own verb table (crates/desk-core), so they cannot drift from what the daemon takes and
// answers; the daemon checks every value again, so a type that is off costs an error, never a
// wrong action.

import fs from "node:fs";

import { VERBS } from "./verbs.gen.mts";
import type { VerbArgs, VerbResults, WindowChanges } from "./verbs.gen.mts";
import { WireClient } from "./wire.mts";
import type { Reply } from "./wire.mts";

export { VERBS } from "./verbs.gen.mts";
export type * from "./verbs.gen.mts";
export type { Reply } from "./wire.mts";

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
 * What a verb answers: its result as ./verbs.gen.mts types it, with the reply's image as
 * `image` when it carried one; a text result with an image comes as `{text, image}`.
 */
export type Answer<V extends Verb> = VerbResults[V] extends string
  ? VerbResults[V] | { text: string; image: Image }
  : VerbResults[V] & { image?: Image; windows_changed?: WindowChanges; display?: string };

/** What the daemon's other tools answer (status, the model calls): their JSON. */
// Their shapes are documented in docs/models.md and shuttle status; left open here.
export type DeskResult = any;

/** A verb's function; its arguments may be left out when none is required. */
type VerbFunction<V extends Verb> = {} extends VerbArgs[V]
  ? (args?: VerbArgs[V]) => Promise<Answer<V>>
  : (args: VerbArgs[V]) => Promise<Answer<V>>;

/** One function per verb. */
export type VerbFunctions = { [V in Verb]: VerbFunction<V> };

/** How long desk.look lets a model look at the screen. */
export const LOOK_TIMEOUT_MS = 5000;

/** The wire tools only the person sends: a script may stop shuttle, never resume it. */
const PERSON_ONLY = new Set(["safety_resume"]);

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

/** `look`'s arguments, and questions to ask a model about what it shows instead. */
export type LookQuestions = VerbArgs["look"] & {
  /**
   * Questions about what the screen shows: the screenshot then goes to model_decide (the verify
   * role, at most 5000 ms), and look answers its {answers, from_logprobs, served, usage}.
   */
  questions?: ModelDecideArgs["questions"];
};

/** The desk as a script uses it. */
export interface Desk extends Omit<VerbFunctions, "look"> {
  /** A screenshot; with questions, a model's answers about it instead (see LookQuestions). */
  look(args?: LookQuestions): Promise<DeskResult>;

  /** The daemon's status. */
  status(): Promise<DeskResult>;
  /** Answers each question with probabilities: {answers, from_logprobs, served, usage}. */
  model_decide(args: ModelDecideArgs): Promise<DeskResult>;
  /** Answers {text, served, usage}. */
  model_ask(args: ModelAskArgs): Promise<DeskResult>;
  /** Answers {x, y} in desk pixels, {model_point, served, usage}. */
  model_ground(args: ModelGroundArgs): Promise<DeskResult>;

  /**
   * Tells the agent how the run goes ("page 3 of 10"): one line, shown as the call's progress
   * when its client asked for progress, dropped otherwise. Never waits and never fails.
   */
  progress(message: string): void;

  /**
   * Any wire tool by name but safety_resume, which only the person sends;
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
  /** The FIFO desk.progress writes to (SHUTTLE_PROGRESS). */
  progress?: string;
}

/** The result a reply stands for, or the DeskError it is. */
export function resultOf(tool: string, reply: Reply): DeskResult {
  if (reply.is_error) throw new DeskError(tool, reply.text);
  // The daemon says which its text is; a snapshot outline or a vision verb's account is text.
  const value: DeskResult = reply.format === "json" ? JSON.parse(reply.text) : reply.text;
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
  /** The progress FIFO, opened on the first line told; null when there is none. */
  let progressFd: number | null | undefined;

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
        `${tool} is not sent from a script: only the person resumes shuttle (shuttle resume, which asks them to confirm)`,
      );
    }
    const wire = connection();
    return wire.call(tool, args ?? {}, agentId);
  };

  const run = async (tool: string, args?: object): Promise<DeskResult> => resultOf(tool, await call(tool, args));

  const verb = (name: Verb) => (args?: object) => run(`desk_${name}`, args);

  // A look with questions shows the screenshot to a model instead of to the script.
  const look = async (args: LookQuestions = {}): Promise<DeskResult> => {
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

  // One function per verb of the generated table, named as the verb.
  const verbs = Object.fromEntries(VERBS.map((name) => [name, verb(name)])) as unknown as VerbFunctions;

  return {
    ...verbs,
    look,

    status: () => run("status"),
    model_decide: (args: ModelDecideArgs) => run("model_decide", args),
    model_ask: (args: ModelAskArgs) => run("model_ask", args),
    model_ground: (args: ModelGroundArgs) => run("model_ground", args),

    progress: (message: string) => {
      if (progressFd === undefined) progressFd = openProgress(options.progress ?? process.env.SHUTTLE_PROGRESS);
      tell(progressFd, message);
    },

    call,
    disconnect: async () => {
      const open = client;
      client = null;
      if (open !== null) await open.close();
    },
  };
}

/** The most characters of one progress line; the daemon tells no more. */
const PROGRESS_MOST = 400;

/** Opens the run's progress FIFO for writes that never wait; null without one. */
function openProgress(fifo: string | undefined): number | null {
  if (fifo === undefined || fifo === "") return null;
  try {
    return fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
}

/**
 * Writes one line to the run's progress FIFO: a line the daemon has no room for is dropped,
 * as news is worth less than the run.
 */
function tell(fd: number | null, message: string): void {
  if (fd === null) return;
  // Cut by code points, so no character is split.
  const line = Array.from(String(message).replace(/\s+/g, " ").trim())
    .slice(0, PROGRESS_MOST)
    .join("");
  if (line === "") return;
  try {
    fs.writeSync(fd, `${line}\n`);
  } catch {
    // EAGAIN: the FIFO is full; the line is dropped.
  }
}

/** The desk of this process, as scripts run by shuttle use it. */
export const desk: Desk = createDesk();

export default desk;

declare global {
  /** Set by the runner (run.mts) before a script is imported. */
  var desk: Desk;
}
