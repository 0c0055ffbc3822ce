/** Bounds the request schemas put on every list and string the gateway reads. */
export const MAX_MODEL_CHARS = 256;
export const MAX_MESSAGES = 100_000;
export const MAX_PARTS = 10_000;
export const MAX_TOOLS = 1_000;
export const MAX_STOP = 64;
/** Output caps past this are refused: no model answers with more, and holds are priced by it. */
export const MAX_OUTPUT_TOKENS = 10_000_000;
