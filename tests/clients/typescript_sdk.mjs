// shuttle mcp through the MCP TypeScript SDK, as a client program would use it: the tools and
// their annotations, progress from a launch, a cut reply's whole read as a resource, a long
// call cancelled, and results the SDK checks against their tools' output schemas. Prints one
// JSON object of what it saw; the Rust e2e test judges it.
//
// Usage: node typescript_sdk.mjs SHUTTLE WINDOW LAUNCH (a window with a tree over 8 KB, already
// on the display; a shell command that starts an app slowly, launched through /bin/sh -c), with
// NODE_PATH at the SDK's node_modules; SHUTTLE_SOCKET names the daemon.
import { createRequire } from "node:module";

const require = createRequire(process.env.NODE_PATH + "/");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const [shuttle, window, launch] = process.argv.slice(2);

/** The JSON between a reply's data fence. */
function data(content) {
  const text = content.find((c) => c.type === "text" && c.text.includes("\u27e6data ")).text;
  const body = text.split("\u27e6data ")[1];
  return body.slice(body.indexOf("\n") + 1, body.lastIndexOf("\n\u27e6/data "));
}

const seen = {};
const client = new Client({ name: "shuttle-e2e", version: "1" });
await client.connect(new StdioClientTransport({ command: shuttle, args: ["mcp"], env: process.env }));
const { tools } = await client.listTools();
seen.tools = Object.fromEntries(tools.map((t) => [t.name, t.annotations ?? null]));
seen.output_schemas = tools.filter((t) => t.outputSchema).map((t) => t.name);

const listed = await client.callTool({ name: "look", arguments: { verb: "windows" } });
const since = JSON.parse(data(listed.content));
const progress = [];
const launched = await client.callTool(
  { name: "desk", arguments: { verb: "launch", app: "/bin/sh", args: ["-c", launch] } },
  undefined,
  { onprogress: (p) => progress.push([p.progress, p.message]) },
);
seen.progress = progress;
seen.launched_pid = launched.structuredContent.pid;

const tree = await client.callTool({
  name: "look",
  arguments: { verb: "snapshot", window, view: "all" },
});
const cut = tree.structuredContent.cut;
const link = tree.content.find((c) => c.type === "resource_link").uri;
const whole = await client.readResource({ uri: link });
seen.cut = {
  shown: cut.shown,
  of: cut.of,
  link,
  whole_nodes: JSON.parse(whole.contents[0].text).nodes.length,
};

// A long wait cancelled by the client: the next call is answered at once.
const started = performance.now();
const abort = new AbortController();
setTimeout(() => abort.abort(), 500);
try {
  await client.callTool(
    { name: "look", arguments: { verb: "wait", since, timeout_ms: 5000 } },
    undefined,
    { signal: abort.signal },
  );
} catch {
  // Cancelled, as asked.
}
const status = await client.callTool({ name: "status", arguments: {} });
seen.after_cancel_s = Math.round((performance.now() - started) / 10) / 100;
seen.status_ok = !status.isError;
// Tools with an output schema: the SDK checks each result against it, and throws if it fails.
const shot = await client.callTool({ name: "screenshot", arguments: {} });
const run = await client.callTool({
  name: "script_run",
  arguments: { code: "export async function main() { return { ok: 1 }; }" },
});
// A report over the budget, cut: still what its schema says.
const long = await client.callTool({
  name: "script_run",
  arguments: { code: "export async function main() { console.log('x'.repeat(30000)); return 2; }" },
});
seen.checked = {
  screenshot_width: shot.structuredContent.width,
  script_result: run.structuredContent.result,
  cut_result: long.structuredContent.result,
  cut: "cut" in long.structuredContent,
};
await client.close();
console.log(JSON.stringify(seen));
