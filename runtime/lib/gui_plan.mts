// The plan executor: `gui_plan` runs this module's `main` with the plan as its params.
//
// A plan is a list of steps. Each target is found by accessibility first (a control by name and
// role), and by `model_ground` on a shot of the window when that fails or when the target is
// only described. Expectations are checked in the accessibility tree when they name a control,
// else by `model_decide` (the verify role) on a screenshot. Every run records how it found each
// target; a replay reuses the recorded point with no model call while the control at that
// point is still the one recorded, and finds the target afresh where it is not.
//
// Flows are named plans kept as `<name>.json` in SHUTTLE_FLOWS; their recordings are kept
// beside them as `<name>.record.json`. docs/plans.md describes the format.

import fs from "node:fs";
import path from "node:path";
import type { Desk } from "./desk.mts";

declare const desk: Desk;

/**
 * What a step acts on: a control's accessible name and role (`nth` picks one of several that
 * match, in the tree's order), or a description for a model.
 */
export interface Target {
  name?: string;
  role?: string;
  nth?: number;
  describe?: string;
}

interface FoundNode {
  name: string;
  role: string;
  states?: string[];
  bounds?: number[];
}

export type Step =
  | { do: "click"; target: Target }
  | { do: "type"; text: string; target?: Target }
  | { do: "key"; keys: string }
  | { do: "wait"; ms: number }
  | { do: "expect"; name?: string; role?: string; question?: string; timeout_ms?: number };

/** How one target was found, kept so a replay can find it again without a model. */
export interface Recorded {
  step: number;
  point: [number, number];
  /** The control at the point when it was acted on. */
  control: { name: string; role: string } | null;
}

export interface PlanArgs {
  steps?: Step[];
  flow?: string;
  params?: Record<string, unknown>;
  window?: string;
  replay?: boolean;
  record?: Recorded[];
  save_as?: string;
}

interface StepResult {
  step: number;
  do: string;
  how?: "accessibility" | "model" | "replay" | "tree";
  point?: [number, number];
  replay_missed?: boolean;
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
  ms: number;
}

export interface PlanResult {
  completed: boolean;
  flow?: string;
  steps: StepResult[];
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
  ms: number;
  record: Recorded[];
  error?: { step: number; message: string };
}

const STEP_KINDS = ["click", "type", "key", "wait", "expect"];
const FLOW_NAME = /^[a-z0-9][a-z0-9_-]*$/;

class PlanError extends Error {
  readonly step: number;
  constructor(step: number, message: string) {
    super(message);
    this.step = step;
  }
}

function flowsDir(): string {
  const dir = process.env.SHUTTLE_FLOWS;
  if (!dir) throw new PlanError(-1, "SHUTTLE_FLOWS is not set: flows need the daemon's flows directory");
  return dir;
}

function flowFile(name: string, suffix: string): string {
  if (!FLOW_NAME.test(name)) {
    throw new PlanError(-1, `flow name ${JSON.stringify(name)} must match ${FLOW_NAME}`);
  }
  return path.join(flowsDir(), `${name}${suffix}`);
}

/** A flow's steps, and its recording when there is one. */
function loadFlow(name: string): { steps: Step[]; window?: string; record?: Recorded[] } {
  const file = flowFile(name, ".json");
  let flow: { steps?: Step[]; window?: string };
  try {
    flow = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "does not exist" : (error as Error).message;
    const known = fs.existsSync(flowsDir())
      ? fs.readdirSync(flowsDir()).filter((f) => f.endsWith(".json") && !f.endsWith(".record.json")).map((f) => f.slice(0, -5))
      : [];
    throw new PlanError(-1, `flow ${JSON.stringify(name)}: ${file} ${reason}; flows here: ${known.join(", ") || "none"}`);
  }
  let record: Recorded[] | undefined;
  try {
    record = JSON.parse(fs.readFileSync(flowFile(name, ".record.json"), "utf8"));
  } catch {
    record = undefined;
  }
  return { steps: flow.steps ?? [], window: flow.window, record };
}

/** Replaces `{{name}}` in every string of `value` by the param's text. */
function fill<T>(value: T, params: Record<string, unknown>): T {
  if (typeof value === "string") {
    return value.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => {
      if (!(key in params)) throw new PlanError(-1, `the plan uses {{${key}}} but params has no ${key}`);
      return String(params[key]);
    }) as T;
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, params)) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, params)])) as T;
  }
  return value;
}

