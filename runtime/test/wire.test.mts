import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { after, before, test } from "node:test";

import { PacketDecoder, MAX_PACKET, WireClient, encodePacket } from "../lib/wire.mts";
import type { Reply } from "../lib/wire.mts";
import { FakeDesk, limit } from "./fake-desk.mts";

const ok = (text: string): Reply => ({ text, is_error: false, format: "json" });

let fake: FakeDesk;
before(async () => {
  fake = await FakeDesk.start();
});
after(async () => {
  await fake.stop();
});

test("a packet is a big-endian length and the JSON", limit, () => {
  const packet = encodePacket({ a: "é" });
  const body = Buffer.from('{"a":"é"}', "utf8");
  assert.equal(packet.readUInt32BE(0), body.length);
  assert.deepEqual(packet.subarray(4), body);
});

test("packets split across chunks come out whole", limit, () => {
  const packets = Buffer.concat([encodePacket({ n: 1 }), encodePacket({ n: 2, pad: "x".repeat(300) })]);
  const decoder = new PacketDecoder();
  const out: unknown[] = [];
  for (const byte of packets) {
    for (const payload of decoder.push(Buffer.from([byte]))) out.push(JSON.parse(payload.toString()));
  }
  assert.deepEqual(out, [{ n: 1 }, { n: 2, pad: "x".repeat(300) }]);
  assert.equal(decoder.pending, 0);
});

test("packets coalesced in one chunk come out one by one", limit, () => {
  const decoder = new PacketDecoder();
  const first = encodePacket({ n: 1 });
  const second = encodePacket({ n: 2 });
  const third = encodePacket({ n: 3 });
  // Two whole packets and the start of a third in one chunk, the rest of it in the next.
  const payloads = decoder.push(Buffer.concat([first, second, third.subarray(0, 6)]));
  assert.deepEqual(payloads.map((p) => JSON.parse(p.toString())), [{ n: 1 }, { n: 2 }]);
  assert.equal(decoder.pending, 6);
  assert.deepEqual(decoder.push(third.subarray(6)).map((p) => JSON.parse(p.toString())), [{ n: 3 }]);
});

test("a packet over the limit is refused", limit, () => {
  const decoder = new PacketDecoder();
  const header = Buffer.alloc(4);
  header.writeUInt32BE(MAX_PACKET + 1, 0);
  assert.throws(() => decoder.push(header), /over the .*-byte limit/);
});

test("a reply sent a byte at a time is read whole", limit, async () => {
  fake.handler = async (_request, conn) => {
    const packet = encodePacket(ok('{"bytewise":true}'));
    for (const byte of packet) await conn.write(Buffer.from([byte]));
  };
  const client = new WireClient(fake.socketPath);
  const reply = await client.call("desk_windows", {}, "a");
  assert.deepEqual(reply, ok('{"bytewise":true}'));
  await client.close();
});

test("calls go one at a time, in the order made", limit, async () => {
  const start = fake.requests.length;
  let outstanding = 0;
  let most = 0;
  fake.handler = (request, conn) => {
    outstanding += 1;
    most = Math.max(most, outstanding);
    // Answer on a later turn, so a client that did not wait would have sent the next already.
    setImmediate(() => {
      outstanding -= 1;
      conn.reply(ok(JSON.stringify({ echo: (request.args as { n: number }).n })));
    });
  };
  const client = new WireClient(fake.socketPath);
  const replies = await Promise.all([1, 2, 3].map((n) => client.call("desk_screen", { n }, "a")));
  assert.deepEqual(
    replies.map((r) => JSON.parse(r.text).echo),
    [1, 2, 3],
  );
  assert.deepEqual(
    fake.requests.slice(start).map((r) => (r.args as { n: number }).n),
    [1, 2, 3],
  );
  assert.equal(most, 1, "one call in flight at a time");
  await client.close();
});

test("a daemon that closes mid-call rejects the call, and the queued ones", limit, async () => {
  fake.handler = (_request, conn) => {
    conn.socket.destroy();
  };
  const client = new WireClient(fake.socketPath);
  const first = client.call("desk_click", { x: 1, y: 2 }, "a");
  const second = client.call("desk_key", { keys: "a" }, "a");
  await assert.rejects(first, /desk_click: the daemon connection broke.*may or may not have run/);
  await assert.rejects(second, /desk_key: .*it did not run/);
  // The next call opens a new connection.
  fake.handler = (_request, conn) => conn.reply(ok("again"));
  assert.equal((await client.call("desk_screen", {}, "a")).text, "again");
  await client.close();
});

test("arguments JSON cannot hold are refused before sending", limit, async () => {
  const start = fake.requests.length;
  fake.handler = (_request, conn) => conn.reply(ok("sent"));
  const client = new WireClient(fake.socketPath);
  await assert.rejects(client.call("desk_type", { text: 1n }, "a"), /desk_type: the call cannot be sent \(.*BigInt.*\); it did not run/);
  assert.equal((await client.call("desk_screen", {}, "a")).text, "sent");
  assert.deepEqual(fake.requests.slice(start).map((r) => r.tool), ["desk_screen"]);
  await client.close();
});

test("no daemon at the path: the call did not run", limit, async () => {
  const client = new WireClient(path.join(fake.dir, "nobody.sock"));
  await assert.rejects(client.call("desk_screen", {}, "a"), /cannot reach the shuttle daemon at .*nobody\.sock.*did not run/);
});

test("a reply that is not JSON fails that call only", limit, async () => {
  let first = true;
  fake.handler = async (_request, conn) => {
    if (first) {
      first = false;
      const body = Buffer.from("not json");
      const header = Buffer.alloc(4);
      header.writeUInt32BE(body.length, 0);
      await conn.write(Buffer.concat([header, body]));
    } else {
      conn.reply(ok("fine"));
    }
  };
  const client = new WireClient(fake.socketPath);
  await assert.rejects(client.call("desk_screen", {}, "a"), /not JSON/);
  assert.equal((await client.call("desk_screen", {}, "a")).text, "fine");
  await client.close();
});

test("an idle connection does not keep the process alive", limit, async () => {
  fake.handler = (_request, conn) => conn.reply(ok("{}"));
  const wire = new URL("../lib/wire.mts", import.meta.url).href;
  const code = `
    import { WireClient } from ${JSON.stringify(wire)};
    const client = new WireClient(${JSON.stringify(fake.socketPath)});
    const reply = await client.call("desk_screen", {}, "child");
    console.log(reply.text);
  `;
  // Killed if still there after 10 s: the exit status then fails the test.
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 10_000,
  });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  const [status] = await once(child, "exit");
  assert.equal(status, 0);
  assert.equal(out.trim(), "{}");
});
