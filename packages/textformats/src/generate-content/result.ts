import { answerArguments, argumentsText } from "../arguments.ts";
import type { TextPart, TextResult, ToolCallPart } from "../neutral.ts";
import { type Outcome, ok, upstreamError } from "../outcome.ts";
import { compact, isRecord, type Json, list, record } from "../read.ts";
import type { WriteContext } from "../write-context.ts";
import { readGenerateContentFinish, writeGenerateContentFinish } from "./finish.ts";
import { readGenerateContentUsage, writeGenerateContentUsage } from "./usage.ts";

/** The text and function calls of one candidate's parts; thought parts are not text. */
export function candidateParts(candidate: Json, firstCall: number): (TextPart | ToolCallPart)[] {
  const parts: (TextPart | ToolCallPart)[] = [];
  for (const entry of list(record(candidate.content).parts)) {
    const part = record(entry);
    if (typeof part.text === "string" && part.thought !== true)
      parts.push({ type: "text", text: part.text });
    else if (isRecord(part.functionCall)) {
      const call = part.functionCall;
      const index = firstCall + parts.filter((item) => item.type === "tool_call").length;
      parts.push({
        type: "tool_call",
        id: typeof call.id === "string" && call.id !== "" ? call.id : `call_${index}`,
        name: String(call.name ?? ""),
        arguments: argumentsText(call.args),
      });
    }
  }
  return parts;
}

/** A GenerateContentResponse (first candidate) in neutral form. */
export function readGenerateContentResult(body: unknown): Outcome<TextResult> {
  const response = record(body);
  const candidate = list(response.candidates)[0];
  const blocked = record(response.promptFeedback).blockReason;
  if (!isRecord(candidate) && blocked === undefined)
    return upstreamError("the generateContent response has no candidates");
  const parts = isRecord(candidate) ? candidateParts(candidate, 0) : [];
  const calls = parts.some((part) => part.type === "tool_call");
  const usage = readGenerateContentUsage(response.usageMetadata);
  return ok({
    id: String(response.responseId ?? ""),
    model: String(response.modelVersion ?? ""),
    parts,
    finish: isRecord(candidate)
      ? readGenerateContentFinish(candidate.finishReason, calls)
      : { reason: "content_filter" },
    ...(usage ? { usage } : {}),
  });
}

/** Neutral parts as Gemini parts (function calls with object args). */
export function geminiParts(parts: (TextPart | ToolCallPart)[]): Outcome<Json[]> {
  const out: Json[] = [];
  for (const part of parts) {
    if (part.type === "text") {
      out.push({ text: part.text });
      continue;
    }
    const args = answerArguments(part.arguments, part.name);
    if (!args.ok) return args;
    out.push({ functionCall: { name: part.name, args: args.value } });
  }
  return ok(out);
}

/** A neutral answer as a GenerateContentResponse. */
export function writeGenerateContentResult(
  result: TextResult,
  context: WriteContext = {},
): Outcome<Json> {
  const parts = geminiParts(result.parts);
  if (!parts.ok) return parts;
  return ok(
    compact({
      candidates: [
        {
          content: { role: "model", parts: parts.value },
          finishReason: writeGenerateContentFinish(result.finish),
          index: 0,
        },
      ],
      usageMetadata: result.usage ? writeGenerateContentUsage(result.usage) : undefined,
      modelVersion: context.model ?? result.model,
      responseId: context.id ?? result.id,
    }),
  );
}
