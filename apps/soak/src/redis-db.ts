import { connectRedis } from "@gw/store";

export interface RedisDbClaim {
  db: number;
  /** The Redis URL with this db selected. */
  url: string;
  release(): Promise<void>;
}

/** Claims are kept this long at most, so a soak killed abruptly frees its db by itself. */
const CLAIM_TTL_SECONDS = 3 * 60 * 60;
const CLAIM_KEY = (db: number) => `soak:redis-db-claim:${db}`;

/**
 * Claims an empty Redis db (1-15) for one run, so its FLUSHDB fault and its cleanup touch
 * no one else's keys: the claim is a key in db 0 set only if absent, and a db holding any
 * key is never taken, whoever uses it.
 */
export async function claimRedisDb(baseUrl: string, runId: string): Promise<RedisDbClaim> {
  const base = new URL(baseUrl);
  const control = connectRedis(withDb(base, 0));
  try {
    const databases = Number(((await control.config("GET", "databases")) as string[])[1] ?? 16);
    for (let db = databases - 1; db >= 1; db--) {
      const claimed = await control.set(CLAIM_KEY(db), runId, "EX", CLAIM_TTL_SECONDS, "NX");
      if (claimed !== "OK") continue;
      const probe = connectRedis(withDb(base, db));
      const size = await probe.dbsize().finally(() => probe.disconnect());
      if (size === 0) return claim(base, db, runId);
      await control.del(CLAIM_KEY(db));
    }
  } finally {
    control.disconnect();
  }
  throw new Error("no empty Redis db (1-15) is free for the soak; FLUSHDB needs one of its own");
}

function claim(base: URL, db: number, runId: string): RedisDbClaim {
  return {
    db,
    url: withDb(base, db),
    async release() {
      const control = connectRedis(withDb(base, 0));
      try {
        if ((await control.get(CLAIM_KEY(db))) === runId) await control.del(CLAIM_KEY(db));
      } finally {
        control.disconnect();
      }
    },
  };
}

function withDb(base: URL, db: number): string {
  const url = new URL(base.toString());
  url.pathname = `/${db}`;
  return url.toString();
}
