// The whole path observed (issue 14): a paid image call through the api and a real worker
// process. The x-request-id the client sent reaches the worker's task lines; the api's and
// the worker's /metrics (Prometheus text) count the call, its task, its charge in USD and
// the settlement batch; a failed task is counted by its reason; the worker's own
// /healthz and /readyz answer.
import { expect, test } from "bun:test";
import parsePrometheus from "parse-prometheus-text-format";
import { ADMIN_TOKEN } from "../testing.ts";
import { startImageStack } from "../testing-images.ts";

type Families = ReturnType<typeof parsePrometheus> & { text?: string };

const stack = await startImageStack();
const { api } = stack;
const worker = await stack.spawnWorker();
const { secret, userId, keyId } = await api.account({ balanceUsd: 5 });

const probeUrl = () => {
  const match = /"probes":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(worker.output());
  if (!match) throw new Error(`the worker did not say where its probes are:\n${worker.output()}`);
  return match[1]!;
};

/**
 * A counter's or gauge's value from the parsed families; a histogram's observation count
 * from its `_count` sample (the parser folds a histogram's labelled series into one).
 */
function value(families: Families, name: string, labels: Record<string, string>): number {
  const family = families.find((entry) => entry.name === name);
  if (family?.type === "HISTOGRAM") {
    const wanted = Object.entries(labels).map(([label, text]) => `${label}="${text}"`);
    const line = (families.text ?? "")
      .split("\n")
      .find(
        (entry) =>
          entry.startsWith(`${name}_count{`) && wanted.every((pair) => entry.includes(pair)),
      );
    return line ? Number(line.split(" ").at(-1)) : 0;
  }
  const metric = family?.metrics.find((entry) =>
    Object.entries(labels).every(([label, wanted]) => entry.labels?.[label] === wanted),
  );
  if (!metric) return 0;
  return Number(metric.value ?? metric.count ?? 0);
}

async function apiMetrics(): Promise<Families> {
  const response = await api.call("GET", "/metrics", { key: ADMIN_TOKEN });
  expect(response.status).toBe(200);
  const text = await response.text();
  return Object.assign(parsePrometheus(text), { text });
}

async function workerMetrics(): Promise<Families> {
  const response = await fetch(`${probeUrl()}/metrics`);
  expect(response.status).toBe(200);
  const text = await response.text();
  return Object.assign(parsePrometheus(text), { text });
}

interface TaskLine {
  event: string;
  task_id: string;
  request_id: string | null;
  level: string;
  charged_quota?: string;
  code?: string;
}

const taskLines = () =>
  worker
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as TaskLine)
    .filter((line) => line.event?.startsWith("task."));

test("a paid call: its request id in the worker's lines, counted once on api and worker, spend in USD", async () => {
  const requestId = "paid-call-request-0001";
  const response = await api.call("POST", "/v1/images/generations", {
    key: secret,
    headers: { "x-request-id": requestId },
    body: { model: "lumina-image", prompt: "a lighthouse at dusk" },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("x-request-id")).toBe(requestId);
  const taskId = response.headers.get("x-task-id")!;

  await Bun.sleep(100);
  const lines = taskLines().filter((line) => line.task_id === taskId);
  expect(lines.map((line) => line.event)).toEqual(["task.started", "task.completed"]);
  for (const line of lines) expect(line.request_id).toBe(requestId);
  const [charge] = await api.store.sql<{ quota: bigint; model: string }[]>`
    select -e.delta_quota as quota, t.model from ledger_entries e join tasks t on t.id = e.hold_id
    where e.hold_id = ${taskId} and e.kind = 'charge'`;
  // The family the client named runs as one of its variants: tasks and spend carry that one.
  const model = charge!.model;
  expect(lines[1]!.charged_quota).toBe(String(charge!.quota));

  const fromApi = await apiMetrics();
  expect(
    value(fromApi, "gateway_requests_total", {
      route: "/v1/images/generations",
      status: "200",
      model: "lumina-image",
      key_id: keyId,
    }),
  ).toBe(1);
  expect(value(fromApi, "gateway_tasks_submitted_total", { kind: "image", model })).toBe(1);
  expect(
    value(fromApi, "gateway_overhead_duration_seconds", { route: "/v1/images/generations" }),
  ).toBe(1);

  const fromWorker = await workerMetrics();
  expect(value(fromWorker, "gateway_tasks_completed_total", { kind: "image", model })).toBe(1);
  expect(value(fromWorker, "gateway_spend_usd_total", { model, key_id: keyId })).toBeCloseTo(
    Number(charge!.quota) / 500_000,
    9,
  );
  expect(value(fromWorker, "gateway_settlement_batch_size", {})).toBeGreaterThanOrEqual(1);
  expect(
    value(fromWorker, "gateway_upstream_duration_seconds", { kind: "image", provider: "offline" }),
  ).toBe(1);
  expect(value(fromWorker, "gateway_queue_depth", { partition: "0" })).toBe(0);
  expect(value(fromWorker, "gateway_holds_open", {})).toBe(0);
  expect(worker.output()).not.toContain(secret);
  // The wallet moved by exactly the charge.
  const [user] = await api.store.sql<{ balance: bigint }[]>`
    select balance_quota as balance from users where id = ${BigInt(userId)}`;
  expect(user!.balance).toBe(5n * 500_000n - charge!.quota);
});

test("a failed task is counted by its reason and logged as a warning with its request id", async () => {
  const response = await api.call("POST", "/v1/images/generations", {
    key: secret,
    headers: { "x-request-id": "failing-call-request-01" },
    body: { model: "lumina-image", prompt: "[offline:fail] a storm" },
  });
  expect(response.status).toBeGreaterThanOrEqual(500);
  const taskId = response.headers.get("x-task-id")!;
  await Bun.sleep(100);
  const failed = taskLines().find(
    (line) => line.task_id === taskId && line.event === "task.failed",
  );
  const [task] = await api.store.sql<
    { model: string }[]
  >`select model from tasks where id = ${taskId}`;
  expect(failed).toMatchObject({ level: "warn", request_id: "failing-call-request-01" });
  const fromWorker = await workerMetrics();
  expect(
    value(fromWorker, "gateway_tasks_failed_total", {
      kind: "image",
      model: task!.model,
      reason: failed!.code!,
    }),
  ).toBe(1);
});

test("the worker answers /healthz and /readyz on its own port", async () => {
  const health = await fetch(`${probeUrl()}/healthz`);
  expect(health.status).toBe(200);
  const ready = await fetch(`${probeUrl()}/readyz`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({
    status: "ready",
    checks: { postgres: "ok", redis: "ok", migrations: "ok", catalog: "ok", jobs: "ok" },
  });
});
