// Proves the admin API creates and changes accounts and keys as documented, shows a secret
// once and stores only its hash, and refuses bad input with 400 and no change at all.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";

// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON body is walked freely in assertions.
type JsonTree = any;

import { startTestApi } from "../../testing.ts";

const api = await startTestApi();

async function json(response: Response) {
  return { status: response.status, body: (await response.json()) as Record<string, JsonTree> };
}

async function counts() {
  const [row] = await api.store.sql<{ users: bigint; keys: bigint; entries: bigint }[]>`
    select (select count(*) from users)::bigint as users, (select count(*) from api_keys)::bigint as keys,
           (select count(*) from ledger_entries)::bigint as entries`;
  return row!;
}

describe("admin users", () => {
  test("create, read, change and top up an account", async () => {
    const created = await json(
      await api.admin("POST", "/admin/users", { name: "Ada", balance_usd: 12.5, discount: 0.1 }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: created.body.id,
      name: "Ada",
      balance_usd: 12.5,
      total_spent_usd: 0,
      discount: 0.1,
      status: "active",
      allowed_models: [],
    });
    const id = created.body.id as string;
    expect((await json(await api.admin("GET", `/admin/users/${id}`))).body).toEqual(created.body);
    const patched = await json(
      await api.admin("PATCH", `/admin/users/${id}`, { name: "Ada L", status: "disabled" }),
    );
    expect(patched.body).toMatchObject({ name: "Ada L", status: "disabled", discount: 0.1 });
    const limited = await json(
      await api.admin("PATCH", `/admin/users/${id}`, { allowed_models: ["lumen-chat"] }),
    );
    expect(limited.body).toMatchObject({ name: "Ada L", allowed_models: ["lumen-chat"] });
    const topped = await json(
      await api.admin("POST", `/admin/users/${id}/credits`, { amount_usd: 0.075, note: "promo" }),
    );
    expect(topped.status).toBe(200);
    expect(topped.body.balance_usd).toBe(12.575);
    // Top-ups are ledger credits: the wallet equals the sum of its entries.
    const [sum] = await api.store.sql<{ sum: bigint }[]>`
      select sum(delta_quota)::bigint as sum from ledger_entries where user_id = ${BigInt(id)} and kind = 'credit'`;
    expect(sum!.sum).toBe(6_287_500n);
  });

  test("missing accounts answer 404 in the error shape", async () => {
    const missing = await json(await api.admin("GET", "/admin/users/999999999"));
    expect(missing).toEqual({
      status: 404,
      body: { error: { message: "No user 999999999", type: "not_found_error", code: "not_found" } },
    });
    expect(
      (await api.admin("POST", "/admin/users/999999999/credits", { amount_usd: 1 })).status,
    ).toBe(404);
    expect((await api.admin("PATCH", "/admin/users/999999999", { name: "x" })).status).toBe(404);
  });

  test("bad input is refused with 400 naming the field, and nothing is written", async () => {
    const before = await counts();
    const cases: [unknown, string][] = [
      [{ name: "x", zzz: 1 }, "zzz"],
      [{ name: 5 }, "name"],
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "x", balance_usd: "10" }, "balance_usd"],
      [{ name: "x", balance_usd: -1 }, "balance_usd"],
      [{ name: "x", balance_usd: 0.0000001 }, "balance_usd"],
      [{ name: "x", discount: 1.5 }, "discount"],
      [{ name: "x", status: "gone" }, "status"],
      [[1, 2], ""],
    ];
    for (const [body, field] of cases) {
      const { status, body: answer } = await json(await api.admin("POST", "/admin/users", body));
      expect(status).toBe(400);
      expect(answer.error.code).toBe("invalid_request");
      expect(answer.error.type).toBe("invalid_request_error");
      expect(answer.error.message).toContain(field);
    }
    const credit = await json(await api.admin("POST", "/admin/users/1/credits", { amount_usd: 0 }));
    expect(credit.status).toBe(400);
    expect((await api.admin("PATCH", "/admin/users/abc", { name: "x" })).status).toBe(400);
    expect((await api.admin("PATCH", "/admin/users/1", {})).status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  test("malformed JSON, wrong content types and huge bodies are refused", async () => {
    const before = await counts();
    const headers = {
      authorization: "Bearer test-admin-token-0123456789",
      "content-type": "application/json",
    };
    const broken = await json(await api.call("POST", "/admin/users", { headers, rawBody: "{bad" }));
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe("invalid_request");
    const text = await api.call("POST", "/admin/users", {
      headers: { authorization: headers.authorization, "content-type": "text/plain" },
      rawBody: "name=x",
    });
    expect(text.status).toBe(415);
    const huge = await json(
      await api.call("POST", "/admin/users", {
        headers,
        rawBody: JSON.stringify({ name: "x".repeat(2_000_000) }),
      }),
    );
    expect(huge).toEqual({
      status: 413,
      body: {
        error: {
          message: "The request body exceeds 1048576 bytes",
          type: "invalid_request_error",
          code: "payload_too_large",
        },
      },
    });
    // A chunked body declares no length; it is still cut off at the limit.
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 40; i++)
          controller.enqueue(new TextEncoder().encode("x".repeat(64 * 1024)));
        controller.close();
      },
    });
    const chunked = await fetch(`${api.url}/admin/users`, {
      method: "POST",
      headers,
      body: chunks,
    });
    expect(chunked.status).toBe(413);
    expect(await counts()).toEqual(before);
  });

  test("the admin token is required and compared exactly", async () => {
    const none = await json(await api.call("POST", "/admin/users", { body: { name: "x" } }));
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("invalid_admin_token");
    const wrong = await api.call("GET", "/admin/users/1", {
      headers: { authorization: "Bearer test-admin-token-012345678X" },
    });
    expect(wrong.status).toBe(401);
    const { secret } = await api.account();
    expect((await api.call("GET", "/admin/users/1", { key: secret })).status).toBe(401);
  });

  test("without ADMIN_TOKEN the admin API is off", async () => {
    const off = await startTestApi({ ADMIN_TOKEN: "" }, api.store);
    const answer = await json(
      await off.call("POST", "/admin/users", {
        body: { name: "x" },
        headers: { authorization: "Bearer " },
      }),
    );
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe("admin_disabled");
    await off.stop();
  });
});

