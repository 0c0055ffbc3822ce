// Proves a Postgres outage during a burst kills no process and loses no answer: two real
// worker processes reach Postgres through a relay that the test cuts for 5 s while 60
// image calls run. Both workers live on, every task settles once, every client is answered.
import { afterAll, expect, test } from "bun:test";
import { startOpenAIImagesStub } from "@gw/providers/testing";
import { startTcpProxy } from "@gw/store/testing";
import { startImageStack } from "../../testing-images.ts";

const stub = await startOpenAIImagesStub({ fast: true, latencyMs: 300 });
const stack = await startImageStack({
  env: {
    PROVIDER_ROUTES: "gpt-image-1=openai",
    UPSTREAM_OPENAI_BASE_URL: stub.url,
    UPSTREAM_OPENAI_API_KEY: stub.apiKey,
  },
  apiEnv: { IMAGE_WAIT_TIMEOUT_MS: "60000" },
});
const { api } = stack;
const relay = startTcpProxy(Number(new URL(api.store.databaseUrl).port || 5432));
const viaRelay = new URL(api.store.databaseUrl);
viaRelay.hostname = "127.0.0.1";
viaRelay.port = String(relay.port);
const workers = await Promise.all(
  [1, 2].map(() =>
    stack.spawnWorker({ DATABASE_URL: viaRelay.toString(), WORKER_CONCURRENCY: "32" }),
  ),
);
const { secret, userId } = await api.account({ balanceUsd: 5 });
afterAll(() => {
  relay.stop();
  stub.stop();
});

test("a 5 s Postgres cut during a burst: no worker dies, each task settles once, every client is answered", async () => {
  const calls: Promise<{ status: number; id: string | null }>[] = [];
  for (let index = 0; index < 60; index++) {
    calls.push(
      api
        .call("POST", "/v1/images/generations", {
          key: secret,
          body: { model: "gpt-image-1", prompt: `lamp ${index}`, quality: "low" },
        })
        .then((response) => ({ status: response.status, id: response.headers.get("x-task-id") })),
    );
    await Bun.sleep(15);
    if (index === 20) relay.cut();
  }
  await Bun.sleep(5_000);
  relay.restore();
  const answers = await Promise.all(calls);

  for (const worker of workers) expect(worker.proc.exitCode).toBeNull();
  expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
  const ids = answers.map((answer) => answer.id);
  expect(new Set(ids).size).toBe(60);
  const rows = await api.store.sql<{ id: string; status: string; charges: bigint }[]>`
    select t.id, t.status,
           (select count(*) from ledger_entries e where e.hold_id = t.id and e.kind = 'charge') as charges
    from tasks t where t.user_id = ${BigInt(userId)}`;
  expect(rows.length).toBe(60);
  expect(rows.filter((row) => row.status !== "completed" || row.charges !== 1n)).toEqual([]);
  // The wallet equals its ledger, and no hold is left behind.
  const state = await stack.accountState(userId);
  expect(state.pendingHolds).toBe(0n);
  expect(state.held).toBe("0");
  const [ledger] = await api.store.sql<{ sum: bigint }[]>`
    select coalesce(sum(delta_quota), 0)::bigint as sum from ledger_entries where user_id = ${BigInt(userId)}`;
  expect(state.balance).toBe(ledger!.sum);
}, 90_000);
