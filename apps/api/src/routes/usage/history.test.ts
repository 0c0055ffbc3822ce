// Proves the spend history, summary, key log and CSV export (spec 2.11-2.13, 4.10) against
// real Postgres: keyset pages with records added between calls, sums equal to the records
// with refunds, the three authorization rules, IP allow-lists, and other accounts unseen.
import { describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import type { Sql } from "@gw/store";
import { type Account, startTestApi } from "../../testing.ts";

const api = await startTestApi({ TRUSTED_PROXIES: "loopback" });
const { ledger } = api.app;
const sql = api.store.sql;
const begin = <T>(run: (tx: Sql) => Promise<T>) =>
  sql.begin((tx) => run(tx as unknown as Sql)) as Promise<T>;

interface Record_ {
  id: number;
  created_at: number;
  request_id: string | null;
  model: string | null;
  kind: "charge" | "refund";
  amount_usd: number;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** A charge made the way a paid call makes it: a hold, then its post. */
async function charge(account: Account, quota: bigint, model = "gpt-image-1", tokens = [0, 0]) {
  const holdId = `t_${randomUUID()}`;
  const held = await ledger.hold({
    holdId,
    userId: BigInt(account.userId),
    keyId: BigInt(account.keyId),
    amountQuota: quota,
  });
  if (!held.ok) throw new Error(`hold: ${held.code}`);
  const posted = await ledger.post(holdId, quota, {
    model,
    promptTokens: tokens[0],
    completionTokens: tokens[1],
    other: { estimated_prompt_tokens: tokens[0] },
  });
  if (!posted.ok) throw new Error(`post: ${posted.code}`);
  return holdId;
}

/** Reserve -> charge -> refund (audio): a charge of the reserve, a refund of the unused part. */
async function chargeThenRefund(account: Account, reserve: bigint, actual: bigint, model: string) {
  const holdId = `a_${randomUUID()}`;
  const prepaid = await ledger.prepay(
    { holdId, userId: BigInt(account.userId), keyId: BigInt(account.keyId), amountQuota: reserve },
    { model },
  );
  if (!prepaid.ok) throw new Error(`prepay: ${prepaid.code}`);
  await begin((tx) => prepaid.chargeWithin(tx));
  await prepaid.afterCommit();
  let after: (() => Promise<unknown>) | null = null;
  await begin(async (tx) => {
    const staged = await ledger.refundWithin(tx, holdId, actual);
    after = staged.afterCommit;
  });
  await (after as (() => Promise<unknown>) | null)?.();
  return holdId;
}

async function get(path: string, account: Account, headers: Record<string, string> = {}) {
  const response = await api.call("GET", path, { key: account.secret, headers });
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers of several shapes, read field by field
  return { status: response.status, body: (await response.json()) as any, response };
}

async function allPages(account: Account, limit: number, query = "") {
  const seen: Record_[] = [];
  let cursor: number | undefined;
  for (;;) {
    const page = await get(
      `/api/usage/self/requests?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}${query}`,
      account,
    );
    expect(page.status).toBe(200);
    seen.push(...page.body.data.items);
    if (!page.body.data.has_more) {
      expect("next_cursor" in page.body.data).toBe(false);
      return seen;
    }
    cursor = page.body.data.next_cursor;
  }
}

describe("GET /api/usage/self/requests", () => {
  test("charges and refunds of the whole account, newest first, refunds negative", async () => {
    const account = await api.account({ balanceUsd: 50 });
    const second = await api.admin("POST", "/admin/keys", { user_id: account.userId, name: "b" });
    const other = { ...account, ...((await second.json()) as { id: string; key: string }) };
    const otherKey = { userId: account.userId, keyId: other.id, secret: other.key };
    await charge(account, 21_000n, "gpt-image-1", [12, 0]);
    await charge(otherKey, 5_000n, "lumina-image");
    await chargeThenRefund(account, 10_000n, 4_000n, "sonora/speech");
    const { status, body } = await get("/api/usage/self/requests", account);
    expect(status).toBe(200);
    const items = body.data.items as Record_[];
    expect(items.map((item) => [item.kind, item.quota, item.amount_usd, item.model])).toEqual([
      ["refund", -6_000, -0.012, "sonora/speech"],
      ["charge", 10_000, 0.02, "sonora/speech"],
      ["charge", 5_000, 0.01, "lumina-image"],
      ["charge", 21_000, 0.042, "gpt-image-1"],
    ]);
    expect(items[3]!.prompt_tokens).toBe(12);
    expect(items.map((item) => item.id)).toEqual(
      [...items.map((item) => item.id)].sort((a, b) => b - a),
    );
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(
        [
          "id",
          "created_at",
          "request_id",
          "model",
          "kind",
          "amount_usd",
          "quota",
          "prompt_tokens",
          "completion_tokens",
          "cache_read_tokens",
          "cache_write_tokens",
        ].sort(),
      );
      expect(Math.abs(item.created_at - Date.now() / 1000)).toBeLessThan(60);
    }
    expect(body.data.has_more).toBe(false);
    // The opening credit is not a spend record.
    expect(items.some((item) => (item.kind as string) === "credit")).toBe(false);
  });

  test("pages cover every record once, even with records added between the calls", async () => {
    const account = await api.account({ balanceUsd: 100 });
    for (let i = 0; i < 23; i++) await charge(account, BigInt(1_000 + i));
    const first = await get("/api/usage/self/requests?limit=10", account);
    expect(first.body.data.items).toHaveLength(10);
    expect(first.body.data.has_more).toBe(true);
    // New records land between pages; they are newer, so later pages do not shift.
    for (let i = 0; i < 5; i++) await charge(account, 50_000n);
    const seen: Record_[] = [...first.body.data.items];
    let cursor = first.body.data.next_cursor as number;
    for (;;) {
      const page = await get(`/api/usage/self/requests?limit=10&cursor=${cursor}`, account);
      seen.push(...page.body.data.items);
      if (!page.body.data.has_more) break;
      cursor = page.body.data.next_cursor;
      await charge(account, 50_000n);
    }
    const quotas = seen.map((item) => item.quota);
    expect(quotas).toEqual(Array.from({ length: 23 }, (_, i) => 1_000 + 22 - i));
    expect(new Set(seen.map((item) => item.id)).size).toBe(23);
  });

  test("the period bounds are inclusive start, exclusive end", async () => {
    const account = await api.account({ balanceUsd: 10 });
    const ids = [
      await charge(account, 100n),
      await charge(account, 200n),
      await charge(account, 300n),
    ];
    const base = Math.floor(Date.now() / 1000) - 10 * 86_400;
    for (const [i, id] of ids.entries())
      await sql`update ledger_entries set created_at = to_timestamp(${base + i * 100})
                where business_key = ${`${id}:charge`}`;
    const range = (start: number, end: number) => `&start_timestamp=${start}&end_timestamp=${end}`;
    const quotas = async (query: string) =>
      (await allPages(account, 100, query)).map((item) => item.quota);
    expect(await quotas(range(base, base + 200))).toEqual([200, 100]);
    expect(await quotas(range(base + 1, base + 201))).toEqual([300, 200]);
    expect(await quotas(range(base + 100, base + 101))).toEqual([200]);
    // Ten days back is inside the default 30 days; 40 days back is not.
    expect(await quotas("")).toEqual([300, 200, 100]);
    await sql`update ledger_entries set created_at = created_at - interval '30 days'
              where business_key = ${`${ids[0]}:charge`}`;
    expect(await quotas("")).toEqual([300, 200]);
  });

  test("malformed and out-of-range parameters are 400s naming the parameter", async () => {
    const account = await api.account();
    const now = Math.floor(Date.now() / 1000);
    for (const [query, name] of [
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=x", "limit"],
      ["cursor=0", "cursor"],
      ["cursor=-3", "cursor"],
      ["start_timestamp=abc", "start_timestamp"],
      [`end_timestamp=${now + 2 * 86_400}`, "end_timestamp"],
      [`start_timestamp=${now - 91 * 86_400}&end_timestamp=${now}`, "start_timestamp"],
      [`start_timestamp=${now}&end_timestamp=${now - 10}`, "start_timestamp"],
    ]) {
      const { status, body } = await get(`/api/usage/self/requests?${query}`, account);
      expect({ query, status, code: body.error?.code }).toEqual({
        query,
        status: 400,
        code: "invalid_request",
      });
      expect(body.error.message).toContain(`'${name!}'`);
      const summary = await get(`/api/usage/self/summary?${query}`, account);
      if (name!.endsWith("timestamp")) expect(summary.status).toBe(400);
    }
  });

  test("CSV by Accept or ?format=csv carries exactly the JSON records", async () => {
    const account = await api.account({ balanceUsd: 50 });
    for (let i = 0; i < 7; i++) await charge(account, BigInt(2_000 + i), `model,"${i}"`);
    await chargeThenRefund(account, 10_000n, 3_000n, "sonora/speech");
    const json = await allPages(account, 3);
    for (const headers of [{ accept: "text/csv" }, {}] as Record<string, string>[]) {
      const path = headers.accept
        ? "/api/usage/self/requests"
        : "/api/usage/self/requests?format=csv";
      const response = await api.call("GET", path, { key: account.secret, headers });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toStartWith("text/csv");
      const text = await response.text();
      const rows = parseCsv(text);
      expect(rows[0]).toEqual([
        "id",
        "created_at",
        "request_id",
        "model",
        "kind",
        "amount_usd",
        "quota",
        "prompt_tokens",
        "completion_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
      ]);
      expect(rows.slice(1)).toEqual(
        json.map((item) => [
          String(item.id),
          String(item.created_at),
          item.request_id ?? "",
          item.model ?? "",
          item.kind,
          String(item.amount_usd),
          String(item.quota),
          String(item.prompt_tokens),
          String(item.completion_tokens),
          String(item.cache_read_tokens),
          String(item.cache_write_tokens),
        ]),
      );
    }
    // The same authorization: no key, no CSV.
    const anonymous = await api.call("GET", "/api/usage/self/requests?format=csv");
    expect(anonymous.status).toBe(401);
  });
});

/** RFC 4180 rows (quoted cells with doubled quotes), enough to read our export back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    const next = text[i + 1];
    i++;
    if (quoted && char === '"' && next === '"') {
      cell += '"';
      i++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (quoted) {
      cell += char;
    } else if (char === ",") {
      row.push(cell);
      cell = "";
    } else if (char === "\r" && next === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else {
      cell += char;
    }
  }
  return rows;
}

describe("GET /api/usage/self/summary", () => {
  test("sums equal the records, refunds net out, requests count charges only", async () => {
    const account = await api.account({ balanceUsd: 50 });
    await charge(account, 21_000n, "gpt-image-1", [30, 5]);
    await charge(account, 21_000n, "gpt-image-1", [10, 1]);
    await charge(account, 7_000n, "lumina-image");
    await chargeThenRefund(account, 10_000n, 4_000n, "sonora/speech");
    const { status, body } = await get("/api/usage/self/summary", account);
    expect(status).toBe(200);
    const records = await allPages(account, 100);
    const net = records.reduce((sum, item) => sum + item.quota, 0);
    expect(body.data.requests).toBe(records.filter((item) => item.kind === "charge").length);
    expect(body.data.requests).toBe(4);
    expect(body.data.net_quota).toBe(net);
    expect(body.data.net_quota).toBe(21_000 + 21_000 + 7_000 + 4_000);
    expect(body.data.net_usd).toBe(0.106);
    expect(body.data.by_model).toEqual([
      {
        model: "gpt-image-1",
        requests: 2,
        net_usd: 0.084,
        net_quota: 42_000,
        prompt_tokens: 40,
        completion_tokens: 6,
      },
      {
        model: "lumina-image",
        requests: 1,
        net_usd: 0.014,
        net_quota: 7_000,
        prompt_tokens: 0,
        completion_tokens: 0,
      },
      {
        model: "sonora/speech",
        requests: 1,
        net_usd: 0.008,
        net_quota: 4_000,
        prompt_tokens: 0,
        completion_tokens: 0,
      },
    ]);
    const now = Math.floor(Date.now() / 1000);
    expect(body.data.end_timestamp - now).toBeLessThanOrEqual(1);
    expect(body.data.end_timestamp - body.data.start_timestamp).toBe(30 * 86_400);
  });

  test("reports the period it was given", async () => {
    const account = await api.account();
    const end = Math.floor(Date.now() / 1000) - 100;
    const { body } = await get(
      `/api/usage/self/summary?start_timestamp=${end - 3600}&end_timestamp=${end}`,
      account,
    );
    expect(body.data).toEqual({
      start_timestamp: end - 3600,
      end_timestamp: end,
      requests: 0,
      net_usd: 0,
      net_quota: 0,
      by_model: [],
    });
  });
});

describe("authorization of the spend reads", () => {
  const SELF = ["/api/usage/self/requests", "/api/usage/self/summary"];

  test("x-api-key works for the two self calls; a missing key is 401", async () => {
    const account = await api.account();
    for (const path of SELF) {
      const response = await api.call("GET", path, { headers: { "x-api-key": account.secret } });
      expect(response.status).toBe(200);
      expect((await api.call("GET", path)).status).toBe(401);
    }
  });

  test("an exhausted key reads; a disabled or expired one does not; the key log admits all three", async () => {
    const exhausted = await api.account({ key: { quota: 5_000 } });
    await charge(exhausted, 5_000n);
    expect((await get("/v1/balance", exhausted)).body.error.code).toBe("key_exhausted");
    for (const path of SELF) expect((await get(path, exhausted)).status).toBe(200);
    expect((await get("/api/log/token", exhausted)).status).toBe(200);

    const disabled = await api.account();
    await api.admin("PATCH", `/admin/keys/${disabled.keyId}`, { status: "disabled" });
    const expired = await api.account();
    await api.admin("PATCH", `/admin/keys/${expired.keyId}`, {
      expires_at: Math.floor(Date.now() / 1000) - 1,
    });
    for (const [account, code] of [
      [disabled, "key_disabled"],
      [expired, "key_expired"],
    ] as const) {
      for (const path of SELF) {
        const { status, body } = await get(path, account);
        expect({ path, status, code: body.error?.code }).toEqual({ path, status: 401, code });
      }
      expect((await get("/api/log/token", account)).status).toBe(200);
    }
  });

  test("a deleted key never reads, not even its log", async () => {
    const account = await api.account();
    await api.admin("DELETE", `/admin/keys/${account.keyId}`);
    for (const path of [...SELF, "/api/log/token"])
      expect((await get(path, account)).body.error.code).toBe("key_deleted");
  });

  test("the key's IP allow-list applies", async () => {
    const account = await api.account({ key: { allowed_ips: ["203.0.113.0/24"] } });
    for (const path of [...SELF, "/api/log/token"]) {
      const inside = await get(path, account, { "x-forwarded-for": "203.0.113.7" });
      expect(inside.status).toBe(200);
      const outside = await get(path, account, { "x-forwarded-for": "198.51.100.7" });
      expect({ path, status: outside.status, code: outside.body.error?.code }).toEqual({
        path,
        status: 403,
        code: "ip_not_allowed",
      });
    }
  });

  test("another account's records are never visible", async () => {
    const mine = await api.account({ balanceUsd: 10 });
    const theirs = await api.account({ balanceUsd: 10 });
    const myId = await charge(mine, 1_111n, "my-model");
    await charge(theirs, 9_999n, "theirs-model");
    const history = await allPages(mine, 100);
    expect(history.map((item) => item.quota)).toEqual([1_111]);
    expect(history[0]!.request_id).toBe(myId);
    const summary = await get("/api/usage/self/summary", mine);
    expect(summary.body.data.by_model.map((row: { model: string }) => row.model)).toEqual([
      "my-model",
    ]);
    // Their cursor values do not open their records either: pages are always of the caller.
    const theirPage = await get("/api/usage/self/requests", theirs);
    const theirCursor = theirPage.body.data.items[0].id + 1;
    const probe = await get(`/api/usage/self/requests?cursor=${theirCursor}`, mine);
    expect(probe.body.data.items.map((item: Record_) => item.quota)).toEqual([1_111]);
    const csv = await (
      await api.call("GET", "/api/usage/self/requests?format=csv", { key: mine.secret })
    ).text();
    expect(csv).not.toContain("theirs-model");
  });
});

describe("GET /api/log/token", () => {
  test("this key's newest records only, in the spec 2.13 shape", async () => {
    const account = await api.account({ balanceUsd: 20 });
    const second = await api.admin("POST", "/admin/keys", { user_id: account.userId, name: "b" });
    const otherKey = (await second.json()) as { id: string; key: string };
    await charge(account, 1_000n, "gpt-image-1", [7, 2]);
    await charge({ userId: account.userId, keyId: otherKey.id, secret: otherKey.key }, 2_000n);
    const refundId = await chargeThenRefund(account, 10_000n, 2_500n, "sonora/speech");
    const { status, body } = await get("/api/log/token", account);
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(typeof body.message).toBe("string");
    const data = body.data as Record<string, unknown>[];
    expect(data.map((row) => [row.type, row.quota, row.model_name])).toEqual([
      [6, -7_500, "sonora/speech"],
      [2, 10_000, "sonora/speech"],
      [2, 1_000, "gpt-image-1"],
    ]);
    expect(data[0]!.request_id).toBe(refundId);
    expect(data[2]).toMatchObject({ prompt_tokens: 7, completion_tokens: 2, is_stream: false });
    expect(JSON.parse(String(data[2]!.other))).toEqual({ estimated_prompt_tokens: 7 });
    expect(JSON.parse(String(data[0]!.other))).toEqual({});
    for (const row of data) {
      expect(Object.keys(row).sort()).toEqual(
        [
          "created_at",
          "request_id",
          "model_name",
          "type",
          "quota",
          "prompt_tokens",
          "completion_tokens",
          "use_time",
          "is_stream",
          "other",
        ].sort(),
      );
      expect(row.use_time).toBeGreaterThanOrEqual(0);
    }
    const empty = await api.account();
    expect((await get("/api/log/token", empty)).body).toEqual({
      success: true,
      message: "",
      data: [],
    });
  });

  test("shows at most the server's limit of records", async () => {
    const account = await api.account({ balanceUsd: 10 });
    const { KEY_LOG_LIMIT } = await import("@gw/ledger");
    for (let i = 0; i < KEY_LOG_LIMIT + 3; i++) await charge(account, BigInt(10 + i));
    const { body } = await get("/api/log/token", account);
    expect(body.data).toHaveLength(KEY_LOG_LIMIT);
    expect(body.data[0].quota).toBe(10 + KEY_LOG_LIMIT + 2);
  });
});
