// A stand-in for `shuttle serve`: a unix socket speaking the desk wire that records each
// request and answers what the test says, so the client side is tested without a daemon.

import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { EventEmitter, once } from "node:events";

import { PacketDecoder, encodePacket } from "../lib/wire.mts";
import type { Reply, Request } from "../lib/wire.mts";

/** One accepted connection, as a handler sees it. */
export interface Conn {
  socket: net.Socket;
  /** Sends a reply as one packet in one write. */
  reply(reply: Reply): void;
  /** Sends raw bytes. */
  write(bytes: Buffer): Promise<void>;
}

/** Answers a request; the default answers canned replies by tool. */
export type Handler = (request: Request, conn: Conn) => void | Promise<void>;

export class FakeDesk extends EventEmitter {
  readonly dir: string;
  readonly socketPath: string;
  readonly requests: Request[] = [];
  /** Replies by tool name for the default handler; `{}` as JSON otherwise. */
  readonly canned = new Map<string, Reply>();
  handler: Handler;
  #server: net.Server;
  #sockets = new Set<net.Socket>();

  constructor() {
    super();
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), "shuttle-fake-desk-"));
    this.socketPath = path.join(this.dir, "desk.sock");
    this.handler = (request, conn) => {
      conn.reply(this.canned.get(request.tool) ?? { text: "{}", is_error: false, format: "json" });
    };
    this.#server = net.createServer((socket) => this.#accept(socket));
  }

  static async start(): Promise<FakeDesk> {
    const desk = new FakeDesk();
    desk.#server.listen(desk.socketPath);
    await once(desk.#server, "listening");
    return desk;
  }

  /** Resolves once `count` requests have come in. */
  async requested(count: number): Promise<Request[]> {
    while (this.requests.length < count) await once(this, "request");
    return this.requests.slice(0, count);
  }

  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  #accept(socket: net.Socket): void {
    this.#sockets.add(socket);
    socket.on("close", () => this.#sockets.delete(socket));
    socket.on("error", () => {});
    const decoder = new PacketDecoder();
    const conn: Conn = {
      socket,
      reply: (reply) => {
        socket.write(encodePacket(reply));
      },
      write: (bytes) =>
        new Promise<void>((resolve, reject) => socket.write(bytes, (error) => (error ? reject(error) : resolve()))),
    };
    socket.on("data", (chunk: Buffer) => {
      for (const payload of decoder.push(chunk)) {
        const request = JSON.parse(payload.toString("utf8")) as Request;
        this.requests.push(request);
        this.emit("request", request);
        void this.handler(request, conn);
      }
    });
  }
}

/** A fresh temporary directory, removed by the caller. */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Every test's limit: a client that loses a reply fails its test instead of hanging the run. */
export const limit = { timeout: 20_000 };
