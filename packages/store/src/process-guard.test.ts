import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { isConnectionError } from "./process-guard.ts";

const guard = join(import.meta.dir, "process-guard.ts");

/** Runs a small bun program with the guard installed; returns its exit code and output. */
async function run(body: string): Promise<{ code: number; out: string }> {
  const script = `import { guardProcess } from ${JSON.stringify(guard)};
guardProcess({ name: "[probe]" });
${body}`;
  const child = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code, out: out + err };
}

describe("process guard", () => {
  test("a connection error thrown outside any handler leaves the process running", async () => {
    const { code, out } = await run(`
setTimeout(() => { const e = new Error("write CONNECTION_CLOSED"); e.code = "CONNECTION_CLOSED"; throw e; }, 10);
setTimeout(() => { console.log("still alive"); process.exit(0); }, 200);`);
    expect(out).toContain("connection error outside a request");
    expect(out).toContain("still alive");
    expect(code).toBe(0);
  });

  test("a rejected promise nobody awaited is logged and the process goes on", async () => {
    const { code, out } = await run(`
Promise.reject(new Error("lost promise"));
setTimeout(() => { console.log("still alive"); process.exit(0); }, 200);`);
    expect(out).toContain("unhandled rejection (going on): Error: lost promise");
    expect(out).toContain("still alive");
    expect(code).toBe(0);
  });

  test("any other uncaught exception ends the process with code 1 for a restart", async () => {
    const { code, out } = await run(`
setTimeout(() => { throw new TypeError("a bug"); }, 10);
setTimeout(() => { console.log("still alive"); process.exit(0); }, 300);`);
    expect(out).toContain("exiting for a restart: TypeError: a bug");
    expect(out).not.toContain("still alive");
    expect(code).toBe(1);
  });

  test("connection errors are told apart from bugs", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
      code: "ECONNREFUSED",
    });
    expect(isConnectionError(refused)).toBe(true);
    expect(isConnectionError(new Error("Connection is closed."))).toBe(true);
    expect(isConnectionError(new TypeError("undefined is not an object"))).toBe(false);
    expect(isConnectionError("CONNECTION_CLOSED")).toBe(false);
  });
});
