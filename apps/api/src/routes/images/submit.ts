import type { MediaCallBody } from "@gw/schemas";
import { type NormalizedCall, normalizeCall, priceCall, quotaToUsd } from "@gw/tariffs";
import {
  enqueue,
  findByIdempotencyKey,
  findOwnTask,
  insertTask,
  isUploadRef,
  newTaskId,
  requestHash,
  type TaskRow,
  type Upload,
  uploadKey,
} from "@gw/tasks";
import type { Principal } from "../../accounts/principal.ts";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { accessOf } from "../models/access.ts";

export type ImageEndpoint = "generations" | "edits";

export interface Submission {
  endpoint: ImageEndpoint;
  body: MediaCallBody;
  /** Files of a multipart edit; the body names them `upload:<n>`. */
  uploads: Upload[];
  idempotencyKey: string | null;
}

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

function validate(ctx: AppContext, principal: Principal, submission: Submission): NormalizedCall {
  const { body, uploads } = submission;
  const checkUrl = (url: string) => {
    const index = isUploadRef(url);
    if (index !== null) return index < uploads.length ? null : "not a valid URL";
    return ctx.urlCheck(url);
  };
  const normalized = normalizeCall(ctx.catalog, body, { checkUrl, access: accessOf(principal) });
  if (!normalized.ok) throw new ApiError(normalized.code, normalized.message);
  const { call } = normalized;
  if (submission.endpoint === "edits" && !hasSource(call))
    throw new ApiError(
      "invalid_request",
      "POST /v1/images/edits needs a source: image (a URL or uploaded files), the model's own image field, or input.task_id for segment-map",
    );
  return call;
}

/** True when the call names a source image: a file field or an earlier task. */
function hasSource(call: NormalizedCall): boolean {
  if (typeof call.input.task_id === "string") return true;
  return Object.entries(call.operation.fields).some(([name, field]) => {
    const value = call.input[name];
    return (field.type === "url" || field.type === "url_list") && value !== undefined;
  });
}

/** Spec 4.2 rule 6: a task_id source must be a completed image task of the same account. */
async function checkTaskSource(ctx: AppContext, principal: Principal, call: NormalizedCall) {
  const taskId = call.input.task_id;
  if (typeof taskId !== "string") return;
  const task = await findOwnTask(ctx.sql, taskId, principal.userId).catch(() => null);
  const usable =
    task?.kind === "image" && task.status === "completed" && (task.result?.files.length ?? 0) > 0;
  if (!usable)
    throw new ApiError(
      "invalid_request",
      `input.task_id "${taskId.slice(0, 100)}" does not name a completed image task of this account`,
    );
}

function fingerprint(submission: Submission): string {
  const { body, uploads } = submission;
  return requestHash(
    submission.endpoint,
    body,
    uploads.map((upload) => upload.bytes),
  );
}

/** The earlier task of this Idempotency-Key, or a 409 when it was used for another request. */
async function replay(ctx: AppContext, principal: Principal, key: string, hash: string) {
  const existing = await findByIdempotencyKey(ctx.sql, principal.userId, key);
  if (!existing) return null;
  if (existing.request_hash !== hash)
    throw new ApiError(
      "idempotency_conflict",
      "This Idempotency-Key was already used with a different request; use a new key for a new request",
      { "x-task-id": existing.id },
    );
  return existing;
}

const MESSAGES = {
  insufficient_funds: "Insufficient balance for this request",
  key_budget_exceeded: "This API key's remaining budget is too small for this request",
} as const;

const usd = (quota: bigint) => String(quotaToUsd(quota));

/**
 * Starts a paid image task: validates the call, fixes its price, holds the funds and
 * records the task in one transaction, then enqueues its job. A repeated
 * Idempotency-Key answers the earlier task instead. Refusals leave nothing behind.
 */
export async function submitImageTask(
  ctx: AppContext,
  principal: Principal,
  submission: Submission,
): Promise<TaskRow> {
  const call = validate(ctx, principal, submission);
  const hash = submission.idempotencyKey ? fingerprint(submission) : null;
  if (submission.idempotencyKey && hash) {
    const earlier = await replay(ctx, principal, submission.idempotencyKey, hash);
    if (earlier) return earlier;
  }
  await checkTaskSource(ctx, principal, call);
  const { snapshot, price } = priceCall(call, principal.discountPpm);
  const taskId = newTaskId("img");
  for (const [index, upload] of submission.uploads.entries())
    await ctx.storage.put(uploadKey(taskId, index), upload.bytes, upload.contentType);
  const dropUploads = () =>
    submission.uploads.length > 0 ? ctx.storage.deletePrefix(`uploads/${taskId}/`) : 0;
  let held: Awaited<ReturnType<AppContext["ledger"]["hold"]>>;
  let task: TaskRow | undefined;
  try {
    held = await ctx.ledger.hold(
      {
        holdId: taskId,
        userId: principal.userId,
        keyId: principal.keyId,
        amountQuota: price.holdQuota,
      },
      async (tx) => {
        task = await insertTask(tx, {
          id: taskId,
          userId: principal.userId,
          keyId: principal.keyId,
          model: call.model.id,
          requestedModel: call.requested,
          operation: call.operation.name,
          prompt: call.prompt ?? null,
          input: call.input,
          responseFormat: submission.body.response_format ?? "url",
          price: snapshot,
          holdQuota: price.holdQuota,
          idempotencyKey: submission.idempotencyKey,
          requestHash: hash,
        });
      },
    );
  } catch (error) {
    await dropUploads();
    // Two requests with one Idempotency-Key raced; the one that committed is the task.
    if ((error as { code?: string }).code === "23505" && submission.idempotencyKey && hash) {
      const earlier = await replay(ctx, principal, submission.idempotencyKey, hash);
      if (earlier) return earlier;
    }
    throw error;
  }
  if (!held.ok) {
    await dropUploads();
    if (held.code === "insufficient_funds" || held.code === "key_budget_exceeded")
      throw new ApiError(
        held.code,
        `${MESSAGES[held.code]}: it needs $${usd(price.holdQuota)}, $${usd(held.availableQuota ?? 0n)} is available`,
      );
    throw new Error(`hold for task ${taskId} refused: ${held.code}`);
  }
  try {
    await enqueue(ctx.redis, ctx.config.redisPrefix, taskId);
  } catch (error) {
    // The task is recorded; the worker's sweep enqueues it again from Postgres.
    console.error(`[api] enqueue of ${taskId} failed: ${(error as Error).message}`);
  }
  return task!;
}
