// Proves the image endpoints charge only for what they run: a model of another kind is
// refused before anything is held, a 100% discount completes with a zero charge record
// instead of failing, and copies of one Idempotency-Key wait for the first copy's task
// instead of answering a funds error caused by that copy's own hold.
import { describe, expect, test } from "bun:test";
import { startImageStack } from "../../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const stack = await startImageStack();
const { api } = stack;
await stack.spawnWorker();

describe("a model of another kind", () => {
  const calls = [
    { model: "sonora/music", prompt: "a song", input: { customMode: false, instrumental: true } },
    { model: "sonora/speech", prompt: "hello there" },
    { model: "motion-video", prompt: "a wave" },
    { model: "lumen-chat-mini", prompt: "hi" },
  ];
  for (const endpoint of ["generations", "edits"]) {
    test(`is refused by /v1/images/${endpoint} with a 400 naming its kind, holding nothing`, async () => {
      const { secret, userId } = await api.account({ balanceUsd: 5 });
      const before = await stack.accountState(userId);
      for (const body of calls) {
        const response = await api.call("POST", `/v1/images/${endpoint}`, {
          key: secret,
          body: { ...body, image: "https://example.com/a.png" },
        });
        const answer = (await response.json()) as Body;
        expect({ model: body.model, status: response.status }).toEqual({
          model: body.model,
          status: 400,
        });
        expect(answer.error.code).toBe("unsupported_operation");
        expect(answer.error.message).toContain("image models only");
      }
      expect(await stack.accountState(userId)).toEqual(before);
    });
  }
});

describe("a 100% discount", () => {
  test("completes the call with a zero charge record and no balance change", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 0, discount: 1 });
    const before = await stack.accountState(userId);
    const response = await api.call("POST", "/v1/images/generations", {
      key: secret,
      body: { model: "lumina-image", prompt: "a free lighthouse" },
    });
    const body = (await response.json()) as Body;
    expect(response.status).toBe(200);
    expect(body.data).toHaveLength(1);
    expect(body.billing).toMatchObject({ usd: 0, quota: 0 });
    const after = await stack.accountState(userId);
    expect(after.balance).toBe(before.balance);
    expect(after.pendingHolds).toBe(0n);
    expect(after.held).toBe("0");
    const entries = await api.store.sql<{ kind: string; delta_quota: bigint }[]>`
      select kind, delta_quota from ledger_entries
      where user_id = ${BigInt(userId)} and hold_id = ${body.id}`;
    expect([...entries]).toEqual([{ kind: "charge", delta_quota: 0n }]);
  });
});

describe("Idempotency-Key under contention", () => {
  test("50 copies at once on a wallet for one image all answer that one task", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 0.045 });
    const before = await stack.accountState(userId);
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        api.call("POST", "/v1/images/generations", {
          key: secret,
          body: { model: "lumina-image", prompt: "one lighthouse" },
          headers: { "idempotency-key": "contended-1" },
        }),
      ),
    );
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as Body[];
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
    const after = await stack.accountState(userId);
    expect(after.tasks).toBe(before.tasks + 1n);
    expect(after.balance).toBe(0n);
    expect(after.entries).toBe(before.entries + 1n);
    expect(after.held).toBe("0");
  }, 30_000);
});
