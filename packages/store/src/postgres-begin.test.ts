// Proves our patched postgres.js (patches/postgres@3.4.9.patch) reserves a transaction's
// connection even when BEGIN fills a connection's pipeline: unpatched 3.4.9 then fails
// with UNSAFE_TRANSACTION or runs unrelated queries inside the open transaction
// (porsager/postgres#1189). Seen by the image bench at 200 clients before the patch.
import { expect, test } from "bun:test";
import postgres from "postgres";
import { TEST_DATABASE_URL } from "./testing.ts";

test("BEGIN at the pipeline boundary still reserves its connection", async () => {
  // max_pipeline 1: every query, BEGIN included, fills the pipeline. The option exists
  // in postgres.js but not in its type declarations.
  const pipeline = { max_pipeline: 1 } as object;
  const sql = postgres(TEST_DATABASE_URL, { max: 2, onnotice: () => {}, ...pipeline });
  try {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        index % 2 === 0
          ? sql.begin(async (tx) => {
              const [row] = await tx<{ in_tx: boolean }[]>`
                select txid_current_if_assigned() is null and now() = statement_timestamp() as in_tx`;
              const [own] = await tx<{ id: string }[]>`select txid_current()::text as id`;
              const [again] = await tx<{ id: string }[]>`select txid_current()::text as id`;
              return row !== undefined && own!.id === again!.id;
            })
          : sql<{ open: boolean }[]>`select txid_current_if_assigned() is not null as open`.then(
              ([row]) => !row!.open,
            ),
      ),
    );
    expect(results.every(Boolean)).toBe(true);
  } finally {
    await sql.end({ timeout: 5 });
  }
});
