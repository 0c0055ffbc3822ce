import { models, Tokenizer } from "ai-tokenizer";
import { boundedRuns } from "./bounded-runs.ts";

/** ai-tokenizer's per-model constants: message, tool and schema overheads around the text. */
export type TokenOverheads = {
  contentMultiplier: number;
  baseOverhead: number;
  perMessage: number;
  toolsExist: number;
  perTool: number;
  perDesc: number;
  perFirstProp: number;
  perAdditionalProp: number;
  perPropDesc: number;
  perEnum: number;
  perNestedObject: number;
  perArrayOfObjects: number;
};

export interface TokenizerProfile {
  /** The ai-tokenizer model id, e.g. `anthropic/claude-sonnet-4.5`. */
  id: string;
  encoding: "claude" | "o200k_base" | "cl100k_base" | "p50k_base";
  tokens: TokenOverheads;
  tokenizer: Tokenizer;
}

const PROFILES = models as unknown as Record<
  string,
  { encoding: TokenizerProfile["encoding"]; tokens: TokenOverheads }
>;

/** Each encoding is 2-8 MB: loaded on first use only, then shared by every profile using it. */
const ENCODINGS: Record<TokenizerProfile["encoding"], () => Promise<unknown>> = {
  claude: () => import("ai-tokenizer/encoding/claude"),
  o200k_base: () => import("ai-tokenizer/encoding/o200k_base"),
  cl100k_base: () => import("ai-tokenizer/encoding/cl100k_base"),
  p50k_base: () => import("ai-tokenizer/encoding/p50k_base"),
};
const tokenizers = new Map<string, Promise<Tokenizer>>();

/** Whether ai-tokenizer knows a profile id (the catalog's `tokenizer` of a text model). */
export function isKnownProfile(id: string): boolean {
  return Object.hasOwn(PROFILES, id);
}

/** The profile's encoding and overheads; throws for an id ai-tokenizer does not know. */
export async function loadProfile(id: string): Promise<TokenizerProfile> {
  const profile = isKnownProfile(id) ? PROFILES[id]! : undefined;
  if (!profile) throw new Error(`unknown tokenizer profile ${JSON.stringify(id)}`);
  let tokenizer = tokenizers.get(profile.encoding);
  if (!tokenizer) {
    tokenizer = ENCODINGS[profile.encoding]().then((module) =>
      boundedRuns(new Tokenizer(module as ConstructorParameters<typeof Tokenizer>[0])),
    );
    tokenizers.set(profile.encoding, tokenizer);
  }
  return { id, encoding: profile.encoding, tokens: profile.tokens, tokenizer: await tokenizer };
}
