import type { Principal } from "@gw/accounts";
import { ErrorBody, ImageEditForm, ImagesResult, ImageTask, MediaCallBody } from "@gw/schemas";
import { applyFinished, findTask, type TaskRow } from "@gw/tasks";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { noteRequest } from "../../observe/request-context.ts";
import { IDEMPOTENCY_KEY_HEADER, TASK_ID_HEADER } from "../docs.ts";
import { idempotencyKeyOf } from "../paid-call.ts";
import { ownTask } from "../task-view.ts";
import { checkCallBody, parseEditForm } from "./multipart.ts";
import { failureError, imagesResult, imageTask, linkBase } from "./present.ts";
import { type Submission, submitImageTask } from "./submit.ts";

const FAILURES = {
  400: ErrorBody,
  401: ErrorBody,
  402: ErrorBody,
  403: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
  429: ErrorBody,
  502: ErrorBody,
  503: ErrorBody,
  504: ErrorBody,
};

const finished = (task: TaskRow | null) =>
  task && (task.status === "completed" || task.status === "failed") ? task : null;

interface Server {
  timeout(request: Request, seconds: number): void;
}

/**
 * Submits the task and answers when it finished: a worker announces completion over
 * Redis, so nothing polls. A client that disconnects changes nothing: the task still
 * runs and is charged once, and the client finds it by its id.
 */
async function runToCompletion(
  ctx: AppContext,
  principal: Principal,
  submission: Submission,
  request: Request,
  server: Server | null,
  headers: Record<string, string | number>,
): Promise<ImagesResult> {
  // Clients wait up to 660 s (spec 8); Bun would close a quiet request after 10 s.
  server?.timeout(request, 0);
  const task = await submitImageTask(ctx, principal, submission);
  headers["x-task-id"] = task.id;
  // A task this request created is queued, so nothing is read before the worker
  // announces it; the announcement carries the outcome, so nothing is read after either
  // (a replayed Idempotency-Key task may have finished: that one is read first).
  const created = task.status === "queued" && task.attempts === 0;
  const now = finished(task);
  const done: { task: TaskRow; inline: string[] | null } | null = now
    ? { task: now, inline: null }
    : await ctx.waiter.wait(
        task.id,
        async () => {
          const read = finished(await findTask(ctx.sql, task.id));
          return read ? { task: read, inline: null } : null;
        },
        ctx.config.imageWaitMs,
        {
          readFirst: !created,
          fromAnnouncement: (outcome) => {
            const applied = finished(applyFinished(task, outcome));
            return applied ? { task: applied, inline: outcome.inline ?? null } : null;
          },
        },
      );
  if (!done)
    throw new ApiError(
      "task_pending",
      `Image task ${task.id} is still running; look it up with GET /v1/images/tasks/${task.id} instead of sending it again`,
      { "x-task-id": task.id },
    );
  if (done.task.started_at && done.task.finished_at)
    noteRequest({ upstreamMs: done.task.finished_at.getTime() - done.task.started_at.getTime() });
  if (done.task.status === "failed") throw failureError(done.task);
  return imagesResult(ctx, done.task, linkBase(ctx.config, request), done.inline);
}

/** Spec 4.1 and 4.2: image generation and editing, answered when the task is finished. */
export function imageRoutes(ctx: AppContext) {
  const { auth, rateLimit } = ctx;
  return new Elysia({ name: "gw/routes/images" })
    .use(auth)
    .use(rateLimit)
    .post(
      "/v1/images/generations",
      ({ principal, body, request, server, set }) =>
        runToCompletion(
          ctx,
          principal,
          { endpoint: "generations", body, uploads: [], idempotencyKey: idempotencyKeyOf(request) },
          request,
          server,
          set.headers as Record<string, string>,
        ),
      {
        auth: { mode: "ordinary" },
        limit: { failClosed: true },
        body: MediaCallBody,
        response: { 200: ImagesResult, ...FAILURES },
        detail: {
          tags: ["images"],
          summary: "Generate images; answers when the task is finished (wait up to 660 s)",
          parameters: [IDEMPOTENCY_KEY_HEADER],
          responses: {
            200: { description: "The finished task's images", headers: TASK_ID_HEADER },
          },
        },
      },
    )
    .post(
      "/v1/images/edits",
      async ({ principal, body, request, server, set }) => {
        // The body plugin took only JSON or a bounded form here (EDIT_BODY), 415 otherwise.
        const parsed: Pick<Submission, "body" | "uploads"> =
          body instanceof FormData
            ? await parseEditForm(body)
            : { body: checkCallBody(body), uploads: [] };
        return runToCompletion(
          ctx,
          principal,
          { endpoint: "edits", ...parsed, idempotencyKey: idempotencyKeyOf(request) },
          request,
          server,
          set.headers as Record<string, string>,
        );
      },
      {
        auth: { mode: "ordinary" },
        limit: { failClosed: true },
        body: t.Any(),
        response: { 200: ImagesResult, ...FAILURES },
        detail: {
          tags: ["images"],
          summary: "Edit images (JSON with image URLs, or multipart with files)",
          parameters: [IDEMPOTENCY_KEY_HEADER],
          // The body plugin takes this route's form too (EDIT_BODY); body is t.Any() because
          // each form is checked by its own schema in the handler.
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: MediaCallBody as object },
              "multipart/form-data": { schema: ImageEditForm as object },
            },
          },
          responses: {
            200: { description: "The finished task's images", headers: TASK_ID_HEADER },
          },
        },
      },
    )
    .get(
      "/v1/images/tasks/:task_id",
      async ({ principal, params, request }) => {
        const task = await ownTask(ctx, principal, params.task_id, "image");
        return imageTask(ctx, task, linkBase(ctx.config, request));
      },
      {
        auth: { mode: "ordinary" },
        limit: { keyRpm: false },
        params: t.Object({ task_id: t.String({ maxLength: 200 }) }),
        response: {
          200: ImageTask,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          429: ErrorBody,
        },
        detail: {
          tags: ["images"],
          summary: "An image task of yours, in any state; free, never starts a task",
        },
      },
    );
}
