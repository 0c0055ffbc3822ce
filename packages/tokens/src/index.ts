export { base64ImageTokens, imageTokensForSize, UNKNOWN_IMAGE_TOKENS } from "./images.ts";
export {
  type ContentBlock,
  type CountTokensRequest,
  countRequestTokens,
  type JsonSchema,
} from "./messages.ts";
export { isKnownProfile, loadProfile, type TokenizerProfile } from "./profiles.ts";
