// Proves no paid task is lost or charged twice across crashes: a worker killed with
// SIGKILL mid-job (another worker takes the task over), Redis flushed while tasks are
// queued (tasks re-enqueued from Postgres, holds rebuilt), Postgres unreachable during
// settlement (it retries until it lands), and a client that disconnects while waiting.
import { describe, expect, test } from "bun:test";
import { startOpenAIImagesStub } from "@gw/providers/testing";
import { deleteKeys } from "@gw/store";
import { startTcpProxy } from "@gw/store/testing";
import { startImageStack } from "../../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const stub = await startOpenAIImagesStub({ fast: true });
const stack = await startImageStack({
  env: {
    PROVIDER_ROUTES: "gpt-image-1=openai",
    UPSTREAM_OPENAI_BASE_URL: stub.url,
    UPSTREAM_OPENAI_API_KEY: stub.apiKey,
  },
});
const { api } = stack;
const { store } = api;
const GPT = { model: "gpt-image-1", prompt: "a fox", quality: "low" } as const;
const GPT_QUOTA = 5_500n; // $0.011, low quality 1024x1024

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

const taskOf = async (userId: string) => {
  const [row] = await store.sql<{ id: string; status: string; attempts: number }[]>`
    select id, status, attempts from tasks where user_id = ${BigInt(userId)}
    order by created_at desc limit 1`;
  return row;
};

const charges = async (userId: string) => {
  const [row] = await store.sql<{ count: bigint; total: bigint | null }[]>`
    select count(*) as count, sum(-delta_quota)::bigint as total from ledger_entries
    where user_id = ${BigInt(userId)} and kind = 'charge'`;
  return row!;
};

describe("crashes", () => {
  test("a worker killed mid-job: another takes the task over and it is charged once", async () => {
    await stack.stopWorkers();
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    const first = await stack.spawnWorker();
    let release: () => void = () => {};
    stub.script({ gate: new Promise<void>((resolve) => (release = resolve)) });
    const seen = stub.requests.length;
    const pending = api.call("POST", "/v1/images/generations", { key: secret, body: GPT });
    await until("the upstream call", async () => stub.requests.length > seen);
    await first.kill("SIGKILL");
    release();
    await stack.spawnWorker();
    const response = await pending;
    expect(response.status).toBe(200);
    const body = (await response.json()) as Body;
    expect(body.data).toHaveLength(1);
    const task = await taskOf(userId);
    expect(task).toMatchObject({ id: body.id, status: "completed", attempts: 2 });
    expect(await charges(userId)).toEqual({ count: 1n, total: GPT_QUOTA });
    const state = await stack.accountState(userId);
    expect(state.balance).toBe(500_000n - GPT_QUOTA);
    expect(state.pendingHolds).toBe(0n);
    expect(state.held).toBe("0");
  }, 30_000);

  test("Redis flushed while a task is queued: it is re-enqueued and its hold rebuilt", async () => {
    // No worker runs while the task waits; the api keeps its own Redis connections.
    await stack.stopWorkers();
    const { secret, userId } = await api.account({ balanceUsd: 0.02 });
    const pending = api.call("POST", "/v1/images/generations", { key: secret, body: GPT });
    await until("the queued task", () => taskOf(userId));
    await deleteKeys(store.redis, `${store.prefix}:*`);
    expect((await taskOf(userId))!.status).toBe("queued");
    // The flushed wallet is rebuilt from Postgres with the open hold: $0.02 - $0.011
    // leaves too little for a second $0.011 task.
    const second = await api.call("POST", "/v1/images/generations", { key: secret, body: GPT });
    expect(second.status).toBe(402);
    await stack.spawnWorker();
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await charges(userId)).toEqual({ count: 1n, total: GPT_QUOTA });
    const state = await stack.accountState(userId);
    expect(state).toMatchObject({ balance: 10_000n - GPT_QUOTA, pendingHolds: 0n, tasks: 1n });
    expect(state.held).toBe("0");
  }, 30_000);

  test("Postgres unreachable during settlement: it retries until it lands, once", async () => {
    await stack.stopWorkers();
    const proxy = startTcpProxy(Number(new URL(store.databaseUrl).port || 5432));
    const databaseUrl = new URL(store.databaseUrl);
    databaseUrl.hostname = "127.0.0.1";
    databaseUrl.port = String(proxy.port);
    const worker = await stack.spawnWorker({ DATABASE_URL: databaseUrl.href });
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    let release: () => void = () => {};
    stub.script({ gate: new Promise<void>((resolve) => (release = resolve)) });
    const seen = stub.requests.length;
    const pending = api.call("POST", "/v1/images/generations", { key: secret, body: GPT });
    await until("the upstream call", async () => stub.requests.length > seen);
    proxy.cut();
    release();
    await until("a failed settlement", async () => worker.output().includes("settling"));
    proxy.restore();
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await charges(userId)).toEqual({ count: 1n, total: GPT_QUOTA });
    expect((await stack.accountState(userId)).pendingHolds).toBe(0n);
    await worker.kill();
    proxy.stop();
  }, 40_000);

  test("a client that disconnects does not cancel the task; it finishes and is charged once", async () => {
    await stack.stopWorkers();
    await stack.spawnWorker();
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    let release: () => void = () => {};
    stub.script({ gate: new Promise<void>((resolve) => (release = resolve)) });
    const seen = stub.requests.length;
    const controller = new AbortController();
    const pending = fetch(`${api.url}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify(GPT),
      signal: controller.signal,
    }).catch((error) => error);
    await until("the upstream call", async () => stub.requests.length > seen);
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    release();
    const task = await until("completion", async () => {
      const row = await taskOf(userId);
      return row?.status === "completed" ? row : null;
    });
    const lookup = await api.call("GET", `/v1/images/tasks/${task.id}`, { key: secret });
    expect(((await lookup.json()) as Body).status).toBe("completed");
    expect(await charges(userId)).toEqual({ count: 1n, total: GPT_QUOTA });
  }, 30_000);
});
