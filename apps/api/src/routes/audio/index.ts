import { AudioCallBody, AudioTask, ErrorBody } from "@gw/schemas";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { IDEMPOTENCY_KEY_HEADER, TASK_ID_HEADER } from "../docs.ts";
import { linkBase } from "../images/present.ts";
import { idempotencyKeyOf } from "../paid-call.ts";
import { ownTask } from "../task-view.ts";
import { audioTask } from "./present.ts";
import { submitAudioTask } from "./submit.ts";

/** Refusals of a submission (bodies are refused by the body plugin too: docs/document.ts). */
const SUBMIT_ERRORS = {
  400: ErrorBody,
  401: ErrorBody,
  402: ErrorBody,
  403: ErrorBody,
  409: ErrorBody,
  429: ErrorBody,
  503: ErrorBody,
};
const READ_ERRORS = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

/**
 * Spec 4.5 and 4.6: asynchronous audio. POST reserves and answers with the queued task;
 * GET reads one of the caller's tasks (another account's answers like a missing one). The
 * GET is under the key + model + user window (spec 8.4) and is free.
 */
export function audioRoutes(ctx: AppContext) {
  const { auth, rateLimit } = ctx;
  return new Elysia({ name: "gw/routes/audio" })
    .use(auth)
    .use(rateLimit)
    .post(
      "/v1/audio/generations",
      async ({ principal, body, request, set }) => {
        const task = await submitAudioTask(ctx, principal, body, idempotencyKeyOf(request));
        set.headers["x-task-id"] = task.id;
        return audioTask(ctx, task, linkBase(ctx.config, request));
      },
      {
        auth: { mode: "ordinary" },
        limit: { failClosed: true },
        body: AudioCallBody,
        response: { 200: AudioTask, ...SUBMIT_ERRORS },
        detail: {
          tags: ["audio"],
          summary: "Start an audio task (speech or music); answers at once with the queued task",
          parameters: [IDEMPOTENCY_KEY_HEADER],
          responses: { 200: { description: "The queued task", headers: TASK_ID_HEADER } },
        },
      },
    )
    .get(
      "/v1/audio/generations/:id",
      async ({ principal, params, request }) => {
        const task = await ownTask(ctx, principal, params.id, "audio");
        return audioTask(ctx, task, linkBase(ctx.config, request));
      },
      {
        auth: { mode: "ordinary" },
        limit: { model: true },
        params: t.Object({ id: t.String({ maxLength: 200 }) }),
        response: { 200: AudioTask, ...READ_ERRORS },
        detail: { tags: ["audio"], summary: "One of your audio tasks, in any state (free)" },
      },
    );
}
