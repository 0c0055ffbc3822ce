import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { TEST_CA_FILE } from "@gw/safe-fetch/testing";
import { createTestStore } from "@gw/store/testing";
import { keepTestOutput } from "./observe/test-log.ts";
import { startTestApi, type TestApi } from "./testing.ts";

const WORKER_MAIN = resolve(import.meta.dir, "..", "..", "worker", "src", "main.ts");
export const TEST_LINK_SECRET = "test-link-secret-0123456789abcdef-0123";

export interface TestWorker {
  proc: ReturnType<typeof Bun.spawn>;
  /** Everything the worker printed so far. */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface ImageStack {
  api: TestApi;
  filesDir: string;
  /** The environment api and workers share (storage, link secret, fetch allow-list). */
  env: Record<string, string>;
  spawnWorker(env?: Record<string, string>): Promise<TestWorker>;
  /** Stops every worker this stack started (SIGTERM: they finish what they run). */
  stopWorkers(): Promise<void>;
  /** Balance, holds, ledger entries and tasks of an account, Redis wallet included. */
  accountState(userId: string): Promise<AccountState>;
}

export interface AccountState {
  balance: bigint;
  pendingHolds: bigint;
  entries: bigint;
  tasks: bigint;
  held: string;
}

/**
 * The api in-process and real worker processes over one test schema, Redis prefix and
 * file folder, so a test drives the whole path: HTTP, Postgres, Redis streams, worker,
 * provider, storage and settlement. `env` reaches both, as an operator would set it.
 */
export async function startImageStack(
  options: { env?: Record<string, string>; apiEnv?: Record<string, string> } = {},
): Promise<ImageStack> {
  const store = await createTestStore({ poolMax: 20 });
  const filesDir = mkdtempSync(join(tmpdir(), "gw-files-"));
  const env: Record<string, string> = {
    STORAGE_DIR: filesDir,
    RESULT_LINK_SECRET: TEST_LINK_SECRET,
    FETCH_EXTRA_CA_FILE: TEST_CA_FILE,
    ...options.env,
  };
  const api = await startTestApi({ ...env, ...options.apiEnv }, store);
  const workers: TestWorker[] = [];

  const spawnWorker = async (extra: Record<string, string> = {}): Promise<TestWorker> => {
    const proc = Bun.spawn(["bun", "run", WORKER_MAIN], {
      env: {
        ...process.env,
        NODE_ENV: "test",
        DATABASE_URL: store.databaseUrl,
        DATABASE_SCHEMA: store.schema,
        REDIS_URL: store.redisUrl,
        REDIS_PREFIX: store.prefix,
        TASK_LEASE_MS: "3000",
        TASK_REQUEUE_AFTER_MS: "1500",
        RECONCILE_INTERVAL_MS: "500",
        WORKER_HTTP_PORT: "0",
        ...env,
        ...extra,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    let text = "";
    let ready: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const drain = async (stream: ReadableStream<Uint8Array>) => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) {
        text += decoder.decode(chunk, { stream: true });
        if (/\S+ started: \d+ tasks at once/.test(text)) ready();
      }
    };
    void drain(proc.stdout as ReadableStream<Uint8Array>);
    void drain(proc.stderr as ReadableStream<Uint8Array>);
    void proc.exited.then(() => keepTestOutput(`worker-${proc.pid}`, text));
    const exited = proc.exited.then(() => {
      throw new Error(`the worker exited before it started:\n${text}`);
    });
    await Promise.race([started, exited]);
    void exited.catch(() => {});
    const worker: TestWorker = {
      proc,
      output: () => text,
      async kill(signal = "SIGTERM") {
        proc.kill(signal);
        await proc.exited;
      },
    };
    workers.push(worker);
    return worker;
  };

  const accountState = async (userId: string): Promise<AccountState> => {
    const [row] = await store.sql<Omit<AccountState, "held">[]>`
      select u.balance_quota as balance,
             (select count(*) from holds where user_id = u.id and state = 'pending') as "pendingHolds",
             (select count(*) from ledger_entries where user_id = u.id) as entries,
             (select count(*) from tasks where user_id = u.id) as tasks
      from users u where u.id = ${BigInt(userId)}`;
    // A wallet not loaded into Redis yet holds nothing, like a loaded one at "0".
    const held = (await store.redis.hget(`${store.prefix}:{u:${userId}}:wallet`, "held")) ?? "0";
    return { ...row!, held };
  };

  const stopWorkers = async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.kill("SIGTERM")));
  };

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill("SIGKILL")));
    rmSync(filesDir, { recursive: true, force: true });
  });
  return { api, filesDir, env, spawnWorker, stopWorkers, accountState };
}

const API_MAIN = resolve(import.meta.dir, "main.ts");

export interface ApiProcess {
  proc: ReturnType<typeof Bun.spawn>;
  port: number;
  /** Everything it printed to standard output so far. */
  output(): string;
}

/** A real api process over the stack's schema, prefix and files; resolves once it listens. */
export async function spawnApiProcess(
  stack: ImageStack,
  env: Record<string, string> = {},
): Promise<ApiProcess> {
  const { store } = stack.api;
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const free = probe.port;
  probe.stop(true);
  const proc = Bun.spawn(["bun", "run", API_MAIN], {
    env: {
      ...process.env,
      ...stack.env,
      ...env,
      NODE_ENV: "test",
      DATABASE_URL: store.databaseUrl,
      DATABASE_SCHEMA: store.schema,
      REDIS_URL: store.redisUrl,
      REDIS_PREFIX: store.prefix,
      PORT: String(free),
      PUBLIC_HOSTS: "127.0.0.1",
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  let output = "";
  const decoder = new TextDecoder();
  let listening: (port: number) => void = () => {};
  const port = new Promise<number>((resolvePort, reject) => {
    listening = resolvePort;
    void proc.exited.then(() => reject(new Error(`the api exited before it listened:\n${output}`)));
  });
  void (async () => {
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
      output += decoder.decode(chunk, { stream: true });
      const match = /listening on http:\/\/localhost:(\d+)/.exec(output);
      if (match) listening(Number(match[1]));
    }
    keepTestOutput(`api-${proc.pid}`, output);
  })();
  return { proc, port: await port, output: () => output };
}
