// Proves an administrator can close any endpoint (503 in the error shape, before auth), that
// every api instance sharing the database learns of it, and that it reopens cleanly.
import { describe, expect, test } from "bun:test";
import { startTestApi } from "../testing.ts";

const api = await startTestApi();
const second = await startTestApi({}, api.store);

async function until(check: () => Promise<boolean>, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(20);
  }
  return false;
}

describe("closed endpoints", () => {
  test("a closed endpoint answers 503 on every instance until reopened", async () => {
    const { secret } = await api.account();
    const put = await api.admin("PUT", "/admin/endpoints/%2Fv1%2Fbalance", { closed: true });
    expect(await put.json()).toEqual({ path: "/v1/balance", closed: true });

    const closed = await api.call("GET", "/v1/balance", { key: secret });
    expect(closed.status).toBe(503);
    expect(await closed.json()).toEqual({
      error: {
        message: "The endpoint /v1/balance is closed by an administrator",
        type: "service_unavailable_error",
        code: "endpoint_closed",
      },
    });
    // Closed means closed before authentication: no key is looked at.
    expect((await api.call("GET", "/v1/balance")).status).toBe(503);
    expect(
      await until(
        async () => (await second.call("GET", "/v1/balance", { key: secret })).status === 503,
      ),
    ).toBe(true);
    // Other endpoints stay open.
    expect((await api.call("GET", "/api/usage/token/", { key: secret })).status).toBe(200);

    const listed = await api.admin("GET", "/admin/endpoints");
    expect(
      ((await listed.json()) as { data: { path: string }[] }).data.map((row) => row.path),
    ).toEqual(["/v1/balance"]);

    await api.admin("PUT", "/admin/endpoints/%2Fv1%2Fbalance", { closed: false });
    expect((await api.call("GET", "/v1/balance", { key: secret })).status).toBe(200);
    expect(
      await until(
        async () => (await second.call("GET", "/v1/balance", { key: secret })).status === 200,
      ),
    ).toBe(true);
  });

  test("a path with a trailing slash, and both forms of a legacy alias, can be closed", async () => {
    const { secret } = await api.account();
    await api.admin("PUT", `/admin/endpoints/${encodeURIComponent("/api/usage/token/")}`, {
      closed: true,
    });
    expect((await api.call("GET", "/api/usage/token/", { key: secret })).status).toBe(503);
    expect((await api.call("GET", "/api/usage/token", { key: secret })).status).toBe(503);
    await api.admin("PUT", `/admin/endpoints/${encodeURIComponent("/api/usage/token/")}`, {
      closed: false,
    });
    await api.admin("PUT", `/admin/endpoints/${encodeURIComponent("/dashboard/billing/usage")}`, {
      closed: true,
    });
    expect((await api.call("GET", "/dashboard/billing/usage", { key: secret })).status).toBe(503);
    expect((await api.call("GET", "/v1/dashboard/billing/usage", { key: secret })).status).toBe(
      200,
    );
    await api.admin("PUT", `/admin/endpoints/${encodeURIComponent("/dashboard/billing/usage")}`, {
      closed: false,
    });
  });

  test("unknown paths, admin paths and bad bodies are refused and change nothing", async () => {
    const unknown = await api.admin("PUT", "/admin/endpoints/%2Fv1%2Fnothing", { closed: true });
    expect(unknown.status).toBe(404);
    const admin = await api.admin("PUT", "/admin/endpoints/%2Fadmin%2Fusers", { closed: true });
    expect(admin.status).toBe(400);
    const docs = await api.admin("PUT", "/admin/endpoints/%2Fswagger", { closed: true });
    expect(docs.status).toBe(400);
    const body = await api.admin("PUT", "/admin/endpoints/%2Fv1%2Fbalance", { closed: "yes" });
    expect(body.status).toBe(400);
    const extra = await api.admin("PUT", "/admin/endpoints/%2Fv1%2Fbalance", {
      closed: true,
      why: "x",
    });
    expect(extra.status).toBe(400);
    const malformed = await api.admin("PUT", "/admin/endpoints/%E0%A4%A", { closed: true });
    expect(malformed.status).toBe(400);
    const listed = await api.admin("GET", "/admin/endpoints");
    expect(await listed.json()).toEqual({ data: [] });
  });
});
