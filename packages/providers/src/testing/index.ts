export { type AudioStub, startQueueStub, startSpeechStub } from "./audio-stubs.ts";
export { jpegBomb, pngBomb, webpBomb } from "./bombs.ts";
export {
  type Behaviour,
  type OpenAIImagesStub,
  type OpenAIImagesStubOptions,
  type RecordedRequest,
  startOpenAIImagesStub,
} from "./openai-stub.ts";
