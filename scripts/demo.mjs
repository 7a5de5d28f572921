// The demo's agent: an MCP client, as Claude Code or Codex would be, talking to `shuttle mcp`
// over stdio. It launches an app on the agent's own virtual desktop, lists windows, finds
// controls by accessibility and saves a screenshot. Run by demo.sh with the Node shuttle ships:
//
//   node demo.mjs SHUTTLE SCREENSHOT.png
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [shuttle, shotPath] = process.argv.slice(2);
if (!shuttle || !shotPath) {
  console.error("usage: node demo.mjs SHUTTLE SCREENSHOT.png");
  process.exit(2);
}
const CALL_LIMIT_MS = 60_000;

const mcp = spawn(shuttle, ["mcp"], { stdio: ["pipe", "pipe", "inherit"] });
const waiting = new Map();
createInterface({ input: mcp.stdout }).on("line", (line) => {
  const message = JSON.parse(line);
  waiting.get(message.id)?.(message);
  waiting.delete(message.id);
});
mcp.on("exit", (code) => {
  if (waiting.size > 0) fail(`shuttle mcp exited (${code}) with calls unanswered`);
});

function fail(why) {
  console.error(`demo: ${why}`);
  mcp.kill();
  process.exit(1);
}

let nextId = 1;
function ask(method, params) {
  const id = nextId++;
  mcp.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  return new Promise((resolve) => {
    const timer = setTimeout(() => fail(`${method} had no answer within 60 s`), CALL_LIMIT_MS);
    waiting.set(id, (message) => {
      clearTimeout(timer);
      resolve(message);
    });
  });
}

async function call(name, args) {
  const { result, error } = await ask("tools/call", { name, arguments: args });
  if (error) fail(`${name} ${JSON.stringify(args)}: ${error.message}`);
  if (result.isError) fail(`${name} ${JSON.stringify(args)} failed: ${texts(result).join(" ")}`);
  return result;
}

const texts = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text);
// What apps show comes between ⟦data NONCE⟧ markers, apart from shuttle's own words.
const data = (block) => block.match(/\n⟦data (\w+)⟧\n([\s\S]*)\n⟦\/data \1⟧$/)?.[2] ?? block;
// A JSON object result is also structured content; a list is the fenced data.
const json = (result) => result.structuredContent ?? JSON.parse(data(texts(result).at(-1)));

const init = await ask("initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "demo", version: "1" },
});
const server = init.result.serverInfo;
console.log(`initialize -> ${server.name} ${server.version}, protocol ${init.result.protocolVersion}`);
mcp.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");

const tools = (await ask("tools/list", {})).result.tools;
console.log(`tools/list -> ${tools.map((t) => t.name).join(", ")}`);

const launched = json(await call("desk", { verb: "launch", app: "gtk3-widget-factory" }));
console.log(
  `desk launch gtk3-widget-factory -> ${launched.outcome}, pid ${launched.pid}, window "${launched.window?.title}"`,
);

const status = json(await call("status", {}));
const displays = status.agents.agents.map((a) => a.display);
console.log(`status -> displays ${status.display.mode}; this agent's own display: ${displays.join(", ")}`);

const windows = json(await call("desk", { verb: "windows" }));
console.log(`desk windows -> ${windows.map((w) => `"${w.title}"`).join(", ")}`);

const found = json(
  await call("desk", {
    verb: "find",
    window: "gtk3-widget-factory",
    name: "checkbutton",
    role: "check box",
  }),
);
const first = found.nodes[0];
console.log(
  `desk find checkbutton -> ${found.nodes.length} check boxes, the first "${first.name}" at ${JSON.stringify(first.bounds)}`,
);

const shot = await call("screenshot", { window: "gtk3-widget-factory" });
const image = shot.content.find((c) => c.type === "image");
const png = Buffer.from(image.data, "base64");
writeFileSync(shotPath, png);
console.log(`screenshot -> ${JSON.stringify(json(shot))} + a ${image.mimeType} of ${png.length} bytes`);

mcp.stdin.end();
await new Promise((resolve) => mcp.on("exit", resolve));
