// Proves asynchronous audio (spec 4.5, 2.14, 2.6.2) end to end through a real worker
// process and the offline provider: the reserve charged at submission, the unused part
// refunded once by the stored rate, real files whose duration is what is billed, music's
// two tracks, every audioId rule refused before any reserve, and owner-checked reads.
import { describe, expect, test } from "bun:test";
import { measureSeconds, speechSeconds } from "@gw/providers";
import { startImageStack } from "../../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const stack = await startImageStack();
const { api } = stack;
await stack.spawnWorker();
const sql = api.store.sql;

/** $0.0011 a second is 550 quota; the speech reserve is 600 seconds. */
const PER_SECOND = 550n;
const RESERVE = 600n * PER_SECOND;

async function create(key: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await api.call("POST", "/v1/audio/generations", { key, body, headers });
  return { status: response.status, body: (await response.json()) as Body, response };
}

async function read(key: string, id: string) {
  const response = await api.call("GET", `/v1/audio/generations/${id}`, { key });
  return { status: response.status, body: (await response.json()) as Body };
}

async function finished(key: string, id: string): Promise<Body> {
  for (let i = 0; i < 200; i++) {
    const { body } = await read(key, id);
    if (body.status === "completed" || body.status === "failed") return body;
    await Bun.sleep(50);
  }
  throw new Error(`audio task ${id} did not finish`);
}

async function entries(userId: string) {
  return sql<{ kind: string; delta_quota: bigint; business_key: string }[]>`
    select kind, delta_quota, business_key from ledger_entries
    where user_id = ${userId} and kind <> 'credit' order by id`;
}

async function balance(userId: string): Promise<bigint> {
  const [row] = await sql<{ balance_quota: bigint }[]>`
    select balance_quota from users where id = ${userId}`;
  return BigInt(row!.balance_quota);
}

describe("speech", () => {
  test("reserve charged at once, the unused part refunded once; the file lasts what is billed", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 2 });
    const prompt = "Hello there, this is a short test of the speech model at normal speed.";
    const seconds = BigInt(speechSeconds(prompt, 1));
    const start = await balance(userId);
    const created = await create(secret, { model: "sonora/speech", prompt });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: "audio.generation",
      model: "sonora/speech",
      status: "queued",
      tracks: [],
      error: null,
    });
    expect(created.body.task_id).toBe(created.body.id);
    expect(created.response.headers.get("x-task-id")).toBe(created.body.id);
    // The reserve is a charge record at submission.
    expect(await balance(userId)).toBe(start - RESERVE);
    const done = await finished(secret, created.body.id);
    expect(done.status).toBe("completed");
    expect(done.progress).toBe(100);
    expect(done.tracks).toHaveLength(1);
    const [track] = done.tracks;
    expect(track.id).toBe(`${created.body.id}:0`);
    expect(track.duration).toBe(Number(seconds));
    const file = await fetch(track.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("audio/mpeg");
    const measured = await measureSeconds(new Uint8Array(await file.arrayBuffer()));
    expect(Math.abs(measured - Number(seconds))).toBeLessThan(0.1);
    expect(done.billing).toMatchObject({ quota: Number(seconds * PER_SECOND), pending: false });
    expect(await balance(userId)).toBe(start - seconds * PER_SECOND);
    const records = await entries(userId);
    expect(records.map((entry) => [entry.kind, BigInt(entry.delta_quota)])).toEqual([
      ["charge", -RESERVE],
      ["refund", RESERVE - seconds * PER_SECOND],
    ]);
  });

  test("WAV on request: a file whose sample count is the billed seconds", async () => {
    const { secret } = await api.account({ balanceUsd: 2 });
    const prompt = "Ten words make four seconds at this speed, more or less.";
    const created = await create(secret, {
      model: "sonora/speech",
      prompt,
      input: { format: "wav", voice: "warm", speed: 1 },
    });
    const done = await finished(secret, created.body.id);
    const file = await fetch(done.tracks[0].url);
    expect(file.headers.get("content-type")).toBe("audio/wav");
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(0, 4))).toBe("RIFF");
    expect(await measureSeconds(bytes)).toBe(speechSeconds(prompt, 1));
  });
});

