import type { Finish, StreamEvent, Usage } from "../neutral.ts";
import { overheadComment } from "../overhead.ts";
import type { Json } from "../read.ts";
import { eventFrame } from "../sse/encode.ts";
import type { StreamWriteContext, StreamWriter } from "../stream-writer.ts";
import { ZERO_USAGE } from "../usage.ts";
import { writeMessagesFinish } from "./finish.ts";
import { writeMessagesUsage } from "./usage.ts";

/**
 * Messages events as Anthropic streams them: message_start, content_block_start / delta /
 * stop per block, message_delta with stop_reason and usage, message_stop.
 * message_start waits for the first content, so usage an upstream knows at the start
 * (a messages upstream does) is in it; the whole usage is repeated in message_delta,
 * whose counters the official clients take over those of message_start.
 */
export function messagesStreamWriter(context: StreamWriteContext = {}): StreamWriter {
  let id = context.id ?? "";
  let model = context.model ?? "";
  let started = false;
  let closed = false;
  let nextBlock = 0;
  let open: number | undefined;
  let openKind: "text" | "tool" | undefined;
  let finish: Finish | undefined;
  let usage: Usage | undefined;
  const toolBlocks = new Map<number, number>();

  const frame = (type: string, payload: Json = {}) => eventFrame(type, { type, ...payload });
  const begin = (): string => {
    if (started) return "";
    started = true;
    const message = {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: writeMessagesUsage({ ...(usage ?? ZERO_USAGE), outputTokens: 0 }),
    };
    return frame("message_start", { message });
  };
  const close = (): string => {
    if (open === undefined) return "";
    const index = open;
    open = undefined;
    openKind = undefined;
    return frame("content_block_stop", { index });
  };
  const openBlock = (kind: "text" | "tool", block: Json): string => {
    const out = close();
    open = nextBlock++;
    openKind = kind;
    return out + frame("content_block_start", { index: open, content_block: block });
  };

  const write = (event: StreamEvent): string => {
    if (closed) return "";
    switch (event.type) {
      case "start":
        id = context.id ?? event.id;
        model = context.model ?? event.model;
        return "";
      case "text": {
        if (event.text === "") return "";
        let out = begin();
        if (openKind !== "text") out += openBlock("text", { type: "text", text: "" });
        const delta = { type: "text_delta", text: event.text };
        return out + frame("content_block_delta", { index: open, delta });
      }
      case "tool_call_start": {
        const block = { type: "tool_use", id: event.id, name: event.name, input: {} };
        const out = begin() + openBlock("tool", block);
        toolBlocks.set(event.index, open ?? 0);
        return out;
      }
      case "tool_call_delta": {
        const index = toolBlocks.get(event.index);
        if (index === undefined || event.arguments === "") return "";
        const delta = { type: "input_json_delta", partial_json: event.arguments };
        return frame("content_block_delta", { index, delta });
      }
      case "finish":
        finish = event.finish;
        return "";
      case "usage":
        usage = event.usage;
        return "";
      case "error":
        closed = true;
        return frame("error", { error: { type: "api_error", message: event.message } });
    }
  };

  return {
    write,
    end(promptOverheadTokens) {
      if (closed) return "";
      closed = true;
      let out = begin() + close();
      const done = finish ?? { reason: "stop" };
      out += frame("message_delta", {
        delta: { stop_reason: writeMessagesFinish(done), stop_sequence: done.stopSequence ?? null },
        usage: writeMessagesUsage(usage ?? ZERO_USAGE),
      });
      if (promptOverheadTokens !== undefined) out += overheadComment(promptOverheadTokens);
      return out + frame("message_stop");
    },
  };
}
