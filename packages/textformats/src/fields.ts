import type { TextFormat } from "./formats.ts";
import type { Settings } from "./neutral.ts";

type Named = keyof Settings | "stop" | "parallelToolCalls" | "responseFormat" | "toolChoice";

/** Each neutral field by its name in each format, so a refusal speaks the client's terms. */
export const FIELD_NAMES: Record<TextFormat, Record<Named, string>> = {
  chat: {
    maxOutputTokens: "max_completion_tokens",
    temperature: "temperature",
    topP: "top_p",
    topK: "top_k",
    seed: "seed",
    presencePenalty: "presence_penalty",
    frequencyPenalty: "frequency_penalty",
    reasoningEffort: "reasoning_effort",
    verbosity: "verbosity",
    stop: "stop",
    parallelToolCalls: "parallel_tool_calls",
    responseFormat: "response_format",
    toolChoice: "tool_choice",
  },
  responses: {
    maxOutputTokens: "max_output_tokens",
    temperature: "temperature",
    topP: "top_p",
    topK: "top_k",
    seed: "seed",
    presencePenalty: "presence_penalty",
    frequencyPenalty: "frequency_penalty",
    reasoningEffort: "reasoning.effort",
    verbosity: "text.verbosity",
    stop: "stop",
    parallelToolCalls: "parallel_tool_calls",
    responseFormat: "text.format",
    toolChoice: "tool_choice",
  },
  messages: {
    maxOutputTokens: "max_tokens",
    temperature: "temperature",
    topP: "top_p",
    topK: "top_k",
    seed: "seed",
    presencePenalty: "presence_penalty",
    frequencyPenalty: "frequency_penalty",
    reasoningEffort: "output_config.effort",
    verbosity: "verbosity",
    stop: "stop_sequences",
    parallelToolCalls: "tool_choice.disable_parallel_tool_use",
    responseFormat: "output_config.format",
    toolChoice: "tool_choice",
  },
  generateContent: {
    maxOutputTokens: "generationConfig.maxOutputTokens",
    temperature: "generationConfig.temperature",
    topP: "generationConfig.topP",
    topK: "generationConfig.topK",
    seed: "generationConfig.seed",
    presencePenalty: "generationConfig.presencePenalty",
    frequencyPenalty: "generationConfig.frequencyPenalty",
    reasoningEffort: "generationConfig.thinkingConfig",
    verbosity: "verbosity",
    stop: "generationConfig.stopSequences",
    parallelToolCalls: "parallel_tool_calls",
    responseFormat: "generationConfig.responseMimeType",
    toolChoice: "toolConfig.functionCallingConfig",
  },
};

/** The settings each format can carry; any other set setting is refused by its writer. */
export const SUPPORTED_SETTINGS: Record<TextFormat, readonly (keyof Settings)[]> = {
  chat: [
    "maxOutputTokens",
    "temperature",
    "topP",
    "seed",
    "presencePenalty",
    "frequencyPenalty",
    "reasoningEffort",
    "verbosity",
  ],
  responses: ["maxOutputTokens", "temperature", "topP", "reasoningEffort", "verbosity"],
  messages: ["maxOutputTokens", "temperature", "topP", "topK"],
  generateContent: [
    "maxOutputTokens",
    "temperature",
    "topP",
    "topK",
    "seed",
    "presencePenalty",
    "frequencyPenalty",
  ],
};
