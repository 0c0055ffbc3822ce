import type { Principal } from "@gw/accounts";
import { type NormalizedCall, priceCall, quotaToUsd } from "@gw/tariffs";
import { type PaidCall, SubmitRefused, type TaskRow } from "@gw/tasks";
import type { AppContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { currentRequest } from "../observe/request-context.ts";

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Reads the Idempotency-Key header; a malformed one is refused rather than ignored. */
export function idempotencyKeyOf(request: Request): string | null {
  const value = request.headers.get("idempotency-key");
  if (value === null) return null;
  if (!IDEMPOTENCY_KEY.test(value))
    throw new ApiError(
      "invalid_request",
      "Idempotency-Key must be 1 to 255 printable ASCII characters without spaces",
    );
  return value;
}

const MESSAGES = {
  insufficient_funds: "Insufficient balance for this request",
  key_budget_exceeded: "This API key's remaining budget is too small for this request",
} as const;

const usd = (quota: bigint) => String(quotaToUsd(quota));

/** A refused submission as the client sees it. */
function refusalError(refused: SubmitRefused): ApiError {
  if (refused.code === "idempotency_conflict")
    return new ApiError(
      "idempotency_conflict",
      "This Idempotency-Key was already used with a different request; use a new key for a new request",
      refused.detail.taskId ? { "x-task-id": refused.detail.taskId } : {},
    );
  return new ApiError(
    refused.code,
    `${MESSAGES[refused.code]}: it needs $${usd(refused.detail.neededQuota ?? 0n)}, $${usd(refused.detail.availableQuota ?? 0n)} is available`,
  );
}

/** What differs between the kinds' submissions; the rest comes from the caller and the call. */
export type PaidCallOptions = Pick<PaidCall, "kind" | "idPrefix"> &
  Partial<Pick<PaidCall, "money" | "responseFormat" | "uploads" | "idempotency" | "webhookUrl">>;

/**
 * Hands a validated call to the paid-task engine, the one way every route submits: the
 * price fixed now from the stored tariffs and the caller's discount, the caller's account
 * and key, the call's model and input. A refusal (funds, key budget, a reused
 * Idempotency-Key) answers in the error shape and leaves nothing behind.
 */
export async function submitPaid(
  ctx: AppContext,
  principal: Principal,
  call: NormalizedCall,
  options: PaidCallOptions,
): Promise<TaskRow> {
  const { snapshot, price } = priceCall(call, principal.discountPpm);
  try {
    const requestId = currentRequest()?.id ?? null;
    const task = await ctx.submitter.submit({
      responseFormat: "url",
      ...options,
      userId: principal.userId,
      keyId: principal.keyId,
      model: call.model.id,
      requestedModel: call.requested,
      operation: call.operation.name,
      prompt: call.prompt ?? null,
      input: call.input,
      price: snapshot,
      holdQuota: price.holdQuota,
      requestId,
    });
    // A task this request made (an Idempotency-Key copy answers an earlier one).
    if (requestId !== null && task.request_id === requestId)
      ctx.metrics.tasksSubmitted.inc({ kind: task.kind, model: task.model });
    return task;
  } catch (error) {
    if (error instanceof SubmitRefused) throw refusalError(error);
    throw error;
  }
}
