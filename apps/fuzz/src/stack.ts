import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type IsolatedStore, openIsolatedStore } from "@gw/store";
import { type ChildProcess, spawnChild } from "./process.ts";

const APPS = resolve(import.meta.dir, "..", "..");
const API_MAIN = join(APPS, "api", "src", "main.ts");
const WORKER_MAIN = join(APPS, "worker", "src", "main.ts");

export const FUZZ_ADMIN_TOKEN = "fuzz-admin-token-0123456789abcdef";
const LINK_SECRET = "fuzz-link-secret-0123456789abcdef-0123456789";

export interface FuzzStack {
  store: IsolatedStore;
  /** Base URL of the current api process (it changes when the api is restarted). */
  url: string;
  api: ChildProcess;
  workers: ChildProcess[];
  /**
   * SIGKILLs the api and starts a new one over the same schema and prefix: after a hang
   * (an event loop blocked for minutes) later cases must not be blamed for it.
   */
  restartApi(): Promise<void>;
  stop(): Promise<void>;
}

export const DATABASE_URL =
  process.env.TEST_DATABASE_URL ??
  process.env.DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/postgres";
export const REDIS_URL =
  process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/**
 * A real deployment for the fuzzer: one api process and `workers` worker processes over
 * a fresh schema, Redis prefix and file folder, on the built-in offline providers, so
 * paid calls complete and settle as they would in production. The rate-limit windows
 * stay on, with limits the fuzzer does not reach, so their code runs without hiding
 * every later case behind a 429.
 */
export async function startFuzzStack(options: { workers?: number } = {}): Promise<FuzzStack> {
  const store = await openIsolatedStore({
    databaseUrl: DATABASE_URL,
    redisUrl: REDIS_URL,
    label: "fuzz",
    poolMax: 4,
  });
  const filesDir = mkdtempSync(join(tmpdir(), "gw-fuzz-files-"));
  const shared: Record<string, string> = {
    NODE_ENV: "test",
    LOG_LEVEL: "info",
    DATABASE_URL: store.databaseUrl,
    DATABASE_SCHEMA: store.schema,
    REDIS_URL: store.redisUrl,
    REDIS_PREFIX: store.prefix,
    STORAGE_DIR: filesDir,
    RESULT_LINK_SECRET: LINK_SECRET,
  };
  const started: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((child) => child.stop()));
    rmSync(filesDir, { recursive: true, force: true });
    await store.close();
  };
  const apiEnv = (port: number) => ({
    ...shared,
    PORT: String(port),
    ADMIN_TOKEN: FUZZ_ADMIN_TOKEN,
    PUBLIC_HOSTS: "127.0.0.1",
    IMAGE_WAIT_TIMEOUT_MS: "8000",
    RATE_LIMIT_MODELS: "1000000/60s",
    RATE_LIMIT_BALANCE: "1000000/60s",
    RATE_LIMIT_MODEL: "1000000/60s",
  });
  const spawnApi = () =>
    spawnChild(API_MAIN, apiEnv(freePort()), /listening on http:\/\/localhost:(\d+)/);
  try {
    const api = await spawnApi();
    started.push(api);
    const workers: ChildProcess[] = [];
    for (let i = 0; i < (options.workers ?? 1); i++) {
      const worker = await spawnChild(
        WORKER_MAIN,
        { ...shared, WORKER_HTTP_PORT: "0", TASK_LEASE_MS: "3000", RECONCILE_INTERVAL_MS: "500" },
        /\S+ started: \d+ tasks at once/,
      );
      started.push(worker);
      workers.push(worker);
    }
    const stack: FuzzStack = {
      store,
      url: `http://127.0.0.1:${api.match[1]}`,
      api,
      workers,
      async restartApi() {
        await stack.api.stop(0);
        const next = await spawnApi();
        started.push(next);
        stack.api = next;
        stack.url = `http://127.0.0.1:${next.match[1]}`;
      },
      stop,
    };
    return stack;
  } catch (error) {
    await stop();
    throw error;
  }
}
