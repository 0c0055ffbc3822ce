import { createServer, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";

const HOST = "127.0.0.1";

// ---------------------------------------------------------------------------------------
// Postgres wire protocol in front of PGlite
// ---------------------------------------------------------------------------------------

/*
 * Why not PGLiteSocketServer from @electric-sql/pglite-socket (0.2.17): it queues single
 * protocol messages from all connections and keeps a connection's turn only while
 * `isInTransaction()`. An extended-protocol batch (Parse/Bind/Execute/Sync) is not a
 * transaction between its messages, so a pool's connections interleave on PGlite's one
 * session and clobber each other's unnamed portal ("portal \"\" does not exist", or rows
 * meant for another query), and a thrown error leaves its queue stuck for good
 * (electric-sql/pglite#1046, fix in #977 unmerged). Here a connection owns the session
 * from its first message until a ReadyForQuery reports idle, which is what one backend
 * per connection gives real Postgres clients.
 */

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const PROTOCOL_3 = 196608;
const MAX_STARTUP_LENGTH = 10_000;
const MAX_MESSAGE_LENGTH = 1 << 30;
const TERMINATE = 0x58; // 'X'
const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I'
/** Messages whose reply can end with ReadyForQuery: Sync, Query, CopyDone, CopyFail. */
const BATCH_ENDS = new Set([0x53, 0x51, 0x63, 0x66]);
const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);

/** First come, first served: waiting connections get the session in arrival order. */
class SessionLock {
  private held = false;
  private readonly waiters: (() => void)[] = [];

  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.held = false;
  }
}

