import {
  type Conversation,
  createStreamWriter,
  outputCap,
  type Part,
  type StreamEvent,
  TEXT_FORMATS,
  type TextFormat,
  type TextResult,
  toNeutral,
  type Usage,
  writeResult,
} from "@gw/textformats";
import { wait } from "../wait.ts";
import {
  OFFLINE_DEFAULT_OUTPUT_TOKENS,
  type OfflineMarkers,
  offlineText,
  offlineTokens,
  readMarkers,
} from "./offline-text.ts";
import type { TextAnswer, TextCall, TextFailure, TextProvider } from "./types.ts";

export interface OfflineTextProviderOptions {
  /** Default "offline". */
  name?: string;
  /** Wait before answering, as an upstream's time to first token. Default 0. */
  latencyMs?: number;
  /** Wait between streamed frames. Default 0. */
  chunkDelayMs?: number;
}

/** `[offline:slow]`: the pause between a stream's chunks. */
const SLOW_CHUNK_DELAY_MS = 300;

/** Stream text in this many pieces at most, so clients see a few real chunks. */
const STREAM_PIECES = 4;

const ID_PREFIX: Record<TextFormat, string> = {
  chat: "chatcmpl-offline",
  responses: "resp_offline",
  messages: "msg_offline",
  generateContent: "offline",
};

function partText(part: Part): string[] {
  if (part.type === "text") return [part.text];
  if (part.type === "tool_result")
    return part.content.flatMap((item) => (item.type === "text" ? [item.text] : []));
  return [];
}

/** The prompt's text: system, then every turn's text and tool results, in order. */
const promptText = (conv: Conversation): string =>
  [...conv.system, ...conv.messages.flatMap((message) => message.parts.flatMap(partText))].join(
    "\n",
  );

function lastUserText(conv: Conversation): string {
  const last = conv.messages.findLast((message) => message.role === "user");
  return last ? last.parts.flatMap(partText).join("\n") : "";
}

function usageOf(call: TextCall, prompt: string, markers: OfflineMarkers, output: number): Usage {
  return {
    inputTokens: (call.localInputTokens ?? offlineTokens(prompt)) + markers.promptOverheadTokens,
    outputTokens: output,
    cacheReadTokens: markers.cacheReadTokens,
    cacheWriteTokens: markers.cacheWriteTokens,
  };
}

/** Splits text into at most `count` pieces at word boundaries, spaces kept. */
function pieces(text: string, count: number): string[] {
  const words = text.split(" ");
  const size = Math.ceil(words.length / count);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += size) {
    const piece = words.slice(i, i + size).join(" ");
    out.push(i === 0 ? piece : ` ${piece}`);
  }
  return out.filter((piece) => piece !== "");
}

/**
 * Frames as SSE bytes, one per pull (so a slow reader holds the rest back), with
 * `delayMs` between them; the caller's abort errors the stream.
 */
function frameStream(
  frames: string[],
  delayMs: number,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next > 0 && !(await wait(delayMs, signal))) {
        controller.error(signal.reason ?? new Error("aborted"));
        return;
      }
      controller.enqueue(encoder.encode(frames[next++]));
      if (next === frames.length) controller.close();
    },
  });
}

const failure = (code: TextFailure["code"], message: string): TextFailure => ({
  ok: false,
  code,
  message,
  started: false,
});

/**
 * A text upstream without a network, for every format: deterministic text from the last
 * user text and usage a test can steer with prompt markers (src/text/README.md, "Offline provider").
 * Its answers are written by @gw/textformats, so they have each API's public shape.
 */
export function createOfflineTextProvider(options: OfflineTextProviderOptions = {}): TextProvider {
  const name = options.name ?? "offline";
  return {
    name,
    formats: TEXT_FORMATS,
    async call(call): Promise<TextAnswer> {
      const conv = toNeutral(call.format, call.body, {
        model: call.upstreamModel,
        stream: call.stream,
      });
      const prompt = promptText(conv);
      const markers = readMarkers(prompt);
      if (markers.fail) return failure("upstream_error", `provider ${name} failed on purpose`);
      if (call.signal.aborted || !(await wait(options.latencyMs ?? 0, call.signal)))
        return failure("upstream_timeout", "aborted by the caller");
      const generated = offlineText(
        lastUserText(conv),
        outputCap(conv) ?? OFFLINE_DEFAULT_OUTPUT_TOKENS,
      );
      const usage = markers.noUsage ? undefined : usageOf(call, prompt, markers, generated.tokens);
      const result: TextResult = {
        id: `${ID_PREFIX[call.format]}${generated.digest}`,
        model: call.upstreamModel,
        parts: generated.text === "" ? [] : [{ type: "text", text: generated.text }],
        finish: { reason: generated.truncated ? "length" : "stop" },
        ...(usage ? { usage } : {}),
      };
      if (call.stream) {
        let frames = streamFrames(call.format, conv, result);
        if (!usage && call.format === "messages") frames = frames.map(withoutMessagesUsage);
        return {
          ok: true,
          status: 200,
          sse: frameStream(
            frames,
            markers.slow ? SLOW_CHUNK_DELAY_MS : (options.chunkDelayMs ?? 0),
            call.signal,
          ),
        };
      }
      const written = writeResult(call.format, result, { request: conv });
      if (!written.ok) return failure("upstream_error", written.message);
      if (!usage) delete written.value.usage;
      return { ok: true, status: 200, json: written.value };
    },
  };
}

/** The answer as the format's SSE frames; chat always carries its usage chunk, as a gateway call asks. */
function streamFrames(format: TextFormat, conv: Conversation, result: TextResult): string[] {
  const writer = createStreamWriter(format, { request: conv, includeUsage: true });
  const text = result.parts[0]?.type === "text" ? result.parts[0].text : "";
  const events: StreamEvent[] = [
    { type: "start", id: result.id, model: result.model },
    ...pieces(text, STREAM_PIECES).map((piece): StreamEvent => ({ type: "text", text: piece })),
    { type: "finish", finish: result.finish },
  ];
  if (result.usage) events.push({ type: "usage", usage: result.usage });
  return [...events.map((event) => writer.write(event)), writer.end()].filter(
    (frame) => frame !== "",
  );
}

/**
 * The messages writer always writes usage (Anthropic always reports it), as zeros when
 * there is none; `[offline:no-usage]` means none at all, so it is taken out of
 * message_start and message_delta.
 */
function withoutMessagesUsage(text: string): string {
  return text
    .split("\n\n")
    .map((frame) => {
      const at = frame.indexOf("\ndata: ");
      if (!/^event: message_(start|delta)\n/.test(frame) || at < 0) return frame;
      const payload = JSON.parse(frame.slice(at + "\ndata: ".length)) as {
        usage?: unknown;
        message?: { usage?: unknown };
      };
      delete payload.usage;
      delete payload.message?.usage;
      return `${frame.slice(0, at)}\ndata: ${JSON.stringify(payload)}`;
    })
    .join("\n\n");
}
