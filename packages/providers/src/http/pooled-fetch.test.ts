// Proves the upstream fetch holds many calls in flight (Bun's fetch holds 256 at once
// unless configured before start), and behaves as fetch where the provider relies on it:
// bodies both ways, statuses, aborts, and connection errors with their codes.
import { afterAll, expect, test } from "bun:test";
import { createPooledFetch } from "./pooled-fetch.ts";

const server = Bun.serve({
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/slow") await Bun.sleep(400);
    if (url.pathname === "/echo")
      return new Response(await request.text(), {
        status: 201,
        headers: { "x-type": request.headers.get("content-type") ?? "" },
      });
    return new Response("ok");
  },
});
afterAll(() => server.stop(true));
const base = `http://127.0.0.1:${server.port}`;

test("600 calls of 400 ms are all in flight at once", async () => {
  const pooled = createPooledFetch({ maxSockets: 1024 });
  const started = performance.now();
  const bodies = await Promise.all(
    Array.from({ length: 600 }, () => pooled(`${base}/slow`).then((response) => response.text())),
  );
  expect(bodies.every((body) => body === "ok")).toBe(true);
  // Three waves of 256 would take 1.2 s.
  expect(performance.now() - started).toBeLessThan(1_100);
});

test("bodies, headers and statuses pass both ways, FormData included", async () => {
  const pooled = createPooledFetch({ maxSockets: 4 });
  const json = await pooled(`${base}/echo`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"a":1}',
  });
  expect(json.status).toBe(201);
  expect(json.headers.get("x-type")).toBe("application/json");
  expect(await json.json()).toEqual({ a: 1 });
  const form = new FormData();
  form.set("prompt", "a lamp");
  const multipart = await pooled(`${base}/echo`, { method: "POST", body: form });
  expect(multipart.headers.get("x-type")).toStartWith("multipart/form-data; boundary=");
  expect(await multipart.text()).toContain("a lamp");
});

test("an abort rejects the call; a refused connection rejects with its code", async () => {
  const pooled = createPooledFetch({ maxSockets: 4 });
  await expect(pooled(`${base}/slow`, { signal: AbortSignal.timeout(50) })).rejects.toThrow();
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const closedPort = probe.port;
  probe.stop(true);
  const refused = await pooled(`http://127.0.0.1:${closedPort}/`).catch((error) => error);
  expect((refused as { code?: string }).code).toBe("ECONNREFUSED");
});
