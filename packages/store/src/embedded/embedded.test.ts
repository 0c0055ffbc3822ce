// Proves the local-start fallbacks: embedded PGlite runs our migrations and a pooled client's concurrent queries and transactions without hanging or mixing replies, keeps bigints exact, persists across restarts; embedded redis-server starts and dies; resolveBackends refuses to embed in production and keeps explicit URLs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { listMigrations, migrate } from "../migrate.ts";
import { connectPostgres, type Sql } from "../postgres.ts";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "../testing.ts";
import {
  BackendError,
  type EmbeddedPostgres,
  findRedisServer,
  freePort,
  redactUrl,
  resolveBackends,
  startEmbeddedPostgres,
  startEmbeddedRedis,
} from "./index.ts";

const SLOW = 30_000;
const POOL = 4;
const BEYOND_2_53 = 9_007_199_254_740_993n; // 2^53 + 1: a float would round it

const root = mkdtempSync(join(tmpdir(), "gw-embedded-"));
const pgliteDir = join(root, "pglite");
afterAll(() => rmSync(root, { recursive: true, force: true }));

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

describe("embedded PGlite over the Postgres protocol", () => {
  let pg: EmbeddedPostgres;
  let sql: Sql;

  beforeAll(async () => {
    pg = await startEmbeddedPostgres({ dataDir: pgliteDir, maxConnections: POOL });
    sql = connectPostgres(pg.url, { max: POOL });
  }, SLOW);

  afterAll(async () => {
    await sql?.end({ timeout: 1 });
    await pg?.stop();
  });

  test("serves a loopback URL and runs the migrations", async () => {
    expect(pg.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    const applied = await migrate(sql);
    expect(applied[0]).toBe("001_accounts_keys_ledger.sql");
    expect(applied).toEqual(listMigrations().map((migration) => migration.name));
    expect(await migrate(sql)).toEqual([]);
    const partial = await sql<{ indexname: string }[]>`
      select indexname from pg_indexes where indexdef like '%WHERE%' order by indexname`;
    expect(partial.map((row) => row.indexname)).toEqual([
      "holds_pending_expiry",
      "holds_pending_user",
      "ledger_entries_spend",
      "ledger_entries_spend_period",
      "tasks_active",
      "tasks_files_kept",
      "tasks_idempotency",
      "webhook_deliveries_due",
    ]);
  });

  test(
    "answers 8 concurrent queries on a pool of 4, each with its own reply",
    async () => {
      const values = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const [row] = await sql<{ n: number; s: string }[]>`
            select ${i}::int as n, ${`q${i}`}::text as s, pg_sleep(0.01)`;
          return `${row?.n}:${row?.s}`;
        }),
      );
      expect(values).toEqual(Array.from({ length: 8 }, (_, i) => `${i}:q${i}`));
    },
    SLOW,
  );

  test(
    "keeps bigints beyond 2^53 exact, bytea and text[] intact",
    async () => {
      const [user] = await sql<{ id: bigint; balance_quota: bigint }[]>`
        insert into users (name, balance_quota) values ('big', ${BEYOND_2_53})
        returning id, balance_quota`;
      expect(typeof user?.id).toBe("bigint");
      expect(user?.balance_quota).toBe(BEYOND_2_53);
      const secret = Buffer.from([0, 1, 2, 254, 255]);
      const [key] = await sql<{ secret_hash: Buffer; model_limits: string[] }[]>`
        insert into api_keys (user_id, name, secret_hash, secret_hint, model_limits)
        values (${user!.id}, 'k', ${secret}, 'sk-…', ${sql.array(["gpt-4o", "claude"])})
        returning secret_hash, model_limits`;
      expect(Buffer.from(key!.secret_hash).equals(secret)).toBe(true);
      expect(key?.model_limits).toEqual(["gpt-4o", "claude"]);
      const [back] = await sql<{ balance_quota: bigint }[]>`
        select balance_quota from users where id = ${user!.id}`;
      expect(back?.balance_quota).toBe(BEYOND_2_53);
    },
    SLOW,
  );

  test(
    "runs the ledger's transaction shapes: for update, repeatable read read only, xact locks",
    async () => {
      const [user] = await sql<{ id: bigint }[]>`
        insert into users (name, balance_quota) values ('tx', 0) returning id`;
      const id = user!.id;
      // Concurrent locked increments interleaved with plain reads and a failing transaction.
      const work = Array.from({ length: 20 }, (_, i) => {
        if (i % 4 === 3) {
          return sql
            .begin(async (tx) => {
              await tx`update users set balance_quota = balance_quota + 1000 where id = ${id}`;
              throw new Error("rolled back");
            })
            .catch((error: Error) => error.message);
        }
        if (i % 2 === 1) return sql`select ${i}::int as i`.then(([row]) => row?.i);
        return sql.begin(async (tx) => {
          await tx`select pg_advisory_xact_lock(hashtext(${`user:${id}`}))`;
          const [row] = await tx<{ balance_quota: bigint }[]>`
            select balance_quota from users where id = ${id} for update`;
          await tx`update users set balance_quota = ${row!.balance_quota + 1n} where id = ${id}`;
          return "ok";
        });
      });
      const outcomes = await Promise.all(work);
      expect(outcomes.filter((outcome) => outcome === "ok")).toHaveLength(10);
      expect(outcomes.filter((outcome) => outcome === "rolled back")).toHaveLength(5);

      const snapshot = await sql.begin("isolation level repeatable read read only", async (tx) => {
        const [settings] = await tx<{ iso: string; ro: string }[]>`
          select current_setting('transaction_isolation') as iso,
                 current_setting('transaction_read_only') as ro`;
        const [row] = await tx<{ balance_quota: bigint }[]>`
          select balance_quota from users where id = ${id}`;
        return { ...settings, balance: row?.balance_quota };
      });
      expect(snapshot).toEqual({ iso: "repeatable read", ro: "on", balance: 10n });
    },
    SLOW,
  );

  test(
    "refuses a connection beyond maxConnections instead of hanging",
    async () => {
      const held = await Promise.all(Array.from({ length: POOL }, () => sql.reserve()));
      const extra = connectPostgres(pg.url, { max: 1 });
      try {
        await expect(extra`select 1`).rejects.toThrow(/too many clients/);
      } finally {
        await extra.end({ timeout: 0 });
        for (const connection of held) connection.release();
      }
      const [row] = await sql<{ ok: number }[]>`select 1 as ok`;
      expect(row?.ok).toBe(1);
    },
    SLOW,
  );

  test(
    "a second instance on the same folder is refused while the first runs",
    async () => {
      const second = startEmbeddedPostgres({ dataDir: pgliteDir, maxConnections: 1 });
      await expect(second).rejects.toBeInstanceOf(BackendError);
      await expect(second).rejects.toThrow(/in use by process/);
    },
    SLOW,
  );

  test(
    "keeps the data across a stop and a restart on the same folder",
    async () => {
      await sql.end({ timeout: 1 });
      await pg.stop();
      pg = await startEmbeddedPostgres({ dataDir: pgliteDir, maxConnections: POOL });
      sql = connectPostgres(pg.url, { max: POOL });
      const [row] = await sql<{ balance_quota: bigint }[]>`
        select balance_quota from users where name = 'big'`;
      expect(row?.balance_quota).toBe(BEYOND_2_53);
      expect(await migrate(sql)).toEqual([]);
    },
    SLOW,
  );
});

