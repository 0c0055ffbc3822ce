import type { Principal } from "@gw/accounts";
import type { AudioCallBody } from "@gw/schemas";
import { type NormalizedCall, normalizeCall } from "@gw/tariffs";
import { findOwnTask, requestHash, type TaskRow } from "@gw/tasks";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { accessOf } from "../models/access.ts";
import { submitPaid } from "../paid-call.ts";
import { webhookUrlOf } from "../webhook-url.ts";

/** `<task_public_id>:<track_index>` of an audio task (spec 2.14). */
const AUDIO_ID = /^(aud_[0-9a-z]{24}):(0|[1-9][0-9]{0,2})$/;

/**
 * Spec 2.14: an `input.audioId` names a track of the caller's own completed audio task.
 * Everything else is refused before anything is reserved: a malformed value, another
 * service's IDs, another account's task (answered like a missing one), an unfinished or
 * failed task, an index past its tracks.
 */
async function checkAudioId(ctx: AppContext, principal: Principal, call: NormalizedCall) {
  const audioId = call.input.audioId;
  if (audioId === undefined) return;
  const shown = JSON.stringify(String(audioId).slice(0, 100));
  const match = typeof audioId === "string" ? AUDIO_ID.exec(audioId) : null;
  if (!match)
    throw new ApiError(
      "invalid_request",
      `input.audioId ${shown} is not <task_id>:<track_index> of an audio task of this gateway`,
    );
  const task = await findOwnTask(ctx.sql, match[1]!, principal.userId).catch(() => null);
  if (task?.kind !== "audio")
    throw new ApiError(
      "invalid_request",
      `input.audioId ${shown}: no such audio task of this account`,
    );
  if (task.status !== "completed")
    throw new ApiError(
      "invalid_request",
      `input.audioId ${shown}: the task is ${task.status}, not completed`,
    );
  if (Number(match[2]) >= (task.result?.files.length ?? 0))
    throw new ApiError(
      "invalid_request",
      `input.audioId ${shown}: the task has ${task.result?.files.length ?? 0} track(s)`,
    );
}

/**
 * Starts an audio task (spec 4.5): validates against the catalog, fixes the price, checks
 * `audioId`, then hands it to the engine in the reserve → charge → refund mode: the reserve
 * is charged in the transaction that records the task, and the unused part comes back
 * after the run. Answers at once with the queued task.
 */
export async function submitAudioTask(
  ctx: AppContext,
  principal: Principal,
  body: AudioCallBody,
  idempotencyKey: string | null,
): Promise<TaskRow> {
  const normalized = normalizeCall(ctx.catalog, body, {
    checkUrl: ctx.urlCheck,
    access: accessOf(principal),
    kinds: ["audio"],
    endpoint: "POST /v1/audio/generations",
  });
  if (!normalized.ok) throw new ApiError(normalized.code, normalized.message);
  const { call } = normalized;
  const webhookUrl = webhookUrlOf(ctx, body.webhook_url);
  await checkAudioId(ctx, principal, call);
  return submitPaid(ctx, principal, call, {
    kind: "audio",
    idPrefix: "aud",
    money: "reserve",
    idempotency: idempotencyKey
      ? { key: idempotencyKey, hash: requestHash("audio", body, []) }
      : null,
    webhookUrl,
  });
}
