import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { redisAnswers } from "../probe.ts";
import { BackendError } from "./errors.ts";

const HOST = "127.0.0.1";

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
    "  docker run -d -p 127.0.0.1:6379:6379 redis:7-alpine",
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
