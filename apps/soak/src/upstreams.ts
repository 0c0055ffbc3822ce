import {
  startAnthropicStub,
  startGeminiStub,
  startOpenAIImagesStub,
  startOpenAITextStub,
  startQueueStub,
  startSpeechStub,
} from "@gw/providers/testing";
import type { Random } from "@gw/random";
import { type FaultFront, startFaultFront } from "./upstream-faults.ts";

/** The stub upstreams of every provider kind, each behind a front that fails on a schedule. */
export interface Upstreams {
  fronts: FaultFront[];
  /** The gateway's environment for these upstreams (base URLs, keys, routes). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

const OPENAI_KEY = "sk-soak-upstream-openai";
const ANTHROPIC_KEY = "sk-soak-upstream-anthropic";
const GEMINI_KEY = "soak-upstream-gemini";
const MEDIAQ_KEY = "soak-upstream-mediaq";

/** Which model runs where: images, speech and chat-style text on openai, music on mediaq. */
export const PROVIDER_ROUTES = [
  "gpt-image-1=openai",
  "lumina-*=openai",
  "sonora/speech=openai",
  "sonora/music=mediaq",
  "lumen-chat=anthropic",
  "lumen-chat-mini=openai",
  "lumen-reasoner=gemini",
].join(",");

const originOf = (url: string) => new URL(url).origin;

/**
 * Starts the OpenAI images, OpenAI text, Anthropic, Gemini, speech and queue-style media
 * stubs, and one fault front per provider name. The openai front serves images, speech
 * and chat/responses from three stubs by path, as one OpenAI-compatible base URL does.
 */
export async function startUpstreams(options: {
  random: Random;
  faultRate: number;
  upstreamTimeoutMs: number;
}): Promise<Upstreams> {
  const images = await startOpenAIImagesStub({ apiKey: OPENAI_KEY, fast: true, latencyMs: 40 });
  const text = { latencyMs: 30, frameDelayMs: Number(process.env.SOAK_FRAME_DELAY_MS ?? 40) };
  const chat = startOpenAITextStub({ apiKey: OPENAI_KEY, ...text });
  const anthropic = startAnthropicStub({ apiKey: ANTHROPIC_KEY, ...text });
  const gemini = startGeminiStub({ apiKey: GEMINI_KEY, ...text });
  const answer = { text: "The soak stub answers with a few words, streamed in several frames." };
  for (const stub of [chat, anthropic, gemini]) stub.setAnswer(answer);
  const speech = startSpeechStub(OPENAI_KEY);
  const queue = startQueueStub(MEDIAQ_KEY);

  const front = (name: string, route: (path: string) => string | null) =>
    startFaultFront({
      name,
      route,
      random: options.random.fork(`front:${name}`),
      faultRate: options.faultRate,
      upstreamTimeoutMs: options.upstreamTimeoutMs,
    });
  const openai = front("openai", (path) => {
    if (path.startsWith("/v1/images/") || path.startsWith("/files/")) return originOf(images.url);
    if (path === "/v1/audio/speech") return originOf(speech.baseUrl);
    if (path === "/v1/chat/completions" || path === "/v1/responses") return originOf(chat.url);
    return null;
  });
  const fronts = [
    openai,
    front("anthropic", () => originOf(anthropic.url)),
    front("gemini", () => originOf(gemini.url)),
    front("mediaq", () => queue.baseUrl),
  ];
  const [, anthropicFront, geminiFront, mediaqFront] = fronts;
  return {
    fronts,
    env: {
      PROVIDER_ROUTES,
      UPSTREAM_OPENAI_BASE_URL: `${openai.origin}/v1`,
      UPSTREAM_OPENAI_API_KEY: OPENAI_KEY,
      UPSTREAM_ANTHROPIC_BASE_URL: anthropicFront!.origin,
      UPSTREAM_ANTHROPIC_API_KEY: ANTHROPIC_KEY,
      UPSTREAM_GEMINI_BASE_URL: geminiFront!.origin,
      UPSTREAM_GEMINI_API_KEY: GEMINI_KEY,
      UPSTREAM_MEDIAQ_BASE_URL: mediaqFront!.origin,
      UPSTREAM_MEDIAQ_API_KEY: MEDIAQ_KEY,
    },
    async stop() {
      await Promise.all(fronts.map((each) => each.stop()));
      await Promise.all([
        images.stop(),
        chat.stop(),
        anthropic.stop(),
        gemini.stop(),
        speech.stop(),
        queue.stop(),
      ]);
    },
  };
}
