// Proves video end to end through a real worker process and the offline provider: the
// video object at once, one charge by the actual seconds × the stored rate (hold → post),
// a real H.264 MP4 of the billed length, the generations envelope, content with Range
// (206, 416), expiry, ownership, a failure that voids, and the `openai` package unchanged.
import { describe, expect, test } from "bun:test";
import { measureSeconds } from "@gw/providers";
import OpenAI from "openai";
import { startImageStack } from "../../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const stack = await startImageStack();
const { api } = stack;
await stack.spawnWorker();
const sql = api.store.sql;

async function create(key: string, body: unknown, path = "/v1/videos") {
  const response = await api.call("POST", path, { key, body });
  return { status: response.status, body: (await response.json()) as Body, response };
}

async function get(key: string, path: string, headers: Record<string, string> = {}) {
  return api.call("GET", path, { key, headers });
}

async function finished(key: string, id: string): Promise<Body> {
  for (let i = 0; i < 300; i++) {
    const body = (await (await get(key, `/v1/videos/${id}`)).json()) as Body;
    if (body.status === "completed" || body.status === "failed") return body;
    await Bun.sleep(50);
  }
  throw new Error(`video ${id} did not finish`);
}

async function balance(userId: string): Promise<bigint> {
  const [row] = await sql<{ balance_quota: bigint }[]>`
    select balance_quota from users where id = ${userId}`;
  return BigInt(row!.balance_quota);
}

async function entries(userId: string) {
  return sql<{ kind: string; delta_quota: bigint }[]>`
    select kind, delta_quota from ledger_entries
    where user_id = ${userId} and kind <> 'credit' order by id`;
}

