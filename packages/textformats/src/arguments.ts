import { invalid, type Outcome, ok, upstreamError } from "./outcome.ts";
import { isRecord, type Json } from "./read.ts";

/**
 * A tool call's JSON argument text as the object messages and generateContent want.
 * Empty text means no arguments; anything but a JSON object is the client's error.
 */
export function argumentsObject(argumentsJson: string, where: string): Outcome<Json> {
  if (argumentsJson.trim() === "") return ok({});
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (isRecord(parsed)) return ok(parsed);
  } catch {
    // Falls through to the same answer as a non-object.
  }
  return invalid(`${where}: tool call arguments must be a JSON object`);
}

/** The JSON text of a tool input object (messages' input, generateContent's args). */
export const argumentsText = (input: unknown): string => JSON.stringify(input ?? {});

/** An upstream's tool call arguments as an object, for client formats that send objects. */
export function answerArguments(argumentsJson: string, name: string): Outcome<Json> {
  const parsed = argumentsObject(argumentsJson, name);
  return parsed.ok
    ? parsed
    : upstreamError(`the upstream's arguments for tool call ${name} are not a JSON object`);
}
