// Proves the four balance and budget endpoints answer exactly the fields of spec 2.7, 2.10
// and 4.7, with the owner's wallet, the key's own budget, and the legacy display rules.
import { describe, expect, test } from "bun:test";
import { startTestApi } from "../../testing.ts";

const api = await startTestApi();

async function get(path: string, secret: string) {
  const response = await api.call("GET", path, { key: secret });
  expect(response.status).toBe(200);
  return response.json();
}

/** Charges a key through the ledger the way a finished task would. */
async function spend(account: { userId: string; keyId: string }, quota: bigint) {
  const holdId = `spend-${account.keyId}-${quota}-${Math.random()}`;
  const held = await api.app.ledger.hold({
    holdId,
    userId: BigInt(account.userId),
    keyId: BigInt(account.keyId),
    amountQuota: quota,
  });
  expect(held.ok).toBe(true);
  expect((await api.app.ledger.post(holdId, quota)).ok).toBe(true);
}

describe("GET /v1/balance", () => {
  test("is the owner's wallet in USD, unaffected by the key budget and by open holds", async () => {
    const account = await api.account({ balanceUsd: 10, key: { quota: 100_000 } });
    await spend(account, 37_500n); // $0.075
    await api.app.ledger.hold({
      holdId: `open-${account.keyId}`,
      userId: BigInt(account.userId),
      keyId: BigInt(account.keyId),
      amountQuota: 22_500n,
    });
    expect(await get("/v1/balance", account.secret)).toEqual({
      balance: 9.925,
      total_spent: 0.075,
    });
  });

  test("is shared by every key of the account", async () => {
    const account = await api.account({ balanceUsd: 3 });
    const second = await api.admin("POST", "/admin/keys", {
      user_id: account.userId,
      name: "second",
    });
    const { key } = (await second.json()) as { key: string };
    await spend(account, 500_000n);
    expect(await get("/v1/balance", key)).toEqual({ balance: 2, total_spent: 1 });
  });
});

describe("GET /api/usage/token/", () => {
  test("a key with a budget reports its own grant, use and remainder in quota", async () => {
    const account = await api.account({
      key: {
        quota: 100_000,
        rpm_limit: 60,
        model_limits: ["flare", "sunburst"],
        expires_at: 4_102_444_800,
      },
    });
    await spend(account, 22_500n);
    expect(await get("/api/usage/token/", account.secret)).toEqual({
      code: true,
      message: "ok",
      data: {
        object: "token_usage",
        name: "test key",
        total_granted: 100_000,
        total_used: 22_500,
        total_available: 77_500,
        unlimited_quota: false,
        rpm_limit: 60,
        model_limits: { flare: true, sunburst: true },
        model_limits_enabled: true,
        expires_at: 4_102_444_800,
      },
    });
  });

  test("a key without a budget reports the wallet as available, not infinity", async () => {
    const account = await api.account({ balanceUsd: 2 });
    await spend(account, 100_000n);
    const usage = (await get("/api/usage/token/", account.secret)) as {
      data: Record<string, unknown>;
    };
    expect(usage.data).toMatchObject({
      total_granted: 1_000_000,
      total_used: 100_000,
      total_available: 900_000,
      unlimited_quota: true,
      rpm_limit: 0,
      model_limits: {},
      model_limits_enabled: false,
      expires_at: 0,
    });
  });
});

describe("legacy billing calls", () => {
  const subscription = (limit: number, accessUntil = 0) => ({
    object: "billing_subscription",
    has_payment_method: true,
    soft_limit_usd: limit,
    hard_limit_usd: limit,
    system_hard_limit_usd: limit,
    access_until: accessUntil,
  });

  test("with key statistics, a limited key shows its budget and its spend in cents", async () => {
    const account = await api.account({ key: { quota: 1_000_000, expires_at: 4_102_444_800 } });
    await spend(account, 37_500n);
    for (const prefix of ["/v1", ""]) {
      expect(await get(`${prefix}/dashboard/billing/subscription`, account.secret)).toEqual(
        subscription(2, 4_102_444_800),
      );
      expect(await get(`${prefix}/dashboard/billing/usage`, account.secret)).toEqual({
        object: "list",
        total_usage: 7.5,
      });
    }
  });

  test("an unlimited key shows the nominal limit of 100000000", async () => {
    const account = await api.account();
    expect(await get("/v1/dashboard/billing/subscription", account.secret)).toEqual(
      subscription(100_000_000),
    );
  });

  test("start_date and end_date are accepted and ignored", async () => {
    const account = await api.account({ key: { quota: 1_000_000 } });
    await spend(account, 5_000n);
    const response = await api.call(
      "GET",
      "/v1/dashboard/billing/usage?start_date=2020-01-01&end_date=2020-01-02",
      {
        key: account.secret,
      },
    );
    expect(await response.json()).toEqual({ object: "list", total_usage: 1 });
  });

  test("with account statistics, limits are wallet remainder plus account spend", async () => {
    const accountApi = await startTestApi({ BILLING_STATS: "account" }, api.store);
    const account = await api.account({ balanceUsd: 5 });
    await spend(account, 500_000n);
    const response = await accountApi.call("GET", "/dashboard/billing/subscription", {
      key: account.secret,
    });
    expect(await response.json()).toEqual(subscription(5));
    const usage = await accountApi.call("GET", "/dashboard/billing/usage", { key: account.secret });
    expect(await usage.json()).toEqual({ object: "list", total_usage: 100 });
    await accountApi.stop();
  });

  test("with the token display, figures are quota and usage is quota x 100", async () => {
    const tokensApi = await startTestApi(
      { BILLING_STATS: "account", BILLING_DISPLAY: "TOKENS" },
      api.store,
    );
    const account = await api.account({ balanceUsd: 1 });
    await spend(account, 1_234n);
    const response = await tokensApi.call("GET", "/v1/dashboard/billing/subscription", {
      key: account.secret,
    });
    expect(((await response.json()) as { hard_limit_usd: number }).hard_limit_usd).toBe(500_000);
    const usage = await tokensApi.call("GET", "/v1/dashboard/billing/usage", {
      key: account.secret,
    });
    expect(await usage.json()).toEqual({ object: "list", total_usage: 123_400 });
    await tokensApi.stop();
  });
});
