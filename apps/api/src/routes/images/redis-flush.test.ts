// Proves paid image calls never overdraw a wallet or a key budget however often Redis
// loses everything (wallets, holds, job stream, consumer group) during a flood: over
// seeded runs every 200 is exactly one charge, every refusal charges nothing, and each
// wallet ends equal to its ledger with nothing left held.
import { describe, expect, test } from "bun:test";
import { startImageStack } from "../../testing-images.ts";

const stack = await startImageStack();
const { api } = stack;
const { sql, redis, prefix } = api.store;
await stack.spawnWorker();

/** gpt-image-1 at low quality, 1024x1024: $0.011 = 5,500 quota. */
const BODY = { model: "gpt-image-1", prompt: "a flooded lighthouse", quality: "low" };
const PRICE = 5_500n;

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
}

/** Deletes every key of this gateway's prefix: a FLUSHDB that spares other tests. */
async function flushGateway(): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== "0");
}

interface Run {
  budgeted: boolean;
  statuses: number[];
  taskIds: string[];
  userId: string;
  keyId: string;
}

async function floodWhileFlushing(seed: number, keyBudgetQuota: number | null): Promise<Run> {
  const next = random(seed);
  const { secret, userId, keyId } = await api.account({
    balanceUsd: 0.55,
    key: keyBudgetQuota === null ? {} : { quota: keyBudgetQuota },
  });
  let flooding = true;
  const flusher = (async () => {
    while (flooding) {
      await Bun.sleep(30 + Math.floor(next() * 20));
      await flushGateway();
    }
  })();
  const calls: Promise<Response>[] = [];
  for (let i = 0; i < 120; i++) {
    calls.push(api.call("POST", "/v1/images/generations", { key: secret, body: BODY }));
    await Bun.sleep(3);
  }
  // Flushing goes on while the calls are admitted and queued, and stops a moment after
  // the last one is sent, so that the recovery (rebuilt wallets, requeue from Postgres)
  // can finish them.
  await Bun.sleep(300);
  flooding = false;
  await flusher;
  const responses = await Promise.all(calls);
  const taskIds = await Promise.all(
    responses.map(async (r) => (r.status === 200 ? ((await r.json()) as { id: string }).id : "")),
  );
  return {
    budgeted: keyBudgetQuota !== null,
    statuses: responses.map((r) => r.status),
    taskIds,
    userId,
    keyId,
  };
}

async function expectSettledOnce(run: Run, fits: number): Promise<void> {
  const ok = run.taskIds.filter(Boolean);
  // Every call was answered: completed, or refused for funds or the key's budget (402),
  // or, once the key's budget is spent, refused as an exhausted key (401).
  const refusals = run.budgeted ? [200, 401, 402] : [200, 402];
  expect(run.statuses.filter((s) => !refusals.includes(s))).toEqual([]);
  expect(ok.length).toBeLessThanOrEqual(fits);
  expect(ok.length).toBeGreaterThan(0);
  const charges = await sql<{ hold_id: string; delta_quota: bigint }[]>`
    select hold_id, delta_quota from ledger_entries
    where user_id = ${BigInt(run.userId)} and kind = 'charge' order by hold_id`;
  expect(charges.map((c) => c.hold_id)).toEqual([...ok].sort());
  for (const charge of charges) expect(charge.delta_quota).toBe(-PRICE);
  const [account] = await sql<
    { balance: bigint; held: bigint; sum: bigint; key_used: bigint; key_limit: bigint | null }[]
  >`
    select u.balance_quota as balance, (select count(*) from holds where user_id = u.id and state = 'pending') as held,
           (select sum(delta_quota) from ledger_entries where user_id = u.id)::bigint as sum,
           k.used_quota as key_used, k.quota_limit as key_limit
    from users u join api_keys k on k.id = ${BigInt(run.keyId)} where u.id = ${BigInt(run.userId)}`;
  expect(account!.balance).toBeGreaterThanOrEqual(0n);
  expect(account!.balance).toBe(account!.sum);
  expect(account!.held).toBe(0n);
  if (account!.key_limit !== null)
    expect(account!.key_used).toBeLessThanOrEqual(account!.key_limit);
}

describe("a flood of paid calls while Redis is flushed every 30-50 ms", () => {
  test("4 seeded runs: no overdraft, each 200 charged exactly once", async () => {
    for (let seed = 1; seed <= 4; seed++) {
      const run = await floodWhileFlushing(seed, null);
      await expectSettledOnce(run, 50);
    }
  }, 120_000);

  test("2 seeded runs through a key budget of 20 images: the budget is never passed", async () => {
    for (let seed = 11; seed <= 12; seed++) {
      const run = await floodWhileFlushing(seed, 20 * Number(PRICE));
      await expectSettledOnce(run, 20);
    }
  }, 120_000);
});
