import type { Principal } from "@gw/accounts";
import { ErrorBody, Video, VideoCallBody, VideoCallForm, VideoGeneration } from "@gw/schemas";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { fileBytes, IDEMPOTENCY_KEY_HEADER, TASK_ID_HEADER } from "../docs.ts";
import { linkBase } from "../images/present.ts";
import { idempotencyKeyOf } from "../paid-call.ts";
import { ownTask } from "../task-view.ts";
import { expiresAt, videoGeneration, videoObject } from "./present.ts";
import { parseRange } from "./range.ts";
import { submitVideoTask } from "./submit.ts";

/** The two create paths: OpenAI's, and the alias older video clients call. */
export const VIDEO_CREATE_PATHS = ["/v1/videos", "/v1/video/generations"] as const;

const ERRORS = {
  400: ErrorBody,
  401: ErrorBody,
  402: ErrorBody,
  403: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
  429: ErrorBody,
  503: ErrorBody,
};
const READ_ERRORS = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
/** The file's bytes, as the content route answers them. */
const VIDEO_FILE = { "video/mp4": fileBytes("The video, or the requested part of it.") };
const TaskParams = t.Object({ id: t.String({ maxLength: 200 }) });

/** One of the caller's videos; another account's answers exactly like a missing one. */
const ownVideo = (ctx: AppContext, principal: Principal, id: string) =>
  ownTask(ctx, principal, id, "video");

/**
 * Video (OpenAI's videos API, which clients know): create answers at once with the video
 * object; reads are free, owner-checked, and outside the model request limit (spec 8.4).
 */
export function videoRoutes(ctx: AppContext) {
  const { auth, rateLimit } = ctx;
  const app = new Elysia({ name: "gw/routes/video" }).use(auth).use(rateLimit);
  for (const path of VIDEO_CREATE_PATHS)
    app.post(
      path,
      async ({ principal, body, request, set }) => {
        const task = await submitVideoTask(ctx, principal, body, idempotencyKeyOf(request));
        set.headers["x-task-id"] = task.id;
        return videoObject(ctx, task);
      },
      {
        auth: { mode: "ordinary" },
        limit: { failClosed: true },
        body: t.Any(),
        response: { 200: Video, ...ERRORS },
        detail: {
          tags: ["video"],
          summary: "Start a video task; answers at once with the video object",
          parameters: [IDEMPOTENCY_KEY_HEADER],
          // The body plugin takes a small text-only form here too (VIDEO_BODY); body is
          // t.Any() because videoCall checks either form against VideoCallBody.
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: VideoCallBody as object },
              "multipart/form-data": { schema: VideoCallForm as object },
            },
          },
          responses: { 200: { description: "The queued video", headers: TASK_ID_HEADER } },
        },
      },
    );
  return app
    .get(
      "/v1/videos/:id",
      async ({ principal, params }) => videoObject(ctx, await ownVideo(ctx, principal, params.id)),
      {
        auth: { mode: "ordinary" },
        limit: { keyRpm: false },
        params: TaskParams,
        response: { 200: Video, ...READ_ERRORS },
        detail: { tags: ["video"], summary: "One of your videos, in any state (free)" },
      },
    )
    .get(
      "/v1/video/generations/:id",
      async ({ principal, params, request }) =>
        videoGeneration(
          ctx,
          await ownVideo(ctx, principal, params.id),
          linkBase(ctx.config, request),
        ),
      {
        auth: { mode: "ordinary" },
        limit: { keyRpm: false },
        params: TaskParams,
        response: { 200: VideoGeneration, ...READ_ERRORS },
        detail: {
          tags: ["video"],
          summary: "One of your videos as the generations envelope (free)",
        },
      },
    )
    .get(
      "/v1/videos/:id/content",
      async ({ principal, params, request }) => {
        const task = await ownVideo(ctx, principal, params.id);
        const file = task.status === "completed" ? task.result?.files[0] : undefined;
        if (!file)
          throw new ApiError(
            "not_found",
            `Video ${task.id} is ${task.status}; it has no content yet`,
          );
        const expires = expiresAt(ctx, task);
        const stored =
          expires !== null && expires > Date.now() / 1000 ? await ctx.storage.get(file.key) : null;
        if (!stored) throw new ApiError("not_found", `The content of video ${task.id} expired`);
        const size = stored.bytes.byteLength;
        const headers: Record<string, string> = {
          "content-type": file.content_type,
          "accept-ranges": "bytes",
          "cache-control": "private, no-store",
          "x-content-type-options": "nosniff",
        };
        const range = parseRange(request.headers.get("range"), size);
        if (range === "unsatisfiable")
          throw new ApiError(
            "range_not_satisfiable",
            `The range ${JSON.stringify((request.headers.get("range") ?? "").slice(0, 100))} lies outside the file's ${size} bytes`,
            { "content-range": `bytes */${size}` },
          );
        if (range === null)
          return new Response(stored.bytes, {
            headers: { ...headers, "content-length": String(size) },
          });
        return new Response(stored.bytes.subarray(range.start, range.end + 1), {
          status: 206,
          headers: {
            ...headers,
            "content-range": `bytes ${range.start}-${range.end}/${size}`,
            "content-length": String(range.end - range.start + 1),
          },
        });
      },
      {
        auth: { mode: "ordinary" },
        limit: { keyRpm: false },
        params: TaskParams,
        response: { ...READ_ERRORS },
        detail: {
          tags: ["video"],
          summary: "The video file (free); HTTP Range requests answer 206, or 416 out of range",
          parameters: [
            {
              name: "Range",
              in: "header",
              required: false,
              schema: t.String({ examples: ["bytes=0-1023"] }),
              description:
                "One byte range (`bytes=a-b`, `bytes=a-` or `bytes=-n`); anything else is answered with the whole file.",
            },
          ],
          // A raw Response: the file or a part of it; a range outside it is a 416 in the error shape.
          responses: {
            200: { description: "The whole file", content: VIDEO_FILE },
            206: {
              description: "The requested range",
              headers: {
                "Content-Range": {
                  description: "`bytes <start>-<end>/<size>`",
                  schema: t.String(),
                },
              },
              content: VIDEO_FILE,
            },
            416: {
              description: "The range lies outside the file (range_not_satisfiable)",
              headers: {
                "Content-Range": { description: "`bytes */<size>`", schema: t.String() },
              },
              content: { "application/json": { schema: ErrorBody } },
            },
          },
        },
      },
    );
}
