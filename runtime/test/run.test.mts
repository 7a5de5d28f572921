// run.mts end to end: the runner started as the daemon starts it, on scripts written here,
// against the fake desk.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";

import { FakeDesk, limit, tempDir } from "./fake-desk.mts";

const RUNNER = new URL("../lib/run.mts", import.meta.url).pathname;

let fake: FakeDesk;
before(async () => {
  fake = await FakeDesk.start();
  fake.canned.set("desk_windows", {
    text: '[{"id":"0x1","title":"Editor","role":"window","active":true}]',
    is_error: false,
    format: "json",
  });
  fake.canned.set("desk_focus", { text: 'desk_focus: no window matches "ghost"', is_error: true });
});
after(async () => {
  await fake.stop();
});

interface Outcome {
  status: number | null;
  stdout: string;
  stderr: string;
  result?: unknown;
  error?: { kind: string; message: string };
  /** What the run directory holds afterwards. */
  files: string[];
  script: string;
}

interface RunOptions {
  /** The script file's name; its extension picks how Node reads it. */
  name?: string;
  params?: unknown;
  /** More files beside the script, by name. */
  extra?: Record<string, string>;
  /** Leave the script file out. */
  missing?: boolean;
  /** Prepare the run directory before the run. */
  prepare?: (runDir: string) => void;
  /** Read no stdout until the answer is written, as a daemon busy elsewhere might. */
  holdStdout?: boolean;
  /** Run a copy of the runner placed in this directory under the run's home. */
  runnerAlone?: boolean;
}

/** Resolves once the runner has renamed an answer file into `runDir`. */
function answerWritten(runDir: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = fs.watch(runDir, (_event, name) => {
      if (name === "result.json" || name === "error.json") {
        watcher.close();
        resolve();
      }
    });
  });
}

