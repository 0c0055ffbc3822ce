// Proves a prefix pattern `<prefix>/*` closes every route under it, in every route family
// (result files, images, whole /v1), and reopens them; and that a `*` anywhere else, a
// pattern over admin or docs, or a prefix with no route under it is refused, changing nothing.
import { describe, expect, test } from "bun:test";
import { startImageStack } from "../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const stack = await startImageStack();
const { api } = stack;
await stack.spawnWorker();
const { secret } = await api.account({ balanceUsd: 1 });

const close = (pattern: string, closed = true) =>
  api.admin("PUT", `/admin/endpoints/${encodeURIComponent(pattern)}`, { closed });

async function closedPaths(): Promise<string[]> {
  const listed = (await (await api.admin("GET", "/admin/endpoints")).json()) as Body;
  return listed.data.map((row: { path: string }) => row.path);
}

describe("prefix patterns", () => {
  test("/v1/files/* stops result links until reopened", async () => {
    const generated = await api.call("POST", "/v1/images/generations", {
      key: secret,
      body: { model: "lumina-image", prompt: "a locked door" },
    });
    const link = ((await generated.json()) as Body).data[0].url as string;
    expect((await fetch(link)).status).toBe(200);
    const put = await close("/v1/files/*");
    expect(await put.json()).toEqual({ path: "/v1/files/*", closed: true });
    expect(await closedPaths()).toEqual(["/v1/files/*"]);
    const refused = await fetch(link);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as Body).error.code).toBe("endpoint_closed");
    await close("/v1/files/*", false);
    expect((await fetch(link)).status).toBe(200);
  });

  test("/v1/images/* closes generation, edits and task reads, and nothing else", async () => {
    await close("/v1/images/*");
    const calls = [
      api.call("POST", "/v1/images/generations", { key: secret, body: { model: "x" } }),
      api.call("POST", "/v1/images/edits", { key: secret, body: { model: "x" } }),
      api.call("GET", "/v1/images/tasks/img_000000000000000000000000", { key: secret }),
    ];
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual([503, 503, 503]);
    expect((await api.call("GET", "/v1/balance", { key: secret })).status).toBe(200);
    await close("/v1/images/*", false);
    expect(
      (await api.call("GET", "/v1/images/tasks/img_000000000000000000000000", { key: secret }))
        .status,
    ).toBe(404);
  });

  test("/v1/* closes every /v1 route but not the legacy paths or the admin API", async () => {
    await close("/v1/*");
    expect((await api.call("GET", "/v1/balance", { key: secret })).status).toBe(503);
    expect((await api.call("GET", "/v1/models", { key: secret })).status).toBe(503);
    expect((await api.call("GET", "/v1/media/models")).status).toBe(503);
    expect((await api.call("GET", "/api/usage/token/", { key: secret })).status).toBe(200);
    expect((await api.admin("GET", "/admin/endpoints")).status).toBe(200);
    await close("/v1/*", false);
    expect((await api.call("GET", "/v1/balance", { key: secret })).status).toBe(200);
  });
});

describe("patterns that are refused", () => {
  test.each([
    ["/*", 400, "admin and documentation"],
    ["/admin/*", 400, "admin and documentation"],
    ["/v1/fi*", 400, "last segment"],
    ["/v1/*/balance", 400, "last segment"],
    ["/nothing/*", 404, "No endpoint lies under /nothing/*"],
    ["v1/balance", 400, "starting with /"],
  ])("%s is %i and changes nothing", async (pattern, status, message) => {
    const response = await close(pattern);
    expect(response.status).toBe(status);
    expect(((await response.json()) as Body).error.message).toContain(message);
    expect(await closedPaths()).toEqual([]);
  });

  test("a control character or a malformed escape is named, not echoed raw", async () => {
    const control = await api.admin("PUT", "/admin/endpoints/%2Fv1%2Fbal%01ance", {
      closed: true,
    });
    expect(control.status).toBe(400);
    expect(((await control.json()) as Body).error.message).toContain("printable ASCII");
    const malformed = await api.admin("PUT", "/admin/endpoints/%E0%A4%A", { closed: true });
    const body = (await malformed.json()) as Body;
    expect(malformed.status).toBe(400);
    // The router may have decoded it already: either way the message says what to send.
    expect(body.error.message).toMatch(/malformed URL encoding|printable ASCII/);
    expect(body.error.message).not.toContain("\ufffd");
    expect(await closedPaths()).toEqual([]);
  });
});
