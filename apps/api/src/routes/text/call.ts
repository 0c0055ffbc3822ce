import { randomUUID } from "node:crypto";
import type { Principal } from "@gw/accounts";
import type { ChargeDetails } from "@gw/ledger";
import type { TextAnswer } from "@gw/providers";
import { quotaToUsd, textPriceQuota } from "@gw/tariffs";
import {
  type Conversation,
  countableRequest,
  createStreamParser,
  createStreamRelay,
  createStreamWriter,
  fullInputTokens,
  hasMedia,
  outputCap,
  PROMPT_OVERHEAD_HEADER,
  promptExcessTokens,
  promptOverheadTokens,
  readResult,
  type StreamEvent,
  type TextFormat,
  type TextResult,
  toNeutral,
  translateRequest,
  type Usage,
  withUpstreamUsage,
  writeResult,
} from "@gw/textformats";
import { countRequestTokens } from "@gw/tokens";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { currentRequest } from "../../observe/request-context.ts";
import { resolveTextModel, type TextModel } from "./model.ts";
import type { TextHold } from "./money.ts";
import { textFailure } from "./upstream-errors.ts";

type Json = Record<string, unknown>;

export interface TextRequest {
  clientFormat: TextFormat;
  body: Json;
  /** generateContent names its model and streaming in the path. */
  path?: { model: string; stream: boolean };
}

/** Everything known about one call once it is admitted. */
interface Admitted {
  ctx: AppContext;
  principal: Principal;
  request: TextRequest;
  conversation: Conversation;
  model: TextModel;
  hold: TextHold;
  local: number;
  media: boolean;
  stream: boolean;
  began: number;
  /** The x-request-id, kept for the charge record (posted outside the request). */
  requestId: string;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
};

/**
 * One metered text call (issue 15): the model and its route, the local count of the
 * input, the hold of the estimate (input at the local count plus the output cap, never
 * the whole balance), the upstream call in its native format (the client's body as is
 * when the formats match, translated otherwise; what does not translate is refused with
 * a 400 and nothing held), then the answer in the client's format with the provider
 * prompt-overhead header or SSE comment of spec 4.11, and the charge by the usage the
 * provider reported, posted after the answer.
 */
export async function runTextCall(
  ctx: AppContext,
  principal: Principal,
  request: TextRequest,
): Promise<Response> {
  const { clientFormat, body } = request;
  const conversation = toNeutral(clientFormat, body as never, request.path);
  const model = await resolveTextModel(ctx, principal, conversation.model, clientFormat);
  const stream = conversation.stream;
  const cap = outputCap(conversation) ?? model.defaultOutput;
  if (cap > model.maxOutput)
    throw new ApiError(
      "invalid_request",
      `The output cap ${cap} is above what ${model.model.id} can produce (${model.maxOutput} tokens)`,
    );
  const upstreamBody = upstreamBodyOf(request, model, cap);
  const media = hasMedia(conversation);
  const local = countRequestTokens(model.profile, countableRequest(conversation) as never);
  const estimate = textPriceQuota(
    model.prices,
    { input: local, output: cap, cacheRead: 0, cacheWrite: 0 },
    principal.discountPpm,
  );
  const holdId = `txt_${randomUUID().replaceAll("-", "")}`;
  const admitted = await ctx.text.ledger.admit({
    holdId,
    userId: principal.userId,
    keyId: principal.keyId,
    amountQuota: estimate,
  });
  if (!admitted.ok) throw fundsError(admitted.code, estimate, admitted.availableQuota);
  const call: Admitted = {
    ctx,
    principal,
    request,
    conversation,
    model,
    hold: admitted.hold,
    local,
    media,
    stream,
    began: performance.now(),
    requestId: currentRequest()?.id ?? holdId,
  };
  const abort = new AbortController();
  let answer: TextAnswer;
  try {
    answer = await model.provider.call({
      format: model.upstreamFormat,
      upstreamModel: model.upstreamModel,
      body: upstreamBody,
      stream,
      signal: abort.signal,
      localInputTokens: local,
    });
  } catch (error) {
    void ctx.text.ledger.settle({ type: "release", hold: call.hold });
    throw error;
  }
  if (!answer.ok) {
    void ctx.text.ledger.settle({ type: "release", hold: call.hold });
    throw textFailure(answer, model.model.id);
  }
  if ("json" in answer) return answerJson(call, answer.json);
  return answerStream(call, answer.sse, abort);
}

