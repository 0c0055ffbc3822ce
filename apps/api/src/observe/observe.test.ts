// Operations on a real api (issue 14): every answer carries an x-request-id and gets one
// JSON access line without secrets; /metrics is Prometheus text that counts requests;
// CORS preflights and exposed headers; an operator can narrow the origins.
import { describe, expect, test } from "bun:test";
import parsePrometheus from "parse-prometheus-text-format";
import { ADMIN_TOKEN, startTestApi } from "../testing.ts";

const api = await startTestApi();
const { secret, keyId } = await api.account({ balanceUsd: 2 });

interface AccessLine {
  event: string;
  service: string;
  level: string;
  request_id: string;
  method: string;
  route: string;
  status: number;
  ms: number;
  key_id?: string;
  model?: string;
  task_id?: string;
}

const accessLines = () =>
  api
    .logs()
    .map((line) => JSON.parse(line) as AccessLine)
    .filter((line) => line.event === "request");

interface Sample {
  labels: Record<string, string>;
  value?: string;
  count?: string;
}
interface Family {
  name: string;
  type: string;
  metrics: Sample[];
}

async function scrape(token = ADMIN_TOKEN): Promise<Family[]> {
  const response = await api.call("GET", "/metrics", { key: token });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  return parsePrometheus(await response.text()) as Family[];
}

const sample = (families: Family[], name: string, labels: Record<string, string>) =>
  families
    .find((family) => family.name === name)
    ?.metrics.find((metric) =>
      Object.entries(labels).every(([label, value]) => metric.labels[label] === value),
    );

