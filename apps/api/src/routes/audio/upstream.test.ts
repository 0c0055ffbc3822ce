// Proves audio through real upstream adapters, routed by PROVIDER_ROUTES, end to end:
// speech by an OpenAI-compatible /audio/speech stub billed by the file's decoded length,
// music by a queue-style stub (submit, poll, fetch), and a worker SIGKILLed mid audio task:
// another worker takes it over and it ends charged exactly once.
import { afterAll, describe, expect, test } from "bun:test";
import { startQueueStub, startSpeechStub } from "@gw/providers/testing";
import { startImageStack } from "../../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const speech = startSpeechStub();
const queue = startQueueStub();
afterAll(async () => {
  await speech.stop();
  await queue.stop();
});
const stack = await startImageStack({
  env: {
    PROVIDER_ROUTES: "sonora/speech=openai,sonora/music=mediaq",
    UPSTREAM_OPENAI_BASE_URL: speech.baseUrl,
    UPSTREAM_OPENAI_API_KEY: "sk-speech-stub",
    UPSTREAM_MEDIAQ_BASE_URL: queue.baseUrl,
    UPSTREAM_MEDIAQ_API_KEY: "queue-stub-key",
    UPSTREAM_MEDIAQ_POLL_MS: "300",
  },
});
const { api } = stack;
const sql = api.store.sql;
const PER_SECOND = 550n;
const RESERVE = 600n * PER_SECOND;

async function create(key: string, body: unknown) {
  const response = await api.call("POST", "/v1/audio/generations", { key, body });
  return (await response.json()) as Body;
}

async function finished(key: string, id: string): Promise<Body> {
  for (let i = 0; i < 400; i++) {
    const response = await api.call("GET", `/v1/audio/generations/${id}`, { key });
    const body = (await response.json()) as Body;
    if (body.status === "completed" || body.status === "failed") return body;
    await Bun.sleep(50);
  }
  throw new Error(`audio task ${id} did not finish`);
}

async function money(userId: string) {
  const rows = await sql<{ kind: string; delta_quota: bigint }[]>`
    select kind, delta_quota from ledger_entries
    where user_id = ${userId} and kind <> 'credit' order by id`;
  const [user] = await sql<{ balance_quota: bigint }[]>`
    select balance_quota from users where id = ${userId}`;
  return {
    entries: rows.map((row) => [row.kind, BigInt(row.delta_quota)]),
    balance: BigInt(user!.balance_quota),
  };
}

describe("audio upstreams", () => {
  test("speech by the OpenAI-compatible adapter: billed by the seconds the file lasts", async () => {
    await stack.spawnWorker();
    const { secret, userId } = await api.account({ balanceUsd: 2 });
    // The stub speaks one second per two words: eight words, four seconds.
    const prompt = "one two three four five six seven eight";
    const created = await create(secret, {
      model: "sonora/speech",
      prompt,
      input: { voice: "warm" },
    });
    const done = await finished(secret, created.id);
    expect(done.status).toBe("completed");
    expect(done.tracks[0].duration).toBe(4);
    expect(speech.requests.at(-1)).toMatchObject({ input: prompt, voice: "onyx" });
    expect(await money(userId)).toEqual({
      entries: [
        ["charge", -RESERVE],
        ["refund", RESERVE - 4n * PER_SECOND],
      ],
      balance: 1_000_000n - 4n * PER_SECOND,
    });
  });

  test("music by the queue-style adapter: two downloaded tracks, $0.06 once", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 2 });
    const created = await create(secret, { model: "sonora/music", prompt: "a waltz" });
    const done = await finished(secret, created.id);
    expect(done.tracks.map((track: Body) => [track.duration, track.name])).toEqual([
      [3, "take-1"],
      [3, "take-2"],
    ]);
    expect((await fetch(done.tracks[1].url)).status).toBe(200);
    expect((await money(userId)).balance).toBe(1_000_000n - 30_000n);
  });

  test("a worker SIGKILLed mid audio task: another finishes it, charged exactly once", async () => {
    await stack.stopWorkers();
    const first = await stack.spawnWorker();
    const { secret, userId } = await api.account({ balanceUsd: 2 });
    const seen = queue.requests.length;
    const created = await create(secret, { model: "sonora/music", prompt: "interrupted" });
    for (let i = 0; i < 200 && queue.requests.length === seen; i++) await Bun.sleep(20);
    expect(queue.requests.length).toBe(seen + 1);
    await first.kill("SIGKILL");
    await stack.spawnWorker();
    const done = await finished(secret, created.id);
    expect(done.status).toBe("completed");
    const [task] = await sql<
      { attempts: number }[]
    >`select attempts from tasks where id = ${created.id}`;
    expect(task!.attempts).toBeGreaterThanOrEqual(2);
    // One charge of the reserve (= the price of one generation), no refund needed, once.
    expect(await money(userId)).toEqual({
      entries: [["charge", -30_000n]],
      balance: 1_000_000n - 30_000n,
    });
  }, 30_000);
});
