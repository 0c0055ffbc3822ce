// Proves local storage round-trips files in a temp directory, replaces them atomically,
// deletes single files and whole prefixes, lists by age, and refuses bad keys.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalStorage } from "./local.ts";
import type { Storage } from "./storage.ts";

let dir: string;
let storage: Storage;
const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-storage-"));
  storage = createLocalStorage(join(dir, "files"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("local storage", () => {
  test("put creates directories and get returns bytes, type and size", async () => {
    expect(storage.kind).toBe("local");
    await storage.put("results/t1/0.png", bytes("png!"), "image/png");
    const file = await storage.get("results/t1/0.png");
    expect(file).not.toBeNull();
    expect(text(file!.bytes)).toBe("png!");
    expect(file!.contentType).toBe("image/png");
    expect(file!.size).toBe(4);
  });

  test("the content type comes from the key, not from put", async () => {
    await storage.put("uploads/t1/0", bytes("raw"), "image/png");
    expect((await storage.get("uploads/t1/0"))!.contentType).toBe("application/octet-stream");
  });

  test("overwriting replaces the file and leaves no temporary files", async () => {
    await storage.put("results/t2/0.json", bytes('{"a":1}'), "application/json");
    await storage.put("results/t2/0.json", bytes('{"a":22}'), "application/json");
    expect(text((await storage.get("results/t2/0.json"))!.bytes)).toBe('{"a":22}');
    expect(await readdir(join(dir, "files/results/t2"))).toEqual(["0.json"]);
  });

  test("concurrent writes of one key leave one whole version", async () => {
    const versions = Array.from({ length: 20 }, (_, i) => String(i).repeat(10_000));
    await Promise.all(versions.map((v) => storage.put("results/t3/0.json", bytes(v), "x")));
    expect(versions).toContain(text((await storage.get("results/t3/0.json"))!.bytes));
    expect(await readdir(join(dir, "files/results/t3"))).toEqual(["0.json"]);
  });

  test("empty files round-trip", async () => {
    await storage.put("results/t4/empty.json", new Uint8Array(0), "application/json");
    expect((await storage.get("results/t4/empty.json"))!.size).toBe(0);
  });

  test("missing files and directories answer null", async () => {
    expect(await storage.get("results/none/0.png")).toBeNull();
    expect(await storage.get("results/t1")).toBeNull();
    expect(await storage.get("results/t1/0.png/more")).toBeNull();
  });

  test("delete removes a file and ignores a missing one", async () => {
    await storage.put("results/t5/0.png", bytes("x"), "image/png");
    await storage.delete("results/t5/0.png");
    expect(await storage.get("results/t5/0.png")).toBeNull();
    await storage.delete("results/t5/0.png");
    await storage.delete("results/never/0.png");
  });

  test("deletePrefix removes everything below the prefix and counts the files", async () => {
    await storage.put("uploads/t6/0", bytes("a"), "x");
    await storage.put("uploads/t6/1", bytes("b"), "x");
    await storage.put("uploads/t6/nested/2", bytes("c"), "x");
    await storage.put("uploads/t66/0", bytes("keep"), "x");
    expect(await storage.deletePrefix("uploads/t6/")).toBe(3);
    expect(await storage.get("uploads/t6/0")).toBeNull();
    expect(await storage.get("uploads/t6/nested/2")).toBeNull();
    expect(text((await storage.get("uploads/t66/0"))!.bytes)).toBe("keep");
    expect(await storage.deletePrefix("uploads/t6/")).toBe(0);
    expect(await storage.deletePrefix("uploads/never/")).toBe(0);
  });

  test("a put after deletePrefix recreates the directory", async () => {
    await storage.put("uploads/t7/0", bytes("a"), "x");
    await storage.deletePrefix("uploads/t7/");
    await storage.put("uploads/t7/0", bytes("b"), "x");
    expect(text((await storage.get("uploads/t7/0"))!.bytes)).toBe("b");
  });

  test("list returns files under a prefix, optionally only the old ones", async () => {
    await storage.put("uploads/t8/old", bytes("old"), "x");
    await storage.put("uploads/t8/new", bytes("new!"), "x");
    const longAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(join(dir, "files/uploads/t8/old"), longAgo, longAgo);
    // Stray files no key can name (like an interrupted write's temp file) are not listed.
    await writeFile(join(dir, "files/uploads/t8/new.~tmp"), "partial");

    const all = await storage.list("uploads/t8/");
    expect(all.map((e) => e.key).sort()).toEqual(["uploads/t8/new", "uploads/t8/old"]);
    expect(all.find((e) => e.key === "uploads/t8/new")!.size).toBe(4);

    const old = await storage.list("uploads/t8/", 3600_000);
    expect(old.map((e) => e.key)).toEqual(["uploads/t8/old"]);
    expect(Math.abs(old[0]!.lastModifiedMs - longAgo.getTime())).toBeLessThan(1000);
    expect(await storage.list("uploads/none/")).toEqual([]);
  });

  test("bad keys: put, delete and prefixes throw RangeError, get answers null", async () => {
    for (const key of ["../escape.png", "/etc/passwd", "a\\b", "a\u0000b", "a//b", ""]) {
      await expect(storage.put(key, bytes("x"), "x")).rejects.toBeInstanceOf(RangeError);
      await expect(storage.delete(key)).rejects.toBeInstanceOf(RangeError);
      expect(await storage.get(key)).toBeNull();
    }
    await expect(storage.deletePrefix("")).rejects.toBeInstanceOf(RangeError);
    await expect(storage.deletePrefix("uploads/t1")).rejects.toBeInstanceOf(RangeError);
    await expect(storage.deletePrefix("../")).rejects.toBeInstanceOf(RangeError);
    await expect(storage.list("/")).rejects.toBeInstanceOf(RangeError);
  });

  test("nothing was written outside the storage directory", async () => {
    expect((await readdir(dir)).sort()).toEqual(["files"]);
  });
});
