// Proves the container health probe keeps Docker's contract: exit 0 only for a 2xx in
// time, exit 1 with one line saying why for an error status, a refused port or a hang.
import { afterAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { defaultUrl, probe } from "./healthcheck.ts";

const SCRIPT = resolve(import.meta.dir, "healthcheck.ts");
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/healthz") return new Response("ok");
    if (path === "/hang") await Bun.sleep(1_000);
    return new Response("not ready", { status: 503 });
  },
});
afterAll(() => server.stop(true));
const base = `http://127.0.0.1:${server.port}`;

function closedPort(): number {
  const probeSocket = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probeSocket;
  probeSocket.stop(true);
  return port;
}

describe("probe", () => {
  test("a 2xx is healthy; an error status, a refused port and a hang are not", async () => {
    expect(await probe(`${base}/healthz`)).toEqual({ ok: true });
    expect(await probe(`${base}/readyz`)).toEqual({
      ok: false,
      reason: `${base}/readyz answered 503`,
    });
    const refused = await probe(`http://127.0.0.1:${closedPort()}/healthz`);
    expect(refused.ok).toBe(false);
    expect(await probe(`${base}/hang`, 100)).toEqual({
      ok: false,
      reason: `${base}/hang: no answer within 100 ms`,
    });
  });

  test("the default target is the api's liveness on $PORT, unless HEALTHCHECK_URL says", () => {
    expect(defaultUrl({})).toBe("http://127.0.0.1:3000/healthz");
    expect(defaultUrl({ PORT: "8080" })).toBe("http://127.0.0.1:8080/healthz");
    expect(defaultUrl({ HEALTHCHECK_URL: "http://127.0.0.1:9464/readyz", PORT: "1" })).toBe(
      "http://127.0.0.1:9464/readyz",
    );
  });
});

describe("as Docker runs it", () => {
  async function run(args: string[], env: Record<string, string> = {}) {
    const proc = Bun.spawn(["bun", SCRIPT, ...args], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    return { code, stderr };
  }

  test("exit 0 when healthy, silently; exit 1 with the reason when not", async () => {
    expect(await run([`${base}/healthz`])).toEqual({ code: 0, stderr: "" });
    expect(await run([`${base}/readyz`])).toEqual({
      code: 1,
      stderr: `[healthcheck] ${base}/readyz answered 503\n`,
    });
    expect(await run([], { PORT: String(server.port) })).toEqual({ code: 0, stderr: "" });
  });
});
