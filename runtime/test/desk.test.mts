import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import { after, afterEach, before, test } from "node:test";

import deskDefault, { DeskError, VERBS, createDesk, desk } from "../lib/desk.mts";
import type { Desk } from "../lib/desk.mts";
import type { Reply } from "../lib/wire.mts";
import { FakeDesk, limit } from "./fake-desk.mts";

const ok = (text: string): Reply => ({ text, is_error: false, format: "json" });
const plain = (text: string): Reply => ({ text, is_error: false, format: "text" });

let fake: FakeDesk;
const opened: Desk[] = [];
const savedEnv = { socket: process.env.SHUTTLE_SOCKET, agent: process.env.SHUTTLE_AGENT };

/** A desk reading the environment as a script's does, pointed at the fake daemon. */
function scriptDesk(agent: string | null = "agent-7"): Desk {
  process.env.SHUTTLE_SOCKET = fake.socketPath;
  if (agent === null) delete process.env.SHUTTLE_AGENT;
  else process.env.SHUTTLE_AGENT = agent;
  const d = createDesk();
  opened.push(d);
  return d;
}

before(async () => {
  fake = await FakeDesk.start();
});
afterEach(async () => {
  for (const d of opened.splice(0)) await d.disconnect();
  fake.canned.clear();
  fake.requests.length = 0;
});
after(async () => {
  await fake.stop();
  for (const [key, value] of [["SHUTTLE_SOCKET", savedEnv.socket], ["SHUTTLE_AGENT", savedEnv.agent]] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

test("a verb sends desk_<verb> with SHUTTLE_AGENT and the args as given", limit, async () => {
  fake.canned.set("desk_click", ok('{"outcome":"completed","clicked":true}'));
  const d = scriptDesk("agent-7");
  const result = await d.click({ x: 10, y: 20, button: "right", window: "0x1" });
  assert.deepEqual(result, { outcome: "completed", clicked: true });
  assert.deepEqual(fake.requests, [
    { agent_id: "agent-7", tool: "desk_click", args: { x: 10, y: 20, button: "right", window: "0x1" } },
  ]);
});

test("no SHUTTLE_AGENT means the empty agent id, and no args an empty object", limit, async () => {
  fake.canned.set("desk_windows", ok('[{"id":"0x1","title":"a","role":"window"}]'));
  const d = scriptDesk(null);
  assert.deepEqual(await d.windows(), [{ id: "0x1", title: "a", role: "window" }]);
  assert.deepEqual(fake.requests, [{ agent_id: "", tool: "desk_windows", args: {} }]);
});

test("an error reply throws DeskError with the tool and text", limit, async () => {
  fake.canned.set("desk_focus", { text: "desk_focus: no window matches \"nope\"", is_error: true });
  const d = scriptDesk();
  const error = await d.focus({ window: "nope" }).then(
    () => assert.fail("focus should have thrown"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof DeskError);
  assert.ok(error instanceof Error);
  assert.equal(error.tool, "desk_focus");
  assert.equal(error.text, 'desk_focus: no window matches "nope"');
  assert.equal(error.message, error.text);
  assert.equal(error.name, "DeskError");
});

test("an image comes as a Buffer with its media type", limit, async () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 7]);
  fake.canned.set("desk_shot", { ...ok('{"w":2,"h":1}'), image_b64: png.toString("base64") });
  fake.canned.set("desk_look", {
    ...plain("screenshot 512x288; scale 2"),
    image_b64: jpeg.toString("base64"),
    image_mime: "image/jpeg",
  });
  fake.canned.set("desk_computer_act", {
    ...plain("outcome: completed\nclicked [3]"),
    image_b64: jpeg.toString("base64"),
    image_mime: "image/jpeg",
  });
  const d = scriptDesk();
  const shot = await d.shot();
  assert.equal(shot.w, 2);
  assert.equal(shot.image.mime, "image/png");
  assert.ok(Buffer.isBuffer(shot.image.data));
  assert.deepEqual(shot.image.data, png);
  const look = await d.look({ max_edge: 512 });
  assert.deepEqual(look, { text: "screenshot 512x288; scale 2", image: { mime: "image/jpeg", data: jpeg } });
  // Text with an image comes as {text, image}.
  const acted = await d.computer_act({ action: "click", element: 3 });
  assert.deepEqual(acted, { text: "outcome: completed\nclicked [3]", image: { mime: "image/jpeg", data: jpeg } });
});

test("look with questions asks the verify model about its screenshot, within 5000 ms", limit, async () => {
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 9]);
  fake.canned.set("desk_look", {
    ...plain("screenshot 512x288; scale 2"),
    image_b64: jpeg.toString("base64"),
    image_mime: "image/jpeg",
  });
  fake.canned.set("model_decide", ok('{"answers":{"saved":{"probability":0.97}}}'));
  const d = scriptDesk();
  const questions = { saved: { type: "noul" as const, instructions: "Does the title bar say Saved?" } };
  const answer = await d.look({ max_edge: 512, questions });
  assert.deepEqual(answer, { answers: { saved: { probability: 0.97 } } });
  assert.deepEqual(fake.requests, [
    { agent_id: "agent-7", tool: "desk_look", args: { max_edge: 512 } },
    {
      agent_id: "agent-7",
      tool: "model_decide",
      args: {
        state: [{ type: "image_url", image_url: { url: `data:image/jpeg;base64,${jpeg.toString("base64")}` } }],
        questions,
        image: true,
        timeout_ms: 5000,
      },
    },
  ]);
});

