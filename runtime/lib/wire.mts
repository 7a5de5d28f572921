// The desk wire, client side: how a script talks to `shuttle serve` over its unix socket.
//
// A packet is a u32 big-endian byte length followed by that many bytes of UTF-8 JSON. A call is
// one request packet and one reply packet; this client keeps one call in flight per connection
// and queues the rest, so a reply can never be matched to the wrong call.

import net from "node:net";

/** A request as the daemon reads it. */
export interface Request {
  agent_id: string;
  tool: string;
  args: unknown;
}

/** A reply as the daemon sends it. */
export interface Reply {
  /** The result, or why the call failed. */
  text: string;
  is_error: boolean;
  /** On success, what text holds: JSON to parse, or text to read (an outline, a vision verb's account). */
  format?: "json" | "text";
  /** An image in base64, when the call took one. */
  image_b64?: string;
  /** The image's media type; absent means image/png. */
  image_mime?: string;
}

/** The daemon closes a connection that sends a longer packet; refuse before sending one. */
export const MAX_PACKET = 64 * 1024 * 1024;

const HEADER = 4;

/** A JSON value as one packet. */
export function encodePacket(value: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(value), "utf8");
  if (body.length > MAX_PACKET) {
    throw new Error(
      `the request is ${body.length} bytes, over the desk wire's ${MAX_PACKET}-byte packet limit`,
    );
  }
  const packet = Buffer.allocUnsafe(HEADER + body.length);
  packet.writeUInt32BE(body.length, 0);
  body.copy(packet, HEADER);
  return packet;
}

/**
 * Splits a byte stream into packet payloads, however the stream was chunked. Chunks are kept as
 * they come and joined only once a whole packet is there, so a large image arriving in many
 * small reads is copied once rather than once per read.
 */
export class PacketDecoder {
  #chunks: Buffer[] = [];
  #buffered = 0;

  /** Adds bytes; answers the payloads of the packets they complete, in order. */
  push(chunk: Buffer): Buffer[] {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    const packets: Buffer[] = [];
    while (this.#buffered >= HEADER) {
      const length = this.#header();
      if (length > MAX_PACKET) {
        throw new Error(`the daemon sent a packet of ${length} bytes, over the ${MAX_PACKET}-byte limit`);
      }
      if (this.#buffered < HEADER + length) break;
      const all = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks);
      packets.push(all.subarray(HEADER, HEADER + length));
      const rest = all.subarray(HEADER + length);
      this.#chunks = rest.length > 0 ? [rest] : [];
      this.#buffered = rest.length;
    }
    return packets;
  }

  /** Bytes held that do not yet make a whole packet. */
  get pending(): number {
    return this.#buffered;
  }

  #header(): number {
    const first = this.#chunks[0];
    if (first.length >= HEADER) return first.readUInt32BE(0);
    return Buffer.concat(this.#chunks).readUInt32BE(0);
  }
}

interface Pending {
  request: Request;
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
  /** Where the call was made: a failure found later in a socket event carries it. */
  origin: Error;
}

/** An error for a call, with the stack of the code that made it rather than of a socket event. */
function failure(call: Pending, message: string, cause: Error | null): Error {
  const error = new Error(message, cause ? { cause } : undefined);
  const frames = call.origin.stack?.split("\n").slice(1) ?? [];
  error.stack = [`Error: ${message}`, ...frames].join("\n");
  return error;
}

/** How a connection ended, which decides what a caller is told about its call. */
type Ending = "broke" | "unreachable" | "closed";

/** A connection to the daemon, opened on the first call. */
export class WireClient {
  readonly path: string;
  #socket: net.Socket | null = null;
  #connected = false;
  #decoder = new PacketDecoder();
  #queue: Pending[] = [];
  #inFlight: Pending | null = null;
  #failure: Error | null = null;

  constructor(path: string) {
    this.path = path;
  }

  /** Runs one tool; a call made before the previous one answered waits its turn. */
  call(tool: string, args: unknown, agentId: string): Promise<Reply> {
    const origin = new Error();
    Error.captureStackTrace(origin, this.call);
    return new Promise<Reply>((resolve, reject) => {
      this.#queue.push({ request: { agent_id: agentId, tool, args }, resolve, reject, origin });
      this.#pump();
    });
  }

