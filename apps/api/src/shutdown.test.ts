// Proves SIGTERM to an api process under load loses no answer: it stops accepting new
// connections but keeps its completion listener, Postgres and Redis until every request
// in flight is answered (here: 40 image calls on a 1.5 s upstream), then exits cleanly.
import { afterAll, expect, test } from "bun:test";
import { startOpenAIImagesStub } from "@gw/providers/testing";
import { spawnApiProcess, startImageStack } from "./testing-images.ts";

const stub = await startOpenAIImagesStub({ fast: true, latencyMs: 1_500 });
const env = {
  PROVIDER_ROUTES: "gpt-image-1=openai",
  UPSTREAM_OPENAI_BASE_URL: stub.url,
  UPSTREAM_OPENAI_API_KEY: stub.apiKey,
};
const stack = await startImageStack({ env });
const { store } = stack.api;
await stack.spawnWorker({ WORKER_CONCURRENCY: "64" });
const { secret } = await stack.api.account({ balanceUsd: 5 });
const spawned: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => {
  for (const proc of spawned) proc.kill("SIGKILL");
  stub.stop();
});

/** A real api process over this test's schema and prefix; resolves once it listens. */
async function spawnApi() {
  const api = await spawnApiProcess(stack, env);
  spawned.push(api.proc);
  return api;
}

test("SIGTERM during a burst: every request in flight is answered, then the api exits", async () => {
  const api = await spawnApi();
  const calls = Array.from({ length: 40 }, () =>
    fetch(`http://127.0.0.1:${api.port}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-image-1", prompt: "a lamp", quality: "low" }),
    }).then(
      async (response) => ({
        status: response.status,
        id: ((await response.json()) as { id?: string }).id,
      }),
      (error: Error) => ({ status: 0, id: error.message }),
    ),
  );
  // Every request reached the api and is waiting on its task when the signal comes.
  const reached = Date.now() + 10_000;
  while (stub.requests.length < 40 && Date.now() < reached) await Bun.sleep(20);
  expect(stub.requests.length).toBe(40);
  api.proc.kill("SIGTERM");
  const answers = await Promise.all(calls);
  expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(200));
  expect(await api.proc.exited).toBe(0);
  expect(api.output()).toContain("answering");
  // Each answer is its own task, completed and charged once.
  const [row] = await store.sql<{ tasks: bigint; charges: bigint }[]>`
    select (select count(*) from tasks where status = 'completed') as tasks,
           (select count(*) from ledger_entries where kind = 'charge') as charges`;
  expect(new Set(answers.map((answer) => answer.id)).size).toBe(40);
  expect(row).toEqual({ tasks: 40n, charges: 40n });
}, 60_000);
