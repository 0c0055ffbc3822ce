import type { Principal } from "@gw/accounts";
import type { MediaCallBody } from "@gw/schemas";
import { type NormalizedCall, normalizeCall } from "@gw/tariffs";
import { findOwnTask, isUploadRef, requestHash, type TaskRow, type Upload } from "@gw/tasks";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { accessOf } from "../models/access.ts";
import { submitPaid } from "../paid-call.ts";
import { webhookUrlOf } from "../webhook-url.ts";

export type ImageEndpoint = "generations" | "edits";

export interface Submission {
  endpoint: ImageEndpoint;
  body: MediaCallBody;
  /** Files of a multipart edit; the body names them `upload:<n>`. */
  uploads: Upload[];
  idempotencyKey: string | null;
}

function validate(ctx: AppContext, principal: Principal, submission: Submission): NormalizedCall {
  const { body, uploads } = submission;
  const checkUrl = (url: string) => {
    const index = isUploadRef(url);
    if (index !== null) return index < uploads.length ? null : "not a valid URL";
    return ctx.urlCheck(url);
  };
  const normalized = normalizeCall(ctx.catalog, body, {
    checkUrl,
    access: accessOf(principal),
    kinds: ["image"],
    endpoint: `POST /v1/images/${submission.endpoint}`,
  });
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

/**
 * Starts a paid image task: validates the call and fixes its price, then hands it to
 * the paid-task engine (hold and task row in a group commit, then the job). Copies of
 * one Idempotency-Key all answer with the one task it made. Refusals leave nothing behind.
 */
export async function submitImageTask(
  ctx: AppContext,
  principal: Principal,
  submission: Submission,
): Promise<TaskRow> {
  const call = validate(ctx, principal, submission);
  const webhookUrl = webhookUrlOf(ctx, submission.body.webhook_url);
  await checkTaskSource(ctx, principal, call);
  return submitPaid(ctx, principal, call, {
    kind: "image",
    idPrefix: "img",
    responseFormat: submission.body.response_format ?? "url",
    uploads: submission.uploads,
    idempotency: submission.idempotencyKey
      ? { key: submission.idempotencyKey, hash: fingerprint(submission) }
      : null,
    webhookUrl,
  });
}
