// Proves the compatibility task readers (spec 4.12, 2.16) under both prefixes: the
// caller's own tasks only (another account's answer like missing ones), image tasks made by
// /v1/images/* with imageUrl/progress/failReason, bounded id lists, and no money moved.
import { describe, expect, test } from "bun:test";
import { startImageStack } from "../../testing-images.ts";
import { MAX_IDS } from "./index.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const stack = await startImageStack();
const { api } = stack;
await stack.spawnWorker();
const sql = api.store.sql;
const mine = await api.account({ balanceUsd: 5 });
const theirs = await api.account({ balanceUsd: 5 });

async function call(method: string, path: string, key: string, body?: unknown) {
  const response = await api.call(method, path, { key, body });
  return { status: response.status, body: (await response.json()) as Body };
}

const image = await call("POST", "/v1/images/generations", mine.secret, {
  model: "lumina-image",
  prompt: "a red kite",
  input: { seed: 1234 },
});
const song = await call("POST", "/v1/audio/generations", mine.secret, {
  model: "sonora/music",
  prompt: "a short tune",
});
for (let i = 0; i < 200; i++) {
  const read = await call("GET", `/v1/audio/generations/${song.body.id}`, mine.secret);
  if (read.body.status === "completed") break;
  await Bun.sleep(50);
}

async function money(userId: string) {
  const [row] = await sql<{ balance: string; entries: string }[]>`
    select (select balance_quota::text from users where id = ${userId}) as balance,
           (select count(*)::text from ledger_entries where user_id = ${userId}) as entries`;
  return row;
}

describe("music readers", () => {
  test("GET and POST /musiccompat/fetch read the caller's audio tasks", async () => {
    const before = await money(mine.userId);
    const one = await call("GET", `/musiccompat/fetch/${song.body.id}`, mine.secret);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      code: "success",
      data: { task_id: song.body.id, status: "completed", progress: 100 },
    });
    expect(one.body.data.tracks).toHaveLength(2);
    const many = await call("POST", "/musiccompat/fetch", mine.secret, {
      ids: [song.body.id, `aud_${"0".repeat(24)}`, image.body.id],
      action: "MUSIC",
    });
    expect(many.body.data.map((task: Body) => task.task_id)).toEqual([song.body.id]);
    expect((await call("POST", "/musiccompat/fetch", mine.secret, { ids: [] })).body).toEqual({
      code: "success",
      message: "",
      data: [],
    });
    expect(await money(mine.userId)).toEqual(before);
  });

  test("another account's task is a missing one; the id list is bounded", async () => {
    const foreign = await call("GET", `/musiccompat/fetch/${song.body.id}`, theirs.secret);
    const absent = `aud_${"0".repeat(24)}`;
    const missing = await call("GET", `/musiccompat/fetch/${absent}`, theirs.secret);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign).replaceAll(song.body.id, absent)).toBe(JSON.stringify(missing));
    const theirList = await call("POST", "/musiccompat/fetch", theirs.secret, {
      ids: [song.body.id],
    });
    expect(theirList.body.data).toEqual([]);
    const tooMany = Array.from(
      { length: MAX_IDS + 1 },
      (_, i) => `aud_${String(i).padStart(24, "0")}`,
    );
    const refused = await call("POST", "/musiccompat/fetch", mine.secret, { ids: tooMany });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("ids");
  });
});

describe("image readers", () => {
  for (const prefix of ["/imgcompat", "/fast/imgcompat"]) {
    test(`${prefix}: fetch, list-by-condition and image-seed`, async () => {
      const one = await call("GET", `${prefix}/task/${image.body.id}/fetch`, mine.secret);
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({
        id: image.body.id,
        status: "completed",
        progress: "100%",
        failReason: "",
      });
      expect((await fetch(one.body.imageUrl)).status).toBe(200);
      const list = await call("POST", `${prefix}/task/list-by-condition`, mine.secret, {
        ids: [image.body.id, song.body.id],
      });
      expect(list.body.map((task: Body) => task.id)).toEqual([image.body.id]);
      expect(
        (await call("POST", `${prefix}/task/list-by-condition`, mine.secret, { ids: [] })).body,
      ).toEqual([]);
      const seed = await call("GET", `${prefix}/task/${image.body.id}/image-seed`, mine.secret);
      expect(seed.body).toMatchObject({ code: 1, description: "success", result: 1234 });
      const foreign = await call("GET", `${prefix}/task/${image.body.id}/fetch`, theirs.secret);
      expect(foreign.status).toBe(404);
    });
  }

  test("a failed image task shows its failReason; a task whose model is gone has no seed", async () => {
    const failed = await call("POST", "/v1/images/generations", mine.secret, {
      model: "gpt-image-1",
      prompt: "x",
      quality: "low",
    });
    // Shown as a task that failed (the reader's view only; the ledger is not read here).
    await sql`update tasks set status = 'failed', fail_code = 'upstream_error',
              fail_reason = 'the provider refused', result = null, charged_quota = null
              where id = ${failed.body.id}`;
    const read = await call("GET", `/imgcompat/task/${failed.body.id}/fetch`, mine.secret);
    expect(read.body).toMatchObject({
      status: "failed",
      failReason: "the provider refused",
      imageUrl: null,
    });
    await sql`update tasks set model = 'retired-model' where id = ${failed.body.id}`;
    const seed = await call("GET", `/imgcompat/task/${failed.body.id}/image-seed`, mine.secret);
    expect(seed).toMatchObject({ status: 400, body: { error: { code: "model_unavailable" } } });
  });
});
