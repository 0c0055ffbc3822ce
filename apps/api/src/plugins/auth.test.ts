// Proves every key state is admitted or refused as spec section 5 says, under ordinary
// and read-only authorization, and that IP allow-lists (v4, v6, CIDR) hold behind a proxy.
import { describe, expect, test } from "bun:test";
import { startTestApi } from "../testing.ts";

// Loopback is the trusted proxy here, so tests can speak for clients through X-Forwarded-For.
const api = await startTestApi({ TRUSTED_PROXIES: "loopback" });

const ORDINARY = "/v1/balance";
const READ_ONLY = "/api/usage/token/";

async function statusOf(path: string, secret: string, headers: Record<string, string> = {}) {
  const response = await api.call("GET", path, { key: secret, headers });
  const body = (await response.json()) as { error?: { code: string; type: string } };
  return { status: response.status, code: body.error?.code };
}

async function both(secret: string) {
  return {
    ordinary: await statusOf(ORDINARY, secret),
    readOnly: await statusOf(READ_ONLY, secret),
  };
}

describe("key states under both authorizations", () => {
  test("an enabled key of an active account passes both", async () => {
    const { secret } = await api.account();
    expect(await both(secret)).toEqual({
      ordinary: { status: 200, code: undefined },
      readOnly: { status: 200, code: undefined },
    });
  });

  test("a disabled key is refused ordinarily but may read its own usage", async () => {
    const { secret, keyId } = await api.account();
    await api.admin("PATCH", `/admin/keys/${keyId}`, { status: "disabled" });
    expect(await both(secret)).toEqual({
      ordinary: { status: 401, code: "key_disabled" },
      readOnly: { status: 200, code: undefined },
    });
  });

  test("an expired key is refused ordinarily but may read its own usage", async () => {
    const { secret, keyId } = await api.account();
    await api.admin("PATCH", `/admin/keys/${keyId}`, {
      expires_at: Math.floor(Date.now() / 1000) - 1,
    });
    expect(await both(secret)).toEqual({
      ordinary: { status: 401, code: "key_expired" },
      readOnly: { status: 200, code: undefined },
    });
  });

  test("a key expiring in the future still works", async () => {
    const { secret } = await api.account({
      key: { expires_at: Math.floor(Date.now() / 1000) + 3600 },
    });
    expect((await both(secret)).ordinary.status).toBe(200);
  });

  test("an exhausted key (budget used up) is refused ordinarily but may read its own usage", async () => {
    const { secret, keyId, userId } = await api.account({ key: { quota: 1000 } });
    const ledger = api.app.ledger;
    await ledger.hold({
      holdId: `ex-${keyId}`,
      userId: BigInt(userId),
      keyId: BigInt(keyId),
      amountQuota: 1000n,
    });
    await ledger.post(`ex-${keyId}`, 1000n);
    expect(await both(secret)).toEqual({
      ordinary: { status: 401, code: "key_exhausted" },
      readOnly: { status: 200, code: undefined },
    });
  });

  test("a deleted key never works, not even read-only", async () => {
    const { secret, keyId } = await api.account();
    expect((await api.admin("DELETE", `/admin/keys/${keyId}`)).status).toBe(204);
    expect(await both(secret)).toEqual({
      ordinary: { status: 401, code: "key_deleted" },
      readOnly: { status: 401, code: "key_deleted" },
    });
    expect((await api.admin("GET", `/admin/keys/${keyId}`)).status).toBe(404);
  });

  test("a key of a disabled account works for neither", async () => {
    const { secret, userId } = await api.account();
    await api.admin("PATCH", `/admin/users/${userId}`, { status: "disabled" });
    expect(await both(secret)).toEqual({
      ordinary: { status: 401, code: "account_disabled" },
      readOnly: { status: 401, code: "account_disabled" },
    });
  });

  test("unknown, malformed and missing keys answer 401 in the error shape", async () => {
    const { secret } = await api.account();
    const unknown = `sk-${"A".repeat(48)}`;
    expect(await statusOf(ORDINARY, unknown)).toEqual({ status: 401, code: "invalid_api_key" });
    expect(await statusOf(ORDINARY, "not-a-key")).toEqual({ status: 401, code: "invalid_api_key" });
    const altered = `${secret.slice(0, -1)}${secret.endsWith("x") ? "y" : "x"}`;
    expect(await statusOf(ORDINARY, altered)).toEqual({
      status: 401,
      code: "invalid_api_key",
    });
    const missing = await api.call("GET", ORDINARY);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      error: {
        message: "Invalid or missing API key; send Authorization: Bearer <API_KEY>",
        type: "authentication_error",
        code: "invalid_api_key",
      },
    });
    const basic = await api.call("GET", ORDINARY, {
      headers: { authorization: `Basic ${secret}` },
    });
    expect(basic.status).toBe(401);
  });

  test("x-api-key is not accepted where the spec does not allow it", async () => {
    const { secret } = await api.account();
    const response = await api.call("GET", ORDINARY, { headers: { "x-api-key": secret } });
    expect(response.status).toBe(401);
  });
});

