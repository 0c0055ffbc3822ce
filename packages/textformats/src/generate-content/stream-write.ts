import type { Finish, StreamEvent, ToolCallPart, Usage } from "../neutral.ts";
import { compact, type Json } from "../read.ts";
import { dataFrame } from "../sse/encode.ts";
import type { StreamWriteContext, StreamWriter } from "../stream-writer.ts";
import { writeGenerateContentFinish } from "./finish.ts";
import { geminiParts } from "./result.ts";
import { writeGenerateContentUsage } from "./usage.ts";

/**
 * generateContent SSE as Gemini streams it with `alt=sse`: `data: {GenerateContentResponse}`
 * chunks with new parts, the last with finishReason and usageMetadata. Gemini sends each
 * function call whole, so calls are held until their arguments are complete. It has no
 * place for the prompt-overhead comment (spec 4.11 rule 2), so `end` ignores the value.
 */
export function generateContentStreamWriter(context: StreamWriteContext = {}): StreamWriter {
  let id = context.id ?? "";
  let model = context.model ?? "";
  let closed = false;
  let finish: Finish | undefined;
  let usage: Usage | undefined;
  const pending: ToolCallPart[] = [];
  const byIndex = new Map<number, ToolCallPart>();

  const chunk = (parts: Json[], extra: Json = {}, usageMetadata?: Json) =>
    dataFrame(
      compact({
        candidates: [{ content: { role: "model", parts }, index: 0, ...extra }],
        usageMetadata,
        modelVersion: model,
        responseId: id,
      }),
    );
  const errorFrame = (message: string) =>
    dataFrame({ error: { code: 500, message, status: "INTERNAL" } });
  /** The held calls as parts, or the error frame when an upstream's arguments are not JSON. */
  const flush = (): { parts: Json[] } | { error: string } => {
    byIndex.clear();
    const written = geminiParts(pending.splice(0));
    if (!written.ok) {
      closed = true;
      return { error: errorFrame(written.message) };
    }
    return { parts: written.value };
  };

  return {
    write(event: StreamEvent) {
      if (closed) return "";
      switch (event.type) {
        case "start":
          id = context.id ?? event.id;
          model = context.model ?? event.model;
          return "";
        case "text": {
          if (event.text === "") return "";
          const held = flush();
          if ("error" in held) return held.error;
          return chunk([...held.parts, { text: event.text }]);
        }
        case "tool_call_start": {
          const call: ToolCallPart = {
            type: "tool_call",
            id: event.id,
            name: event.name,
            arguments: "",
          };
          pending.push(call);
          byIndex.set(event.index, call);
          return "";
        }
        case "tool_call_delta": {
          const call = byIndex.get(event.index);
          if (call) call.arguments += event.arguments;
          return "";
        }
        case "finish":
          finish = event.finish;
          return "";
        case "usage":
          usage = event.usage;
          return "";
        case "error":
          closed = true;
          return errorFrame(event.message);
      }
    },
    end() {
      if (closed) return "";
      closed = true;
      const held = flush();
      if ("error" in held) return held.error;
      const parts = held.parts.length > 0 ? held.parts : [{ text: "" }];
      const reason = writeGenerateContentFinish(finish ?? { reason: "stop" });
      return chunk(
        parts,
        { finishReason: reason },
        usage ? writeGenerateContentUsage(usage) : undefined,
      );
    },
  };
}
