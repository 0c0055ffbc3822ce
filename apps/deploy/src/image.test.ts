// Proves the Dockerfile and .dockerignore (at the repository root) keep the image
// contract: the processes run as an unprivileged user with a HEALTHCHECK and a data
// directory of their own, and the build context leaves out dependencies and local data
// but nothing the apps read at run time.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../../..");

/** Dockerfile instructions with continuation lines joined and comments dropped. */
function instructions(): { op: string; args: string }[] {
  const text = readFileSync(resolve(ROOT, "Dockerfile"), "utf8").replace(/\\\n\s*/g, " ");
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(" ") };
    });
}

describe("Dockerfile", () => {
  const steps = instructions();
  const last = (op: string) => steps.findLast((step) => step.op === op);

  test("the processes run as the image's unprivileged bun user", () => {
    expect(last("USER")?.args).toBe("bun");
    // Nothing after the switch runs as root again.
    const switched = steps.findIndex((step) => step.op === "USER");
    expect(steps.slice(switched).some((step) => step.op === "RUN")).toBe(false);
  });

  test("the data directory is that user's, and the apps are told to use it", () => {
    expect(
      steps.some((step) => step.op === "RUN" && step.args.includes("chown -R bun:bun /data")),
    ).toBe(true);
    expect(last("ENV")?.args).toContain("DATA_DIR=/data");
    expect(last("ENV")?.args).toContain("STORAGE_DIR=/data/files");
  });

  test("a HEALTHCHECK runs the probe script the image carries", () => {
    const check = last("HEALTHCHECK")?.args ?? "";
    expect(check).toContain('CMD ["bun", "apps/deploy/src/healthcheck.ts"]');
    expect(check).toMatch(/--timeout=\d+s/);
    expect(existsSync(resolve(ROOT, "apps/deploy/src/healthcheck.ts"))).toBe(true);
    expect(steps.some((step) => step.op === "COPY" && step.args === "apps ./apps")).toBe(true);
  });
});

describe(".dockerignore", () => {
  const patterns = readFileSync(resolve(ROOT, ".dockerignore"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((pattern) => new Bun.Glob(pattern));
  /** Ignored if the path or any folder above it matches, as Docker decides. */
  const ignored = (path: string) => {
    const parts = path.split("/");
    return parts.some((_, index) => {
      const prefix = parts.slice(0, index + 1).join("/");
      return patterns.some((glob) => glob.match(prefix));
    });
  };

  test("leaves out dependencies, local data, history and secrets", () => {
    for (const path of [
      "node_modules/elysia/package.json",
      "apps/api/node_modules/@gw/store",
      ".data/admin-token",
      ".git/HEAD",
      ".env",
      "apps/api/src/server.test.ts",
    ])
      expect(ignored(path)).toBe(true);
  });

  test("keeps every file the image copies that is not a test", () => {
    const listed = Bun.spawnSync(
      [
        "git",
        "ls-files",
        "--cached",
        "--others",
        "--exclude-standard",
        "apps",
        "packages",
        "patches",
      ],
      { cwd: ROOT },
    );
    expect(listed.exitCode).toBe(0);
    const files = listed.stdout.toString().split("\n").filter(Boolean);
    const needed = [
      ...files.filter((file) => !file.endsWith(".test.ts")),
      "package.json",
      "bun.lock",
      "turbo.json",
      "tsconfig.base.json",
    ];
    expect(needed.length).toBeGreaterThan(100);
    expect(needed.filter(ignored)).toEqual([]);
  });
});
