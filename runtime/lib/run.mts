// The runner: `shuttle serve` starts `node run.mts` for each script run.
//
// It gives the script the desk API as the global `desk`, imports the script, awaits its
// `main(params)` and leaves the outcome in the run's directory for the daemon to read:
// `result.json` (what main returned) or `error.json` ({kind, message}, kind one of import,
// no_main, exception). No file means the process ended some other way (killed, or the script
// called process.exit), which the daemon tells from the exit status. stdout and stderr are the
// script's own; the runner writes to stderr only when it cannot leave a file.
//
// The environment: SHUTTLE_SCRIPT (the module's absolute path), SHUTTLE_RUN (the run's private
// directory, holding params.json), SHUTTLE_SOCKET and SHUTTLE_AGENT (read by desk.mts),
// SHUTTLE_FLOWS (passed through untouched), SHUTTLE_PROGRESS (the FIFO desk.progress writes).

import fs from "node:fs";
import path from "node:path";
import util from "node:util";
import { spawnSync } from "node:child_process";
import { registerHooks, stripTypeScriptTypes } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Desk } from "./desk.mts";

/** The runner could not leave its answer: the daemon sees this status and stderr. */
const EXIT_CANNOT_REPORT = 70;

type Kind = "import" | "no_main" | "exception";

/** What the run leaves for the daemon: one file and its text. */
interface Answer {
  file: "result.json" | "error.json";
  text: string;
}

const runDir = process.env.SHUTTLE_RUN;
let desk: Desk | null = null;
/** Set once the answer is on disk, so a late failure cannot overwrite it. */
let answered = false;

function failure(kind: Kind, message: string): Answer {
  return { file: "error.json", text: JSON.stringify({ kind, message }) };
}

/**
 * Ends the process once stdout and stderr are flushed: a pipe the daemon has not read yet
 * holds back what did not fit, and process.exit would drop it.
 */
function exitFlushed(code: number): void {
  let open = 2;
  const done = () => {
    open -= 1;
    if (open === 0) process.exit(code);
  };
  process.stdout.write("", done);
  process.stderr.write("", done);
}

function cannotReport(why: string): void {
  answered = true;
  process.stderr.write(`shuttle runner: ${why}\n`);
  exitFlushed(EXIT_CANNOT_REPORT);
}

/**
 * Leaves the answer, written to a temporary name and renamed so the daemon never reads half
 * of it, then ends the process whatever the script left running (timers, sockets).
 */
function finish(answer: Answer): void {
  if (answered) return;
  answered = true;
  const file = path.join(runDir!, answer.file);
  const tmp = `${file}.tmp`;
  try {
    fs.writeFileSync(tmp, answer.text);
    fs.renameSync(tmp, file);
  } catch (error) {
    cannotReport(`cannot write ${file}: ${(error as Error).message}`);
    return;
  }
  // Not awaited: ending the process closes the socket in any case.
  void desk?.disconnect();
  exitFlushed(0);
}

/** A thrown value as the person reading the report needs it: the stack without Node's frames. */
function describe(thrown: unknown): string {
  if (thrown instanceof Error) return trimStack(thrown.stack ?? String(thrown));
  if (typeof thrown === "string") return thrown;
  return util.inspect(thrown, { depth: 4 });
}

const self = fileURLToPath(import.meta.url);

/** Drops stack frames inside Node or this runner; they say nothing about the script. */
function trimStack(stack: string): string {
  return stack
    .split("\n")
    .filter((line) => {
      const frame = line.trimStart();
      if (!frame.startsWith("at ")) return true;
      return !frame.includes("node:internal/") && !frame.includes(self);
    })
    .join("\n");
}

// ----- syntax errors -----

/** Modules the script's import loaded, newest last: where to look for a syntax error. */
const loaded: { url: string; format: string }[] = [];

/**
 * V8 reports a syntax error in an imported module with no file or line (Node only prints them
 * when the error kills the process), so the runner notes each module loaded and, when an
 * import fails that way, has `node --check` parse the likely ones to say where.
 */
function noteLoads(): void {
  if (typeof registerHooks !== "function") return;
  registerHooks({
    load(url, context, nextLoad) {
      const result = nextLoad(url, context);
      if (url.startsWith("file:")) {
        loaded.push({ url, format: String(result.format) });
        if (loaded.length > 50) loaded.shift();
      }
      return result;
    },
  });
}