describe("x-request-id", () => {
  test("a well-formed client id comes back; a malformed or missing one is replaced by a new id", async () => {
    const mine = "client-req-0001:abc";
    const kept = await api.call("GET", "/v1/models", { headers: { "x-request-id": mine } });
    expect(kept.headers.get("x-request-id")).toBe(mine);
    const replaced = await api.call("GET", "/v1/models", {
      headers: { "x-request-id": "bad id with spaces" },
    });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const fresh = await api.call("GET", "/v1/models");
    expect(fresh.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh.headers.get("x-request-id")).not.toBe(replaced.headers.get("x-request-id"));
  });

  test("every kind of answer carries it: unknown route, bad key, bad body, too large, preflight", async () => {
    const answers = await Promise.all([
      api.call("GET", "/v1/nothing-here"),
      api.call("GET", "/v1/balance", { key: "sk-not-a-real-key-0000000000000000" }),
      api.call("POST", "/v1/images/generations", {
        key: secret,
        rawBody: "{not json",
        headers: { "content-type": "application/json" },
      }),
      api.call("POST", "/v1/images/generations", {
        key: secret,
        rawBody: JSON.stringify({ prompt: "x".repeat(2 * 1024 * 1024) }),
        headers: { "content-type": "application/json" },
      }),
      api.call("OPTIONS", "/v1/images/generations", {
        headers: { origin: "https://app.example.com", "access-control-request-method": "POST" },
      }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([404, 401, 400, 413, 204]);
    for (const answer of answers) expect(answer.headers.get("x-request-id")).toBeTruthy();
  });
});

describe("access log", () => {
  test("one JSON line per request, with method, route pattern, status, duration, key id and request id, and no secret", async () => {
    const before = accessLines().length;
    const ids = ["line-test-0001", "line-test-0002", "line-test-0003", "line-test-0004"];
    await api.call("GET", "/v1/balance", { key: secret, headers: { "x-request-id": ids[0]! } });
    await api.call("GET", "/v1/images/tasks/img_doesnotexist000000000000", {
      key: secret,
      headers: { "x-request-id": ids[1]! },
    });
    await api.call("POST", "/v1/images/generations", {
      key: secret,
      body: { model: "lumina-image", prompt: "a cat", n: 99 },
      headers: { "x-request-id": ids[2]! },
    });
    await api.call("GET", "/nowhere", { headers: { "x-request-id": ids[3]! } });
    await Bun.sleep(20);
    const lines = accessLines().slice(before);
    expect(lines.map((line) => line.request_id)).toEqual(ids);
    const [balance, task, invalid, unknown] = lines;
    expect(balance).toMatchObject({
      service: "api",
      level: "info",
      method: "GET",
      route: "/v1/balance",
      status: 200,
      key_id: keyId,
    });
    expect(balance!.ms).toBeGreaterThanOrEqual(0);
    expect(task).toMatchObject({ route: "/v1/images/tasks/:task_id", status: 404, key_id: keyId });
    expect(invalid).toMatchObject({
      route: "/v1/images/generations",
      status: 400,
      model: "lumina-image",
    });
    expect(unknown).toMatchObject({ route: "(unmatched)", status: 404 });
    expect(unknown!.key_id).toBeUndefined();
    const all = api.logs().join("\n");
    expect(all).not.toContain(secret);
    expect(all).not.toContain(ADMIN_TOKEN);
    expect(all.toLowerCase()).not.toContain("authorization");
  });
});

describe("metrics", () => {
  test("GET /metrics takes the metrics or admin token and answers Prometheus text that counts requests", async () => {
    expect((await api.call("GET", "/metrics")).status).toBe(401);
    expect((await api.call("GET", "/metrics", { key: secret })).status).toBe(401);
    const before = await scrape();
    const count = (families: Family[]) =>
      Number(
        sample(families, "gateway_requests_total", {
          route: "/v1/balance",
          status: "200",
          key_id: keyId,
        })?.value ?? 0,
      );
    for (let index = 0; index < 2; index++)
      expect((await api.call("GET", "/v1/balance", { key: secret })).status).toBe(200);
    const after = await scrape();
    expect(count(after) - count(before)).toBe(2);
    const names = after.map((family) => family.name);
    for (const name of [
      "gateway_request_duration_seconds",
      "gateway_overhead_duration_seconds",
      "gateway_tasks_submitted_total",
      "gateway_queue_depth",
      "gateway_queue_oldest_job_age_seconds",
      "gateway_holds_open",
      "gateway_rate_limit_refusals_total",
      "gateway_backend_errors_total",
      "gateway_spend_usd_total",
    ])
      expect(names).toContain(name);
    const latency = after.find((family) => family.name === "gateway_request_duration_seconds");
    expect(latency?.type).toBe("HISTOGRAM");
    // No label anywhere carries a key's secret.
    expect(JSON.stringify(after)).not.toContain(secret);
  });

  test("a limiter refusal is counted by its group", async () => {
    const limited = await startTestApi({ RATE_LIMIT_BALANCE: "3/60s" });
    const own = await limited.account();
    const refusals = async () => {
      const response = await limited.call("GET", "/metrics", { key: ADMIN_TOKEN });
      const families = parsePrometheus(await response.text()) as Family[];
      const family = families.find((entry) => entry.name === "gateway_rate_limit_refusals_total");
      return Object.fromEntries(
        (family?.metrics ?? []).map((metric) => [metric.labels.group, Number(metric.value)]),
      );
    };
    const statuses: number[] = [];
    for (let index = 0; index < 5; index++)
      statuses.push((await limited.call("GET", "/v1/balance", { key: own.secret })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // The window refuses the 4th call; past it, the IP is blocked for a while (its own group).
    expect(await refusals()).toEqual({ balance: 1, block: 1 });
    await limited.stop();
  });
});

describe("CORS", () => {
  test("a preflight from any origin is answered 204 with methods, the asked headers and no credentials", async () => {
    const response = await api.call("OPTIONS", "/v1/images/generations", {
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, idempotency-key",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
    expect(response.headers.get("access-control-allow-headers")?.toLowerCase()).toContain(
      "authorization",
    );
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    expect(Number(response.headers.get("access-control-max-age"))).toBeGreaterThan(0);
  });

  test("answers expose the task, request id, rate-limit, retry and prompt-overhead headers", async () => {
    const response = await api.call("GET", "/v1/models", {
      headers: { origin: "https://app.example.com" },
    });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = (response.headers.get("access-control-expose-headers") ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase());
    for (const name of [
      "x-task-id",
      "x-request-id",
      "x-ratelimit-limit",
      "x-ratelimit-remaining",
      "x-ratelimit-reset",
      "retry-after",
      "x-service-provider-prompt-tokens",
    ])
      expect(exposed).toContain(name);
  });

  test("CORS_ORIGINS narrows the origins: a listed one is allowed, another gets no allow header", async () => {
    const narrow = await startTestApi({ CORS_ORIGINS: "https://app.example.com" }, api.store);
    const preflight = (origin: string) =>
      narrow.call("OPTIONS", "/v1/balance", {
        headers: { origin, "access-control-request-method": "GET" },
      });
    const allowed = await preflight("https://app.example.com");
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    const refused = await preflight("https://evil.example.net");
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    await narrow.stop();
  });
});
