import { appendFileSync } from "node:fs";
import type { Random } from "@gw/random";

export const QUOTA_PER_USD = 500_000n;

export interface SoakKey {
  keyId: string;
  userId: string;
  secret: string;
  /** The key's own budget in quota, or null: it spends the wallet. */
  budgetQuota: bigint | null;
}

export interface SoakAccount {
  userId: string;
  openingQuota: bigint;
  /** Wallets funded for a few calls, which run dry during the run. */
  dry: boolean;
}

export interface Population {
  accounts: SoakAccount[];
  keys: SoakKey[];
}

export type AdminCall = (method: string, path: string, body?: unknown) => Promise<Response>;

/** An admin API client of one api process. */
export function adminClient(baseUrl: string, token: string): AdminCall {
  return (method, path, body) =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}

/** Keeps key secrets out of every log: the test runner searches its logs for these. */
function recordSecret(secret: string): void {
  const file = process.env.GW_TEST_SECRETS_FILE;
  if (file) appendFileSync(file, `${secret}\n`);
}

async function created(answer: Response, what: string): Promise<Record<string, unknown>> {
  if (answer.status !== 201)
    throw new Error(`${what}: HTTP ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as Record<string, unknown>;
}

/** Cents as the admin API's USD number. */
const usd = (cents: number) => cents / 100;

/**
 * Creates the accounts and keys through the admin API, from the seed: a fifth of the
 * wallets funded for only a few calls (they run dry), most with $5-15, some rich; a tenth
 * with a discount; about a third of the keys with a budget of their own ($0.20-3).
 */
export async function createPopulation(
  admin: AdminCall,
  random: Random,
  counts: { accounts: number; keys: number },
): Promise<Population> {
  const accounts: SoakAccount[] = [];
  for (let i = 0; i < counts.accounts; i++) {
    const tier = random.weightedKey({ dry: 20, normal: 60, rich: 20 });
    const cents =
      tier === "dry"
        ? random.int(30, 150)
        : tier === "normal"
          ? random.int(500, 1_500)
          : random.int(4_000, 6_000);
    const discount = random.chance(0.1) ? random.pick([0.1, 0.15, 0.3]) : 0;
    const user = await created(
      await admin("POST", "/admin/users", {
        name: `soak-${i}`,
        balance_usd: usd(cents),
        discount,
      }),
      "create account",
    );
    accounts.push({
      userId: String(user.id),
      openingQuota: (BigInt(cents) * QUOTA_PER_USD) / 100n,
      dry: tier === "dry",
    });
  }
  const keys: SoakKey[] = [];
  for (let i = 0; i < counts.keys; i++) {
    const account = accounts[i % accounts.length]!;
    const budgetQuota = random.chance(0.3)
      ? (BigInt(random.int(20, 300)) * QUOTA_PER_USD) / 100n
      : null;
    const key = await created(
      await admin("POST", "/admin/keys", {
        user_id: Number(account.userId),
        name: `soak-key-${i}`,
        quota: budgetQuota === null ? null : Number(budgetQuota),
      }),
      "create key",
    );
    const secret = String(key.key);
    recordSecret(secret);
    keys.push({ keyId: String(key.id), userId: account.userId, secret, budgetQuota });
  }
  return { accounts, keys };
}
