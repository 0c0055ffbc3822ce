// Proves migrations apply once, in order, and stay safe when several processes start at once.
import { afterAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { listMigrations, migrate } from "./migrate.ts";
import { connectPostgres } from "./postgres.ts";
import { TEST_DATABASE_URL } from "./testing.ts";

const schema = `m_${randomBytes(6).toString("hex")}`;
const admin = connectPostgres(TEST_DATABASE_URL, { max: 1 });
await admin.unsafe(`create schema ${schema}`);
afterAll(async () => {
  await admin.unsafe(`drop schema if exists ${schema} cascade`);
  await admin.end();
});

// Embedded PGlite is a single session, where advisory locks cannot exclude anyone; the
// local start migrates before it starts the apps, so only real Postgres needs this.
const singleSession = process.env.TEST_EMBEDDED_PG === "1";

test.skipIf(singleSession)(
  "five processes migrating one empty database at once apply each file exactly once",
  async () => {
    const pools = Array.from({ length: 5 }, () =>
      connectPostgres(TEST_DATABASE_URL, { schema, max: 1 }),
    );
    const results = await Promise.all(pools.map((sql) => migrate(sql)));
    const all = listMigrations().map((migration) => migration.name);
    expect(results.filter((applied) => applied.length > 0)).toEqual([all]);
    const rows = await pools[0]!<
      { name: string }[]
    >`select name from schema_migrations order by version`;
    expect(rows.map((row) => row.name)).toEqual(all);
    expect(await migrate(pools[0]!)).toEqual([]);
    await Promise.all(pools.map((sql) => sql.end()));
  },
);

test("a failing migration applies nothing of itself", async () => {
  const sql = connectPostgres(TEST_DATABASE_URL, { schema, max: 1 });
  const broken = [
    { version: 999, name: "999_broken.sql", sql: "create table half_done (id int); select 1/0;" },
  ];
  await expect(migrate(sql, broken)).rejects.toThrow();
  const [exists] = await sql<{ found: boolean }[]>`
    select exists(select 1 from information_schema.tables where table_schema = ${schema} and table_name = 'half_done') as found`;
  expect(exists!.found).toBe(false);
  await sql.end();
});