/** Runs `source` as the daemon would and reads what the runner left. */
async function runScript(source: string, options: RunOptions = {}): Promise<Outcome> {
  const home = tempDir("shuttle-run-test-");
  try {
    const runDir = path.join(home, "run");
    fs.mkdirSync(runDir);
    fs.writeFileSync(path.join(runDir, "params.json"), JSON.stringify(options.params ?? {}));
    const script = path.join(home, options.name ?? "script.mjs");
    if (!options.missing) fs.writeFileSync(script, source);
    for (const [name, text] of Object.entries(options.extra ?? {})) fs.writeFileSync(path.join(home, name), text);
    options.prepare?.(runDir);
    const answered = options.holdStdout ? answerWritten(runDir) : Promise.resolve();
    let runner = RUNNER;
    if (options.runnerAlone) {
      runner = path.join(home, "alone", "run.mts");
      fs.mkdirSync(path.dirname(runner));
      fs.copyFileSync(RUNNER, runner);
    }
    const child = spawn(process.execPath, [runner], {
      env: {
        PATH: process.env.PATH,
        SHUTTLE_SCRIPT: script,
        SHUTTLE_RUN: runDir,
        SHUTTLE_SOCKET: fake.socketPath,
        SHUTTLE_AGENT: "run-42",
        SHUTTLE_FLOWS: path.join(home, "flows"),
      },
      stdio: ["ignore", "pipe", "pipe"],
      // A runner that hangs is killed, and the test fails on its status rather than hanging.
      timeout: 10_000,
    });
    let stdout = "";
    let stderr = "";
    void answered.then(() => child.stdout.on("data", (chunk) => (stdout += chunk)));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const [status] = await once(child, "close");
    const read = (name: string) => {
      const file = path.join(runDir, name);
      return fs.existsSync(file) && fs.statSync(file).isFile() ? JSON.parse(fs.readFileSync(file, "utf8")) : undefined;
    };
    return {
      status,
      stdout,
      stderr,
      result: read("result.json"),
      error: read("error.json"),
      files: fs.readdirSync(runDir).sort(),
      script,
    };
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

// Each test starts its own Node; a few run side by side to keep the file quick.
describe("run.mts", { concurrency: 4 }, () => {
  test("main gets params and the desk, and its result is written", limit, async () => {
    const out = await runScript(
      `
      export async function main(params) {
        const windows = await desk.windows();
        console.log("saw", windows.length, "window");
        return { greeting: "hi " + params.name, first: windows[0].title, flows: process.env.SHUTTLE_FLOWS.endsWith("flows") };
      }
      `,
      { params: { name: "Ada" } },
    );
    assert.equal(out.status, 0, out.stderr);
    assert.deepEqual(out.result, { greeting: "hi Ada", first: "Editor", flows: true });
    assert.equal(out.error, undefined);
    assert.equal(out.stdout, "saw 1 window\n");
    assert.equal(out.stderr, "");
    assert.deepEqual(out.files, ["params.json", "result.json"]);
    const request = fake.requests.find((r) => r.agent_id === "run-42" && r.tool === "desk_windows");
    assert.deepEqual(request, { agent_id: "run-42", tool: "desk_windows", args: {} });
  });

  test("a TypeScript script runs too", limit, async () => {
    const out = await runScript(
      `
      interface Params { n: number }
      export async function main(params: Params): Promise<number> { return params.n * 2; }
      `,
      { name: "script.mts", params: { n: 21 } },
    );
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.result, 42);
  });

  test("main returning nothing is a null result", limit, async () => {
    const out = await runScript("export function main() {}");
    assert.equal(out.status, 0);
    assert.equal(out.result, null);
    assert.deepEqual(out.files, ["params.json", "result.json"]);
  });

  test("a syntax error is an import error that says where", limit, async () => {
    const out = await runScript("export async function main() {\n  return 1 +* 2;\n}\n");
    assert.equal(out.status, 0);
    assert.equal(out.error?.kind, "import");
    assert.match(out.error!.message, /SyntaxError/);
    assert.ok(out.error!.message.includes(`${out.script}:2`), out.error!.message);
    assert.equal(out.result, undefined);
  });

  test("a syntax error in a module the script imports names that module", limit, async () => {
    const out = await runScript('import { helper } from "./helper.mjs";\nexport function main() { return helper(); }\n', {
      extra: { "helper.mjs": "export function helper() {\n  return;\n}\n}\n" },
    });
    assert.equal(out.error?.kind, "import");
    assert.match(out.error!.message, /helper\.mjs:4/);
    assert.match(out.error!.message, /SyntaxError: Unexpected token '}'/);
  });

  test("a TypeScript syntax error says where", limit, async () => {
    const out = await runScript("export function main(: number {\n}\n", { name: "script.mts" });
    assert.equal(out.error?.kind, "import");
    assert.match(out.error!.message, /script\.mts:1/);
  });

  test("a missing script is an import error", limit, async () => {
    const out = await runScript("", { missing: true });
    assert.equal(out.status, 0);
    assert.equal(out.error?.kind, "import");
    assert.ok(out.error!.message.includes(out.script), out.error!.message);
    assert.match(out.error!.message, /ENOENT|no such file/);
  });

  test("a script that throws while loading is an import error with its stack", limit, async () => {
    const out = await runScript('const config = null;\nconst port = config.port;\nexport function main() {}\n');
    assert.equal(out.error?.kind, "import");
    assert.match(out.error!.message, /TypeError: Cannot read properties of null/);
    assert.ok(out.error!.message.includes(`${out.script}:2`), out.error!.message);
  });

  test("a desk API that does not load is an import error", limit, async () => {
    // A runner with no desk.mts beside it.
    const out = await runScript("export function main() { return 1; }", { runnerAlone: true });
    assert.equal(out.status, 0);
    assert.equal(out.error?.kind, "import");
    assert.match(out.error!.message, /^the desk API failed to load: .*desk\.mts/);
  });

  test("no main is no_main", limit, async () => {
    const out = await runScript("export const name = 'not a function';\nexport const main = 3;\n");
    assert.equal(out.status, 0);
    assert.deepEqual(out.error, {
      kind: "no_main",
      message: `${out.script} exports no main function: export async function main(params) { ... }`,
    });
  });

  test("main throwing is an exception with the stack", limit, async () => {
    const out = await runScript(`
      function deepInside() { throw new Error("the button was gone"); }
      export async function main() { await desk.windows(); deepInside(); }
    `);
    assert.equal(out.status, 0);
    assert.equal(out.error?.kind, "exception");
    assert.match(out.error!.message, /^Error: the button was gone\n\s+at deepInside \(file:\/\//);
    assert.doesNotMatch(out.error!.message, /node:internal/);
    assert.deepEqual(out.files, ["error.json", "params.json"]);
  });

  test("a desk error main does not catch is an exception naming the reason", limit, async () => {
    const out = await runScript('export async function main() { await desk.focus({ window: "ghost" }); }');
    assert.equal(out.error?.kind, "exception");
    assert.match(out.error!.message, /^DeskError: desk_focus: no window matches "ghost"/);
  });

  test("a result JSON cannot hold is an exception that says why", limit, async () => {
    const circular = await runScript("export function main() { const a = {}; a.self = a; return a; }");
    assert.equal(circular.error?.kind, "exception");
    assert.match(circular.error!.message, /could not be serialized as JSON: .*circular/i);
    const big = await runScript("export function main() { return { n: 10n }; }");
    assert.equal(big.error?.kind, "exception");
    assert.match(big.error!.message, /could not be serialized as JSON: .*BigInt/);
    const fn = await runScript("export function main() { return () => 1; }");
    assert.equal(fn.error?.kind, "exception");
    assert.match(fn.error!.message, /could not be serialized as JSON: it is a function/);
  });

  test("the run ends when main does, whatever it left running", limit, async () => {
    const out = await runScript(`
      export async function main() {
        setInterval(() => {}, 1000);
        await desk.windows();
        return "done";
      }
    `);
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.result, "done");
  });

  test("output the daemon has not read yet is not lost at the end", limit, async () => {
    // More than a pipe holds, so some of it still waits to be written when main returns.
    const out = await runScript(
      `
      export async function main() {
        for (let i = 0; i < 500; i++) console.log(String(i).padEnd(999, "."));
        setInterval(() => {}, 1000);
        return "printed";
      }
      `,
      { holdStdout: true },
    );
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.result, "printed");
    assert.equal(out.stdout.length, 500 * 1000);
    assert.ok(out.stdout.endsWith(`499${".".repeat(996)}\n`));
  });

  test("an error thrown in a timer main did not await is an exception", limit, async () => {
    const out = await runScript(`
      export async function main() {
        setTimeout(() => { throw new Error("late failure"); }, 1);
        await new Promise((resolve) => setTimeout(resolve, 60_000));
      }
    `);
    assert.equal(out.error?.kind, "exception");
    assert.match(out.error!.message, /^Error: late failure/);
  });

  test("main awaiting what never settles is an exception, not a silent exit", limit, async () => {
    const out = await runScript("export async function main() { await new Promise(() => {}); }");
    assert.equal(out.status, 0);
    assert.equal(out.error?.kind, "exception");
    assert.match(out.error!.message, /main never finished/);
  });

  test("a run directory it cannot write to: exit 70 and the reason on stderr", limit, async () => {
    const out = await runScript("export function main() { return 1; }", {
      // A directory where the answer file goes makes the rename fail.
      prepare: (runDir) => fs.mkdirSync(path.join(runDir, "result.json")),
    });
    assert.equal(out.status, 70);
    assert.match(out.stderr, /cannot write .*result\.json/);
  });
});