/** A simple-protocol Query message. */
function queryMessage(text: string): Buffer {
  const body = Buffer.from(`${text}\0`, "utf8");
  const header = Buffer.alloc(5);
  header[0] = 0x51;
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** A FATAL ErrorResponse, for refusing a connection the way Postgres does. */
function fatalMessage(sqlstate: string, text: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${sqlstate}\0M${text}\0\0`, "utf8");
  const header = Buffer.alloc(5);
  header[0] = 0x45;
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

/**
 * Length of the first whole message in `buffer`: undefined while incomplete, null when
 * the bytes cannot be Postgres. Startup-phase messages carry no type byte.
 */
function frameLength(buffer: Buffer, started: boolean): number | null | undefined {
  if (!started) {
    if (buffer.length < 4) return undefined;
    const length = buffer.readInt32BE(0);
    if (length < 8 || length > MAX_STARTUP_LENGTH) return null;
    return buffer.length >= length ? length : undefined;
  }
  if (buffer.length < 5) return undefined;
  const length = buffer.readInt32BE(1);
  if (length < 4 || length > MAX_MESSAGE_LENGTH) return null;
  return buffer.length >= length + 1 ? length + 1 : undefined;
}

/** Whether `reply` ends with ReadyForQuery reporting no open transaction. */
function endsIdle(reply: Uint8Array): boolean {
  const at = reply.length - 6;
  return (
    at >= 0 &&
    reply[at] === READY_FOR_QUERY &&
    reply[at + 1] === 0 &&
    reply[at + 2] === 0 &&
    reply[at + 3] === 0 &&
    reply[at + 4] === 5 &&
    reply[at + 5] === IDLE
  );
}

/** The one PGlite session and the lock that hands it to one connection at a time. */
export class Backend {
  readonly lock = new SessionLock();
  constructor(readonly db: PGlite) {}

  /** Runs raw protocol bytes; the copy matters, PGlite reuses its reply buffer. */
  async run(message: Uint8Array): Promise<Buffer> {
    const reply = await this.db.runExclusive(() => this.db.execProtocolRaw(message));
    return Buffer.from(reply);
  }

  /**
   * Leaves the session as a fresh connection expects it after its owner vanished:
   * Sync ends a half-sent batch, ROLLBACK an open transaction. Named prepared
   * statements and SET values stay, as the session is shared (postgres.js names its
   * statements randomly per connection, so they never collide).
   */
  async reset(): Promise<void> {
    if (this.db.closed) return;
    await this.run(SYNC);
    if (this.db.isInTransaction()) await this.run(queryMessage("ROLLBACK"));
  }
}

/** One client socket: frames its messages and runs them in order while owning the session. */
class WireConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;
  private owns = false;
  private closed = false;
  private work: Promise<void> = Promise.resolve();
  readonly finished: Promise<void>;

  constructor(
    readonly socket: Socket,
    private readonly backend: Backend,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    // A pool dropping idle connections resets them; that is not worth a log line.
    socket.on("error", () => {});
    this.finished = new Promise((resolve) => {
      socket.on("close", () => {
        this.closed = true;
        this.enqueue(() => this.releaseSession());
        this.work.then(() => resolve());
      });
    });
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const length = frameLength(this.buffer, this.started);
      if (length === undefined) return;
      if (length === null) {
        this.socket.destroy();
        return;
      }
      const message = this.buffer.subarray(0, length);
      this.buffer = this.buffer.subarray(length);
      if (this.started) this.enqueue(() => this.handle(message));
      else if (!this.beforeStartup(message)) return;
    }
  }

  /**
   * The untyped messages a connection opens with. False when the connection is done:
   * a CancelRequest has nothing to cancel in one shared session, so it is just closed.
   */
  private beforeStartup(message: Buffer): boolean {
    const code = message.readInt32BE(4);
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      this.socket.write("N"); // no TLS: the client carries on in plain text
      return true;
    }
    if (code === PROTOCOL_3) {
      this.started = true; // framing switches to typed messages right away
      this.enqueue(() => this.startup(message));
      return true;
    }
    this.socket.destroy();
    return false;
  }

  /** Chains work so a connection's messages run strictly in order; a failure ends it. */
  private enqueue(step: () => Promise<void>): void {
    this.work = this.work.then(step).catch(() => {
      this.socket.destroy();
    });
  }

  private async handle(message: Buffer): Promise<void> {
    if (this.closed) return;
    if (message[0] === TERMINATE) {
      this.socket.end(); // the close handler hands the session back
      return;
    }
    await this.query(message);
  }

  private async startup(message: Buffer): Promise<void> {
    await this.backend.lock.acquire();
    try {
      if (!this.closed) this.socket.write(await this.backend.run(message));
    } finally {
      this.backend.lock.release();
    }
  }

  private async query(message: Buffer): Promise<void> {
    if (!this.owns) {
      await this.backend.lock.acquire();
      this.owns = true; // from here on releaseSession() gives it back, whatever happens
    }
    if (this.closed) return;
    const reply = await this.backend.run(message);
    if (reply.length > 0) this.socket.write(reply);
    const type = message[0] ?? 0;
    if (BATCH_ENDS.has(type) && endsIdle(reply)) {
      this.owns = false;
      this.backend.lock.release();
    }
  }

  private async releaseSession(): Promise<void> {
    if (!this.owns) return;
    try {
      await this.backend.reset();
    } finally {
      this.owns = false;
      this.backend.lock.release();
    }
  }
}

interface WireServer {
  port: number;
  close(): Promise<void>;
}

/** Listens on HOST:port (0 picks a free one) and serves `backend` to at most `maxConnections`. */
export async function serveWire(
  backend: Backend,
  port: number,
  maxConnections: number,
): Promise<WireServer> {
  const connections = new Set<WireConnection>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    // Every socket is tracked: server.close() waits for all of them, refused ones too.
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    if (connections.size >= maxConnections) {
      socket.on("error", () => {});
      socket.end(fatalMessage("53300", "sorry, too many clients already"));
      socket.resume(); // read to the client's FIN, or the socket never closes
      return;
    }
    const connection = new WireConnection(socket, backend);
    connections.add(connection);
    connection.finished.then(() => connections.delete(connection));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, HOST, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address !== "object") throw new Error("no TCP address");
  return {
    port: address.port,
    async close() {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      const open = [...connections];
      for (const socket of sockets) socket.destroy();
      await Promise.all(open.map((connection) => connection.finished));
      await closing;
    },
  };
}
