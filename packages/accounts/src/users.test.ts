// Proves an account opens with its balance as one `credit` entry written by the ledger,
// so the wallet equals its ledger from the first moment, and an account opened empty has
// no entry at all. Keys are shown once and stored only as a hash.
import { afterAll, describe, expect, test } from "bun:test";
import { hashSecret } from "@gw/auth";
import { createLedger } from "@gw/ledger";
import { createTestStore } from "@gw/store/testing";
import { createKey } from "./keys.ts";
import { createUser, findUser } from "./users.ts";

const store = await createTestStore({ poolMax: 4 });
const { sql } = store;
const ledger = createLedger({ sql, redis: store.redis, prefix: store.prefix });
afterAll(() => store.close());

const account = (balanceQuota: bigint) => ({
  name: "acct",
  balanceQuota,
  discountPpm: 0,
  status: "active" as const,
  allowedModels: [],
});

async function entries(userId: bigint) {
  const rows = await sql<{ kind: string; delta_quota: bigint; business_key: string }[]>`
    select kind, delta_quota, business_key from ledger_entries where user_id = ${userId}`;
  return [...rows];
}

describe("createUser", () => {
  test("an opening balance is one credit entry, and the wallet equals its ledger", async () => {
    const user = await createUser(sql, ledger, account(750_000n));
    expect(user.balance_quota).toBe(750_000n);
    expect(await entries(user.id)).toEqual([
      { kind: "credit", delta_quota: 750_000n, business_key: `opening:${user.id}` },
    ]);
    expect((await findUser(sql, user.id))?.balance_quota).toBe(750_000n);
    expect((await ledger.readWallet(user.id))?.balanceQuota).toBe(750_000n);
  });

  test("an account opened empty has no entry", async () => {
    const user = await createUser(sql, ledger, account(0n));
    expect(user.balance_quota).toBe(0n);
    expect(await entries(user.id)).toEqual([]);
  });
});

describe("createKey", () => {
  test("the secret is returned once and only its hash is stored", async () => {
    const user = await createUser(sql, ledger, account(0n));
    const { secret, key } = await createKey(sql, ledger, user.id, {
      name: "k",
      quotaLimit: null,
      rpmLimit: 0,
      modelLimits: [],
      allowedIps: [],
      expiresAt: 0,
    });
    const [row] = await sql<{ secret_hash: Uint8Array }[]>`
      select secret_hash from api_keys where id = ${key.id}`;
    expect(Buffer.from(row!.secret_hash).equals(Buffer.from(hashSecret(secret)))).toBe(true);
    expect(Buffer.from(row!.secret_hash).toString("latin1")).not.toContain(secret);
  });
});
