import type { Finish, StreamEvent, Usage } from "../neutral.ts";
import { overheadComment } from "../overhead.ts";
import type { Json } from "../read.ts";
import { eventFrame } from "../sse/encode.ts";
import type { StreamWriteContext, StreamWriter } from "../stream-writer.ts";
import { createdAt, itemId } from "../write-context.ts";
import { functionCallItem, messageItem, outputText } from "./result.ts";
import { responseShell } from "./shell.ts";

type OpenItem =
  | { kind: "text"; outputIndex: number; id: string; text: string }
  | { kind: "tool"; outputIndex: number; id: string; callId: string; name: string; args: string };

/**
 * Responses events as OpenAI streams them: response.created and response.in_progress,
 * then per output item output_item.added, its deltas and its .done events, and last
 * response.completed (or response.incomplete) with the whole response and its usage.
 * Every event carries the next sequence_number; the final response lists the same items
 * (same ids) the stream announced, as the official client checks.
 */
class ResponsesStreamWriter implements StreamWriter {
  private readonly created: number;
  private id: string;
  private model: string;
  private sequence = 0;
  private started = false;
  private closed = false;
  private finish: Finish | undefined;
  private usage: Usage | undefined;
  private readonly output: Json[] = [];
  private readonly tools = new Map<number, OpenItem>();
  private open: OpenItem | undefined;

  constructor(private readonly context: StreamWriteContext) {
    this.created = createdAt(context);
    this.id = context.id ?? "";
    this.model = context.model ?? "";
  }

  write(event: StreamEvent): string {
    if (this.closed) return "";
    switch (event.type) {
      case "start":
        this.id = this.context.id ?? event.id;
        this.model = this.context.model ?? event.model;
        return this.begin();
      case "text":
        return this.begin() + this.text(event.text);
      case "tool_call_start":
        return this.begin() + this.toolStart(event.index, event.id, event.name);
      case "tool_call_delta":
        return this.toolDelta(event.index, event.arguments);
      case "finish":
        this.finish = event.finish;
        return "";
      case "usage":
        this.usage = event.usage;
        return "";
      case "error": {
        this.closed = true;
        const error = { code: "upstream_error", message: event.message, param: null };
        return this.begin() + this.frame("error", error);
      }
    }
  }

  end(promptOverheadTokens?: number): string {
    if (this.closed) return "";
    this.closed = true;
    let out = this.begin() + this.close();
    if (promptOverheadTokens !== undefined) out += overheadComment(promptOverheadTokens);
    const response = this.shell(true);
    const type = response.status === "incomplete" ? "response.incomplete" : "response.completed";
    return out + this.frame(type, { response });
  }

  private frame(type: string, payload: Json): string {
    return eventFrame(type, { type, sequence_number: this.sequence++, ...payload });
  }

  private shell(final: boolean): Json {
    return responseShell({
      id: this.id,
      model: this.model,
      createdAt: this.created,
      request: this.context.request,
      output: final ? this.output : [],
      ...(final ? { finish: this.finish ?? { reason: "stop" } } : {}),
      ...(final && this.usage ? { usage: this.usage } : {}),
    });
  }

  private begin(): string {
    if (this.started) return "";
    this.started = true;
    const response = this.shell(false);
    return (
      this.frame("response.created", { response }) +
      this.frame("response.in_progress", { response })
    );
  }

  private text(delta: string): string {
    let out = "";
    let item = this.open;
    if (item?.kind !== "text") {
      out += this.close();
      const outputIndex = this.output.length;
      item = { kind: "text", outputIndex, id: itemId("msg", this.id, outputIndex), text: "" };
      const added = messageItem(item.id, "in_progress", []);
      this.output.push(added);
      this.open = item;
      const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
      out +=
        this.frame("response.output_item.added", { output_index: outputIndex, item: added }) +
        this.frame("response.content_part.added", { ...at, part: outputText("") });
    }
    item.text += delta;
    const at = { item_id: item.id, output_index: item.outputIndex, content_index: 0 };
    return out + this.frame("response.output_text.delta", { ...at, delta, logprobs: [] });
  }

  private toolStart(index: number, callId: string, name: string): string {
    const out = this.close();
    const outputIndex = this.output.length;
    const id = itemId("fc", this.id, outputIndex);
    const item: OpenItem = { kind: "tool", outputIndex, id, callId, name, args: "" };
    const call = { type: "tool_call" as const, id: callId, name, arguments: "" };
    const added = functionCallItem(call, id, "in_progress");
    this.output.push(added);
    this.tools.set(index, item);
    this.open = item;
    return (
      out + this.frame("response.output_item.added", { output_index: outputIndex, item: added })
    );
  }

  private toolDelta(index: number, delta: string): string {
    const item = this.tools.get(index);
    if (item?.kind !== "tool") return "";
    item.args += delta;
    const at = { item_id: item.id, output_index: item.outputIndex };
    return this.frame("response.function_call_arguments.delta", { ...at, delta });
  }

  /** The .done events of the open item; the finished item replaces its in-progress form. */
  private close(): string {
    const item = this.open;
    if (!item) return "";
    this.open = undefined;
    const at = { item_id: item.id, output_index: item.outputIndex };
    if (item.kind === "tool") {
      const call = {
        type: "tool_call" as const,
        id: item.callId,
        name: item.name,
        arguments: item.args,
      };
      const done = functionCallItem(call, item.id, "completed");
      this.output[item.outputIndex] = done;
      return (
        this.frame("response.function_call_arguments.done", {
          ...at,
          name: item.name,
          arguments: item.args,
        }) + this.frame("response.output_item.done", { output_index: item.outputIndex, item: done })
      );
    }
    const part = outputText(item.text);
    const done = messageItem(item.id, "completed", [part]);
    this.output[item.outputIndex] = done;
    const text = { ...at, content_index: 0 };
    return (
      this.frame("response.output_text.done", { ...text, text: item.text, logprobs: [] }) +
      this.frame("response.content_part.done", { ...text, part }) +
      this.frame("response.output_item.done", { output_index: item.outputIndex, item: done })
    );
  }
}

export const responsesStreamWriter = (context: StreamWriteContext = {}): StreamWriter =>
  new ResponsesStreamWriter(context);
