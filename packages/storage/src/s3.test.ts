// Proves S3 storage works through Bun's S3Client against the local S3 stub: round trips
// with content types, null for missing keys, paged deletePrefix and list, key prefixes,
// bad keys, and that access and connection failures throw instead of looking like "missing".
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createS3Storage } from "./s3.ts";
import type { Storage } from "./storage.ts";
import { type S3Stub, startS3Stub } from "./testing/s3-stub.ts";

let stub: S3Stub;
let storage: Storage;
const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);
// Each test writes under its own task id, as tests share one stub.
const task = () => `t${crypto.randomUUID().slice(0, 8)}`;

beforeAll(() => {
  // Pages of 2 keys make deletePrefix and list walk several ListObjectsV2 pages.
  stub = startS3Stub({ maxKeys: 2 });
  storage = createS3Storage(stub.storageOptions);
});

afterAll(async () => {
  await stub.stop();
});

describe("S3 storage", () => {
  test("put stores the bytes with the content type and get reads them back", async () => {
    const id = task();
    expect(storage.kind).toBe("s3");
    await storage.put(`results/${id}/0.png`, bytes("png!"), "image/png");
    expect(stub.objects.get(`results/${id}/0.png`)?.contentType).toBe("image/png");
    const file = await storage.get(`results/${id}/0.png`);
    expect(text(file!.bytes)).toBe("png!");
    expect(file!.contentType).toBe("image/png");
    expect(file!.size).toBe(4);
  });

  test("overwrite replaces the object; large bodies go up in one request", async () => {
    const id = task();
    await storage.put(`results/${id}/0.mp4`, bytes("first"), "video/mp4");
    const big = new Uint8Array(6 * 1024 * 1024).fill(7);
    const putsBefore = stub.requestCounts.get("PUT") ?? 0;
    await storage.put(`results/${id}/0.mp4`, big, "video/mp4");
    expect(stub.requestCounts.get("PUT")).toBe(putsBefore + 1);
    const file = await storage.get(`results/${id}/0.mp4`);
    expect(file!.size).toBe(big.byteLength);
    expect(file!.bytes[big.byteLength - 1]).toBe(7);
  });

  test("a missing key answers null and deleting it is fine", async () => {
    expect(await storage.get(`results/${task()}/0.png`)).toBeNull();
    await storage.delete(`results/${task()}/0.png`);
  });

  test("delete removes the object", async () => {
    const key = `results/${task()}/1.json`;
    await storage.put(key, bytes("{}"), "application/json");
    await storage.delete(key);
    expect(await storage.get(key)).toBeNull();
    expect(stub.objects.has(key)).toBe(false);
  });

  test("deletePrefix walks every page and leaves neighbours alone", async () => {
    const id = task();
    for (let n = 0; n < 5; n++) await storage.put(`uploads/${id}/${n}`, bytes("x"), "x");
    await storage.put(`uploads/${id}x/0`, bytes("keep"), "x");
    const listsBefore = stub.requestCounts.get("LIST") ?? 0;
    expect(await storage.deletePrefix(`uploads/${id}/`)).toBe(5);
    expect(stub.requestCounts.get("LIST")).toBe(listsBefore + 3);
    expect(await storage.list(`uploads/${id}/`)).toEqual([]);
    expect(text((await storage.get(`uploads/${id}x/0`))!.bytes)).toBe("keep");
    expect(await storage.deletePrefix(`uploads/${id}/`)).toBe(0);
  });

  test("list pages through a prefix and filters by age", async () => {
    const id = task();
    for (const name of ["a", "b", "c"])
      await storage.put(`uploads/${id}/${name}`, bytes(name), "x");
    stub.objects.get(`uploads/${id}/b`)!.lastModifiedMs = Date.now() - 2 * 3600_000;
    const all = await storage.list(`uploads/${id}/`);
    expect(all.map((e) => e.key)).toEqual([
      `uploads/${id}/a`,
      `uploads/${id}/b`,
      `uploads/${id}/c`,
    ]);
    expect(all[0]!.size).toBe(1);
    const old = await storage.list(`uploads/${id}/`, 3600_000);
    expect(old.map((e) => e.key)).toEqual([`uploads/${id}/b`]);
  });

  test("a key prefix scopes every operation", async () => {
    const scoped = createS3Storage({ ...stub.storageOptions, prefix: "gateway" });
    const id = task();
    await scoped.put(`results/${id}/0.png`, bytes("p"), "image/png");
    expect(stub.objects.has(`gateway/results/${id}/0.png`)).toBe(true);
    expect(await storage.get(`results/${id}/0.png`)).toBeNull();
    expect((await scoped.list(`results/${id}/`)).map((e) => e.key)).toEqual([
      `results/${id}/0.png`,
    ]);
    expect(await scoped.deletePrefix(`results/${id}/`)).toBe(1);
    expect(stub.objects.has(`gateway/results/${id}/0.png`)).toBe(false);
    expect(() => createS3Storage({ ...stub.storageOptions, prefix: "a//b" })).toThrow(RangeError);
  });

  test("bad keys: put and delete throw RangeError, get answers null without a request", async () => {
    const before = stub.requestCounts.get("GET") ?? 0;
    for (const key of ["../x", "/x", "a\\b", "a//b", ""]) {
      await expect(storage.put(key, bytes("x"), "x")).rejects.toBeInstanceOf(RangeError);
      await expect(storage.delete(key)).rejects.toBeInstanceOf(RangeError);
      expect(await storage.get(key)).toBeNull();
    }
    await expect(storage.deletePrefix("")).rejects.toBeInstanceOf(RangeError);
    expect(stub.requestCounts.get("GET") ?? 0).toBe(before);
  });

  test("a wrong access key id is refused and thrown, not reported as missing", async () => {
    const wrong = createS3Storage({ ...stub.storageOptions, accessKeyId: "SOMEONEELSE" });
    const key = `results/${task()}/0.png`;
    const failure = await wrong.put(key, bytes("x"), "image/png").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(((failure as Error).cause as { code?: string }).code).toBe("InvalidAccessKeyId");
    await expect(wrong.get(key)).rejects.toThrow(/S3 get/);
  });

  test("an unknown bucket and an unreachable endpoint throw", async () => {
    const noBucket = createS3Storage({ ...stub.storageOptions, bucket: "other-bucket" });
    await expect(noBucket.get("results/x/0.png")).rejects.toThrow(/S3 get/);
    const down = createS3Storage({ ...stub.storageOptions, endpoint: "http://127.0.0.1:1" });
    await expect(down.get("results/x/0.png")).rejects.toThrow(/S3 get/);
  });

  test("a server that never answers fails after timeoutMs", async () => {
    const silent = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Promise(() => {}),
    });
    try {
      const hung = createS3Storage({
        ...stub.storageOptions,
        endpoint: `http://127.0.0.1:${silent.port}`,
        timeoutMs: 50,
      });
      const failure = await hung.get("results/x/0.png").catch((e: unknown) => e);
      expect(((failure as Error).cause as Error).message).toMatch(/timed out after 50 ms/);
    } finally {
      await silent.stop(true);
    }
  });
});
