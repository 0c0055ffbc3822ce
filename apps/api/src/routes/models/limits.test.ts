// Proves the rate-limit groups on the real model, catalog and quote routes: the models
// IP window shared by the model lists and the media catalog, its block reaching
// /v1/balance, the aliases exempt, the key + model + user window on message-style
// lists, and the critical tier on quotes.
import { describe, expect, test } from "bun:test";
import { startTestApi } from "../../testing.ts";

describe("models IP window", () => {
  test("model lists, model options and the media catalog share one window; its block reaches balance", async () => {
    const api = await startTestApi({ RATE_LIMIT_MODELS: "4/60s", RATE_LIMIT_IP_BLOCK: "30s" });
    const { secret } = await api.account();
    const remaining: string[] = [];
    for (const path of [
      "/v1/models",
      "/v1/models/lumen-chat",
      "/v1/model-options",
      "/v1/media/models",
    ]) {
      const response = await api.call("GET", path, { key: secret });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBe("4");
      remaining.push(response.headers.get("x-ratelimit-remaining")!);
    }
    expect(remaining).toEqual(["3", "2", "1", "0"]);

    const refused = await api.call("GET", "/v1/models/gpt-image-1", { key: secret });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(refused.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);

    // The block set by the models window refuses the balance group too.
    const balance = await api.call("GET", "/v1/balance", { key: secret });
    expect(balance.status).toBe(429);
    expect(Number(balance.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    // The OpenAI-style and generate-content aliases have no models IP protection.
    for (const path of ["/compatible/v1/models", "/v1beta/openai/models", "/v1beta/models"]) {
      expect((await api.call("GET", path, { key: secret })).status).toBe(200);
    }
  });
});

describe("key + model + user window", () => {
  test("message-style lists count per model; OpenAI-style /v1/models does not", async () => {
    const api = await startTestApi({ RATE_LIMIT_MODELS: "off", RATE_LIMIT_MODEL: "2/60s" });
    const { secret } = await api.account();
    const msg = { "x-api-key": secret, "msgcompat-version": "2023-06-01" };
    expect((await api.call("GET", "/msgcompat/v1/models", { headers: msg })).status).toBe(200);
    expect((await api.call("GET", "/v1/models", { headers: msg })).status).toBe(200);
    const third = await api.call("GET", "/msgcompat/v1/models", { headers: msg });
    expect(third.status).toBe(429);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Another model is another window; the OpenAI style is not limited by it.
    expect(
      (await api.call("GET", "/msgcompat/v1/models/lumen-chat", { headers: msg })).status,
    ).toBe(200);
    expect((await api.call("GET", "/v1/models", { key: secret })).status).toBe(200);
    // Another key of the same account has its own window.
    const other = await api.account();
    expect(
      (
        await api.call("GET", "/msgcompat/v1/models", {
          headers: { ...msg, "x-api-key": other.secret },
        })
      ).status,
    ).toBe(200);
  });
});

describe("critical tier", () => {
  test("quotes count in the critical IP tier with balance, and a refused quote is a 429", async () => {
    const api = await startTestApi({ RATE_LIMIT_CRITICAL: "3/60s" });
    const { secret } = await api.account();
    const body = { model: "lumina-image", prompt: "p" };
    expect((await api.call("POST", "/v1/media/quote", { key: secret, body })).status).toBe(200);
    expect((await api.call("GET", "/v1/balance", { key: secret })).status).toBe(200);
    expect((await api.call("POST", "/v1/media/quote", { key: secret, body })).status).toBe(200);
    const refused = await api.call("POST", "/v1/media/quote", { key: secret, body });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});
