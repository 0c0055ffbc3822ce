// Proves the status and network-error table of the text providers: which failures are
// retried, which mean generation may have started, and that the key never shows.
import { expect, test } from "bun:test";
import { fetchVerdict, statusVerdict } from "./upstream-errors.ts";

const KEY = "sk-secret-0123456789";

test.each([
  [400, "upstream_rejected", false, false],
  [404, "upstream_rejected", false, false],
  [413, "upstream_rejected", false, false],
  [422, "upstream_rejected", false, false],
  [401, "upstream_unavailable", false, false],
  [402, "upstream_unavailable", false, false],
  [403, "upstream_unavailable", false, false],
  [408, "upstream_timeout", false, false],
  [429, "upstream_unavailable", true, false],
  [503, "upstream_unavailable", true, false],
  [529, "upstream_unavailable", true, false],
  [500, "upstream_error", false, true],
  [502, "upstream_error", false, true],
  [504, "upstream_error", false, true],
  [302, "upstream_error", false, false],
] as const)("status %i → %s, retried %p, started %p", (status, code, retryable, started) => {
  const body = { error: { message: `upstream says ${KEY} is odd` } };
  const verdict = statusVerdict("p", status, body, KEY);
  expect(verdict.failure).toMatchObject({ ok: false, code, status, started });
  expect(verdict.retryable).toBe(retryable);
  expect(verdict.failure.message).not.toContain(KEY);
  if (code === "upstream_rejected") expect(verdict.failure.body).toBe(body);
  else expect(verdict.failure.body).toBeUndefined();
});

test("only a connection never made is retried; timeouts and resets may have started", () => {
  const refused = Object.assign(new Error("refused"), { code: "ConnectionRefused" });
  const reset = Object.assign(new Error("reset"), { code: "ECONNRESET" });
  expect(fetchVerdict("p", refused, undefined, 10)).toMatchObject({
    retryable: true,
    failure: { code: "upstream_unavailable", started: false },
  });
  expect(fetchVerdict("p", reset, undefined, 10)).toMatchObject({
    retryable: false,
    failure: { code: "upstream_error", started: true },
  });
  expect(fetchVerdict("p", new Error(), "timeout", 10)).toMatchObject({
    retryable: false,
    failure: { code: "upstream_timeout", started: true, message: "no answer from p within 10 ms" },
  });
  expect(fetchVerdict("p", new Error(), "caller", 10).failure.message).toBe(
    "aborted by the caller",
  );
});