describe("music and audioId", () => {
  test("two tracks from one generation; audioId rules are checked before any reserve", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 2 });
    const song = await create(secret, { model: "sonora/music", prompt: "a calm piano song" });
    expect(song.status).toBe(200);
    const done = await finished(secret, song.body.id);
    expect(done.tracks.map((track: Body) => track.id)).toEqual([
      `${song.body.id}:0`,
      `${song.body.id}:1`,
    ]);
    expect(done.tracks.every((track: Body) => track.duration === 30)).toBe(true);
    // $0.06 per generation: reserve = price, so the refund is zero and not recorded.
    expect(done.billing).toMatchObject({ usd: 0.06 });
    const afterSong = await balance(userId);

    const other = await api.account({ balanceUsd: 2 });
    const pending = await create(secret, { model: "sonora/speech", prompt: "wait for me" });
    const refused = [
      "nonsense",
      `${song.body.id}`,
      `${song.body.id}:2`,
      `${song.body.id}:-1`,
      `img_${"a".repeat(24)}:0`,
      `suno-abc123:0`,
      `${pending.body.id.replace(/.$/, "0")}:0`,
    ];
    for (const audioId of refused) {
      const answer = await create(secret, {
        model: "sonora/music",
        operation: "separate",
        input: { audioId },
      });
      expect({ audioId, status: answer.status, code: answer.body.error?.code }).toEqual({
        audioId,
        status: 400,
        code: "invalid_request",
      });
    }
    // Another account's completed task is indistinguishable from a missing one.
    const theirs = await create(other.secret, {
      model: "sonora/music",
      operation: "separate",
      input: { audioId: `${song.body.id}:0` },
    });
    expect(theirs.status).toBe(400);
    expect(theirs.body.error.message).toContain("no such audio task of this account");
    expect(await balance(userId)).toBe(afterSong - 600n * PER_SECOND);

    const separated = await create(secret, {
      model: "sonora/music",
      operation: "separate",
      input: { audioId: `${song.body.id}:1`, type: "vocals" },
    });
    expect(separated.status).toBe(200);
    const parts = await finished(secret, separated.body.id);
    expect(parts.tracks.map((track: Body) => track.name)).toEqual(["vocals", "instrumental"]);
  });
});

describe("reads", () => {
  test("another account's task answers like a missing one; malformed ids are not looked up", async () => {
    const mine = await api.account({ balanceUsd: 1 });
    const theirs = await api.account({ balanceUsd: 1 });
    const created = await create(mine.secret, { model: "sonora/speech", prompt: "private words" });
    const absent = `aud_${"0".repeat(24)}`;
    const missing = await read(theirs.secret, absent);
    const foreign = await read(theirs.secret, created.body.id);
    // The same answer, but for the id it names.
    expect(JSON.stringify(foreign).replaceAll(created.body.id, absent)).toBe(
      JSON.stringify(missing),
    );
    expect(foreign.status).toBe(404);
    expect((await read(mine.secret, "../../etc/passwd")).status).toBe(404);
    expect((await read(mine.secret, created.body.id)).status).toBe(200);
  });

  test("bad input creates nothing and charges nothing", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    const start = await balance(userId);
    for (const body of [
      { model: "gpt-image-1", prompt: "an image model here" },
      { model: "sonora/speech", prompt: "x", input: { voice: "robot" } },
      { model: "sonora/speech", prompt: "x", surprise: 1 },
      { model: "sonora/music", operation: "nope" },
    ]) {
      const answer = await create(secret, body);
      expect(answer.status).toBe(400);
    }
    const poor = await api.account({ balanceUsd: 0.1 });
    const refused = await create(poor.secret, { model: "sonora/speech", prompt: "hello" });
    expect(refused).toMatchObject({ status: 402, body: { error: { code: "insufficient_funds" } } });
    expect(await balance(userId)).toBe(start);
    const [count] = await sql<{ n: string }[]>`
      select count(*)::text as n from tasks where user_id in (${userId}, ${poor.userId})`;
    expect(count!.n).toBe("0");
  });
});

describe("Idempotency-Key", () => {
  test("copies of one key answer the one task and reserve once; another body is a conflict", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 2 });
    const body = { model: "sonora/speech", prompt: "only once" };
    const headers = { "idempotency-key": "audio-key-1" };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => create(secret, body, headers)),
    );
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const conflict = await create(secret, { ...body, prompt: "something else" }, headers);
    expect(conflict).toMatchObject({
      status: 409,
      body: { error: { code: "idempotency_conflict" } },
    });
    await finished(secret, answers[0]!.body.id);
    const charges = (await entries(userId)).filter((entry) => entry.kind === "charge");
    expect(charges).toHaveLength(1);
  });
});

describe("failure", () => {
  test("a failed generation refunds the whole reserve, once", async () => {
    // In production a model no operator routed has no provider: the run fails.
    await stack.stopWorkers();
    await stack.spawnWorker({ NODE_ENV: "production" });
    const { secret, userId } = await api.account({ balanceUsd: 2 });
    const start = await balance(userId);
    const created = await create(secret, { model: "sonora/speech", prompt: "never spoken" });
    expect(await balance(userId)).toBe(start - RESERVE);
    const done = await finished(secret, created.body.id);
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe("upstream_unavailable");
    expect(done.error.message).toContain("The reserve was refunded.");
    expect(done.billing).toBeNull();
    expect(done.tracks).toEqual([]);
    expect(await balance(userId)).toBe(start);
    const records = await entries(userId);
    expect(records.map((entry) => [entry.kind, BigInt(entry.delta_quota)])).toEqual([
      ["charge", -RESERVE],
      ["refund", RESERVE],
    ]);
  });
});
