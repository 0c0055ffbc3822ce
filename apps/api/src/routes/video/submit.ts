import type { Principal } from "@gw/accounts";
import { normalizeCall, priceCall } from "@gw/tariffs";
import { requestHash, SubmitRefused, type TaskRow } from "@gw/tasks";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { refusalError } from "../images/submit.ts";
import { accessOf } from "../models/access.ts";
import { webhookUrlOf } from "../webhook-url.ts";
import { videoCall } from "./body.ts";

/**
 * Starts a video task: validates against the catalog, fixes the price, and hands it to the
 * engine in the hold → post / void mode (one charge by the actual seconds after the result,
 * nothing on failure). Answers at once with the queued task.
 */
export async function submitVideoTask(
  ctx: AppContext,
  principal: Principal,
  raw: unknown,
  idempotencyKey: string | null,
): Promise<TaskRow> {
  const body = videoCall(raw);
  const normalized = normalizeCall(
    ctx.catalog,
    {
      model: body.model,
      input: body.input,
      ...(body.prompt === undefined ? {} : { prompt: body.prompt }),
      ...(body.operation === undefined ? {} : { operation: body.operation }),
    },
    {
      checkUrl: ctx.urlCheck,
      access: accessOf(principal),
      kinds: ["video"],
      endpoint: "POST /v1/videos",
    },
  );
  if (!normalized.ok) throw new ApiError(normalized.code, normalized.message);
  const { call } = normalized;
  const webhookUrl = webhookUrlOf(ctx, body.webhook_url);
  const { snapshot, price } = priceCall(call, principal.discountPpm);
  try {
    return await ctx.submitter.submit({
      kind: "video",
      idPrefix: "vid",
      userId: principal.userId,
      keyId: principal.keyId,
      model: call.model.id,
      requestedModel: call.requested,
      operation: call.operation.name,
      prompt: call.prompt ?? null,
      input: call.input,
      responseFormat: "url",
      price: snapshot,
      holdQuota: price.holdQuota,
      idempotency: idempotencyKey
        ? { key: idempotencyKey, hash: requestHash("video", body, []) }
        : null,
      webhookUrl,
    });
  } catch (error) {
    if (error instanceof SubmitRefused) throw refusalError(error);
    throw error;
  }
}
