import type { TextFormat } from "@gw/textformats";
import { createPooledFetch } from "../http/pooled-fetch.ts";
import { createAnthropicTextProvider } from "./anthropic.ts";
import { createGeminiTextProvider } from "./gemini.ts";
import type { HttpTextProviderOptions } from "./http-call.ts";
import { createOfflineTextProvider } from "./offline.ts";
import { createOpenAITextProvider } from "./openai.ts";
import type { TextProvider } from "./types.ts";

type Env = Record<string, string | undefined>;

const HTTP_PROVIDERS = {
  openai: createOpenAITextProvider,
  anthropic: createAnthropicTextProvider,
  gemini: createGeminiTextProvider,
} as const;

const NATIVE_FORMAT: Record<string, TextFormat | "any"> = {
  openai: "chat",
  anthropic: "messages",
  gemini: "generateContent",
  offline: "any",
};

/**
 * The format a provider is called in when the client's format is not one it speaks:
 * openai → chat, anthropic → messages, gemini → generateContent, offline → any (it speaks
 * all four). Undefined for a name this package does not know.
 */
export const nativeFormatOf = (provider: string): TextFormat | "any" | undefined =>
  NATIVE_FORMAT[provider];

function positiveInteger(env: Env, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text.trim() === "") return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${text}"`);
  return value;
}

/** `UPSTREAM_<NAME>_CONCURRENCY`, else `UPSTREAM_CONCURRENCY`, else 2048, as the worker reads them. */
export const envLaneLimit =
  (env: Env) =>
  (name: string): number =>
    positiveInteger(
      env,
      `UPSTREAM_${name.toUpperCase()}_CONCURRENCY`,
      positiveInteger(env, "UPSTREAM_CONCURRENCY", 2048),
    );

/**
 * The configured text providers: `offline` always; `openai`, `anthropic` and `gemini` when
 * `UPSTREAM_<NAME>_BASE_URL` is set (with its `UPSTREAM_<NAME>_API_KEY`, or this throws at
 * start). Each has its own connection pool and lane of `laneLimit(name)` calls at once.
 */
export function textProvidersFromEnv(
  env: Env,
  laneLimit: (name: string) => number = envLaneLimit(env),
): Map<string, TextProvider> {
  const providers = new Map<string, TextProvider>([["offline", createOfflineTextProvider()]]);
  const timeoutMs = positiveInteger(env, "UPSTREAM_TIMEOUT_MS", 300_000);
  const maxAttempts = positiveInteger(env, "UPSTREAM_MAX_ATTEMPTS", 3);
  for (const [name, create] of Object.entries(HTTP_PROVIDERS)) {
    const prefix = `UPSTREAM_${name.toUpperCase()}`;
    const baseUrl = env[`${prefix}_BASE_URL`];
    if (!baseUrl) continue;
    const apiKey = env[`${prefix}_API_KEY`];
    if (!apiKey) throw new Error(`${prefix}_BASE_URL is set but ${prefix}_API_KEY is not`);
    const concurrency = laneLimit(name);
    const options: HttpTextProviderOptions = {
      name,
      baseUrl,
      apiKey,
      timeoutMs,
      maxAttempts,
      concurrency,
      fetch: createPooledFetch({ maxSockets: concurrency }),
    };
    providers.set(name, create(options));
  }
  return providers;
}
