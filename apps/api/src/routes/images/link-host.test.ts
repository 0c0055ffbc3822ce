// Proves result links are never built from a Host header the operator did not list:
// PUBLIC_BASE_URL wins, a listed host gets its own origin, and any other host (link
// poisoning with Host: evil.example) gets the api's own address instead.
import { describe, expect, test } from "bun:test";
import { startImageStack } from "../../testing-images.ts";
import { linkBase } from "./present.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;

describe("linkBase", () => {
  const request = (host: string) => new Request(`http://${host}/v1/images/generations`);
  const config = { publicBaseUrl: undefined, publicHosts: ["api.example.com"], port: 3000 };

  test("PUBLIC_BASE_URL is used whatever host was called", () => {
    const base = { ...config, publicBaseUrl: "https://cdn.example.com" };
    expect(linkBase(base, request("evil.example"))).toBe("https://cdn.example.com");
  });

  test("a listed host gets its own origin, with or without a port, in any case", () => {
    expect(linkBase(config, request("api.example.com"))).toBe("http://api.example.com");
    expect(linkBase(config, request("API.Example.com:8080"))).toBe("http://api.example.com:8080");
  });

  test("any other host gets the api's own address", () => {
    expect(linkBase(config, request("evil.example"))).toBe("http://localhost:3000");
    expect(linkBase(config, request("api.example.com.evil.example"))).toBe("http://localhost:3000");
  });
});

const stack = await startImageStack();
const { api } = stack;
await stack.spawnWorker();
const { secret } = await api.account({ balanceUsd: 1 });

describe("through the api", () => {
  test("Host: evil.example does not put the result links on evil.example", async () => {
    const response = await api.call("POST", "/v1/images/generations", {
      key: secret,
      body: { model: "lumina-image", prompt: "a poisoned well" },
      headers: { host: "evil.example" },
    });
    const body = (await response.json()) as Body;
    expect(response.status).toBe(200);
    expect(body.data[0].url).toStartWith(`http://localhost:${api.config.port}/v1/files/`);
    const task = await api.call("GET", `/v1/images/tasks/${body.id}`, {
      key: secret,
      headers: { host: "evil.example" },
    });
    expect(((await task.json()) as Body).data[0].url).not.toContain("evil.example");
    const own = await api.call("GET", `/v1/images/tasks/${body.id}`, { key: secret });
    expect(((await own.json()) as Body).data[0].url).toStartWith(`${api.url}/v1/files/`);
  });
});
