export {
  type Behaviour,
  type OpenAIImagesStub,
  type OpenAIImagesStubOptions,
  type RecordedRequest,
  startOpenAIImagesStub,
} from "./openai-stub.ts";
