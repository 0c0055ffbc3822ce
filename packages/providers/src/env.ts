import { createOfflineProvider } from "./offline.ts";
import { createOpenAIImagesProvider } from "./openai/provider.ts";
import type { Provider } from "./types.ts";

/** Environment variables `createProviderFromEnv` reads (for turbo.json's globalEnv). */
export const PROVIDER_ENV = [
  "IMAGE_PROVIDER",
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "PROVIDER_TIMEOUT_MS",
  "PROVIDER_MAX_ATTEMPTS",
  "PROVIDER_RETRY_BASE_MS",
  "OFFLINE_LATENCY_MS",
] as const;

const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

function integer(
  env: Record<string, string | undefined>,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const text = env[name];
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

/**
 * The image provider the environment names: `IMAGE_PROVIDER=offline` (the default: no
 * network) or `openai` (needs `OPENAI_API_KEY`; `OPENAI_BASE_URL` defaults to the public
 * API). Throws on a configuration that cannot work, so a worker fails at start, not per job.
 */
export function createProviderFromEnv(env: Record<string, string | undefined>): Provider {
  const kind = env.IMAGE_PROVIDER || "offline";
  if (kind === "offline") {
    return createOfflineProvider({
      latencyMs: integer(env, "OFFLINE_LATENCY_MS", 0, 600_000) ?? 0,
    });
  }
  if (kind !== "openai") throw new Error(`IMAGE_PROVIDER must be offline or openai, got "${kind}"`);
  if (!env.OPENAI_API_KEY) throw new Error("IMAGE_PROVIDER=openai needs OPENAI_API_KEY");
  return createOpenAIImagesProvider({
    baseUrl: env.OPENAI_BASE_URL || DEFAULT_OPENAI_BASE_URL,
    apiKey: env.OPENAI_API_KEY,
    timeoutMs: integer(env, "PROVIDER_TIMEOUT_MS", 1, 3_600_000),
    maxAttempts: integer(env, "PROVIDER_MAX_ATTEMPTS", 1, 10),
    retryBaseMs: integer(env, "PROVIDER_RETRY_BASE_MS", 0, 60_000),
  });
}
