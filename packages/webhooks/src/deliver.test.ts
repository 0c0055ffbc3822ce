// Proves the retry schedule of webhook deliveries: five times longer each attempt, given
// up after the last one, and that secrets are Standard Webhooks secrets the library takes.
import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { retryDelayMs } from "./deliver.ts";
import { newWebhookSecret } from "./secret.ts";

describe("retryDelayMs", () => {
  test("5 s, 25 s, 125 s, … until the attempts are used up", () => {
    expect([1, 2, 3, 4].map((attempts) => retryDelayMs(attempts, 5_000, 8))).toEqual([
      5_000, 25_000, 125_000, 625_000,
    ]);
    expect(retryDelayMs(7, 5_000, 8)).toBe(5_000 * 5 ** 6);
    expect(retryDelayMs(8, 5_000, 8)).toBeNull();
    expect(retryDelayMs(9, 5_000, 8)).toBeNull();
  });
});

test("a new secret signs and verifies with the standardwebhooks package", () => {
  const secret = newWebhookSecret();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  expect(newWebhookSecret()).not.toBe(secret);
  const hook = new Webhook(secret);
  const body = JSON.stringify({ type: "task.completed" });
  const at = new Date();
  const headers = {
    "webhook-id": "msg_1",
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": hook.sign("msg_1", at, body),
  };
  expect(hook.verify(body, headers)).toEqual({ type: "task.completed" });
  expect(() => hook.verify(`${body} `, headers)).toThrow();
});
