// Proves the document at /swagger/json is valid OpenAPI 3.1 by Redocly's recommended rules
// (no problem of severity error), and complete as a user would notice: every served path,
// each operation's 2xx schema and error statuses in the one error shape, JSON bodies listed
// only as JSON (multipart exactly where the body plugin takes it), and servers set.
import { expect, test } from "bun:test";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { startTestApi } from "../testing.ts";
import { OPENAPI_VERSION } from "./index.ts";

// biome-ignore lint/suspicious/noExplicitAny: the parsed document is walked freely in assertions.
type Json = any;

const api = await startTestApi();
const document: Json = await (await api.call("GET", "/swagger/json")).json();
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const operations = Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
  Object.entries(item as Json)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, operation]) => ({ path, method, operation: operation as Json })),
);

/** A local `#/components/...` reference, followed. */
function resolve(node: Json): Json {
  if (!node?.$ref) return node;
  return (node.$ref as string)
    .slice(2)
    .split("/")
    .reduce((at: Json, part) => at?.[part], document);
}

const ERROR_SCHEMA = "#/components/schemas/ErrorBody";
const isErrorShape = (response: Json) =>
  resolve(response)?.content?.["application/json"]?.schema?.$ref === ERROR_SCHEMA;

test("Redocly's recommended ruleset finds no error", async () => {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({
    source: JSON.stringify(document),
    absoluteRef: "/swagger/json",
    config,
  });
  const errors = problems
    .filter((problem) => problem.severity === "error")
    .map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
  expect(errors).toEqual([]);
});

test("it is OpenAPI 3.1 and says where the api is", () => {
  expect(document.openapi).toBe(OPENAPI_VERSION);
  expect(document.openapi.startsWith("3.1")).toBe(true);
  expect(document.servers).toEqual([{ url: "/", description: expect.any(String) }]);
});

test("PUBLIC_BASE_URL, when set, is the server", async () => {
  const public_ = await startTestApi({ PUBLIC_BASE_URL: "https://gateway.example.com/v" });
  const served: Json = await (await public_.call("GET", "/swagger/json")).json();
  expect(served.servers.map((server: Json) => server.url)).toEqual([
    "https://gateway.example.com/v",
  ]);
  await public_.stop();
});

test("every path the app serves is documented, hidden ones excepted", () => {
  const documented = new Set(operations.map(({ path, method }) => `${method} ${path}`));
  const served = api.app.app.routes.filter(
    (route) => !route.hooks?.detail?.hide && route.method !== "OPTIONS",
  );
  expect(served.length).toBeGreaterThan(40);
  for (const route of served) {
    const path = route.path.replace(/:([^/]+)/g, "{$1}").replace(/(.)\/$/, "$1");
    const method = route.method.toLowerCase();
    if (path.endsWith("/*")) {
      // A wildcard is documented under the path parameter its route names.
      const prefix = `${method} ${path.slice(0, -1)}`;
      expect(
        [...documented].some(
          (each) => /^\{[a-z_]+\}$/.test(each.slice(prefix.length)) && each.startsWith(prefix),
        ),
      ).toBe(true);
    } else expect(documented).toContain(`${method} ${path}`);
  }
  expect(document.paths["/v1/files/{key}"]?.get).toBeDefined();
  expect(
    document.paths["/v1/files/{key}"].get.parameters.find((each: Json) => each.in === "path").name,
  ).toBe("key");
  expect(Object.keys(document.paths).filter((path) => path.includes("*"))).toEqual([]);
});

test("each operation has a 2xx with a schema (or a 204), and its errors in the one error shape", () => {
  expect(document.components.schemas.ErrorBody.properties.error.required).toEqual([
    "message",
    "type",
    "code",
  ]);
  for (const { path, method, operation } of operations) {
    const where = `${method.toUpperCase()} ${path}`;
    const responses = Object.entries(operation.responses as Record<string, Json>);
    for (const [status, response] of responses)
      expect(`${where} ${status}: ${resolve(response).description ?? ""}`).not.toMatch(/: $/);
    const success = responses.filter(([status]) => status.startsWith("2"));
    expect({ where, success: success.length > 0 }).toEqual({ where, success: true });
    const schemas = success.flatMap(([, response]) =>
      Object.values(resolve(response).content ?? {}).map((media: Json) => media.schema),
    );
    // A 204 has no body by definition, so nothing to describe.
    const described = schemas.some(Boolean) || success.some(([status]) => status === "204");
    expect({ where, described }).toEqual({ where, described: true });
    // Whatever takes a key, a parameter or a body can be refused with a 4xx.
    const takesInput =
      operation.security?.length !== 0 || operation.parameters?.length || operation.requestBody;
    const errors = responses.filter(([status]) => status.startsWith(takesInput ? "4" : "5"));
    expect({ where, error: errors.some(([, response]) => isErrorShape(response)) }).toEqual({
      where,
      error: true,
    });
  }
});

test("JSON bodies are listed only as JSON; multipart exactly where the body plugin takes it", async () => {
  const admin = { authorization: "Bearer test-admin-token-0123456789" };
  const account = await api.account();
  const withBody = operations.filter(({ operation }) => operation.requestBody);
  expect(withBody.length).toBeGreaterThan(10);
  for (const { path, method, operation } of withBody) {
    const types = Object.keys(operation.requestBody.content);
    expect({ path, types: types.filter((type) => type !== "multipart/form-data") }).toEqual({
      path,
      types: ["application/json"],
    });
    // What the document promises is what the server does: a form is refused (415) by every
    // route that does not list multipart, and taken (then refused for its field) by the rest.
    const form = new FormData();
    form.set("probe", "1");
    const url = `${api.url}${path.replace("{path}", "%2Fv1%2Fbalance").replace(/\{[^}]+\}/g, "1")}`;
    const headers = path.startsWith("/admin/")
      ? admin
      : { authorization: `Bearer ${account.secret}` };
    const response = await fetch(url, { method: method.toUpperCase(), headers, body: form });
    const listed = types.includes("multipart/form-data");
    expect({ path, status: response.status === 415 }).toEqual({ path, status: !listed });
  }
  expect(
    withBody
      .filter(({ operation }) => "multipart/form-data" in operation.requestBody.content)
      .map(({ path }) => path)
      .sort(),
  ).toEqual(["/v1/images/edits", "/v1/video/generations", "/v1/videos"]);
});
