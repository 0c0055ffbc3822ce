// Proves how a run treats what goes wrong: a provider that throws on a job (a decoder or
// encoder refusing the client's input) fails the task in that one run, hold voided, with
// source_invalid when there were sources; an oversized source is refused by its header
// before the provider runs; an infrastructure error (storage down) still throws, so the
// job stays pending and is retried as before.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLedger } from "@gw/ledger";
import {
  createOfflineProvider,
  encodeImage,
  type ImageJob,
  type Provider,
  type ProviderResult,
} from "@gw/providers";
import { pngBomb } from "@gw/providers/testing";
import { createSafeFetcher, urlPolicyFromEnv } from "@gw/safe-fetch";
import { createLocalStorage, type Storage } from "@gw/storage";
import { createTestStore } from "@gw/store/testing";
import { loadCatalog } from "@gw/tariffs";
import {
  createSettler,
  findTask,
  insertTask,
  Lanes,
  newTaskId,
  type RunDeps,
  runJob,
  uploadKey,
  uploadRef,
} from "@gw/tasks";
import { imageKind } from "./image.ts";

const store = await createTestStore();
const { sql, redis, prefix } = store;
const dir = mkdtempSync(join(tmpdir(), "gw-run-task-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ledger = createLedger({ sql, redis, prefix, holdTtlMs: 60_000 });
const [user] = await sql<{ id: bigint }[]>`insert into users (name) values ('t') returning id`;
const userId = user!.id;
await ledger.credit({ userId, amountQuota: 1_000_000n });
const catalog = await loadCatalog();
const smallPng = await encodeImage(
  { width: 4, height: 4, channels: 1, line: new Uint8Array(7).fill(128) },
  "png",
);

function deps(provider: Provider, storage: Storage = createLocalStorage(dir)): RunDeps {
  const router = {
    names: [provider.name],
    route: () => ({ provider, upstreamModel: "m" }),
    routeName: () => ({ name: provider.name, upstreamModel: "m" }),
  };
  const fetcher = createSafeFetcher({ policy: urlPolicyFromEnv({}) });
  return {
    sql,
    ledger,
    storage,
    settler: createSettler({ storage, sql, redis, prefix, ledger, log: () => {} }),
    lanes: new Lanes({}, 16),
    kinds: { image: imageKind({ sql, storage, fetcher, catalog, router }) },
    workerId: "w",
    leaseMs: 30_000,
    maxAttempts: 3,
    settleRetryMs: 1_000,
    log: () => {},
  };
}

/** A job as a requeue makes it (the id only): the run claims the task in Postgres. */
const runTask = (runDeps: RunDeps, taskId: string) =>
  runJob(runDeps, { partition: 0, entryId: "0-1", taskId, task: null, reclaimed: false });

/** A held, queued task; with a source upload of `bytes` when given. */
async function newTask(model: string, operation: string, bytes?: Uint8Array): Promise<string> {
  const id = newTaskId("img");
  await insertTask(sql, {
    id,
    kind: "image",
    userId,
    keyId: null,
    model,
    requestedModel: model,
    operation,
    prompt: "p",
    input: bytes ? { image_url: uploadRef(0) } : {},
    responseFormat: "url",
    price: {
      version: "v",
      model,
      operation,
      unit: "request",
      unitQuota: "100",
      parameters: {},
      quantity: 1,
      measured: false,
      reserveQuantity: 1,
      surcharges: [],
      discountPpm: 0,
    },
    holdQuota: 100n,
    idempotencyKey: null,
    requestHash: null,
  });
  const held = await ledger.hold({ holdId: id, userId, keyId: null, amountQuota: 100n });
  if (!held.ok) throw new Error(`hold refused: ${held.code}`);
  if (bytes) await createLocalStorage(dir).put(uploadKey(id, 0), bytes, "image/png");
  return id;
}

const holdState = async (id: string) =>
  (await sql<{ state: string }[]>`select state from holds where id = ${id}`)[0]?.state;

const throwing = (calls: ImageJob[]): Provider => ({
  name: "throwing",
  run: async (job) => {
    calls.push(job);
    throw new RangeError("image size 100000x100000 exceeds 8192 per side");
  },
});

test("a provider that throws on a source fails the task in one run, hold voided", async () => {
  const calls: ImageJob[] = [];
  const id = await newTask("atlas-segment", "segment-map", smallPng);
  expect(await runTask(deps(throwing(calls)), id)).toBe("failed");
  expect(calls).toHaveLength(1);
  const task = await findTask(sql, id);
  expect(task).toMatchObject({ status: "failed", attempts: 1, fail_code: "source_invalid" });
  expect(task!.fail_reason).toContain("100000x100000");
  expect(await holdState(id)).toBe("voided");
});

test("a provider that throws (even before its promise) without sources fails as upstream_error, once", async () => {
  const throwsAtOnce: Provider = {
    name: "sync",
    run: () => {
      throw new TypeError("undefined is not an object");
    },
  };
  const id = await newTask("lumina-image", "text-to-image");
  expect(await runTask(deps(throwsAtOnce), id)).toBe("failed");
  expect(await findTask(sql, id)).toMatchObject({
    status: "failed",
    attempts: 1,
    fail_code: "upstream_error",
  });
  expect(await holdState(id)).toBe("voided");
});

test("an uploaded bomb is refused by its header before the provider runs", async () => {
  const calls: ImageJob[] = [];
  const id = await newTask("atlas-segment", "segment-map", pngBomb(100_000, 100_000));
  expect(await runTask(deps(throwing(calls)), id)).toBe("failed");
  expect(calls).toHaveLength(0);
  const task = await findTask(sql, id);
  expect(task).toMatchObject({ status: "failed", attempts: 1, fail_code: "source_invalid" });
  expect(task!.fail_reason).toContain("declares 100000x100000 pixels");
  expect(await holdState(id)).toBe("voided");
});

test("storage failing while results are stored still throws: the job is retried", async () => {
  const local = createLocalStorage(dir);
  const broken: Storage = {
    ...local,
    put: async () => {
      throw new Error("storage unreachable");
    },
  };
  const id = await newTask("atlas-segment", "segment-map", smallPng);
  await expect(runTask(deps(createOfflineProvider(), broken), id)).rejects.toThrow(
    "storage unreachable",
  );
  expect(await findTask(sql, id)).toMatchObject({ status: "processing", attempts: 1 });
  expect(await holdState(id)).toBe("pending");
});

test("a provider's failure value still fails at once (unchanged)", async () => {
  const failing: Provider = {
    name: "failing",
    run: async (): Promise<ProviderResult> => ({
      ok: false,
      code: "invalid_request",
      message: "no",
      attempts: 1,
    }),
  };
  const id = await newTask("atlas-segment", "segment-map", smallPng);
  expect(await runTask(deps(failing), id)).toBe("failed");
  expect(await findTask(sql, id)).toMatchObject({ attempts: 1, fail_code: "invalid_request" });
});

test("a model no provider serves fails its task upstream_unavailable, hold voided, nothing charged", async () => {
  const storage = createLocalStorage(dir);
  const fetcher = createSafeFetcher({ policy: urlPolicyFromEnv({}) });
  const unrouted = {
    ...deps(createOfflineProvider()),
    kinds: {
      image: imageKind({
        sql,
        storage,
        fetcher,
        catalog,
        router: { names: [], route: () => null, routeName: () => null },
      }),
    },
  };
  const id = await newTask("lumina-image", "text-to-image");
  expect(await runTask(unrouted, id)).toBe("failed");
  const task = await findTask(sql, id);
  expect(task).toMatchObject({ status: "failed", fail_code: "upstream_unavailable" });
  expect(task!.fail_reason).toContain("no provider is configured for model lumina-image");
  expect(await holdState(id)).toBe("voided");
});
