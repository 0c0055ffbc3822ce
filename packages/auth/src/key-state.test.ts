// Proves every key state is admitted or rejected correctly in both modes, in the specified order.
import { describe, expect, test } from "bun:test";
import { compileAllowList } from "./ip.ts";
import {
  type AuthMode,
  checkKey,
  type KeyFacts,
  type KeyRejection,
  rejectionStatus,
} from "./key-state.ts";

const NOW = 1_700_000_000;

const healthy: KeyFacts = {
  status: "enabled",
  deleted: false,
  expiresAt: 0,
  quotaLimit: null,
  usedQuota: 0n,
  allowedIps: [],
  userStatus: "active",
};

type Expect = "ok" | KeyRejection;

// [name, changes to a healthy key, ordinary outcome, read-only outcome]
const cases: [string, Partial<KeyFacts>, Expect, Expect][] = [
  ["healthy", {}, "ok", "ok"],
  ["deleted", { deleted: true }, "key_deleted", "key_deleted"],
  ["account disabled", { userStatus: "disabled" }, "account_disabled", "account_disabled"],
  ["key disabled", { status: "disabled" }, "key_disabled", "ok"],
  ["expired long ago", { expiresAt: NOW - 86_400 }, "key_expired", "ok"],
  ["expires exactly now", { expiresAt: NOW }, "key_expired", "ok"],
  ["expires one second from now", { expiresAt: NOW + 1 }, "ok", "ok"],
  ["never expires", { expiresAt: 0 }, "ok", "ok"],
  ["used == limit", { quotaLimit: 100n, usedQuota: 100n }, "key_exhausted", "ok"],
  ["used == limit - 1", { quotaLimit: 100n, usedQuota: 99n }, "ok", "ok"],
  ["used > limit", { quotaLimit: 100n, usedQuota: 150n }, "key_exhausted", "ok"],
  ["zero limit", { quotaLimit: 0n, usedQuota: 0n }, "key_exhausted", "ok"],
  ["no limit, heavy use", { quotaLimit: null, usedQuota: 10n ** 30n }, "ok", "ok"],
  ["ip allowed", { allowedIps: ["203.0.113.0/24"] }, "ok", "ok"],
  ["ip not allowed", { allowedIps: ["10.0.0.0/8"] }, "ip_not_allowed", "ip_not_allowed"],
  // order: deleted → account → disabled → expired → exhausted → ip
  [
    "deleted and account disabled",
    { deleted: true, userStatus: "disabled" },
    "key_deleted",
    "key_deleted",
  ],
  [
    "account disabled and key disabled",
    { userStatus: "disabled", status: "disabled" },
    "account_disabled",
    "account_disabled",
  ],
  ["disabled and expired", { status: "disabled", expiresAt: NOW - 1 }, "key_disabled", "ok"],
  [
    "expired and exhausted",
    { expiresAt: NOW - 1, quotaLimit: 1n, usedQuota: 1n },
    "key_expired",
    "ok",
  ],
  [
    "exhausted and ip not allowed",
    { quotaLimit: 1n, usedQuota: 1n, allowedIps: ["10.0.0.0/8"] },
    "key_exhausted",
    "ip_not_allowed",
  ],
  [
    "deleted and ip not allowed",
    { deleted: true, allowedIps: ["10.0.0.0/8"] },
    "key_deleted",
    "key_deleted",
  ],
  [
    "everything wrong",
    {
      deleted: true,
      userStatus: "disabled",
      status: "disabled",
      expiresAt: NOW - 1,
      quotaLimit: 0n,
      allowedIps: ["10.0.0.0/8"],
    },
    "key_deleted",
    "key_deleted",
  ],
];

const CLIENT = "203.0.113.9";

function outcome(facts: KeyFacts, mode: AuthMode, ip: string | null = CLIENT): Expect {
  const result = checkKey(facts, mode, ip, NOW);
  return result.ok ? "ok" : result.code;
}

describe("checkKey", () => {
  test.each(cases)("%s: ordinary → %p, read_only → %p", (_, changes, ordinary, readOnly) => {
    const facts = { ...healthy, ...changes };
    expect(outcome(facts, "ordinary")).toBe(ordinary);
    expect(outcome(facts, "read_only")).toBe(readOnly);
  });

  // spend_history (spec 4.10): an exhausted key may read, a disabled or expired one not.
  test.each([
    ["healthy", {}, "ok"],
    ["deleted", { deleted: true }, "key_deleted"],
    ["account disabled", { userStatus: "disabled" }, "account_disabled"],
    ["key disabled", { status: "disabled" }, "key_disabled"],
    ["expired", { expiresAt: NOW - 1 }, "key_expired"],
    ["exhausted", { quotaLimit: 100n, usedQuota: 100n }, "ok"],
    ["zero limit", { quotaLimit: 0n, usedQuota: 0n }, "ok"],
    ["expired and exhausted", { expiresAt: NOW - 1, quotaLimit: 1n, usedQuota: 1n }, "key_expired"],
    [
      "exhausted and ip not allowed",
      { quotaLimit: 1n, usedQuota: 1n, allowedIps: ["10.0.0.0/8"] },
      "ip_not_allowed",
    ],
  ] as [string, Partial<KeyFacts>, Expect][])("%s: spend_history → %p", (_, changes, expected) => {
    expect(outcome({ ...healthy, ...changes }, "spend_history")).toBe(expected);
  });

  test("a restricted key refuses a client whose address is unknown", () => {
    const facts = { ...healthy, allowedIps: ["0.0.0.0/0", "::/0"] };
    expect(outcome(facts, "ordinary", null)).toBe("ip_not_allowed");
    expect(outcome(facts, "read_only", null)).toBe("ip_not_allowed");
    expect(outcome(healthy, "ordinary", null)).toBe("ok");
  });

  test("IPv4 clients seen through dual-stack sockets match IPv4 entries", () => {
    const facts = { ...healthy, allowedIps: ["203.0.113.0/24"] };
    expect(outcome(facts, "ordinary", "::ffff:203.0.113.9")).toBe("ok");
  });

  test("a pre-compiled matcher is used instead of the facts' list", () => {
    const facts = { ...healthy, allowedIps: ["10.0.0.0/8"] };
    const matcher = compileAllowList(facts.allowedIps);
    expect(checkKey(facts, "ordinary", "10.1.1.1", NOW, matcher)).toEqual({ ok: true });
    expect(checkKey(facts, "ordinary", CLIENT, NOW, matcher)).toEqual({
      ok: false,
      code: "ip_not_allowed",
    });
    expect(checkKey(facts, "ordinary", CLIENT, NOW, () => true)).toEqual({ ok: true });
  });

  test("the matcher is not consulted when the key itself is rejected", () => {
    let calls = 0;
    const matcher = () => {
      calls++;
      return false;
    };
    const result = checkKey({ ...healthy, deleted: true }, "ordinary", CLIENT, NOW, matcher);
    expect(result).toEqual({ ok: false, code: "key_deleted" });
    expect(calls).toBe(0);
  });
});

describe("rejectionStatus", () => {
  test.each([
    ["key_deleted", 401],
    ["account_disabled", 401],
    ["key_disabled", 401],
    ["key_expired", 401],
    ["key_exhausted", 401],
    ["ip_not_allowed", 403],
  ] as const)("%s → %d", (code, status) => {
    expect(rejectionStatus(code)).toBe(status);
  });
});
