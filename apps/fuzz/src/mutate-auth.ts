import type { Random } from "@gw/random";
import type { Draft, Role } from "./draft.ts";
import type { Mutation } from "./mutation.ts";
import { applyCredential } from "./plausible.ts";
import { FUZZ_ADMIN_TOKEN } from "./stack.ts";
import { isPaid, secretOf } from "./world.ts";

/** Mutations of who calls: refused keys, malformed credentials, another role's token. */

/** Whether the operation refuses a caller without valid credentials of its kind. */
const guarded = (draft: Draft) =>
  draft.op.auth === "key" || draft.op.auth === "admin" || draft.op.auth === "metrics";

/** /v1/media/models takes a key but does not need one; a bad key is still refused. */
const keyOptional = (draft: Draft) => draft.op.path === "/v1/media/models";

const REFUSED_ROLES: Role[] = ["disabled", "expired", "deleted", "ipBound", "forged"];

/**
 * Routes where a key inspects itself (`read_only` in packages/auth key-state.ts): a
 * disabled or expired key may still read its own usage there, by design.
 */
const READ_ONLY_PATHS = new Set(["/api/usage/token", "/api/log/token"]);

const refusedKey: Mutation = {
  name: "auth:refused-key",
  weight: 6,
  applies: (draft) => draft.op.auth !== "none",
  apply(draft, world, random) {
    draft.role = random.pick(REFUSED_ROLES);
    applyCredential(draft, world, random);
    draft.mutation = `auth:refused-key:${draft.role}`;
    const selfView =
      READ_ONLY_PATHS.has(draft.op.path) && ["disabled", "expired"].includes(draft.role);
    draft.mustRefuse = selfView ? null : `the ${draft.role} key must be refused`;
  },
};

const poorKey: Mutation = {
  name: "auth:poor-key",
  weight: 3,
  applies: (draft) => isPaid(draft.op),
  apply(draft, world, random) {
    draft.role = random.pick<Role>(["broke", "tinyBudget"]);
    applyCredential(draft, world, random);
    draft.mutation = `auth:poor-key:${draft.role}`;
    draft.mustRefuse = `the ${draft.role} key cannot pay`;
  },
};

function malformed(secret: string, random: Random): [string, Record<string, string>] {
  const options: [string, Record<string, string>][] = [
    ["no credentials", {}],
    ["Bearer without token", { authorization: "Bearer" }],
    ["Bearer and spaces", { authorization: "Bearer    " }],
    ["Basic", { authorization: `Basic ${btoa(`user:${secret}`)}` }],
    ["token without scheme", { authorization: secret }],
    ["two tokens", { authorization: `Bearer ${secret} ${secret}` }],
    [
      "token with a character changed",
      { authorization: `Bearer ${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}` },
    ],
    ["token truncated", { authorization: `Bearer ${secret.slice(0, 10)}` }],
    ["token extended", { authorization: `Bearer ${secret}x` }],
    ["10 KB token", { authorization: `Bearer ${"k".repeat(10_000)}` }],
    ["latin-1 token", { authorization: `Bearer sk-\u00e9\u00e9\u00e9` }],
    [
      "bad Authorization beside a good x-api-key",
      { authorization: "Bearer nope", "x-api-key": secret },
    ],
    ["query key on a route without one", {}],
    ["Bearer with a tab", { authorization: `Bearer\t${secret}x` }],
  ];
  return random.pick(options);
}

const malformedCredential: Mutation = {
  name: "auth:malformed",
  weight: 6,
  applies: guarded,
  apply(draft, world, random) {
    const secret = secretOf(draft.role, world.fixture) ?? FUZZ_ADMIN_TOKEN;
    const [what, headers] = malformed(secret, random);
    delete draft.headers.authorization;
    delete draft.headers["x-api-key"];
    delete draft.headers["x-goog-api-key"];
    draft.query = draft.query.filter(([name]) => name !== "key");
    Object.assign(draft.headers, headers);
    // Where ?key= is a credential of the route this case is just "no credentials".
    if (what === "query key on a route without one" && !draft.op.schemes.includes("googQueryKey"))
      draft.query.push(["key", secret]);
    draft.mutation = `auth:malformed:${what}`;
    if (!keyOptional(draft)) draft.mustRefuse = `a malformed credential (${what})`;
    else if (what === "no credentials") draft.mustRefuse = null;
  },
};

const crossedToken: Mutation = {
  name: "auth:crossed",
  weight: 4,
  applies: guarded,
  apply(draft, world, random) {
    const admin = draft.op.auth === "admin" || draft.op.auth === "metrics";
    draft.role = admin ? random.pick<Role>(["a", "b"]) : "admin";
    applyCredential(draft, world, random);
    if (draft.role === "admin" && random.chance(0.3))
      draft.headers.authorization = `Bearer ${FUZZ_ADMIN_TOKEN} `;
    if (admin && random.chance(0.3)) draft.headers.authorization = `Bearer ${FUZZ_ADMIN_TOKEN}x`;
    draft.mutation = `auth:crossed:${draft.role} on a ${draft.op.auth} route`;
    draft.mustRefuse = keyOptional(draft) ? null : "a token of the wrong kind";
  },
};

export const AUTH_MUTATIONS: Mutation[] = [refusedKey, poorKey, malformedCredential, crossedToken];