/** `node --check`'s account of a module's syntax error, or null when it parses. */
function checkSyntax(url: string, format: string): string | null {
  const inputType: Record<string, string> = {
    module: "module",
    "module-typescript": "module",
    commonjs: "commonjs",
    "commonjs-typescript": "commonjs",
  };
  if (!(format in inputType)) return null;
  const file = fileURLToPath(url);
  let source: string;
  try {
    source = fs.readFileSync(file, "utf8");
    if (format.endsWith("-typescript")) source = stripQuietly(source);
  } catch {
    return null;
  }
  const check = spawnSync(process.execPath, [`--input-type=${inputType[format]}`, "--check"], {
    input: source,
    encoding: "utf8",
    timeout: 10_000,
  });
  if (check.status === 0 || typeof check.stderr !== "string" || !check.stderr.includes("SyntaxError")) {
    return null;
  }
  // Keep the location, the line with its caret and the error; drop Node's frames and version.
  const lines = check.stderr.split("\n");
  const end = lines.findIndex((line) => line.startsWith("SyntaxError"));
  return lines
    .slice(0, end + 1)
    .join("\n")
    .replace(/^\[stdin\]/, file)
    .trim();
}

/** Type stripping is still flagged experimental; its one-time warning would land in stderr. */
function stripQuietly(source: string): string {
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {};
  try {
    return stripTypeScriptTypes(source);
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** Why the script did not import, with where when it is a syntax error. */
function importFailure(script: string, error: unknown): string {
  if (!(error instanceof Error)) return describe(error);
  const code = (error as NodeJS.ErrnoException).code;
  if (error.name === "SyntaxError" || error instanceof SyntaxError) {
    // A stack naming a file already says where: a TypeScript syntax error, or a SyntaxError
    // thrown while the module ran (JSON.parse at top level).
    if (error.stack?.includes("file://")) return trimStack(error.stack);
    for (const module of loaded.slice(-10).reverse()) {
      const where = checkSyntax(module.url, module.format);
      if (where !== null) return where;
    }
    return `SyntaxError: ${error.message} (in ${script} or a module it imports)`;
  }
  if (typeof code === "string" && code.startsWith("ERR_")) {
    // Node's own refusals (a module not found, an unknown file type): the message is the news.
    return `${error.message} [${code}]`;
  }
  return describe(error);
}

// ----- the run -----

async function run(): Promise<Answer | null> {
  if (!runDir) {
    cannotReport("SHUTTLE_RUN is not set: the shuttle daemon runs this file, with a run directory");
    return null;
  }

  let params: unknown;
  const paramsFile = path.join(runDir, "params.json");
  try {
    params = JSON.parse(fs.readFileSync(paramsFile, "utf8"));
  } catch (error) {
    cannotReport(`cannot read the run's params from ${paramsFile}: ${(error as Error).message}`);
    return null;
  }

  try {
    const api = await import(new URL("./desk.mts", import.meta.url).href);
    desk = api.desk as Desk;
    (globalThis as { desk?: Desk }).desk = desk;
  } catch (error) {
    return failure("import", `the desk API failed to load: ${describe(error)}`);
  }

  const given = process.env.SHUTTLE_SCRIPT;
  if (!given) return failure("import", "SHUTTLE_SCRIPT is not set: the daemon names the script to run");
  const script = path.resolve(given);
  try {
    fs.accessSync(script, fs.constants.R_OK);
  } catch (error) {
    return failure("import", `cannot read the script ${script}: ${(error as Error).message}`);
  }

  let module: Record<string, unknown>;
  noteLoads();
  try {
    module = await import(pathToFileURL(script).href);
  } catch (error) {
    return failure("import", importFailure(script, error));
  }

  const main = module.main;
  if (typeof main !== "function") {
    return failure("no_main", `${script} exports no main function: export async function main(params) { ... }`);
  }

  let value: unknown;
  try {
    value = await main(params);
  } catch (error) {
    return failure("exception", describe(error));
  }

  let text: string | undefined;
  try {
    text = JSON.stringify(value ?? null);
  } catch (error) {
    return failure("exception", `main's result could not be serialized as JSON: ${(error as Error).message}`);
  }
  if (text === undefined) {
    return failure(
      "exception",
      `main's result could not be serialized as JSON: it is a ${typeof value}, which JSON has no form for`,
    );
  }
  return { file: "result.json", text };
}

// An error thrown where main cannot catch it (a timer callback, a promise nobody awaited) ends
// the run as main throwing would have. Once the answer is written, the process is on its way
// out and a late error changes nothing.
process.on("uncaughtException", (error) => {
  finish(failure("exception", describe(error)));
});

// Node is about to exit because nothing is left to run, yet main has not settled: it awaited
// a promise that nothing will ever resolve.
process.on("beforeExit", () => {
  finish(
    failure(
      "exception",
      "main never finished: it awaited a promise that nothing was left to settle (no timer, socket or call pending)",
    ),
  );
});

run().then(
  (answer) => {
    if (answer !== null) finish(answer);
  },
  (error) => finish(failure("exception", `the runner failed: ${describe(error)}`)),
);
