import { expect, test } from "bun:test";
import { GatewayMetrics, quotaToUsdNumber } from "./metrics.ts";

test("each registry is its own: two in one process count apart and never collide", async () => {
  const one = new GatewayMetrics("api");
  const two = new GatewayMetrics("api");
  one.tasksSubmitted.inc({ kind: "image", model: "m" });
  expect((await one.expose()).body).toContain(
    'gateway_tasks_submitted_total{kind="image",model="m",service="api"} 1',
  );
  expect((await two.expose()).body).not.toContain('kind="image"');
});

test("scrape-time readings run at each scrape; a failing one keeps the last value and the scrape still answers", async () => {
  const metrics = new GatewayMetrics("worker");
  let depth = 3;
  let fail = false;
  metrics.onCollect(() => {
    if (fail) throw new Error("redis down");
    metrics.queueDepth.set({ partition: "0" }, depth);
  });
  expect((await metrics.expose()).body).toContain(
    'gateway_queue_depth{partition="0",service="worker"} 3',
  );
  depth = 5;
  fail = true;
  const exposed = await metrics.expose();
  expect(exposed.contentType).toStartWith("text/plain; version=0.0.4");
  expect(exposed.body).toContain('gateway_queue_depth{partition="0",service="worker"} 3');
  expect(exposed.body).toContain(
    'gateway_backend_errors_total{backend="redis",service="worker"} 0',
  );
});

test("quota converts to USD for the spend counter", () => {
  expect(quotaToUsdNumber(500_000n)).toBe(1);
  expect(quotaToUsdNumber(1n)).toBe(0.000002);
});
