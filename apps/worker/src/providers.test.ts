// Proves how the worker picks a provider per model: the built-in offline provider by
// default, PROVIDER_ROUTES by exact ID or prefix, and clear start errors for a route to
// an unconfigured provider or an OpenAI-compatible base URL without its key.
import { expect, test } from "bun:test";
import { loadCatalog } from "@gw/tariffs";
import { createRouter, providersFromEnv } from "./providers.ts";

const catalog = await loadCatalog();
const env = {
  UPSTREAM_OPENAI_BASE_URL: "https://upstream.example/v1",
  UPSTREAM_OPENAI_API_KEY: "k",
};

test("every model runs offline unless routed elsewhere", () => {
  const router = createRouter(catalog, providersFromEnv({}), undefined);
  expect(router.route("gpt-image-1")?.provider.name).toBe("offline");
  expect(router.route("lumina-image-sunburst")?.upstreamModel).toBe("lumina-sunburst-1");
  expect(router.route("no-such-model")).toBeNull();
});

test("routes match exact IDs and prefixes", () => {
  const router = createRouter(
    catalog,
    providersFromEnv(env),
    "gpt-image-1=openai, lumina-*=openai",
  );
  expect(router.route("gpt-image-1")?.provider.name).toBe("openai");
  expect(router.route("lumina-image-flare")?.provider.name).toBe("openai");
  expect(router.route("atlas-segment")?.provider.name).toBe("offline");
});

test("bad routing settings stop the start with a clear message", () => {
  expect(() => createRouter(catalog, providersFromEnv({}), "gpt-image-1=openai")).toThrow(
    /not configured/,
  );
  expect(() => createRouter(catalog, providersFromEnv({}), "gpt-image-1")).toThrow(
    /model=provider/,
  );
  expect(() => providersFromEnv({ UPSTREAM_OPENAI_BASE_URL: "https://x.example/v1" })).toThrow(
    /UPSTREAM_OPENAI_API_KEY/,
  );
});

test("in production, offline runs only where an operator routed a model to it", () => {
  const router = createRouter(
    catalog,
    providersFromEnv(env),
    "gpt-image-1=openai, atlas-*=offline",
    {
      production: true,
    },
  );
  expect(router.route("gpt-image-1")?.provider.name).toBe("openai");
  expect(router.route("atlas-segment")?.provider.name).toBe("offline");
  // Neither routed nor configured upstream: no provider, so its task fails upstream_unavailable.
  expect(router.route("lumina-image-flare")).toBeNull();
});
