// Proves a failure behind the body plugin's credential check (Postgres unreachable while
// the key is looked up) answers 500 internal_error, never a 400 telling the client its
// JSON is bad, which no client would retry (found by the soak, issue 16).
import { afterAll, expect, test } from "bun:test";
import { connectPostgres } from "@gw/store";
import { createTestStore, startTcpProxy } from "@gw/store/testing";
import { startTestApi } from "../testing.ts";

const store = await createTestStore();
const relay = startTcpProxy(Number(new URL(store.databaseUrl).port || 5432));
const viaRelay = new URL(store.databaseUrl);
viaRelay.hostname = "127.0.0.1";
viaRelay.port = String(relay.port);
const sql = connectPostgres(viaRelay.href, { schema: store.schema, max: 4 });
const api = await startTestApi({ AUTH_CACHE_MS: "0" }, { ...store, sql });
afterAll(() => sql.end({ timeout: 1 }));

test("Postgres cut during the credential check of a JSON call: 500 internal_error, not 400", async () => {
  const { secret } = await api.account({ balanceUsd: 1 });
  // Stopped, not cut: new connections are refused at once, as when Postgres is down.
  relay.stop();
  const response = await api.call("POST", "/v1/images/generations", {
    key: secret,
    body: { model: "gpt-image-1", prompt: "a lamp", quality: "low" },
  });
  const body = (await response.json()) as { error: { code: string } };
  expect({ status: response.status, code: body.error.code }).toEqual({
    status: 500,
    code: "internal_error",
  });
}, 20_000);