  /**
   * Drops the connection. Calls not yet answered are rejected (the one in flight may have
   * run); a later call connects again.
   */
  close(): Promise<void> {
    const socket = this.#socket;
    this.#fail(null, "closed");
    if (socket === null || socket.destroyed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      socket.once("close", () => resolve());
      socket.destroy();
    });
  }

  #pump(): void {
    if (this.#inFlight !== null || this.#queue.length === 0) return;
    const next = this.#queue.shift()!;
    let packet: Buffer;
    try {
      packet = encodePacket(next.request);
    } catch (error) {
      // Arguments JSON cannot hold (a BigInt, a cycle), or too many of them.
      const why = (error as Error).message;
      next.reject(failure(next, `${next.request.tool}: the call cannot be sent (${why}); it did not run`, error as Error));
      this.#pump();
      return;
    }
    const socket = this.#socket ?? this.#connect();
    this.#inFlight = next;
    // A pending call keeps the process alive; an idle connection does not (see #settle).
    socket.ref();
    socket.write(packet);
  }

  #connect(): net.Socket {
    const socket = net.createConnection(this.path);
    this.#socket = socket;
    this.#connected = false;
    this.#decoder = new PacketDecoder();
    this.#failure = null;
    socket.on("connect", () => {
      this.#connected = true;
    });
    socket.on("data", (chunk: Buffer) => this.#onData(socket, chunk));
    socket.on("error", (error: Error) => {
      this.#failure ??= error;
    });
    socket.on("close", () => {
      if (this.#socket !== socket) return;
      this.#fail(this.#failure, this.#connected ? "broke" : "unreachable");
    });
    return socket;
  }

  #onData(socket: net.Socket, chunk: Buffer): void {
    if (this.#socket !== socket) return;
    let packets: Buffer[];
    try {
      packets = this.#decoder.push(chunk);
    } catch (error) {
      this.#breach(socket, (error as Error).message);
      return;
    }
    for (const payload of packets) {
      const call = this.#inFlight;
      if (call === null) {
        this.#breach(socket, "the daemon sent a reply to no call");
        return;
      }
      this.#inFlight = null;
      const tool = call.request.tool;
      let reply: Reply;
      try {
        reply = JSON.parse(payload.toString("utf8")) as Reply;
      } catch (error) {
        // The packets still split, so only this call is lost; the connection goes on.
        call.reject(failure(call, `${tool}: the daemon's reply is not JSON (${(error as Error).message})`, null));
        continue;
      }
      if (typeof reply !== "object" || reply === null || typeof reply.text !== "string") {
        call.reject(failure(call, `${tool}: the daemon's reply has no text: ${payload.toString("utf8").slice(0, 200)}`, null));
        continue;
      }
      call.resolve(reply);
    }
    this.#settle();
  }

  /** After a reply: send the next call, or let the process exit if none is waiting. */
  #settle(): void {
    this.#pump();
    if (this.#inFlight === null && this.#socket !== null) this.#socket.unref();
  }

  /** The stream can no longer be trusted to split into replies: drop it. */
  #breach(socket: net.Socket, why: string): void {
    this.#failure = new Error(why);
    socket.destroy();
  }

  /** Rejects every call not yet answered and forgets the connection. */
  #fail(cause: Error | null, how: Ending): void {
    const inFlight = this.#inFlight;
    const queued = this.#queue;
    this.#inFlight = null;
    this.#queue = [];
    this.#socket?.unref();
    this.#socket = null;
    this.#connected = false;
    if (inFlight !== null) inFlight.reject(failure(inFlight, this.#lost(inFlight.request.tool, cause, how, true), cause));
    for (const call of queued) call.reject(failure(call, this.#lost(call.request.tool, cause, how, false), cause));
  }

  /** What a caller is told about a call the connection ended under. */
  #lost(tool: string, cause: Error | null, how: Ending, sent: boolean): string {
    const reason = cause ? `: ${cause.message}` : "";
    if (how === "unreachable") {
      return `${tool}: cannot reach the shuttle daemon at ${this.path}${reason}; the call did not run`;
    }
    if (how === "closed") {
      return sent
        ? `${tool}: the script closed the desk connection while the call was running; it may or may not have run`
        : `${tool}: the script closed the desk connection before the call was sent; it did not run`;
    }
    return sent
      ? `${tool}: the daemon connection broke${reason || " (the daemon closed it)"}; the call may or may not have run`
      : `${tool}: the daemon connection broke before the call was sent; it did not run`;
  }
}
