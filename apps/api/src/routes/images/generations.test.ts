// Proves POST /v1/images/generations runs end to end through a real worker process with
// the built-in offline provider: real image files behind signed links or as base64, the
// exact charge once by the stored rate, refusals that create nothing, and lookups by id.
import { describe, expect, test } from "bun:test";
import { sniffImage } from "@gw/providers";
import { startImageStack } from "../../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const stack = await startImageStack();
const { api } = stack;
await stack.spawnWorker();
const { secret, userId } = await api.account({ balanceUsd: 1 });

async function generate(body: unknown, key = secret, headers: Record<string, string> = {}) {
  const response = await api.call("POST", "/v1/images/generations", { key, body, headers });
  return { response, status: response.status, body: (await response.json()) as Body };
}

describe("generation", () => {
  test("answers finished images behind links and charges the stored rate once", async () => {
    const before = await stack.accountState(userId);
    const { response, status, body } = await generate({
      model: "lumina-image",
      prompt: "a lighthouse",
      input: { resolution: "1K", aspect_ratio: "16:9", n: 2 },
    });
    expect(status).toBe(200);
    expect(response.headers.get("x-task-id")).toBe(body.id);
    expect(body.task_id).toBe(body.id);
    expect(body.data).toHaveLength(2);
    expect(body.billing).toMatchObject({ model: "lumina-image-flare", usd: 0.09, quota: 45_000 });
    for (const item of body.data) {
      const file = await fetch(item.url);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("image/png");
      const image = sniffImage(new Uint8Array(await file.arrayBuffer()));
      expect(image).toMatchObject({ format: "png", width: 1024, height: 576 });
    }
    const after = await stack.accountState(userId);
    expect(after.balance).toBe(before.balance - 45_000n);
    expect(after.entries).toBe(before.entries + 1n);
    expect(after.pendingHolds).toBe(0n);
    expect(after.held).toBe("0");
  });

  test("b64_json carries the file itself, in the requested format", async () => {
    const { status, body } = await generate({
      model: "gpt-image-1",
      prompt: "a cat",
      response_format: "b64_json",
      size: "1536x1024",
      quality: "low",
      input: { output_format: "jpeg" },
    });
    expect(status).toBe(200);
    expect(body.data[0].url).toBeUndefined();
    const bytes = Buffer.from(body.data[0].b64_json, "base64");
    expect(sniffImage(new Uint8Array(bytes))).toMatchObject({
      format: "jpeg",
      width: 1536,
      height: 1024,
    });
    expect(body.billing.quota).toBe(8_000);
  });

  test("the task can be looked up by its id, and only by its owner", async () => {
    const { body } = await generate({ model: "lumina-image", prompt: "a boat" });
    const own = await api.call("GET", `/v1/images/tasks/${body.id}`, { key: secret });
    expect(own.status).toBe(200);
    const task = (await own.json()) as Body;
    expect(task).toMatchObject({ id: body.id, status: "completed", progress: 100 });
    expect(task.data).toHaveLength(1);
    const other = await api.account();
    const foreign = await api.call("GET", `/v1/images/tasks/${body.id}`, { key: other.secret });
    const missing = await api.call("GET", "/v1/images/tasks/img_000000000000000000000000", {
      key: other.secret,
    });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    const [a, b] = [(await foreign.json()) as Body, (await missing.json()) as Body];
    expect(a.error.code).toBe("not_found");
    expect(a.error.message.replace(body.id, "X")).toBe(
      b.error.message.replace("img_000000000000000000000000", "X"),
    );
  });

  test("an upstream moderation failure is a clear error and charges nothing", async () => {
    const before = await stack.accountState(userId);
    const { response, status, body } = await generate({
      model: "lumina-image",
      prompt: "[offline:moderate] something",
    });
    expect(status).toBe(400);
    expect(body.error.code).toBe("content_policy_violation");
    const taskId = response.headers.get("x-task-id")!;
    expect(body.error.message).toContain(taskId);
    const after = await stack.accountState(userId);
    expect(after.balance).toBe(before.balance);
    expect(after.entries).toBe(before.entries);
    expect(after.pendingHolds).toBe(0n);
    expect(after.held).toBe("0");
    const task = (await (
      await api.call("GET", `/v1/images/tasks/${taskId}`, { key: secret })
    ).json()) as Body;
    expect(task.status).toBe("failed");
    expect(task.failReason).toContain("moderat");
  });

  test("an upstream error is a 502 and releases the hold", async () => {
    const before = await stack.accountState(userId);
    const { status, body } = await generate({ model: "lumina-image", prompt: "[offline:fail]" });
    expect(status).toBe(502);
    expect(body.error.code).toBe("upstream_error");
    const after = await stack.accountState(userId);
    expect(after).toEqual({ ...before, tasks: before.tasks + 1n });
  });
});

