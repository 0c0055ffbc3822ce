import type { Sql } from "@gw/store";
import { Client } from "./client.ts";

export interface FuzzAccount {
  userId: string;
  keyId: string;
  key: string;
}

/** Task ids by kind, of one account: what other accounts' cases try to read. */
export interface OwnTasks {
  image: string[];
  audio: string[];
  video: string[];
  /** `<music task id>:<track>`, as `input.audioId` names a track. */
  tracks: string[];
}

/**
 * The scene every case plays in, made the same way on every run so a case index names
 * the same roles: `a` (whose key most cases use) and `b` (the other account whose tasks
 * and ids `a` must never reach), a `broke` account with no money, keys that must be
 * refused, and `victim`, the only account admin cases may change.
 */
export interface Fixture {
  a: FuzzAccount;
  b: FuzzAccount;
  broke: FuzzAccount;
  victim: FuzzAccount;
  /** Keys of `a` that are refused: disabled, expired, deleted, with a tiny budget, IP-bound. */
  refusedKeys: Record<"disabled" | "expired" | "deleted" | "tinyBudget" | "ipBound", string>;
  /** A key of `a` limited to one text model. */
  limitedKey: string;
  /** Ids of `a`'s extra keys, which admin cases must leave alone. */
  protectedKeyIds: string[];
  tasksOf: { a: OwnTasks; b: OwnTasks };
  /** A result link of `a`'s first image (path and query), for the file route. */
  fileLink: string;
}

const FUNDS_USD = 100_000;

async function account(client: Client, balanceUsd: number, name: string): Promise<FuzzAccount> {
  const user = await client.expect<{ id: string }>(201, "POST", "/admin/users", {
    admin: true,
    body: { name, balance_usd: balanceUsd },
  });
  const key = await addKey(client, user.id, `${name} key`);
  return { userId: user.id, keyId: key.id, key: key.key };
}

async function addKey(
  client: Client,
  userId: string,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; key: string }> {
  return client.expect(201, "POST", "/admin/keys", {
    admin: true,
    body: { user_id: userId, name, ...extra },
  });
}

/** Polls a task until it is final (bounded), so the fixture starts from a settled state. */
async function finished(client: Client, path: string, key: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const task = await client.expect<{ status: string }>(200, "GET", path, { key });
    if (task.status === "completed" || task.status === "failed") return;
    await Bun.sleep(100);
  }
  throw new Error(`fixture: ${path} did not finish`);
}

async function tasksOf(client: Client, sql: Sql, owner: FuzzAccount): Promise<OwnTasks> {
  const key = owner.key;
  await client.expect(200, "POST", "/v1/images/generations", {
    key,
    body: { model: "lumina-image-flare", prompt: "a fixture image" },
  });
  const audio = await client.expect<{ id: string }>(200, "POST", "/v1/audio/generations", {
    key,
    body: { model: "sonora/music", prompt: "a fixture tune" },
  });
  const video = await client.expect<{ id: string }>(200, "POST", "/v1/videos", {
    key,
    body: { model: "motion-video", prompt: "a fixture clip", seconds: "5", size: "854x480" },
  });
  await finished(client, `/v1/audio/generations/${audio.id}`, key);
  await finished(client, `/v1/videos/${video.id}`, key);
  const rows = await sql<{ id: string; kind: string }[]>`
    select id, kind from tasks where user_id = ${owner.userId} order by created_at`;
  const ids = (kind: string) => rows.filter((row) => row.kind === kind).map((row) => row.id);
  return {
    image: ids("image"),
    audio: ids("audio"),
    video: ids("video"),
    tracks: ids("audio").flatMap((id) => [`${id}:0`, `${id}:1`]),
  };
}

/** Builds the scene through the public and admin APIs, as an operator and clients would. */
export async function createFixture(baseUrl: string, sql: Sql): Promise<Fixture> {
  const client = new Client(baseUrl);
  const a = await account(client, FUNDS_USD, "fuzz a");
  const b = await account(client, FUNDS_USD, "fuzz b");
  const broke = await account(client, 0, "fuzz broke");
  const victim = await account(client, 10, "fuzz victim");
  const disabled = await addKey(client, a.userId, "disabled");
  await client.expect(200, "PATCH", `/admin/keys/${disabled.id}`, {
    admin: true,
    body: { status: "disabled" },
  });
  const deleted = await addKey(client, a.userId, "deleted");
  await client.expect(204, "DELETE", `/admin/keys/${deleted.id}`, { admin: true });
  const expired = await addKey(client, a.userId, "expired", { expires_at: 1 });
  const tinyBudget = await addKey(client, a.userId, "tiny budget", { quota: 1 });
  const ipBound = await addKey(client, a.userId, "ip bound", { allowed_ips: ["203.0.113.7"] });
  const limited = await addKey(client, a.userId, "limited", { model_limits: ["lumen-chat-mini"] });
  const ownA = await tasksOf(client, sql, a);
  const ownB = await tasksOf(client, sql, b);
  const image = await client.expect<{ data: { url: string }[] }>(
    200,
    "GET",
    `/v1/images/tasks/${ownA.image[0]}`,
    { key: a.key },
  );
  const url = new URL(image.data[0]!.url);
  return {
    a,
    b,
    broke,
    victim,
    refusedKeys: {
      disabled: disabled.key,
      expired: expired.key,
      deleted: deleted.key,
      tinyBudget: tinyBudget.key,
      ipBound: ipBound.key,
    },
    limitedKey: limited.key,
    protectedKeyIds: [disabled, deleted, expired, tinyBudget, ipBound, limited].map(
      (key) => key.id,
    ),
    tasksOf: { a: ownA, b: ownB },
    fileLink: `${url.pathname}${url.search}`,
  };
}
