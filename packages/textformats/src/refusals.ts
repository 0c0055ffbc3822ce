import { FIELD_NAMES, SUPPORTED_SETTINGS } from "./fields.ts";
import type { TextFormat } from "./formats.ts";
import type { Conversation, Part, Settings } from "./neutral.ts";
import { type FormatError, refuse } from "./outcome.ts";

const SETTINGS: (keyof Settings)[] = [
  "maxOutputTokens",
  "temperature",
  "topP",
  "topK",
  "seed",
  "presencePenalty",
  "frequencyPenalty",
  "reasoningEffort",
  "verbosity",
];

function opaqueIn(parts: Part[]): string | undefined {
  for (const part of parts) {
    if (part.type === "opaque") return part.field;
    if (part.type === "tool_result") {
      const inner = part.content.find((item) => item.type === "opaque");
      if (inner?.type === "opaque") return inner.field;
    }
  }
  return undefined;
}

/**
 * What every writer refuses first: client fields no other format has, content with no
 * neutral form, and settings the target format lacks. Undefined when none applies.
 */
export function commonRefusal(conv: Conversation, target: TextFormat): FormatError | undefined {
  const field = conv.untranslatable[0];
  if (field !== undefined) return refuse(field, target);
  for (const message of conv.messages) {
    const opaque = opaqueIn(message.parts);
    if (opaque !== undefined) return refuse(opaque, target);
  }
  const supported = SUPPORTED_SETTINGS[target];
  for (const setting of SETTINGS)
    if (conv[setting] !== undefined && !supported.includes(setting))
      return refuse(FIELD_NAMES[conv.source][setting], target);
  return undefined;
}

/** The client's name for a neutral field (refusals speak the client's format). */
export const clientField = (conv: Conversation, field: keyof (typeof FIELD_NAMES)["chat"]) =>
  FIELD_NAMES[conv.source][field];