describe("refusals create nothing", () => {
  const cases: [string, unknown, number, string][] = [
    ["unknown model", { model: "nope", prompt: "p" }, 400, "model_not_found"],
    ["-edit suffix", { model: "gpt-image-1-edit", prompt: "p" }, 400, "model_not_found"],
    ["wrong type", { model: "lumina-image", prompt: 5 }, 400, "invalid_request"],
    [
      "unknown field",
      { model: "lumina-image", prompt: "p", colour: "red" },
      400,
      "invalid_request",
    ],
    [
      "unknown input field",
      { model: "lumina-image", prompt: "p", input: { style: "x" } },
      400,
      "invalid_request",
    ],
    [
      "private URL",
      { model: "gpt-image-1", prompt: "p", image: "https://10.0.0.1/a.png" },
      400,
      "invalid_request",
    ],
    [
      "metadata URL",
      { model: "gpt-image-1", prompt: "p", image: "https://169.254.169.254/latest" },
      400,
      "invalid_request",
    ],
    ["missing prompt", { model: "lumina-image" }, 400, "invalid_request"],
  ];
  for (const [name, body, status, code] of cases) {
    test(name, async () => {
      const before = await stack.accountState(userId);
      const result = await generate(body);
      expect(result.status).toBe(status);
      expect(result.body.error.code).toBe(code);
      expect(await stack.accountState(userId)).toEqual(before);
    });
  }

  test("a bad key is 401 and nothing is created", async () => {
    const before = await stack.accountState(userId);
    const result = await generate({ model: "lumina-image", prompt: "p" }, "sk-not-a-real-key");
    expect(result.status).toBe(401);
    expect(await stack.accountState(userId)).toEqual(before);
  });

  test("insufficient funds: 402 and no task", async () => {
    const poor = await api.account({ balanceUsd: 0.01 });
    const before = await stack.accountState(poor.userId);
    const result = await generate(
      { model: "lumina-image", prompt: "p", input: { resolution: "4K" } },
      poor.secret,
    );
    expect(result.status).toBe(402);
    expect(result.body.error.code).toBe("insufficient_funds");
    expect(await stack.accountState(poor.userId)).toEqual(before);
    expect(before.tasks).toBe(0n);
  });

  test("a key budget too small: 402 and no task", async () => {
    const limited = await api.account({ balanceUsd: 5, key: { quota: 25_000 } });
    const before = await stack.accountState(limited.userId);
    const result = await generate(
      { model: "lumina-image", prompt: "p", input: { n: 2 } },
      limited.secret,
    );
    expect(result.status).toBe(402);
    expect(result.body.error.code).toBe("key_budget_exceeded");
    expect(await stack.accountState(limited.userId)).toEqual(before);
  });

  test("a huge body is 413 and creates nothing", async () => {
    const before = await stack.accountState(userId);
    const response = await api.call("POST", "/v1/images/generations", {
      key: secret,
      body: { model: "lumina-image", prompt: "x".repeat(2 * 1024 * 1024) },
    });
    expect(response.status).toBe(413);
    expect(await stack.accountState(userId)).toEqual(before);
  });
});
