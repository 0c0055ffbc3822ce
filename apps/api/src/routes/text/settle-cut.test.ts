// Proves text charges land when Postgres goes away while calls end: every answered call
// is charged exactly once after Postgres comes back, whether its settlement batch was
// under way, failed and retried, or queued behind the cut. (The soak's seed 17 answered
// ten calls whose charges never landed: a settlement transaction waited forever on a
// connection lost mid-flight and took the batcher's slots with it; money.ts now gives an
// attempt SETTLE_ATTEMPT_MS, and a retry posts what an earlier attempt wrote as `existed`.)
import { afterAll, expect, test } from "bun:test";
import { connectPostgres } from "@gw/store";
import { createTestStore, startTcpProxy } from "@gw/store/testing";
import { startTestApi } from "../../testing.ts";

const store = await createTestStore();
const relay = startTcpProxy(Number(new URL(store.databaseUrl).port || 5432));
const viaRelay = new URL(store.databaseUrl);
viaRelay.hostname = "127.0.0.1";
viaRelay.port = String(relay.port);
const sql = connectPostgres(viaRelay.href, { schema: store.schema, max: 10 });
const api = await startTestApi({}, { ...store, sql });
afterAll(() => sql.end({ timeout: 1 }));

test("calls ending while Postgres is cut are each charged once when it is back", async () => {
  const { secret, userId } = await api.account({ balanceUsd: 10 });
  const answered: string[] = [];
  const call = async (index: number) => {
    const requestId = `settle-cut-${index}`;
    const response = await api.call("POST", "/v1/chat/completions", {
      key: secret,
      headers: { "x-request-id": requestId },
      body: { model: "lumen-chat", messages: [{ role: "user", content: `hello ${index}` }] },
    });
    await response.text();
    if (response.status === 200) answered.push(requestId);
  };
  await call(0); // the key and the wallet are cached and loaded
  const calls: Promise<void>[] = [];
  for (let index = 1; index <= 60; index++) {
    if (index === 10) relay.cut();
    if (index === 40) relay.restore();
    calls.push(call(index));
    await Bun.sleep(50);
  }
  await Promise.all(calls);
  expect(answered.length).toBeGreaterThan(40);
  const deadline = Date.now() + 20_000;
  let charged: { request_id: string; charges: number }[] = [];
  while (Date.now() < deadline) {
    charged = await store.sql<{ request_id: string; charges: number }[]>`
      select request_id, count(*)::int as charges from ledger_entries
      where user_id = ${BigInt(userId)} and kind = 'charge' group by request_id`;
    if (charged.length >= answered.length) break;
    await Bun.sleep(100);
  }
  const byRequest = new Map(charged.map((row) => [row.request_id, row.charges]));
  expect(answered.filter((id) => byRequest.get(id) !== 1)).toEqual([]);
}, 60_000);
