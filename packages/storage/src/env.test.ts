// Proves storageFromEnv picks local storage by default and S3 when asked, and that every
// bad or missing setting fails with a message naming the variable without echoing secrets.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storageFromEnv } from "./env.ts";
import { type S3Stub, startS3Stub } from "./testing/s3-stub.ts";

let dir: string;
let stub: S3Stub;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-storage-env-"));
  stub = startS3Stub();
});

afterAll(async () => {
  await stub.stop();
  await rm(dir, { recursive: true, force: true });
});

const s3Env = () => ({
  STORAGE: "s3",
  S3_BUCKET: stub.bucket,
  S3_ENDPOINT: stub.endpoint,
  S3_REGION: stub.region,
  S3_ACCESS_KEY_ID: stub.accessKeyId,
  S3_SECRET_ACCESS_KEY: stub.secretAccessKey,
});

describe("storageFromEnv", () => {
  test("defaults to local storage under <dataDir>/files", async () => {
    const storage = storageFromEnv({}, dir);
    expect(storage.kind).toBe("local");
    await storage.put("results/t/0.png", new Uint8Array([1]), "image/png");
    expect((await stat(join(dir, "files/results/t/0.png"))).size).toBe(1);
  });

  test("STORAGE_DIR overrides the directory; blank values count as unset", async () => {
    const storage = storageFromEnv({ STORAGE: " ", STORAGE_DIR: join(dir, "elsewhere") }, dir);
    expect(storage.kind).toBe("local");
    await storage.put("results/t/1.png", new Uint8Array([1]), "image/png");
    expect((await stat(join(dir, "elsewhere/results/t/1.png"))).size).toBe(1);
  });

  test("STORAGE=s3 talks to the configured endpoint", async () => {
    const storage = storageFromEnv({ ...s3Env(), S3_PREFIX: "gw/" }, dir);
    expect(storage.kind).toBe("s3");
    await storage.put("results/t/0.json", new TextEncoder().encode("{}"), "application/json");
    expect(stub.objects.has("gw/results/t/0.json")).toBe(true);
    expect((await storage.get("results/t/0.json"))!.size).toBe(2);
  });

  test("an unknown STORAGE is refused", () => {
    expect(() => storageFromEnv({ STORAGE: "ftp" }, dir)).toThrow(
      /STORAGE must be "local" or "s3"/,
    );
  });

  test("each required S3 variable is named when missing", () => {
    for (const name of ["S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"]) {
      const env: Record<string, string | undefined> = { ...s3Env(), [name]: undefined };
      expect(() => storageFromEnv(env, dir)).toThrow(`${name} is required when STORAGE=s3`);
    }
  });

  test("malformed S3 settings are named", () => {
    const cases: [string, string][] = [
      ["S3_BUCKET", "Bad Bucket"],
      ["S3_ENDPOINT", "127.0.0.1:9000"],
      ["S3_ENDPOINT", "ftp://example.com"],
      ["S3_REGION", "us east"],
      ["S3_PREFIX", "/abs"],
      ["S3_PREFIX", "a//b"],
      ["S3_PREFIX", "../up"],
    ];
    for (const [name, value] of cases) {
      expect(() => storageFromEnv({ ...s3Env(), [name]: value }, dir)).toThrow(name);
    }
  });

  test("secrets never appear in error messages", () => {
    const env = { ...s3Env(), S3_SECRET_ACCESS_KEY: "very-secret-value", S3_BUCKET: "" };
    const message = (() => {
      try {
        storageFromEnv(env, dir);
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toContain("S3_BUCKET");
    expect(message).not.toContain("very-secret-value");
  });
});
