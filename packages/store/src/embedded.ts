import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { dirname, join, resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { postgresAnswers, redisAnswers } from "./probe.ts";

/**
 * Embedded stand-ins for the local quick start only: a PGlite database served over the
 * Postgres wire protocol, and a redis-server started for the session. Production never
 * reaches them; `resolveBackends` demands real URLs there.
 */

export const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

const HOST = "127.0.0.1";

export type BackendErrorCode =
  | "MISSING_ENV"
  | "REDIS_NOT_INSTALLED"
  | "REDIS_START_FAILED"
  | "POSTGRES_DATA_IN_USE";

/** A failure whose message says what to do; a CLI prints it and exits 1, no stack trace. */
export class BackendError extends Error {
  override readonly name = "BackendError";
  constructor(
    readonly code: BackendErrorCode,
    message: string,
  ) {
    super(message);
  }
}

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
class Backend {
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
async function serveWire(
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

// ---------------------------------------------------------------------------------------
// Embedded Postgres
// ---------------------------------------------------------------------------------------

export interface EmbeddedPostgresOptions {
  /** Where PGlite keeps its files; created if missing. */
  dataDir: string;
  /** 0 or absent picks a free port. */
  port?: number;
  /** At least the client pool's size: a connection over the limit is refused. */
  maxConnections: number;
}

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * PGlite runs in-process with no lock file of its own, and two instances writing one
 * data folder corrupt it. A pid file beside the folder keeps a second local start out;
 * one left by a dead process is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  const lockPath = `${resolve(dataDir)}.lock`;
  mkdirSync(dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(lockPath, "utf8").trim());
      // This process counts too: a second PGlite on the same folder corrupts it as well.
      if (processAlive(holder)) {
        throw new BackendError(
          "POSTGRES_DATA_IN_USE",
          `The embedded Postgres data in ${dataDir} is in use by process ${holder}. ` +
            "Stop that gateway first, or set DATABASE_URL to a Postgres of your own.",
        );
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`could not lock ${lockPath}`);
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Starts PGlite persisted at `dataDir` and serves it over the Postgres protocol on
 * 127.0.0.1, so the ordinary `postgres` client code runs against it unchanged. The first
 * start initialises the folder (a few seconds); later starts resume it.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgres> {
  mkdirSync(options.dataDir, { recursive: true });
  const unlock = lockDataDir(options.dataDir);
  let db: PGlite | undefined;
  try {
    db = await PGlite.create({ dataDir: options.dataDir });
    const wire = await serveWire(new Backend(db), options.port ?? 0, options.maxConnections);
    const opened = db;
    let stopped: Promise<void> | undefined;
    return {
      url: `postgres://postgres@${HOST}:${wire.port}/postgres`,
      stop() {
        stopped ??= (async () => {
          await wire.close();
          await opened.close();
          unlock();
        })();
        return stopped;
      },
    };
  } catch (error) {
    await db?.close().catch(() => {});
    unlock();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------
// Embedded Redis
// ---------------------------------------------------------------------------------------

export interface EmbeddedRedisOptions {
  /** Absent picks a free port, so a Redis someone else runs is never clobbered. */
  port?: number;
  /** redis-server's working folder; nothing is saved there (--save "" --appendonly no). */
  dataDir?: string;
}

export interface EmbeddedRedis {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const REDIS_START_TIMEOUT_MS = 5000;
const REDIS_STOP_TIMEOUT_MS = 3000;

export function redisHowTo(): string {
  return [
    "Get Redis, then start again:",
    "  docker compose up -d redis           (from the repository root)",
    "  sudo apt-get install redis-server    (Debian, Ubuntu)",
    "  brew install redis                   (macOS)",
    "or set REDIS_URL to a Redis you already run.",
  ].join("\n");
}

/** The redis-server on PATH, or a BackendError that says how to get Redis. */
export function findRedisServer(context = ""): string {
  // PATH read now, not at process start, so a test (or a late PATH change) is honoured.
  const binary = Bun.which("redis-server", { PATH: process.env.PATH ?? "" });
  if (binary) return binary;
  throw new BackendError(
    "REDIS_NOT_INSTALLED",
    `${context}redis-server is not installed (not found on PATH).\n${redisHowTo()}`,
  );
}

/** A port nothing listens on right now (the OS picks it; the race after is negligible). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      const port = address !== null && typeof address === "object" ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Keeps the last `limit` characters of a stream, and drains it so the child never blocks. */
function keepTail(stream: ReadableStream<Uint8Array>, limit = 4000): () => string {
  let tail = "";
  const decoder = new TextDecoder();
  (async () => {
    for await (const chunk of stream) {
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-limit);
    }
  })().catch(() => {});
  return () => tail.trim();
}

async function waitForRedis(url: string, exited: () => boolean): Promise<boolean> {
  const deadline = Date.now() + REDIS_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited()) return false;
    if (await redisAnswers(url, 500)) return true;
    await Bun.sleep(50);
  }
  return false;
}

/**
 * Starts a throwaway redis-server on 127.0.0.1 for this session, with persistence off,
 * and waits until it answers PING. It dies with stop(), on process exit, and with a
 * Ctrl-C in the terminal (it shares the foreground process group).
 */
export async function startEmbeddedRedis(
  options: EmbeddedRedisOptions = {},
): Promise<EmbeddedRedis> {
  const binary = findRedisServer();
  const port = options.port ?? (await freePort());
  const args = [binary, "--port", String(port), "--bind", HOST, "--save", "", "--appendonly", "no"];
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    args.push("--dir", options.dataDir);
  }
  args.push("--loglevel", "warning");
  const child = Bun.spawn(args, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const output = keepTail(child.stdout);
  const errors = keepTail(child.stderr);
  const url = `redis://${HOST}:${port}`;
  const kill = () => child.kill();
  process.on("exit", kill);

  const stop = async () => {
    process.off("exit", kill);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), REDIS_STOP_TIMEOUT_MS);
    await child.exited;
    clearTimeout(timer);
  };

  if (!(await waitForRedis(url, () => child.exitCode !== null || child.signalCode !== null))) {
    await stop();
    const said = [errors(), output()].filter(Boolean).join("\n");
    throw new BackendError(
      "REDIS_START_FAILED",
      `redis-server (${binary}) did not answer on ${url} within ${REDIS_START_TIMEOUT_MS} ms.` +
        (said ? `\nIt said:\n${said}` : ""),
    );
  }
  return { url, pid: child.pid, stop };
}

// ---------------------------------------------------------------------------------------
// Choosing backends
// ---------------------------------------------------------------------------------------

export interface ResolveOptions {
  /** Local state folder: PGlite keeps its data in `${dataDir}/pglite`. */
  dataDir: string;
  /** The app's Postgres pool size; the embedded server accepts more than that. */
  poolMax: number;
  log?: (line: string) => void;
  /** The local addresses probed when a URL is unset; tests point them at closed ports. */
  defaults?: { databaseUrl?: string; redisUrl?: string };
}

export interface Backends {
  databaseUrl: string;
  redisUrl: string;
  postgres: "external" | "embedded-pglite";
  redis: "external" | "embedded-redis-server";
  stop(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/** Room beyond the app's pool for a migration run, psql, or a probe. */
const SPARE_CONNECTIONS = 4;

/** An empty variable counts as unset, as `DATABASE_URL=` in a .env file means. */
function setting(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** Hides a password in a URL before it is printed. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, "$1***@");
}

/** Production uses what it is given and nothing else. */
function productionBackends(env: Env): Backends {
  const databaseUrl = setting(env, "DATABASE_URL");
  const redisUrl = setting(env, "REDIS_URL");
  const missing = [databaseUrl ? null : "DATABASE_URL", redisUrl ? null : "REDIS_URL"].filter(
    (name): name is string => name !== null,
  );
  if (!databaseUrl || !redisUrl) {
    throw new BackendError(
      "MISSING_ENV",
      `NODE_ENV=production needs ${missing.join(" and ")} to be set; embedded backends ` +
        "are for the local start only.",
    );
  }
  return {
    databaseUrl,
    redisUrl,
    postgres: "external",
    redis: "external",
    stop: async () => {},
  };
}

interface Choice {
  /** The URL to use, or undefined when an embedded backend must be started. */
  url: string | undefined;
  /** Why: printed in the banner. */
  source: string;
}

/** The variable's URL; else the default address if something answers there; else embed. */
async function choose(
  configured: string | undefined,
  variable: string,
  fallback: string,
  answers: (url: string) => Promise<boolean>,
): Promise<Choice> {
  if (configured) return { url: configured, source: variable };
  if (await answers(fallback)) return { url: fallback, source: "answered at the default address" };
  return {
    url: undefined,
    source: `${variable} unset, no usable server answered at ${redactUrl(fallback)}`,
  };
}

/** A framed block, so the backends in use cannot be missed in the startup output. */
export function banner(lines: string[]): string {
  const width = Math.max(...lines.map((line) => line.length));
  const rule = "=".repeat(width + 4);
  return [rule, ...lines.map((line) => `| ${line.padEnd(width)} |`), rule].join("\n");
}

/** Banner lines; `why` says how each backend was chosen. */
function describeBackends(
  backends: Backends,
  why: { postgres: string; redis: string },
  dataDir: string,
): string[] {
  const lines = ["BACKENDS IN USE", ""];
  if (backends.postgres === "embedded-pglite") {
    lines.push(`Postgres: EMBEDDED PGlite (${why.postgres})`);
    lines.push(`          data in ${join(dataDir, "pglite")}`);
  } else {
    lines.push(`Postgres: external (${why.postgres})`);
  }
  lines.push(`          ${redactUrl(backends.databaseUrl)}`);
  if (backends.redis === "embedded-redis-server") {
    lines.push(`Redis:    EMBEDDED redis-server for this session (${why.redis})`);
    lines.push("          nothing is persisted; it stops with the gateway");
  } else {
    lines.push(`Redis:    external (${why.redis})`);
  }
  lines.push(`          ${redactUrl(backends.redisUrl)}`);
  if (backends.postgres !== "external" || backends.redis !== "external") {
    lines.push("", "Embedded backends are for local development only.");
    lines.push("Set DATABASE_URL and REDIS_URL to use your own.");
  }
  return lines;
}

/** Stops every started backend, all of them even when one fails, then reports a failure. */
async function stopAll(stops: (() => Promise<void>)[]): Promise<void> {
  const results = await Promise.allSettled(stops.map((stop) => stop()));
  const failed = results.find((result) => result.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/**
 * Picks the Postgres and Redis for this process and says loudly which. Outside
 * production, a missing URL falls back to the default local address, then to an
 * embedded backend. Redis is settled before PGlite starts, so a missing redis-server
 * fails in a second rather than after initialising a database.
 */
export async function resolveBackends(env: Env, options: ResolveOptions): Promise<Backends> {
  const log = options.log ?? console.log;
  if (env.NODE_ENV === "production") {
    const backends = productionBackends(env);
    const why = { postgres: "DATABASE_URL", redis: "REDIS_URL" };
    log(banner(describeBackends(backends, why, options.dataDir)));
    return backends;
  }

  const defaultRedis = options.defaults?.redisUrl ?? DEFAULT_REDIS_URL;
  const [postgres, redis] = await Promise.all([
    choose(
      setting(env, "DATABASE_URL"),
      "DATABASE_URL",
      options.defaults?.databaseUrl ?? DEFAULT_DATABASE_URL,
      postgresAnswers,
    ),
    choose(setting(env, "REDIS_URL"), "REDIS_URL", defaultRedis, redisAnswers),
  ]);
  // Fails fast, before PGlite spends seconds initialising, when Redis cannot be had.
  if (!redis.url) {
    findRedisServer(`REDIS_URL is unset, no Redis answered at ${redactUrl(defaultRedis)}, and `);
  }

  const stops: (() => Promise<void>)[] = [];
  try {
    let redisUrl = redis.url;
    if (!redisUrl) {
      const started = await startEmbeddedRedis({ dataDir: join(options.dataDir, "redis") });
      stops.push(started.stop);
      redisUrl = started.url;
    }
    let databaseUrl = postgres.url;
    if (!databaseUrl) {
      const started = await startEmbeddedPostgres({
        dataDir: join(options.dataDir, "pglite"),
        maxConnections: options.poolMax + SPARE_CONNECTIONS,
      });
      stops.push(started.stop);
      databaseUrl = started.url;
    }
    let stopped: Promise<void> | undefined;
    const backends: Backends = {
      databaseUrl,
      redisUrl,
      postgres: postgres.url ? "external" : "embedded-pglite",
      redis: redis.url ? "external" : "embedded-redis-server",
      stop() {
        stopped ??= stopAll(stops);
        return stopped;
      },
    };
    const why = { postgres: postgres.source, redis: redis.source };
    log(banner(describeBackends(backends, why, options.dataDir)));
    return backends;
  } catch (error) {
    await stopAll(stops).catch(() => {});
    throw error;
  }
}
