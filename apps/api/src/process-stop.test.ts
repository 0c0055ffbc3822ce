// Clean stops (issue 14). An idle api and an idle worker exit within 1 s of SIGTERM (no
// sleep or blocking read holds them). A busy worker stops taking jobs at once: what it
// runs either finishes within its grace period, or is handed back when the period is over
// and run by another worker; no task is lost, none is charged twice, nothing is left held.
import { afterAll, expect, test } from "bun:test";
import { startOpenAIImagesStub } from "@gw/providers/testing";
import { spawnApiProcess, startImageStack } from "./testing-images.ts";

const stub = await startOpenAIImagesStub({ fast: true, latencyMs: 1_500 });
const stack = await startImageStack({
  env: {
    PROVIDER_ROUTES: "gpt-image-1=openai",
    UPSTREAM_OPENAI_BASE_URL: stub.url,
    UPSTREAM_OPENAI_API_KEY: stub.apiKey,
  },
  apiEnv: { IMAGE_WAIT_TIMEOUT_MS: "60000" },
});
const { api } = stack;
afterAll(() => stub.stop());

async function stopTime(proc: ReturnType<typeof Bun.spawn>): Promise<{ ms: number; code: number }> {
  const began = performance.now();
  proc.kill("SIGTERM");
  const code = await proc.exited;
  return { ms: performance.now() - began, code };
}

const calls = (secret: string, count: number, tag: string) =>
  Array.from({ length: count }, (_, index) =>
    api
      .call("POST", "/v1/images/generations", {
        key: secret,
        body: { model: "gpt-image-1", prompt: `${tag} ${index}`, quality: "low" },
      })
      .then((response) => ({ status: response.status, id: response.headers.get("x-task-id") })),
  );

async function ledgerOf(userId: string) {
  const [row] = await api.store.sql<
    { completed: bigint; charges: bigint; doubled: bigint; pending: bigint; drift: bigint }[]
  >`
    select (select count(*) from tasks where user_id = u.id and status = 'completed') as completed,
           (select count(*) from ledger_entries where user_id = u.id and kind = 'charge') as charges,
           (select count(*) from (select hold_id from ledger_entries where user_id = u.id and kind = 'charge'
              group by hold_id having count(*) > 1) d) as doubled,
           (select count(*) from holds where user_id = u.id and state = 'pending') as pending,
           (u.balance_quota - (select coalesce(sum(delta_quota), 0) from ledger_entries where user_id = u.id))::bigint as drift
    from users u where u.id = ${BigInt(userId)}`;
  return row!;
}

test("an idle api exits within 1 s of SIGTERM", async () => {
  const proc = await spawnApiProcess(stack);
  await Bun.sleep(1_200);
  const stopped = await stopTime(proc.proc);
  expect(stopped.code).toBe(0);
  expect(stopped.ms).toBeLessThan(1_000);
});

test("an idle worker exits within 1 s of SIGTERM, even while blocked reading jobs", async () => {
  const worker = await stack.spawnWorker({ TASK_LEASE_MS: "60000" });
  await Bun.sleep(1_500);
  const stopped = await stopTime(worker.proc);
  expect(stopped.code).toBe(0);
  expect(stopped.ms).toBeLessThan(1_000);
});

test("a busy worker finishes what it runs within its grace period, then exits", async () => {
  const { secret, userId } = await api.account({ balanceUsd: 5 });
  const worker = await stack.spawnWorker({ WORKER_SHUTDOWN_GRACE_MS: "10000" });
  const seen = stub.requests.length;
  const answers = calls(secret, 6, "finish");
  while (stub.requests.length < seen + 6) await Bun.sleep(20);
  const stopped = await stopTime(worker.proc);
  expect(stopped.code).toBe(0);
  expect(stopped.ms).toBeLessThan(5_000);
  expect((await Promise.all(answers)).map((answer) => answer.status)).toEqual(Array(6).fill(200));
  expect(worker.output()).not.toContain("task.handed_back");
  expect(await ledgerOf(userId)).toEqual({
    completed: 6n,
    charges: 6n,
    doubled: 0n,
    pending: 0n,
    drift: 0n,
  });
}, 30_000);

test("past the grace period running tasks are handed back and another worker runs them, each charged once", async () => {
  const { secret, userId } = await api.account({ balanceUsd: 5 });
  const first = await stack.spawnWorker({ WORKER_SHUTDOWN_GRACE_MS: "200" });
  const seen = stub.requests.length;
  const answers = calls(secret, 6, "handback");
  while (stub.requests.length < seen + 6) await Bun.sleep(20);
  const stopped = await stopTime(first.proc);
  expect(stopped.code).toBe(0);
  expect(stopped.ms).toBeLessThan(1_500);
  expect(first.output().match(/"event":"task\.handed_back"/g)?.length).toBe(6);
  // Nothing of the first runs was settled; the tasks wait, queued, for the next worker.
  expect((await ledgerOf(userId)).charges).toBe(0n);
  const second = await stack.spawnWorker();
  const settled = await Promise.all(answers);
  expect(settled.map((answer) => answer.status)).toEqual(Array(6).fill(200));
  expect(await ledgerOf(userId)).toEqual({
    completed: 6n,
    charges: 6n,
    doubled: 0n,
    pending: 0n,
    drift: 0n,
  });
  // The hand-back did not count as an attempt: each task ran again as its first retry.
  const attempts = await api.store.sql<{ attempts: number }[]>`
    select attempts from tasks where id in ${api.store.sql(settled.map((answer) => answer.id!))}`;
  for (const row of attempts) expect(row.attempts).toBeLessThanOrEqual(2);
  await second.kill();
}, 30_000);
