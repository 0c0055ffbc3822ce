import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createKey, createUser } from "@gw/accounts";
import { generateSecret, hashSecret, looksLikeSecret } from "@gw/auth";
import { createLedger } from "@gw/ledger";
import type { RedisClient, Sql } from "@gw/store";

export interface Demo {
  secret: string;
  userId: bigint;
  adminToken: string;
  /** Signs result links; kept so links survive a restart of the local gateway. */
  linkSecret: string;
}

function readSecretFile(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8").trim() : null;
}

function writeSecretFile(path: string, value: string): void {
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/**
 * The local start's demo: an account with $10 and a key. A key's secret is shown once
 * and stored hashed, so the local start keeps the demo secret in a 0600 file under the
 * data folder to print it again on the next start. Never used in production.
 */
export async function ensureDemo(
  sql: Sql,
  redis: RedisClient,
  dataDir: string,
  prefix: string,
): Promise<Demo> {
  mkdirSync(dataDir, { recursive: true });
  const keyFile = join(dataDir, "demo-key");
  const tokenFile = join(dataDir, "admin-token");
  const ledger = createLedger({ sql, redis, prefix });

  let adminToken = process.env.ADMIN_TOKEN || readSecretFile(tokenFile) || "";
  if (!adminToken) {
    adminToken = `adm-${generateSecret().slice(3)}`;
    writeSecretFile(tokenFile, adminToken);
  }

  const linkFile = join(dataDir, "link-secret");
  let linkSecret = process.env.RESULT_LINK_SECRET || readSecretFile(linkFile) || "";
  if (!linkSecret) {
    linkSecret = randomBytes(32).toString("base64url");
    writeSecretFile(linkFile, linkSecret);
  }

  const saved = readSecretFile(keyFile);
  if (saved && looksLikeSecret(saved)) {
    const [key] = await sql<{ user_id: bigint }[]>`
      select user_id from api_keys where secret_hash = ${hashSecret(saved)} and deleted_at is null`;
    if (key) return { secret: saved, userId: key.user_id, adminToken, linkSecret };
  }
  const user = await createUser(sql, ledger, {
    name: "demo",
    balanceQuota: 5_000_000n,
    discountPpm: 0,
    status: "active",
    allowedModels: [],
  });
  const { secret } = await createKey(sql, ledger, user.id, {
    name: "demo",
    quotaLimit: null,
    rpmLimit: 0,
    modelLimits: [],
    allowedIps: [],
    expiresAt: 0,
  });
  writeSecretFile(keyFile, secret);
  return { secret, userId: user.id, adminToken, linkSecret };
}
