import { ApiError } from "../../errors.ts";

/** Deepest nesting of arrays and objects a JSON body may have (400 beyond). */
export const MAX_JSON_DEPTH = 64;

/**
 * Refuses JSON nested deeper than `maxDepth` in one pass over the text, before
 * JSON.parse sees it: the parser recurses per level, so 100k levels would exhaust the
 * stack and block the event loop for seconds. Strings are skipped (with their escapes),
 * so brackets inside them do not count; malformed text is left for JSON.parse to refuse.
 */
export function checkJsonDepth(text: string, maxDepth = MAX_JSON_DEPTH): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth++;
      if (depth > maxDepth)
        throw new ApiError(
          "invalid_request",
          `The JSON body nests deeper than ${maxDepth} levels of arrays and objects`,
        );
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
}