describe("admin keys", () => {
  test("a key's secret is shown once, stored as its SHA-256, and never read back", async () => {
    const user = await json(await api.admin("POST", "/admin/users", { name: "Keyholder" }));
    const created = await json(
      await api.admin("POST", "/admin/keys", {
        user_id: user.body.id,
        name: "ci",
        quota: 250_000,
        rpm_limit: 30,
        model_limits: ["flare"],
        allowed_ips: ["10.1.2.3/8", "2001:DB8::1"],
        expires_at: 4_102_444_800,
      }),
    );
    expect(created.status).toBe(201);
    const secret = created.body.key as string;
    expect(secret).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    expect(created.body).toMatchObject({
      user_id: user.body.id,
      name: "ci",
      status: "enabled",
      quota: 250_000,
      used_quota: 0,
      rpm_limit: 30,
      model_limits: ["flare"],
      allowed_ips: ["10.0.0.0/8", "2001:db8::1"],
      expires_at: 4_102_444_800,
    });
    const [row] = await api.store.sql<{ secret_hash: Uint8Array }[]>`
      select secret_hash from api_keys where id = ${BigInt(created.body.id)}`;
    expect(Buffer.from(row!.secret_hash).toString("hex")).toBe(
      createHash("sha256").update(secret).digest("hex"),
    );
    const read = await json(await api.admin("GET", `/admin/keys/${created.body.id}`));
    expect(read.body.key).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain(secret.slice(7, 40));
    const { key: _secret, ...withoutSecret } = created.body;
    expect(read.body).toEqual(withoutSecret);
  });

  test("every field can be changed, and a new budget binds at once", async () => {
    const account = await api.account({ key: { quota: 1_000 } });
    const patched = await json(
      await api.admin("PATCH", `/admin/keys/${account.keyId}`, {
        name: "renamed",
        quota: null,
        rpm_limit: 5,
        model_limits: [],
        allowed_ips: ["::1"],
        expires_at: 0,
        status: "disabled",
      }),
    );
    expect(patched.body).toMatchObject({
      name: "renamed",
      quota: null,
      rpm_limit: 5,
      allowed_ips: ["::1"],
      status: "disabled",
    });
    await api.admin("PATCH", `/admin/keys/${account.keyId}`, { quota: 100 });
    const held = await api.app.ledger.hold({
      holdId: `budget-${account.keyId}`,
      userId: BigInt(account.userId),
      keyId: BigInt(account.keyId),
      amountQuota: 101n,
    });
    expect(!held.ok && held.code).toBe("key_budget_exceeded");
  });

  test("bad key input is refused with 400 and writes nothing", async () => {
    const user = await json(await api.admin("POST", "/admin/users", { name: "Strict" }));
    const before = await counts();
    const cases: [unknown, string][] = [
      [{ user_id: user.body.id, name: "k", allowed_ips: ["10.0.0.0/33"] }, "allowed_ips"],
      [{ user_id: user.body.id, name: "k", allowed_ips: ["not-an-ip"] }, "allowed_ips"],
      [{ user_id: user.body.id, name: "k", quota: -5 }, "quota"],
      [{ user_id: user.body.id, name: "k", quota: 1.5 }, "quota"],
      [{ user_id: user.body.id, name: "k", rpm_limit: "ten" }, "rpm_limit"],
      [{ user_id: user.body.id, name: "k", expires_at: -1 }, "expires_at"],
      [{ user_id: user.body.id, name: "k", model_limits: "flare" }, "model_limits"],
      [{ user_id: user.body.id, name: "k", secret: "sk-mine" }, "secret"],
      [{ user_id: "999999999", name: "k" }, "user_id"],
      [{ name: "k" }, "user_id"],
    ];
    for (const [body, field] of cases) {
      const answer = await json(await api.admin("POST", "/admin/keys", body));
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toContain(field);
    }
    expect((await api.admin("PATCH", "/admin/keys/1", { status: "deleted" })).status).toBe(400);
    expect((await api.admin("DELETE", "/admin/keys/999999999")).status).toBe(404);
    expect(await counts()).toEqual(before);
  });
});
