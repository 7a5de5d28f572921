// gui_plan.mts against a stub desk: how targets are found (accessibility, model, replay), how
// expectations are judged, flows on disk, and plans refused before their first step.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, test } from "node:test";

import { main } from "../lib/gui_plan.mts";

interface Call {
  verb: string;
  args: any;
}

/** A desktop with an entry at (100,100,200,20) and a Save button at (320,100,80,20). */
class StubDesk {
  calls: Call[] = [];
  controls: { name: string; role: string; bounds: number[]; states?: string[] }[] = [
    { name: "Entry", role: "text", bounds: [100, 100, 200, 20] },
    { name: "Save", role: "button", bounds: [320, 100, 80, 20] },
  ];
  labels: string[] = [];
  groundPoint: [number, number] = [360, 110];
  probability = 0.9;

  #log(verb: string, args: any) {
    this.calls.push({ verb, args });
  }
  verbs(): string[] {
    return this.calls.map((c) => c.verb);
  }
  told: string[] = [];
  progress(message: string) {
    this.told.push(message);
  }
  async find(args: any) {
    this.#log("find", args);
    const all = [...this.controls, ...this.labels.map((name) => ({ name, role: "label", bounds: [0, 0, 10, 10] }))];
    return { nodes: all.filter((c) => c.name.includes(args.name) && (!args.role || c.role === args.role)) };
  }
  async at(args: any) {
    this.#log("at", args);
    const c = this.controls.find(({ bounds: [x, y, w, h] }) => args.x >= x && args.x < x + w && args.y >= y && args.y < y + h);
    return { node: c ? { name: c.name, role: c.role } : null };
  }
  async shot(args: any) {
    this.#log("shot", args);
    return { width: 640, height: 480, screen_origin: [10, 20], image: { mime: "image/png", data: Buffer.from("png") } };
  }
  async model_ground(args: any) {
    this.#log("model_ground", args);
    return { x: this.groundPoint[0], y: this.groundPoint[1], usage: { input_tokens: 1000, output_tokens: 5 } };
  }
  async model_decide(args: any) {
    this.#log("model_decide", args);
    return { answers: { ok: { probability: this.probability } }, usage: { input_tokens: 800, output_tokens: 2 } };
  }
  async click(args: any) {
    this.#log("click", args);
    return { outcome: "completed" };
  }
  async type(args: any) {
    this.#log("type", args);
    return { outcome: "completed" };
  }
  async key(args: any) {
    this.#log("key", args);
    return { outcome: "completed" };
  }
}

let desk: StubDesk;
beforeEach(() => {
  desk = new StubDesk();
  (globalThis as any).desk = desk;
});

const SAVE_NOTE = [
  { do: "type", target: { name: "Entry", role: "text" }, text: "{{text}}" },
  { do: "click", target: { describe: "the Save button" } },
  { do: "expect", name: "Saved" },
];

