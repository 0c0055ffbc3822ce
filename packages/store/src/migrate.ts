import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Sql } from "./postgres.ts";

const MIGRATIONS_DIR = join(import.meta.dir, "..", "migrations");

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d+_.+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.split("_")[0]),
      name: file,
      sql: readFileSync(join(dir, file), "utf8"),
    }));
}

/**
 * Applies pending migrations in order. A transaction-scoped advisory lock, keyed by
 * the schema, makes two processes starting at once take turns: the second finds the
 * work done and applies nothing. Each file commits together with its bookkeeping row.
 */
export async function migrate(sql: Sql, migrations = listMigrations()): Promise<string[]> {
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(current_schema() || ':gw-migrations'))`;
    await tx`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`;
    const done = await tx<{ version: number }[]>`select version from schema_migrations`;
    const seen = new Set(done.map((row) => row.version));
    for (const migration of migrations) {
      if (seen.has(migration.version)) continue;
      await tx.unsafe(migration.sql);
      await tx`insert into schema_migrations (version, name) values (${migration.version}, ${migration.name})`;
      applied.push(migration.name);
    }
  });
  return applied;
}
