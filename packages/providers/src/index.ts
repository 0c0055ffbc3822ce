export {
  type AudioJob,
  type AudioProvider,
  type AudioResult,
  type AudioTrack,
  offlineAudioProvider,
  speechSeconds,
} from "./audio/offline.ts";
export {
  createOpenAISpeechProvider,
  OPENAI_VOICES,
  type OpenAISpeechOptions,
} from "./audio/openai-speech.ts";
export { createQueueMediaProvider, type QueueMediaOptions } from "./audio/queue-media.ts";
export { AUDIO_CONTENT_TYPES, type AudioFormat, measureSeconds, renderTone } from "./audio/tone.ts";
export { createPooledFetch } from "./http/pooled-fetch.ts";
export type { DiagonalImage } from "./image/diagonal.ts";
export { MAX_SOURCE_PIXELS, MAX_SOURCE_SIDE, sourceSizeProblem } from "./image/limits.ts";
export { CONTENT_TYPES, encodeImage, type OutputFormat } from "./image/render.ts";
export { type SniffedFormat, type SniffedImage, sniffImage } from "./image/sniff.ts";
export { createModelRouter, type ModelRoute, parseProviderRoutes } from "./model-routes.ts";
export {
  createOfflineProvider,
  OFFLINE_MARKERS,
  type OfflineProviderOptions,
  SEGMENT_NAMES,
} from "./offline.ts";
export {
  createOpenAIImagesProvider,
  type OpenAIImagesProviderOptions,
} from "./openai/provider.ts";
export { type ImageSize, imageSize } from "./size.ts";
export { ANTHROPIC_VERSION, createAnthropicTextProvider } from "./text/anthropic.ts";
export { envLaneLimit, nativeFormatOf, textProvidersFromEnv } from "./text/from-env.ts";
export { createGeminiTextProvider } from "./text/gemini.ts";
export type { HttpTextProviderOptions } from "./text/http-call.ts";
export { createOfflineTextProvider, type OfflineTextProviderOptions } from "./text/offline.ts";
export {
  OFFLINE_DEFAULT_OUTPUT_TOKENS,
  offlineTokens,
} from "./text/offline-text.ts";
export { createOpenAITextProvider } from "./text/openai.ts";
export type {
  TextAnswer,
  TextCall,
  TextFailure,
  TextFailureCode,
  TextProvider,
} from "./text/types.ts";
export {
  CREATE_OPERATIONS,
  EDIT_OPERATIONS,
  type ImageJob,
  type OutputExt,
  type OutputFile,
  type Provider,
  type ProviderFailureCode,
  type ProviderResult,
  type SourceImage,
} from "./types.ts";
export {
  frameSize,
  offlineVideoProvider,
  renderVideo,
  type VideoFile,
  type VideoJob,
  type VideoProvider,
  type VideoResult,
} from "./video/offline.ts";
