// Proves our patched postgres.js (patches/postgres@3.4.9.patch) answers a query sent on a
// connection whose socket closed with a catchable CONNECTION_CLOSED, instead of throwing
// `null is not an object (evaluating 'socket.write')` from a timer, which no try/catch
// sees and which killed a worker when Postgres was cut in the middle of a transaction
// (porsager/postgres#1066, #1154, #1208). And the connection serves queries again after.
// What still escapes is a connection error, which `guardProcess` survives.
import { expect, test } from "bun:test";
import postgres from "postgres";
import { isConnectionError } from "./process-guard.ts";
import { startTcpProxy } from "./tcp-relay.ts";
import { TEST_DATABASE_URL } from "./testing.ts";

const target = new URL(TEST_DATABASE_URL);

test("a transaction whose connection is cut fails its next query, and the process lives", async () => {
  const relay = startTcpProxy(Number(target.port || 5432), target.hostname);
  const url = new URL(TEST_DATABASE_URL);
  url.hostname = "127.0.0.1";
  url.port = String(relay.port);
  const sql = postgres(url.href, { max: 1, onnotice: () => {}, connect_timeout: 2 });
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on("uncaughtException", onUncaught);
  try {
    const outcome = await sql
      .begin(async (tx) => {
        await tx`select 1`;
        relay.cut();
        // Let the close reach the driver before the next query is written.
        await Bun.sleep(100);
        await tx`select 2`;
        return "committed";
      })
      .catch((error: { code?: string }) => error.code ?? "error");
    expect(outcome).toBe("CONNECTION_CLOSED");
    await Bun.sleep(100);
    // Under load the driver may also raise the same CONNECTION_CLOSED outside any caller;
    // the process guard keeps a process alive on exactly these. A TypeError from a null
    // socket (the unpatched driver) is not one, and fails here.
    expect(uncaught.filter((error) => !isConnectionError(error))).toEqual([]);
    relay.restore();
    // The pool serves queries again; under load the first one after the cut may still meet
    // the closed connection (CONNECTION_CLOSED), as callers with a retry would.
    let one: unknown = null;
    for (let attempt = 0; attempt < 3 && one === null; attempt++) {
      one = await sql<{ one: number }[]>`select 1 as one`
        .then(([row]) => row!.one)
        .catch((error: { code?: string }) => {
          expect(error.code).toBe("CONNECTION_CLOSED");
          return null;
        });
    }
    expect(one).toBe(1);
  } finally {
    process.off("uncaughtException", onUncaught);
    await sql.end({ timeout: 1 }).catch(() => {});
    relay.stop();
  }
});
