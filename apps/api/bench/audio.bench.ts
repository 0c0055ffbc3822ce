/**
 * Audio tasks settled per second: speech through the real api and two worker processes to
 * an OpenAI-compatible /audio/speech stub (ffmpeg renders each answer), each client in a
 * closed loop of POST /v1/audio/generations then polling GET until the task is completed
 * (reserve charged, unused part refunded). Beside it, in the same run, clients calling the
 * stub directly at the same concurrency: the upstream's own rate. A ledger check ends it:
 * every completed task has one charge and one refund.
 *
 *   bun run apps/api/bench/audio.bench.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChildServer,
  fmtMs,
  fmtRate,
  fmtRatio,
  type LoadResult,
  openBenchStore,
  printTable,
  reportErrors,
  runLoad,
  startChildServer,
  stringField,
} from "@gw/benchkit";
import { startSpeechStub } from "@gw/providers/testing";
import { LIMIT_ENV } from "@gw/ratelimit";
import type { IsolatedStore } from "@gw/store";

const CONCURRENCY = [1, 16, 64];
const WARMUP_MS = 500;
const DURATION_MS = 3_000;
const POLL_MS = 20;
const WORKERS = 2;
const ADMIN_TOKEN = "bench-admin-token-0123456789";
/** Two words: the stub speaks one second of MP3. */
const PROMPT = "hello there";
const API_KEY = "sk-speech-stub";

const children: ChildServer<unknown>[] = [];
let store: IsolatedStore | null = null;
let filesDir: string | null = null;
const speech = startSpeechStub(API_KEY);

async function cleanup(): Promise<boolean> {
  await Promise.allSettled(children.splice(0).map((child) => child.stop()));
  await speech.stop();
  let clean = true;
  try {
    await store?.close();
  } catch (error) {
    console.error("audio bench: cleanup failed:", error);
    clean = false;
  }
  if (filesDir) rmSync(filesDir, { recursive: true, force: true });
  return clean;
}

async function startChild<T>(file: string, parse: (value: unknown) => T, env = {}): Promise<T> {
  const child = await startChildServer(join(import.meta.dir, file), parse, { env });
  children.push(child);
  return child.info;
}

async function admin(apiUrl: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${apiUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status}`);
  return response.json();
}

async function main(): Promise<number> {
  store = await openBenchStore({ poolMax: 8 });
  filesDir = mkdtempSync(join(tmpdir(), "gw-bench-audio-"));
  const shared = {
    DATABASE_URL: store.databaseUrl,
    DATABASE_SCHEMA: store.schema,
    REDIS_URL: store.redisUrl,
    REDIS_PREFIX: store.prefix,
    STORAGE: "local",
    STORAGE_DIR: filesDir,
    RESULT_LINK_SECRET: "bench-link-secret-0123456789abcdef-0123",
  };
  const limitsOff = Object.fromEntries(Object.values(LIMIT_ENV).map(({ name }) => [name, "off"]));
  const [apiUrl] = await Promise.all([
    startChild("images-api-server.ts", (value) => stringField(value, "url"), {
      ...shared,
      ...limitsOff,
      ADMIN_TOKEN,
      PG_POOL_MAX: "16",
    }),
    ...Array.from({ length: WORKERS }, () =>
      startChild("images-worker.ts", (value) => stringField(value, "worker"), {
        ...shared,
        PG_POOL_MAX: "12",
        PROVIDER_ROUTES: "sonora/speech=openai",
        UPSTREAM_OPENAI_BASE_URL: speech.baseUrl,
        UPSTREAM_OPENAI_API_KEY: API_KEY,
      }),
    ),
  ]);
  const user = await admin(apiUrl, "/admin/users", { name: "audio bench", balance_usd: 100_000 });
  const userId = stringField(user, "id");
  const key = stringField(
    await admin(apiUrl, "/admin/keys", { user_id: userId, name: "bench", rpm_limit: 0 }),
    "key",
  );

  const direct = async () => {
    const response = await fetch(`${speech.baseUrl}/audio/speech`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "tts-1",
        input: PROMPT,
        voice: "alloy",
        response_format: "mp3",
      }),
    });
    if (!response.ok) throw new Error(`stub ${response.status}`);
    await response.arrayBuffer();
  };
  const task = async () => {
    const created = await fetch(`${apiUrl}/v1/audio/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "sonora/speech", prompt: PROMPT }),
    });
    if (created.status !== 200) throw new Error(`create ${created.status}`);
    const { id } = (await created.json()) as { id: string };
    for (;;) {
      await Bun.sleep(POLL_MS);
      const read = await fetch(`${apiUrl}/v1/audio/generations/${id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await read.json()) as { status: string };
      if (body.status === "completed") return;
      if (body.status === "failed") throw new Error(`task ${id} failed`);
    }
  };

  console.log(
    `audio bench: speech tasks (1 s of MP3 each) through the api and ${WORKERS} workers to an ` +
      `OpenAI-compatible stub; clients poll every ${POLL_MS} ms; ${DURATION_MS} ms per run after ` +
      `${WARMUP_MS} ms warm-up; ${navigator.hardwareConcurrency} cores`,
  );
  let failures = 0;
  const rows: { concurrency: number; base: LoadResult; run: LoadResult }[] = [];
  for (const concurrency of CONCURRENCY) {
    const load = (op: () => Promise<void>) =>
      runLoad({ concurrency, durationMs: DURATION_MS, warmupMs: WARMUP_MS, maxOps: 50_000, op });
    const base = await load(direct);
    const run = await load(task);
    failures += reportErrors("stub direct", base) + reportErrors("audio tasks", run);
    rows.push({ concurrency, base, run });
    process.stdout.write(".");
  }
  process.stdout.write("\n");
  printTable(
    "Audio tasks settled per second (a task: create, run, charge the reserve, refund the rest)",
    [
      "concurrency",
      "stub direct req/s",
      "settled tasks/s",
      "settled / direct",
      "task p50 ms",
      "task p99 ms",
      "direct p50 ms",
    ],
    rows.map(({ concurrency, base, run }) => [
      String(concurrency),
      fmtRate(base.opsPerSecond),
      fmtRate(run.opsPerSecond),
      fmtRatio(run.opsPerSecond, base.opsPerSecond),
      fmtMs(run.p50Ms),
      fmtMs(run.p99Ms),
      fmtMs(base.p50Ms),
    ]),
  );
  console.log(
    "  a task's latency runs from its POST to the poll that sees it completed (polls every " +
      `${POLL_MS} ms, so up to that much is waiting to look).`,
  );
  const [check] = await store.sql<{ completed: string; charges: string; refunds: string }[]>`
    select (select count(*) from tasks where status = 'completed')::text as completed,
           (select count(*) from ledger_entries where kind = 'charge')::text as charges,
           (select count(*) from ledger_entries where kind = 'refund')::text as refunds`;
  const ok = check!.completed === check!.charges && check!.charges === check!.refunds;
  console.log(
    `ledger check: ${ok ? "OK" : "FAILED"} (${check!.completed} completed tasks, ${check!.charges} charges, ${check!.refunds} refunds)`,
  );
  return ok && failures === 0 ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error("audio bench failed:", error);
} finally {
  if (!(await cleanup())) code = 1;
}
process.exit(code);