describe("IP allow-lists", () => {
  const from = (ip: string) => ({ "x-forwarded-for": ip });

  test("IPv4 addresses and CIDRs", async () => {
    const { secret } = await api.account({
      key: { allowed_ips: ["203.0.113.7", "198.51.100.0/24"] },
    });
    expect((await statusOf(ORDINARY, secret, from("203.0.113.7"))).status).toBe(200);
    expect((await statusOf(ORDINARY, secret, from("198.51.100.255"))).status).toBe(200);
    expect(await statusOf(ORDINARY, secret, from("198.51.101.0"))).toEqual({
      status: 403,
      code: "ip_not_allowed",
    });
    expect(await statusOf(ORDINARY, secret, from("203.0.113.8"))).toEqual({
      status: 403,
      code: "ip_not_allowed",
    });
  });

  test("IPv6 addresses and CIDRs", async () => {
    const { secret } = await api.account({
      key: { allowed_ips: ["2001:db8::/32", "2001:0db9::1"] },
    });
    expect((await statusOf(ORDINARY, secret, from("2001:db8:ffff::1"))).status).toBe(200);
    expect((await statusOf(ORDINARY, secret, from("2001:db9::1"))).status).toBe(200);
    expect((await statusOf(ORDINARY, secret, from("2001:db9::2"))).status).toBe(403);
    expect((await statusOf(ORDINARY, secret, from("203.0.113.7"))).status).toBe(403);
  });

  test("the allow-list applies to read-only authorization too", async () => {
    const { secret } = await api.account({ key: { allowed_ips: ["10.0.0.0/8"] } });
    expect((await statusOf(READ_ONLY, secret, from("10.1.2.3"))).status).toBe(200);
    expect(await statusOf(READ_ONLY, secret, from("11.1.2.3"))).toEqual({
      status: 403,
      code: "ip_not_allowed",
    });
  });

  test("a bad key answers 401 before its IP is judged", async () => {
    const { secret, keyId } = await api.account({ key: { allowed_ips: ["10.0.0.0/8"] } });
    await api.admin("PATCH", `/admin/keys/${keyId}`, { status: "disabled" });
    expect((await statusOf(ORDINARY, secret, from("11.1.2.3"))).status).toBe(401);
  });

  test("without a trusted proxy, X-Forwarded-For is ignored and the socket address counts", async () => {
    const direct = await startTestApi({}, api.store);
    const { secret } = await api.account({ key: { allowed_ips: ["203.0.113.7"] } });
    const spoofed = await direct.call("GET", ORDINARY, {
      key: secret,
      headers: from("203.0.113.7"),
    });
    expect(spoofed.status).toBe(403);
    const { secret: local } = await api.account({ key: { allowed_ips: ["127.0.0.1"] } });
    expect((await direct.call("GET", ORDINARY, { key: local })).status).toBe(200);
    await direct.stop();
  });
});