/** Refuses a malformed plan before any step runs. */
function check(steps: unknown): Step[] {
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new PlanError(-1, "the plan has no steps: pass steps (a list) or flow (a name)");
  }
  steps.forEach((step, i) => {
    const s = step as Record<string, unknown>;
    if (!s || typeof s !== "object" || !STEP_KINDS.includes(s.do as string)) {
      throw new PlanError(i, `step ${i}: unknown kind ${JSON.stringify(s?.do)}; a step's do is one of ${STEP_KINDS.join(", ")}`);
    }
    const target = s.target as Target | undefined;
    const named = (t: Target | undefined) => !!t && (typeof t.name === "string" || typeof t.describe === "string");
    if (s.do === "click" && !named(target)) throw new PlanError(i, `step ${i}: click needs target {name, role?} or {describe}`);
    if (target?.nth !== undefined && !(Number.isInteger(target.nth) && target.nth >= 0 && typeof target.name === "string")) {
      throw new PlanError(i, `step ${i}: a target's nth is a whole number from 0, beside a name`);
    }
    if (s.do === "type" && typeof s.text !== "string") throw new PlanError(i, `step ${i}: type needs text`);
    if (s.do === "type" && target !== undefined && !named(target)) throw new PlanError(i, `step ${i}: type's target needs name or describe`);
    if (s.do === "key" && typeof s.keys !== "string") throw new PlanError(i, `step ${i}: key needs keys, such as "ctrl+s"`);
    if (s.do === "wait" && !(typeof s.ms === "number" && s.ms >= 0 && s.ms <= 10000)) {
      throw new PlanError(i, `step ${i}: wait needs ms from 0 to 10000`);
    }
    if (s.do === "expect" && typeof s.name !== "string" && typeof s.question !== "string") {
      throw new PlanError(i, `step ${i}: expect needs name (a control that must show) or question (for the model)`);
    }
  });
  return steps as Step[];
}

/** Whether a control is on the screen: it has an area and is not hidden (a closed menu's items are). */
function showing(node: FoundNode): boolean {
  return !!node.bounds && node.bounds[2] > 0 && node.bounds[3] > 0 && !node.states?.includes("hidden");
}

/**
 * The one control a named target means: shown, enabled, the exact name before a partial one.
 * Several that match are an error unless `nth` picks one, since clicking the wrong one of them
 * would look like success. Answers why none fits when none does.
 */
function pick(i: number, target: Target, nodes: FoundNode[]): FoundNode | string {
  const label = `${JSON.stringify(target.name)}${target.role ? ` (${target.role})` : ""}`;
  const shown = nodes.filter(showing);
  const enabled = shown.filter((n) => !n.states?.includes("disabled"));
  const exact = enabled.filter((n) => n.name === target.name);
  const candidates = exact.length > 0 ? exact : enabled;
  if (target.nth !== undefined) {
    if (target.nth < candidates.length) return candidates[target.nth];
    throw new PlanError(i, `step ${i}: nth ${target.nth} asks for more controls matching ${label} than the ${candidates.length} enabled ones showing`);
  }
  if (candidates.length > 1) {
    throw new PlanError(i, `step ${i}: ${candidates.length} enabled controls match ${label}; add "nth" (0 for the first in the tree's order), a role, or the exact name`);
  }
  if (candidates.length === 1) return candidates[0];
  if (shown.length > 0) return `every control matching ${label} is disabled`;
  return `no control matching ${label} shows`;
}

class Run {
  readonly results: StepResult[] = [];
  readonly record: Recorded[] = [];
  readonly window: string | undefined;
  readonly replayed: Map<number, Recorded>;
  constructor(window: string | undefined, replayed: Map<number, Recorded>) {
    this.window = window;
    this.replayed = replayed;
  }

  private windowArgs(): { window?: string } {
    return this.window ? { window: this.window } : {};
  }

  private async controlAt(point: [number, number]): Promise<{ name: string; role: string } | null> {
    try {
      const at = await desk.at({ x: point[0], y: point[1] });
      return at.node ? { name: at.node.name, role: at.node.role } : null;
    } catch {
      return null;
    }
  }

  /** Finds a target: the recording, then accessibility, then the model. */
  private async locate(i: number, target: Target, result: StepResult): Promise<[number, number]> {
    const recorded = this.replayed.get(i);
    if (recorded) {
      const now = await this.controlAt(recorded.point);
      if (recorded.control && now && now.name === recorded.control.name && now.role === recorded.control.role) {
        result.how = "replay";
        return recorded.point;
      }
      result.replay_missed = true;
    }
    let missing: string | undefined;
    if (target.name !== undefined) {
      const found = await desk.find({ ...this.windowArgs(), name: target.name, ...(target.role ? { role: target.role } : {}) });
      const picked = pick(i, target, found.nodes as FoundNode[]);
      if (typeof picked !== "string") {
        const [x, y, w, h] = picked.bounds!;
        result.how = "accessibility";
        return [Math.floor(x + w / 2), Math.floor(y + h / 2)];
      }
      missing = picked;
    }
    try {
      return await this.ground(target, result);
    } catch (error) {
      if (missing === undefined) throw error;
      throw new Error(`${missing}, and the model could not find it either: ${(error as Error).message}`);
    }
  }

  private async ground(target: Target, result: StepResult): Promise<[number, number]> {
    const shot = await desk.shot(this.windowArgs());
    const origin = (shot.screen_origin as number[] | undefined) ?? [0, 0];
    const grounded = await desk.model_ground({
      png_b64: shot.image.data.toString("base64"),
      target: target.describe ?? target.name,
      area: { left: origin[0], top: origin[1], width: shot.width, height: shot.height },
    });
    result.model_calls += 1;
    result.input_tokens += grounded.usage?.input_tokens ?? 0;
    result.output_tokens += grounded.usage?.output_tokens ?? 0;
    result.how = "model";
    return [grounded.x, grounded.y];
  }

