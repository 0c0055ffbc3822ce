// Proves Idempotency-Key returns the same task without a second charge (also when two
// copies race) and refuses the key with a different body, and that result links are
// signed, bearer-style and expire: an expired, tampered or deleted link answers 404.
import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startImageStack } from "../../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const stack = await startImageStack({ env: { RESULT_LINK_TTL_SECONDS: "3" } });
const { api } = stack;
await stack.spawnWorker();
const { secret, userId } = await api.account({ balanceUsd: 1 });
const BODY = { model: "lumina-image", prompt: "a kite" };

const generate = (body: unknown, idempotencyKey?: string) =>
  api.call("POST", "/v1/images/generations", {
    key: secret,
    body,
    headers: idempotencyKey ? { "idempotency-key": idempotencyKey } : {},
  });

describe("Idempotency-Key", () => {
  test("a repeated request returns the same task and charges once", async () => {
    const before = await stack.accountState(userId);
    const first = (await (await generate(BODY, "order-1")).json()) as Body;
    const again = await generate({ prompt: "a kite", model: "lumina-image" }, "order-1");
    expect(again.status).toBe(200);
    expect(((await again.json()) as Body).id).toBe(first.id);
    const after = await stack.accountState(userId);
    expect(after.tasks).toBe(before.tasks + 1n);
    expect(after.balance).toBe(before.balance - 22_500n);
  });

  test("two copies racing make one task", async () => {
    const before = await stack.accountState(userId);
    const responses = await Promise.all([generate(BODY, "race-1"), generate(BODY, "race-1")]);
    const ids = await Promise.all(responses.map(async (r) => ((await r.json()) as Body).id));
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(ids[0]).toBe(ids[1]);
    const after = await stack.accountState(userId);
    expect(after.tasks).toBe(before.tasks + 1n);
    expect(after.balance).toBe(before.balance - 22_500n);
  });

  test("the same key with a different body is refused and creates nothing", async () => {
    await generate(BODY, "order-2");
    const before = await stack.accountState(userId);
    const other = await generate({ ...BODY, prompt: "a different kite" }, "order-2");
    expect(other.status).toBe(409);
    expect(((await other.json()) as Body).error.code).toBe("idempotency_conflict");
    expect(await stack.accountState(userId)).toEqual(before);
  });

  test("a malformed key is refused", async () => {
    const response = await generate(BODY, "has spaces in it");
    expect(response.status).toBe(400);
  });
});

describe("result links", () => {
  test("a link works without a key, and not once tampered with", async () => {
    const body = (await (await generate(BODY)).json()) as Body;
    const link = new URL(body.data[0].url);
    expect((await fetch(link)).status).toBe(200);
    const tampered = new URL(link);
    tampered.searchParams.set("expires", String(Number(link.searchParams.get("expires")) + 1));
    const answer = await fetch(tampered);
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as Body).error.code).toBe("not_found");
    const otherFile = new URL(link);
    otherFile.pathname = link.pathname.replace(/[0-9a-z]+-0\.png$/, "1-1.png");
    expect((await fetch(otherFile)).status).toBe(404);
  });

  test("a deleted file answers 404", async () => {
    const body = (await (await generate(BODY)).json()) as Body;
    const link = new URL(body.data[0].url);
    rmSync(join(stack.filesDir, link.pathname.replace("/v1/files/", "")));
    const answer = await fetch(link);
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as Body).error.code).toBe("not_found");
  });

  test("links expire after the configured lifetime and the files are deleted", async () => {
    const body = (await (await generate(BODY)).json()) as Body;
    const link = new URL(body.data[0].url);
    const expires = Number(link.searchParams.get("expires"));
    expect(expires - body.created).toBe(3);
    expect((await fetch(link)).status).toBe(200);
    await Bun.sleep((expires + 1) * 1000 - Date.now());
    const answer = await fetch(link);
    expect(answer.status).toBe(404);
    // The worker's maintenance deletes files past the link lifetime.
    const path = join(stack.filesDir, link.pathname.replace("/v1/files/", ""));
    const deadline = Date.now() + 10_000;
    while ((await Bun.file(path).exists()) && Date.now() < deadline) await Bun.sleep(100);
    expect(await Bun.file(path).exists()).toBe(false);
  }, 20_000);
});
