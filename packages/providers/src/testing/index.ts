export { type AudioStub, startQueueStub, startSpeechStub } from "./audio-stubs.ts";
export { jpegBomb, pngBomb, webpBomb } from "./bombs.ts";
export {
  type Behaviour,
  type OpenAIImagesStub,
  type OpenAIImagesStubOptions,
  type RecordedRequest,
  startOpenAIImagesStub,
} from "./openai-stub.ts";
export { readSseText, readSseUntilError } from "./sse-text.ts";
export {
  type AnthropicStub,
  type AnthropicStubUsage,
  type GeminiStub,
  type GeminiStubUsage,
  type OpenAIStubUsage,
  type OpenAITextStub,
  startAnthropicStub,
  startGeminiStub,
  startOpenAITextStub,
  type TextStub,
  type TextStubAnswer,
  type TextStubBehaviour,
  type TextStubOptions,
  type TextStubRequest,
} from "./text-stubs.ts";