describe("gui_plan", () => {
  test("a named target is found by accessibility and a described one by the model", async () => {
    desk.labels = ["Saved"];
    const result = await main({ steps: SAVE_NOTE as any, params: { text: "hi" }, window: "Notes" });
    assert.equal(result.completed, true, JSON.stringify(result));
    assert.deepEqual(result.steps.map((s) => s.how), ["accessibility", "model", "tree"]);
    assert.deepEqual(result.steps[0].point, [200, 110]);
    assert.equal(result.model_calls, 1);
    assert.equal(result.input_tokens, 1000);
    const ground = desk.calls.find((c) => c.verb === "model_ground")!.args;
    assert.deepEqual(ground.area, { left: 10, top: 20, width: 640, height: 480 });
    assert.equal(ground.target, "the Save button");
    assert.deepEqual(desk.calls.find((c) => c.verb === "type")!.args, { text: "hi", window: "Notes" });
    assert.deepEqual(result.record, [
      { step: 0, point: [200, 110], control: { name: "Entry", role: "text" } },
      { step: 1, point: [360, 110], control: { name: "Save", role: "button" } },
    ]);
    assert.deepEqual(desk.told, ["step 1 of 3: type", "step 2 of 3: click", "step 3 of 3: expect"]);
  });

  test("a replay reuses the recording with no model call while the controls are where they were", async () => {
    desk.labels = ["Saved"];
    const first = await main({ steps: SAVE_NOTE as any, params: { text: "hi" } });
    desk.calls = [];
    const replay = await main({ steps: SAVE_NOTE as any, params: { text: "hi" }, record: first.record });
    assert.equal(replay.completed, true);
    assert.deepEqual(replay.steps.map((s) => s.how), ["replay", "replay", "tree"]);
    assert.equal(replay.model_calls, 0);
    assert.ok(!desk.verbs().includes("model_ground") && !desk.verbs().includes("shot"));
  });

  test("a replay whose control moved finds it afresh", async () => {
    desk.labels = ["Saved"];
    const first = await main({ steps: SAVE_NOTE as any, params: { text: "hi" } });
    desk.controls[1].bounds = [320, 300, 80, 20];
    desk.groundPoint = [360, 310];
    const replay = await main({ steps: SAVE_NOTE as any, params: { text: "hi" }, record: first.record });
    assert.equal(replay.completed, true);
    assert.equal(replay.steps[1].how, "model");
    assert.equal(replay.steps[1].replay_missed, true);
    assert.deepEqual(replay.steps[1].point, [360, 310]);
    assert.equal(replay.model_calls, 1);
  });

  test("of several controls that match, a disabled or hidden one is never picked, and a tie is refused unless nth picks", async () => {
    desk.controls = [
      { name: "check", role: "check box", bounds: [0, 200, 100, 20], states: ["disabled"] },
      { name: "check", role: "check box", bounds: [0, 230, 100, 20], states: ["hidden"] },
      { name: "check", role: "check box", bounds: [0, 260, 100, 20] },
    ];
    const click = (target: object) => main({ steps: [{ do: "click", target }] as any });
    const only = await click({ name: "check", role: "check box" });
    assert.equal(only.completed, true, JSON.stringify(only));
    assert.deepEqual(only.steps[0].point, [50, 270]);

    desk.controls.push({ name: "check", role: "check box", bounds: [0, 290, 100, 20] });
    desk.calls = [];
    const tie = await click({ name: "check", role: "check box" });
    assert.equal(tie.completed, false);
    assert.match(tie.error!.message, /2 enabled controls match "check" \(check box\); add "nth"/);
    assert.ok(!desk.verbs().includes("click"), "a tie clicked");
    const second = await click({ name: "check", role: "check box", nth: 1 });
    assert.deepEqual(second.steps[0].point, [50, 300]);
    const past = await click({ name: "check", role: "check box", nth: 2 });
    assert.match(past.error!.message, /nth 2 asks for more controls .* than the 2 enabled ones/);
  });

  test("a named target that only a disabled control matches says so, with the model's error", async () => {
    desk.controls = [{ name: "Apply", role: "button", bounds: [0, 0, 50, 20], states: ["disabled"] }];
    desk.model_ground = async () => {
      throw new Error("model_ground: no model is set for the ground role");
    };
    const result = await main({ steps: [{ do: "click", target: { name: "Apply", role: "button" } }] as any });
    assert.equal(result.completed, false);
    assert.match(result.error!.message, /every control matching "Apply" \(button\) is disabled, and the model could not find it either: model_ground: no model/);
  });

  test("an expectation is met only by a control that shows", async () => {
    desk.labels = [];
    desk.controls = [{ name: "Saved", role: "label", bounds: [0, 0, 50, 20], states: ["hidden"] }];
    const result = await main({ steps: [{ do: "expect", name: "Saved", timeout_ms: 200 }] as any });
    assert.equal(result.completed, false, JSON.stringify(result));
    assert.match(result.error!.message, /expected a control named "Saved", and none showed within 200 ms/);
  });

  test("an expectation without a control falls to the model, and a no fails the plan at its step", async () => {
    const steps = [{ do: "expect", name: "Saved", question: 'Does it say "Saved"?', timeout_ms: 100 }];
    const yes = await main({ steps: steps as any });
    assert.equal(yes.completed, true);
    assert.equal(yes.steps[0].how, "model");
    desk.probability = 0.2;
    const no = await main({ steps: steps as any });
    assert.equal(no.completed, false);
    assert.equal(no.error!.step, 0);
    assert.match(no.error!.message, /judged .* false \(probability 0.2\)/);
  });

  test("a malformed plan is refused before any step runs", async () => {
    const cases: [any, RegExp][] = [
      [{ steps: [{ do: "key", keys: "a" }, { do: "fly" }] }, /step 1: unknown kind "fly"/],
      [{ steps: [{ do: "click", target: {} }] }, /click needs target/],
      [{ steps: [{ do: "click", target: { name: "a", nth: -1 } }] }, /nth is a whole number/],
      [{ steps: [{ do: "type", text: "{{who}}" }] }, /params has no who/],
      [{ steps: [] }, /has no steps/],
    ];
    for (const [args, message] of cases) {
      desk.calls = [];
      const result = await main(args);
      assert.equal(result.completed, false);
      assert.match(result.error!.message, message);
      assert.deepEqual(desk.calls, [], `${JSON.stringify(args)} acted`);
    }
  });

  test("a flow is kept with its recording, replayed by name, and an unknown one lists the flows", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shuttle-flows-"));
    process.env.SHUTTLE_FLOWS = dir;
    try {
      desk.labels = ["Saved"];
      const saved = await main({ steps: SAVE_NOTE as any, params: { text: "a" }, save_as: "save_note" });
      assert.equal(saved.completed, true);
      assert.ok(fs.existsSync(path.join(dir, "save_note.json")));
      assert.ok(fs.existsSync(path.join(dir, "save_note.record.json")));
      const replay = await main({ flow: "save_note", params: { text: "b" } });
      assert.equal(replay.flow, "save_note");
      assert.equal(replay.model_calls, 0);
      assert.deepEqual(desk.calls.filter((c) => c.verb === "type").map((c) => c.args.text), ["a", "b"]);
      const missing = await main({ flow: "nope" });
      assert.match(missing.error!.message, /flow "nope": .* does not exist; flows here: save_note/);
    } finally {
      delete process.env.SHUTTLE_FLOWS;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
