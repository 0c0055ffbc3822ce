// Proves a waiting image request never depends on one announcement: a task settled in
// Postgres whose worker died before publishing (nothing is ever announced) is still
// answered by the waiters' periodic re-check (every 2 s), not when the whole wait runs out.
import { expect, test } from "bun:test";
import { startImageStack } from "../../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const stack = await startImageStack({ apiEnv: { IMAGE_WAIT_TIMEOUT_MS: "15000" } });
const { api } = stack;
const { secret, userId } = await api.account({ balanceUsd: 1 });

test("a task finished without an announcement is answered within seconds", async () => {
  const answer = api.call("POST", "/v1/images/generations", {
    key: secret,
    body: { model: "lumina-image", prompt: "a silent lighthouse" },
  });
  // No worker runs: the test settles the task as a worker would, and dies before publishing.
  let taskId: string | undefined;
  while (!taskId) {
    const [row] = await api.store.sql<{ id: string }[]>`
      select id from tasks where user_id = ${BigInt(userId)}`;
    taskId = row?.id;
    if (!taskId) await Bun.sleep(20);
  }
  await api.store.sql.begin(async (tx) => {
    await api.app.ledger.voidWithin(tx as never, taskId!);
    await tx`update tasks set status = 'failed', fail_code = 'upstream_error',
               fail_reason = 'the provider failed', finished_at = now()
             where id = ${taskId!}`;
  });
  const response = await answer;
  // Answered with the task's failure, not 504 task_pending when the 15 s wait ran out.
  expect(response.status).toBe(502);
  expect(((await response.json()) as Body).error.message).toContain("the provider failed");
  expect(response.headers.get("x-task-id")).toBe(taskId!);
}, 20_000);
