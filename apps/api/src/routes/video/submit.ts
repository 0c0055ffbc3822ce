import type { Principal } from "@gw/accounts";
import { normalizeCall } from "@gw/tariffs";
import { requestHash, type TaskRow } from "@gw/tasks";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { accessOf } from "../models/access.ts";
import { submitPaid } from "../paid-call.ts";
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
  const webhookUrl = webhookUrlOf(ctx, body.webhook_url);
  return submitPaid(ctx, principal, normalized.call, {
    kind: "video",
    idPrefix: "vid",
    idempotency: idempotencyKey
      ? { key: idempotencyKey, hash: requestHash("video", body, []) }
      : null,
    webhookUrl,
  });
}