test("a script cannot send safety_resume, even as a raw call", limit, async () => {
  const d = scriptDesk();
  const error = await d.call("safety_resume").then(
    () => assert.fail("safety_resume should have been refused"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof DeskError);
  assert.match(error.text, /only the person resumes shuttle/);
  assert.deepEqual(fake.requests, [], "nothing reached the daemon");
});

test("text replies come back as strings, even when they would parse as JSON", limit, async () => {
  fake.canned.set("desk_snapshot", plain("window 'a'\n  button 'OK'"));
  fake.canned.set("desk_look", plain("[1, 2]"));
  const d = scriptDesk();
  assert.equal(await d.snapshot({ window: "a", text: true }), "window 'a'\n  button 'OK'");
  assert.equal(await d.look(), "[1, 2]");
});

test("status, the model tools and raw calls use their own tool names", limit, async () => {
  fake.canned.set("status", ok('{"running":true}'));
  fake.canned.set("model_ask", ok('{"answer":"yes"}'));
  fake.canned.set("desk_nope", { text: "unknown tool", is_error: true });
  const d = scriptDesk();
  assert.deepEqual(await d.status(), { running: true });
  assert.deepEqual(await d.model_ask({ question: "is it open?" }), { answer: "yes" });
  await d.model_decide({ goal: "g" });
  await d.model_ground({ target: "t" });
  // A raw call answers the reply itself, an error reply included, without throwing.
  assert.deepEqual(await d.call("desk_nope", { a: 1 }), { text: "unknown tool", is_error: true });
  assert.deepEqual(
    fake.requests.map((r) => [r.tool, r.args]),
    [
      ["status", {}],
      ["model_ask", { question: "is it open?" }],
      ["model_decide", { goal: "g" }],
      ["model_ground", { target: "t" }],
      ["desk_nope", { a: 1 }],
    ],
  );
});

test("calls made at once are sent and answered in order", limit, async () => {
  fake.handler = (request, conn) => {
    setImmediate(() => conn.reply(ok(JSON.stringify({ tool: request.tool }))));
  };
  try {
    const d = scriptDesk();
    const results = await Promise.all([d.screen(), d.unanswered(), d.computer_scale()]);
    const tools = ["desk_screen", "desk_unanswered", "desk_computer_scale"];
    assert.deepEqual(results.map((r) => r.tool), tools);
    assert.deepEqual(fake.requests.map((r) => r.tool), tools);
  } finally {
    fake.handler = (request, conn) => conn.reply(fake.canned.get(request.tool) ?? ok("{}"));
  }
});

test("a daemon that goes away mid-call: the call may or may not have run", limit, async () => {
  fake.handler = (_request, conn) => {
    conn.socket.destroy();
  };
  try {
    const d = scriptDesk();
    await assert.rejects(d.type({ text: "hello" }), (error: Error) => {
      assert.ok(!(error instanceof DeskError));
      assert.match(error.message, /desk_type: the daemon connection broke/);
      assert.match(error.message, /may or may not have run/);
      return true;
    });
  } finally {
    fake.handler = (request, conn) => conn.reply(fake.canned.get(request.tool) ?? ok("{}"));
  }
});

test("without SHUTTLE_SOCKET every call says where it comes from", limit, async () => {
  delete process.env.SHUTTLE_SOCKET;
  const d = createDesk();
  const expected = { message: "SHUTTLE_SOCKET is not set: scripts run by shuttle get it from the daemon" };
  await assert.rejects(d.windows(), expected);
  await assert.rejects(d.call("status"), expected);
  // Setting it later is enough: nothing was remembered from the failed calls.
  process.env.SHUTTLE_SOCKET = fake.socketPath;
  opened.push(d);
  assert.deepEqual(await d.screen(), {});
});

test("the module's desk is its default export", limit, () => {
  assert.equal(deskDefault, desk);
});

test("every verb has a function of its own name", limit, () => {
  const d = createDesk();
  for (const verb of VERBS) assert.equal(typeof (d as unknown as Record<string, unknown>)[verb], "function", verb);
});

test("VERBS is the daemon's verb table", limit, () => {
  // The Rust side checks the same; this catches a drift without a cargo build.
  const table = new URL("../../crates/desk-core/src/call/args.rs", import.meta.url);
  const source = fs.readFileSync(table, "utf8");
  const block = source.slice(source.indexOf("verbs! {"), source.indexOf("}", source.indexOf("verbs! {")));
  const names = [...block.matchAll(/=\s*"([a-z_]+)"\s*,/g)].map((m) => m[1]);
  assert.ok(names.length > 20, "the verb table was found");
  assert.deepEqual([...VERBS], names);
});

test("progress writes one line per message to the run's FIFO, and is a no-op without one", limit, async () => {
  const dir = fs.mkdtempSync(`${os.tmpdir()}/shuttle-progress-`);
  const file = `${dir}/progress`;
  // A regular file stands in for the FIFO: the writes are the same.
  fs.writeFileSync(file, "");
  const told = createDesk({ socket: "/nonexistent", progress: file });
  told.progress("step 1 of 2:\n  click");
  told.progress("   ");
  told.progress("x".repeat(600));
  const lines = fs.readFileSync(file, "utf8").split("\n");
  assert.equal(lines[0], "step 1 of 2: click");
  assert.equal(lines[1].length, 400, "a long line is cut");
  assert.equal(lines.length, 3, "a blank message is not told");
  createDesk({ socket: "/nonexistent", progress: "" }).progress("nowhere");
  fs.rmSync(dir, { recursive: true });
});
