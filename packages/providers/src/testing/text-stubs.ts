/*
 * Local stand-ins for the three text upstream APIs, with their public shapes written by
 * hand (not through @gw/textformats, so tests of the gateway do not check textformats
 * against itself). Each listens on 127.0.0.1 at a random port, checks the API's own auth,
 * reports configurable usage, scripts failures per request, and records what it received.
 */
export {
  type AnthropicStub,
  type AnthropicStubUsage,
  startAnthropicStub,
} from "./anthropic-stub.ts";
export { type GeminiStub, type GeminiStubUsage, startGeminiStub } from "./gemini-stub.ts";
export {
  type OpenAIStubUsage,
  type OpenAITextStub,
  startOpenAITextStub,
} from "./openai-text-stub.ts";
export type {
  TextStub,
  TextStubAnswer,
  TextStubBehaviour,
  TextStubOptions,
  TextStubRequest,
} from "./text-stub-server.ts";
