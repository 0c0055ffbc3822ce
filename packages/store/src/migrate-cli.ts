import { migrate } from "./migrate.ts";
import { connectPostgres } from "./postgres.ts";

/** `bun run migrate`: applies pending migrations to DATABASE_URL (the local default otherwise). */
const url = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const sql = connectPostgres(url, { max: 1 });
try {
  const applied = await migrate(sql);
  console.log(
    applied.length > 0 ? `[migrate] applied ${applied.join(", ")}` : "[migrate] up to date",
  );
} catch (error) {
  console.error("[migrate] failed:", error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await sql.end();
}