function fundsError(code: string, needed: bigint, available?: bigint): ApiError {
  const usd = (quota: bigint) => String(quotaToUsd(quota));
  if (code === "insufficient_funds" || code === "key_budget_exceeded")
    return new ApiError(
      code,
      `${code === "insufficient_funds" ? "Insufficient balance" : "This API key's remaining budget is too small"} for this call: it holds $${usd(needed)} (the input and the output cap), $${usd(available ?? 0n)} is available; lower max_tokens or add funds`,
    );
  return new ApiError("invalid_api_key", "The key's account could not be found");
}

/** The request as the upstream takes it: the client's own body, or its translation. */
function upstreamBodyOf(request: TextRequest, model: TextModel, cap: number): Json {
  const { clientFormat, body } = request;
  if (model.upstreamFormat === clientFormat) return withUpstreamUsage(clientFormat, body as never);
  const translated = translateRequest(clientFormat, model.upstreamFormat, body as never, {
    defaultMaxTokens: cap,
    ...(request.path ? { path: request.path } : {}),
  });
  if (!translated.ok)
    throw new ApiError(
      translated.code === "untranslatable" ? "untranslatable" : "invalid_request",
      translated.message,
    );
  return withUpstreamUsage(model.upstreamFormat, translated.value as never);
}

