// Proves the OpenAPI page and document are served, with every endpoint, from the same
// schemas that validate requests, and that the page needs no CDN.
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
    "/api/usage/token/",
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

test("the page loads its script from this server, not a CDN", async () => {
  const page = await (await api.call("GET", "/swagger")).text();
  expect(page).toContain('src="/swagger/assets/scalar.js"');
  expect(page).not.toMatch(/src="https?:\/\//);
  const script = await api.call("GET", "/swagger/assets/scalar.js");
  expect(script.status).toBe(200);
  expect(script.headers.get("content-type")).toContain("javascript");
  expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
});
