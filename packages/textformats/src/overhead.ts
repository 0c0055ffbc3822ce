/** The response header of spec 4.11, exposed to browsers through CORS. */
export const PROMPT_OVERHEAD_HEADER = "X-Service-Provider-Prompt-Tokens";

/** The least difference, in tokens, that is reported: the difference must be strictly above it. */
export const OVERHEAD_MIN_TOKENS = 200;

export interface OverheadInput {
  /** Input the provider reported, cache reads and writes included. */
  reportedInputTokens: number;
  /** The gateway's own count of the request, as count_tokens gives it. */
  localInputTokens: number;
  /** Any non-text content part (image, audio, file) in the request. */
  hasMedia: boolean;
}

/**
 * The header value of spec 4.11 rule 1, or undefined when the header is absent: only for a
 * request without media, with a local count above 0, when reported − local is strictly
 * above 200 tokens and strictly above 30% of the reported input. The 30% test is done in
 * integers (10·diff > 3·reported) so the boundary is exact.
 */
export function promptOverheadTokens(input: OverheadInput): number | undefined {
  const { reportedInputTokens: reported, localInputTokens: local, hasMedia } = input;
  if (hasMedia || local <= 0) return undefined;
  const difference = reported - local;
  if (difference <= OVERHEAD_MIN_TOKENS) return undefined;
  if (difference * 10 <= reported * 3) return undefined;
  return difference;
}

/**
 * What the key log's `other.provider_prompt_overhead_tokens` carries: the excess of the
 * reported input over the local count whenever there is one, threshold or not.
 */
export function promptExcessTokens(reportedInputTokens: number, localInputTokens: number) {
  const difference = reportedInputTokens - localInputTokens;
  return difference > 0 ? difference : undefined;
}

/** The SSE comment of spec 4.11 rule 2, a frame of its own. */
export const overheadComment = (tokens: number): string =>
  `: x-service-provider-prompt-tokens=${tokens}\n\n`;
