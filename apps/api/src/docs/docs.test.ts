// Proves the OpenAPI page and document are served, with every endpoint, from the same
// schemas that validate requests, and that the page needs no CDN at /swagger and /swagger/.
import { expect, test } from "bun:test";

// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON body is walked freely in assertions.
type JsonTree = any;

import { startTestApi } from "../testing.ts";

const api = await startTestApi();

test("the OpenAPI document lists every endpoint with its request and response schemas", async () => {
  const response = await api.call("GET", "/swagger/json");
  expect(response.status).toBe(200);
  const doc = (await response.json()) as { paths: Record<string, Record<string, JsonTree>> };
  for (const path of [
    "/v1/balance",
    "/api/usage/token",
    "/v1/dashboard/billing/subscription",
    "/dashboard/billing/subscription",
    "/v1/dashboard/billing/usage",
    "/dashboard/billing/usage",
    "/admin/users",
    "/admin/users/{id}",
    "/admin/users/{id}/credits",
    "/admin/keys",
    "/admin/keys/{id}",
    "/admin/endpoints/{path}",
    "/admin/endpoints",
  ]) {
    expect(doc.paths[path]).toBeDefined();
  }
  const balance = doc.paths["/v1/balance"]!.get;
  expect(
    Object.keys(balance.responses["200"].content["application/json"].schema.properties),
  ).toEqual(["balance", "total_spent"]);
  const createUser = doc.paths["/admin/users"]!.post;
  const bodySchema = createUser.requestBody.content["application/json"].schema;
  expect(bodySchema.additionalProperties).toBe(false);
  expect(bodySchema.required).toEqual(["name"]);
});

test("the page loads its script and document from this server, with or without the slash", async () => {
  for (const pagePath of ["/swagger", "/swagger/"]) {
    const response = await api.call("GET", pagePath);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    const page = await response.text();
    expect(page).not.toMatch(/https?:\/\//);
    // Both addresses resolve, relative to the page, to the one script and the one document.
    const pageUrl = new URL(pagePath, api.url);
    const src = /<script src="([^"]+)"/.exec(page)![1]!;
    expect(new URL(src, pageUrl).pathname).toBe("/swagger/assets/scalar.js");
    const config = JSON.parse(/createApiReference\("[^"]+", (.*)\);<\/script>/.exec(page)![1]!);
    expect(new URL(config.url, pageUrl).pathname).toBe("/swagger/json");
    expect(config).toMatchObject({ withDefaultFonts: false, agent: { disabled: true } });
  }
  const script = await api.call("GET", "/swagger/assets/scalar.js");
  expect(script.status).toBe(200);
  expect(script.headers.get("content-type")).toContain("javascript");
  expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
});