/** Local counts where the provider reported no usage. */
function localUsage(call: Admitted, outputText: string): Usage {
  const output =
    outputText === ""
      ? 0
      : countRequestTokens(call.model.profile, {
          messages: [{ role: "assistant", content: outputText }],
        } as never);
  return { inputTokens: call.local, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

/** The header of spec 4.11 (a number, or absent). */
function overheadOf(call: Admitted, usage: Usage | undefined): number | undefined {
  if (!usage) return undefined;
  return promptOverheadTokens({
    reportedInputTokens: fullInputTokens(usage),
    localInputTokens: call.local,
    hasMedia: call.media,
  });
}

/**
 * Charges the call by its usage: resolves once the charge is owed durably enough to
 * survive this process (journaled in Redis), before the answer's last bytes go out; the
 * posting follows in a batch, once per hold.
 */
async function charge(
  call: Admitted,
  usage: Usage,
  source: "provider" | "local",
  cancelled = false,
): Promise<void> {
  const { ctx, model, principal } = call;
  const actual = textPriceQuota(
    model.prices,
    {
      input: usage.inputTokens,
      output: usage.outputTokens,
      cacheRead: usage.cacheReadTokens,
      cacheWrite: usage.cacheWriteTokens,
    },
    principal.discountPpm,
  );
  const reported = fullInputTokens(usage);
  const excess = promptExcessTokens(reported, call.local);
  const details: ChargeDetails = {
    requestId: call.requestId,
    model: model.model.id,
    promptTokens: reported,
    completionTokens: usage.outputTokens,
    cacheReadTokens: usage.cacheReadTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    isStream: call.stream,
    other: {
      estimated_prompt_tokens: call.local,
      ...(excess === undefined ? {} : { provider_prompt_overhead_tokens: excess }),
      ...(source === "local" ? { usage_source: "local" } : {}),
      ...(cancelled ? { client_disconnected: true } : {}),
      use_time_ms: Math.round(performance.now() - call.began),
    },
  };
  const amountQuota = await ctx.text.ledger.cover(call.hold, actual);
  if (amountQuota < actual)
    details.other = { ...details.other, capped_from_quota: actual.toString() };
  // Owed in Redis before the answer is released; posted in the next batch.
  const journalId = await ctx.text.ledger.journal(call.hold, amountQuota, details);
  void ctx.text.ledger
    .settle({ type: "charge", hold: call.hold, amountQuota, details, journalId })
    .catch((error) =>
      ctx.logger.error(
        { hold_id: call.hold.input.holdId, err: (error as Error).message },
        "a text charge could not be posted; the journal keeps it for the worker",
      ),
    );
}

/** A whole answer: read its usage, answer in the client's format, then charge. */
async function answerJson(call: Admitted, upstreamJson: unknown): Promise<Response> {
  const { model, request } = call;
  const read = readResult(model.upstreamFormat, upstreamJson);
  if (!read.ok) {
    void call.ctx.text.ledger.settle({ type: "release", hold: call.hold });
    throw new ApiError(
      "upstream_error",
      `The provider's answer could not be read: ${read.message}`,
    );
  }
  const result: TextResult = read.value;
  const usage = result.usage ?? localUsage(call, textOf(result));
  const headers: Record<string, string> = {};
  const overhead = overheadOf(call, result.usage);
  if (overhead !== undefined) headers[PROMPT_OVERHEAD_HEADER] = String(overhead);
  let body: unknown = upstreamJson;
  if (model.upstreamFormat !== request.clientFormat || !result.usage) {
    const written = writeResult(
      request.clientFormat,
      result.usage ? result : { ...result, usage },
      { model: model.model.id, request: call.conversation },
    );
    if (!written.ok) {
      void call.ctx.text.ledger.settle({ type: "release", hold: call.hold });
      throw new ApiError("upstream_error", written.message);
    }
    body = written.value;
  } else if (typeof (body as Json).model === "string") {
    // The client sees the model it called, not the provider's name for it.
    body = { ...(body as Json), model: model.model.id };
  }
  await charge(call, usage, result.usage ? "provider" : "local");
  return Response.json(body, { headers });
}

const textOf = (result: TextResult) =>
  result.parts.map((part) => (part.type === "text" ? part.text : "")).join("");

/**
 * A streamed answer: the upstream's SSE relayed frame by frame when the formats match,
 * or parsed and written in the client's format; the overhead comment before the last
 * event; the charge once the stream ends. A client that goes away cancels the upstream
 * request and is charged for what was generated until then.
 */
function answerStream(
  call: Admitted,
  upstream: ReadableStream<Uint8Array>,
  abort: AbortController,
): Response {
  const { model, request } = call;
  const same = model.upstreamFormat === request.clientFormat;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const reader = upstream.getReader();
  // What was generated so far, for a charge when the usage never arrives.
  let text = "";
  let usage: Usage | undefined;
  let settled = false;
  const relay = same
    ? createStreamRelay(request.clientFormat, {
        promptOverhead: (seen) => overheadOf(call, seen),
        stripUsage: request.clientFormat === "chat" && !call.conversation.includeUsage,
      })
    : null;
  const watcher = same ? createStreamParser(model.upstreamFormat) : null;
  const parser = same ? null : createStreamParser(model.upstreamFormat);
  const writer = same
    ? null
    : createStreamWriter(request.clientFormat, {
        model: model.model.id,
        request: call.conversation,
      });
  const see = (events: StreamEvent[]) => {
    for (const event of events)
      if (event.type === "text") text += event.text;
      else if (event.type === "usage") usage = event.usage;
  };
  const finish = async (cancelled: boolean) => {
    if (settled) return;
    settled = true;
    const final = usage ?? relay?.usage();
    await (final
      ? charge(call, final, "provider", cancelled)
      : charge(call, localUsage(call, text), "local", cancelled)
    ).catch((error) =>
      call.ctx.logger.error(
        { hold_id: call.hold.input.holdId, err: (error as Error).message },
        "a text charge could not be made",
      ),
    );
  };
  const translate = (chunk: string): string => {
    if (relay && watcher) {
      see(watcher.push(chunk));
      return relay.push(chunk);
    }
    const events = parser!.push(chunk);
    see(events);
    return events.map((event) => writer!.write(event)).join("");
  };
  const closing = (): string => {
    if (relay && watcher) {
      see(watcher.end());
      return relay.end();
    }
    const events = parser!.end();
    see(events);
    const out = events.map((event) => writer!.write(event)).join("");
    return out + writer!.end(overheadOf(call, usage));
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // Read until something goes out: a pull that enqueues nothing is not called again,
        // and an upstream chunk often writes nothing (half a frame, a frame the client's
        // format has no event for), so returning then would stall the client for good.
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            const rest = decoder.decode();
            const out = (rest ? translate(rest) : "") + closing();
            // The charge is owed before the stream's last bytes reach the client.
            await finish(false);
            if (out) controller.enqueue(encoder.encode(out));
            controller.close();
            return;
          }
          const out = translate(decoder.decode(value, { stream: true }));
          if (out) {
            controller.enqueue(encoder.encode(out));
            return;
          }
        }
      } catch (error) {
        // The upstream stream broke off: the client gets what came, and pays for it.
        await finish(true);
        controller.error(error);
      }
    },
    cancel() {
      abort.abort();
      void reader.cancel().catch(() => {});
      void finish(true);
    },
  });
  return new Response(body, { headers: SSE_HEADERS });
}