describe("embedded redis-server", () => {
  test(
    "starts on a free port, answers PING, and is gone after stop",
    async () => {
      const redis = await startEmbeddedRedis({ dataDir: join(root, "redis") });
      expect(redis.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      expect(redis.url).not.toBe("redis://127.0.0.1:6379");
      const client = new Redis(redis.url, { lazyConnect: true });
      try {
        await client.connect();
        expect(await client.ping()).toBe("PONG");
      } finally {
        client.disconnect();
      }
      expect(processGone(redis.pid)).toBe(false);
      await redis.stop();
      expect(processGone(redis.pid)).toBe(true);
      await redis.stop(); // idempotent
    },
    SLOW,
  );

  test("says how to get Redis when redis-server is not installed", () => {
    const path = process.env.PATH;
    process.env.PATH = join(root, "empty-bin");
    try {
      findRedisServer();
      throw new Error("expected a BackendError");
    } catch (error) {
      expect(error).toBeInstanceOf(BackendError);
      expect((error as BackendError).code).toBe("REDIS_NOT_INSTALLED");
      expect((error as Error).message).toContain(
        "docker run -d -p 127.0.0.1:6379:6379 redis:7-alpine",
      );
      expect((error as Error).message).toContain("apt-get install redis-server");
      expect((error as Error).message).toContain("brew install redis");
    } finally {
      process.env.PATH = path;
    }
  });
});

describe("resolveBackends", () => {
  const dataDir = root;
  const quiet = { dataDir, poolMax: POOL, log: () => {} };

  test("in production, names every missing variable and embeds nothing", async () => {
    const both = resolveBackends({ NODE_ENV: "production" }, quiet);
    await expect(both).rejects.toBeInstanceOf(BackendError);
    await expect(both).rejects.toThrow(/DATABASE_URL and REDIS_URL/);

    const redisOnly = resolveBackends(
      { NODE_ENV: "production", DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: "" },
      quiet,
    );
    await expect(redisOnly).rejects.toThrow(/needs REDIS_URL to be set/);
  });

  test("in production, uses the given URLs without probing them", async () => {
    const lines: string[] = [];
    const backends = await resolveBackends(
      {
        NODE_ENV: "production",
        DATABASE_URL: "postgres://gw:hunter2@db.internal:5432/gw",
        REDIS_URL: "redis://cache.internal:6379",
      },
      { ...quiet, log: (line) => lines.push(line) },
    );
    expect(backends.postgres).toBe("external");
    expect(backends.redis).toBe("external");
    expect(backends.databaseUrl).toBe("postgres://gw:hunter2@db.internal:5432/gw");
    expect(lines.join("\n")).toContain("postgres://gw:***@db.internal:5432/gw");
    expect(lines.join("\n")).not.toContain("hunter2");
  });

  test(
    "uses explicit DATABASE_URL and REDIS_URL as external, embedding nothing",
    async () => {
      const lines: string[] = [];
      const fresh = mkdtempSync(join(tmpdir(), "gw-external-"));
      try {
        const backends = await resolveBackends(
          { DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: TEST_REDIS_URL },
          { dataDir: fresh, poolMax: POOL, log: (line) => lines.push(line) },
        );
        expect(backends).toMatchObject({
          databaseUrl: TEST_DATABASE_URL,
          redisUrl: TEST_REDIS_URL,
          postgres: "external",
          redis: "external",
        });
        await backends.stop();
        expect(existsSync(join(fresh, "pglite"))).toBe(false);
        const banner = lines.join("\n");
        expect(banner).toContain("Postgres: external (DATABASE_URL)");
        expect(banner).toContain("Redis:    external (REDIS_URL)");
        expect(banner).not.toContain("EMBEDDED");
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    },
    SLOW,
  );

  test(
    "embeds both when nothing answers at the default addresses, and stops them",
    async () => {
      const lines: string[] = [];
      const closed = await freePort();
      const backends = await resolveBackends(
        {},
        {
          dataDir, // reuses the PGlite folder initialised above: a restart is quick
          poolMax: POOL,
          log: (line) => lines.push(line),
          defaults: {
            databaseUrl: `postgres://postgres@127.0.0.1:${closed}/postgres`,
            redisUrl: `redis://127.0.0.1:${closed}`,
          },
        },
      );
      try {
        expect(backends.postgres).toBe("embedded-pglite");
        expect(backends.redis).toBe("embedded-redis-server");
        const banner = lines.join("\n");
        expect(banner).toContain("Postgres: EMBEDDED PGlite");
        expect(banner).toContain("Redis:    EMBEDDED redis-server");
        expect(banner).toContain(backends.databaseUrl);
        const sql = connectPostgres(backends.databaseUrl, { max: POOL });
        const [row] = await sql<{ balance_quota: bigint }[]>`
          select balance_quota from users where name = 'big'`;
        expect(row?.balance_quota).toBe(BEYOND_2_53);
        await sql.end({ timeout: 1 });
      } finally {
        await backends.stop();
      }
      expect(existsSync(`${join(dataDir, "pglite")}.lock`)).toBe(false);
    },
    SLOW,
  );
});

test("redactUrl hides passwords only", () => {
  expect(redactUrl("postgres://u:secret@h:5432/db")).toBe("postgres://u:***@h:5432/db");
  expect(redactUrl("redis://:secret@h:6379")).toBe("redis://:***@h:6379");
  expect(redactUrl("postgres://postgres@127.0.0.1:5432/postgres")).toBe(
    "postgres://postgres@127.0.0.1:5432/postgres",
  );
});