  private async press(i: number, target: Target, result: StepResult): Promise<void> {
    const point = await this.locate(i, target, result);
    const control = await this.controlAt(point);
    await desk.click({ x: point[0], y: point[1] });
    result.point = point;
    this.record.push({ step: i, point, control });
  }

  private async expect(i: number, step: Extract<Step, { do: "expect" }>, result: StepResult): Promise<void> {
    if (step.name !== undefined) {
      const deadline = Date.now() + (step.timeout_ms ?? 3000);
      for (;;) {
        const found = await desk.find({ ...this.windowArgs(), name: step.name, ...(step.role ? { role: step.role } : {}) });
        if ((found.nodes as FoundNode[]).some(showing)) {
          result.how = "tree";
          return;
        }
        if (Date.now() >= deadline) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      if (step.question === undefined) {
        throw new PlanError(i, `step ${i}: expected a control named ${JSON.stringify(step.name)}, and none showed within ${step.timeout_ms ?? 3000} ms`);
      }
    }
    const shot = await desk.shot(this.windowArgs());
    const decided = await desk.model_decide({
      state: [{ type: "image_url", image_url: { url: `data:image/png;base64,${shot.image.data.toString("base64")}` } }],
      questions: { ok: { type: "noul", instructions: step.question } },
      image: true,
    });
    result.model_calls += 1;
    result.input_tokens += decided.usage?.input_tokens ?? 0;
    result.output_tokens += decided.usage?.output_tokens ?? 0;
    result.how = "model";
    const probability = decided.answers.ok.probability as number;
    if (probability < 0.5) {
      throw new PlanError(i, `step ${i}: the model judged ${JSON.stringify(step.question)} false (probability ${probability})`);
    }
  }

  async step(i: number, step: Step): Promise<void> {
    const started = performance.now();
    const result: StepResult = { step: i, do: step.do, model_calls: 0, input_tokens: 0, output_tokens: 0, ms: 0 };
    this.results.push(result);
    try {
      switch (step.do) {
        case "click":
          await this.press(i, step.target, result);
          break;
        case "type":
          if (step.target) await this.press(i, step.target, result);
          await desk.type({ text: step.text, ...this.windowArgs() });
          break;
        case "key":
          await desk.key({ keys: step.keys, ...this.windowArgs() });
          break;
        case "wait":
          await new Promise((r) => setTimeout(r, step.ms));
          break;
        case "expect":
          await this.expect(i, step, result);
          break;
      }
    } catch (error) {
      if (error instanceof PlanError) throw error;
      throw new PlanError(i, `step ${i} (${step.do}): ${(error as Error).message}`);
    } finally {
      result.ms = Math.round(performance.now() - started);
    }
  }
}

/** Runs a plan (its steps, or a flow by name) and answers how each step went. */
export async function main(args: PlanArgs): Promise<PlanResult> {
  const started = performance.now();
  let run: Run | null = null;
  let flowName = args.flow;
  try {
    let steps: unknown = args.steps;
    let window = args.window;
    let record = args.record;
    if (flowName !== undefined) {
      if (steps !== undefined) throw new PlanError(-1, "pass steps or flow, not both");
      const flow = loadFlow(flowName);
      steps = flow.steps;
      window ??= flow.window;
      record ??= flow.record;
    }
    const checked = fill(check(steps), args.params ?? {});
    window = window === undefined ? undefined : fill(window, args.params ?? {});
    const replayed = new Map((args.replay === false ? [] : (record ?? [])).map((r) => [r.step, r]));
    run = new Run(window, replayed);
    for (const [i, step] of checked.entries()) {
      desk.progress(`step ${i + 1} of ${checked.length}: ${step.do}`);
      await run.step(i, step);
    }
    if (args.save_as !== undefined) {
      flowName = args.save_as;
      fs.mkdirSync(flowsDir(), { recursive: true });
      fs.writeFileSync(flowFile(flowName, ".json"), JSON.stringify({ steps: args.steps, window: args.window }, null, 2));
    }
    if (flowName !== undefined) {
      fs.mkdirSync(flowsDir(), { recursive: true });
      fs.writeFileSync(flowFile(flowName, ".record.json"), JSON.stringify(run.record, null, 2));
    }
    return summary(run, true, flowName, started);
  } catch (error) {
    const failed = error instanceof PlanError ? error : new PlanError(-1, (error as Error).message);
    const result = summary(run ?? new Run(undefined, new Map()), false, flowName, started);
    result.error = { step: failed.step, message: failed.message };
    return result;
  }
}

function summary(run: Run, completed: boolean, flow: string | undefined, started: number): PlanResult {
  const sum = (key: "model_calls" | "input_tokens" | "output_tokens") => run.results.reduce((n, r) => n + r[key], 0);
  return {
    completed,
    ...(flow !== undefined ? { flow } : {}),
    steps: run.results,
    model_calls: sum("model_calls"),
    input_tokens: sum("input_tokens"),
    output_tokens: sum("output_tokens"),
    ms: Math.round(performance.now() - started),
    record: run.record,
  };
}