describe("video", () => {
  test("created at once; one charge by seconds × rate after the result; a real MP4 with Range", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 5 });
    const start = await balance(userId);
    const created = await create(secret, {
      model: "motion-video",
      prompt: "waves on a beach",
      input: { resolution: "480p", duration: 5, aspect_ratio: "16:9" },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: "video",
      model: "motion-video",
      status: "queued",
      progress: 0,
      completed_at: null,
      error: null,
      seconds: "5",
      size: "854x480",
    });
    expect(created.body.metadata.billing).toMatchObject({ usd: 0.25, pending: false });
    // Held, not charged: no history, no balance change until the result.
    expect(await entries(userId)).toHaveLength(0);
    expect(await balance(userId)).toBe(start);
    const done = await finished(secret, created.body.id);
    expect(done).toMatchObject({ status: "completed", progress: 100, error: null });
    expect(done.completed_at).toBeGreaterThanOrEqual(done.created_at);
    expect(done.expires_at).toBeGreaterThan(done.completed_at);
    expect(done.metadata.billing).toMatchObject({ usd: 0.25, quota: 125_000 });
    expect(await balance(userId)).toBe(start - 125_000n);
    expect((await entries(userId)).map((entry) => [entry.kind, BigInt(entry.delta_quota)])).toEqual(
      [["charge", -125_000n]],
    );

    const content = await get(secret, `/v1/videos/${created.body.id}/content`);
    expect(content.status).toBe(200);
    expect(content.headers.get("content-type")).toBe("video/mp4");
    expect(content.headers.get("accept-ranges")).toBe("bytes");
    const bytes = new Uint8Array(await content.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(4, 8))).toBe("ftyp");
    expect(Math.round(await measureVideoSeconds(bytes))).toBe(5);

    const part = await get(secret, `/v1/videos/${created.body.id}/content`, {
      range: "bytes=0-99",
    });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 0-99/${bytes.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.slice(0, 100));
    const tail = await get(secret, `/v1/videos/${created.body.id}/content`, { range: "bytes=-10" });
    expect(tail.status).toBe(206);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.slice(-10));
    const beyond = await get(secret, `/v1/videos/${created.body.id}/content`, {
      range: `bytes=${bytes.length}-`,
    });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${bytes.length}`);
    expect(((await beyond.json()) as { error: { code: string } }).error.code).toBe(
      "range_not_satisfiable",
    );

    const envelope = (await (
      await get(secret, `/v1/video/generations/${created.body.id}`)
    ).json()) as Body;
    expect(envelope).toMatchObject({
      code: "success",
      data: { task_id: created.body.id, status: "completed", progress: 100 },
    });
    const linked = await fetch(envelope.data.result_url);
    expect(linked.status).toBe(200);
    expect((await linked.arrayBuffer()).byteLength).toBe(bytes.length);
    // Reads never touch money.
    expect(await balance(userId)).toBe(start - 125_000n);
  });

  test("the alias creates the same way; expired content is gone", async () => {
    const { secret } = await api.account({ balanceUsd: 5 });
    const created = await create(
      secret,
      { model: "motion-video", prompt: "a fox", input: { resolution: "480p", duration: 5 } },
      "/v1/video/generations",
    );
    expect(created.status).toBe(200);
    await finished(secret, created.body.id);
    await sql`update tasks set finished_at = now() - interval '14 days' where id = ${created.body.id}`;
    const content = await get(secret, `/v1/videos/${created.body.id}/content`);
    expect(content.status).toBe(404);
    expect(((await content.json()) as Body).error.message).toContain("expired");
  });

  test("another account's video answers exactly like a missing one, on every read", async () => {
    const mine = await api.account({ balanceUsd: 5 });
    const theirs = await api.account({ balanceUsd: 5 });
    const created = await create(mine.secret, {
      model: "motion-video",
      prompt: "mine",
      input: { resolution: "480p" },
    });
    const absent = `vid_${"0".repeat(24)}`;
    for (const path of ["/v1/videos/{}", "/v1/video/generations/{}", "/v1/videos/{}/content"]) {
      const foreign = await get(theirs.secret, path.replace("{}", created.body.id));
      const missing = await get(theirs.secret, path.replace("{}", absent));
      expect(foreign.status).toBe(404);
      expect((await foreign.text()).replaceAll(created.body.id, absent)).toBe(await missing.text());
    }
  });

  test("bad input is refused before anything is held", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 5 });
    for (const body of [
      { model: "gpt-image-1", prompt: "an image model" },
      { model: "motion-video", prompt: "x", input: { duration: 7 } },
      { model: "motion-video", prompt: "x", input: { resolution: "1080p", duration: 10 } },
      { model: "motion-video", prompt: "x", size: "1000x1000" },
      { model: "motion-video", prompt: "x", extra: true },
      {
        model: "motion-video",
        input: { image_url: "https://127.0.0.1/a.png" },
        operation: "image-to-video",
      },
    ]) {
      const answer = await create(secret, body);
      expect({ body, status: answer.status }).toEqual({ body, status: 400 });
    }
    const [count] = await sql<{ n: string }[]>`
      select count(*)::text as n from holds where user_id = ${userId}`;
    expect(count!.n).toBe("0");
  });

  test("the openai package's videos.create(), retrieve() and downloadContent() work", async () => {
    const { secret } = await api.account({ balanceUsd: 5 });
    const client = new OpenAI({ apiKey: secret, baseURL: `${api.url}/v1`, maxRetries: 0 });
    const video = await client.videos.create({
      model: "motion-video" as never,
      prompt: "a paper boat",
      seconds: "5" as never,
      size: "854x480" as never,
    });
    expect(video).toMatchObject({
      object: "video",
      status: "queued",
      seconds: "5",
      size: "854x480",
    });
    let current = video;
    for (let i = 0; i < 300 && current.status !== "completed"; i++) {
      await Bun.sleep(50);
      current = await client.videos.retrieve(video.id);
    }
    expect(current.status).toBe("completed");
    const content = await client.videos.downloadContent(video.id);
    const bytes = new Uint8Array(await content.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(4, 8))).toBe("ftyp");
  });
});

describe("Idempotency-Key", () => {
  test("a repeated create with the same key answers the same video, held once", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 5 });
    const body = { model: "motion-video", prompt: "once", input: { resolution: "480p" } };
    const send = () =>
      api.call("POST", "/v1/videos", {
        key: secret,
        body,
        headers: { "idempotency-key": "vid-1" },
      });
    const [a, b] = await Promise.all([send(), send()]);
    const [first, second] = [(await a.json()) as Body, (await b.json()) as Body];
    expect(second.id).toBe(first.id);
    await finished(secret, first.id);
    const [count] = await sql<{ n: string }[]>`
      select count(*)::text as n from holds where user_id = ${userId}`;
    expect(count!.n).toBe("1");
  });
});

describe("failure", () => {
  test("a failed video voids its hold: no charge, no history", async () => {
    await stack.stopWorkers();
    await stack.spawnWorker({ NODE_ENV: "production" });
    const { secret, userId } = await api.account({ balanceUsd: 5 });
    const start = await balance(userId);
    const created = await create(secret, { model: "motion-video", prompt: "never made" });
    const done = await finished(secret, created.body.id);
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe("upstream_unavailable");
    expect(done.metadata.billing).toBeNull();
    expect(await balance(userId)).toBe(start);
    expect(await entries(userId)).toHaveLength(0);
  });
});

/** Seconds of a video's sound track or, without one, of its frames at 24 fps. */
async function measureVideoSeconds(bytes: Uint8Array): Promise<number> {
  const ffmpeg = (await import("@ffmpeg-installer/ffmpeg")).default;
  const child = Bun.spawn([ffmpeg.path, "-hide_banner", "-i", "pipe:0", "-f", "null", "-"], {
    stdin: "pipe",
    stdout: "ignore",
    stderr: "pipe",
  });
  child.stdin.write(bytes);
  child.stdin.end();
  const log = await new Response(child.stderr).text();
  await child.exited;
  const frames = /frame=\s*(\d+)/.exec(log.split("\n").reverse().join("\n"));
  return frames ? Number(frames[1]) / 24 : measureSeconds(bytes);
}
