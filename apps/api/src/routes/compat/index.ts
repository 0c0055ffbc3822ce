import type { Principal } from "@gw/accounts";
import {
  ErrorBody,
  ImageCompatSeed,
  ImageCompatTask,
  ImageCompatTaskList,
  MusicFetch,
  MusicFetchList,
} from "@gw/schemas";
import { findOwnTasks } from "@gw/tasks";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { linkBase } from "../images/present.ts";
import { ownTask } from "../task-view.ts";
import { imageCompatTask, musicData, seedOf } from "./present.ts";

/** How many ids one list call may name (a clear 400 beyond). */
export const MAX_IDS = 100;

const IdsBody = t.Object(
  {
    ids: t.Array(t.String({ maxLength: 200 }), {
      maxItems: MAX_IDS,
      description: `Task ids, at most ${MAX_IDS}; tasks not yours or not found are left out.`,
    }),
    action: t.Optional(t.String({ maxLength: 64, description: "Accepted; does not filter." })),
  },
  { additionalProperties: false },
);
const READ = { auth: { mode: "ordinary" as const }, limit: { keyRpm: false } };
/**
 * The task id in the path, declared so an id the router cannot decode (`%ff`, a lone `%`)
 * is a 400 like on the other task routes, not a null that reaches the lookup.
 */
const IdParams = t.Object({ id: t.String({ maxLength: 200 }) });
const ModeIdParams = t.Object({ mode: t.String(), id: t.String({ maxLength: 200 }) });
/** Reading one task: another account's answers like a missing one (404); a bad id is a 400. */
const ONE_ERRORS = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
};
/** Listing: unknown ids are left out; a bad id list is a 400. */
const LIST_ERRORS = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
/** Under `/{mode}/` a mode that is not a short lower-case word is a 404 too. */
const MODE_LIST_ERRORS = { ...LIST_ERRORS, 404: ErrorBody };
/** `/{mode}/imgcompat` paths: a mode is a short lower-case word (fast, relax, turbo, …). */
const MODE = /^[a-z]{1,16}$/;

const own = (ctx: AppContext, principal: Principal, id: string, kind: "audio" | "image") =>
  ownTask(ctx, principal, id, kind);

function checkMode(mode: string | undefined) {
  if (mode !== undefined && !MODE.test(mode))
    throw new ApiError("not_found", `No endpoint for mode ${mode.slice(0, 32)}`);
}

/**
 * Spec 4.12: compatibility task readers for older clients. They read only the key owner's
 * tasks (another account's answers like a missing one), start nothing and charge nothing;
 * the ordinary key check applies, the model request limit does not.
 */
export function compatRoutes(ctx: AppContext) {
  const { auth, rateLimit, catalog } = ctx;
  const app = new Elysia({ name: "gw/routes/compat" }).use(auth).use(rateLimit);
  app
    .get(
      "/musiccompat/fetch/:id",
      async ({ principal, params, request }) => ({
        code: "success",
        message: "",
        data: musicData(
          ctx,
          await own(ctx, principal, params.id, "audio"),
          linkBase(ctx.config, request),
        ),
      }),
      {
        ...READ,
        params: IdParams,
        response: { 200: MusicFetch, ...ONE_ERRORS },
        detail: { tags: ["compat"], summary: "One music task (spec 2.16)" },
      },
    )
    .post(
      "/musiccompat/fetch",
      async ({ principal, body, request }) => {
        const tasks = await findOwnTasks(ctx.sql, body.ids, principal.userId, "audio");
        const base = linkBase(ctx.config, request);
        return {
          code: "success",
          message: "",
          data: tasks.map((task) => musicData(ctx, task, base)),
        };
      },
      {
        ...READ,
        body: IdsBody,
        response: { 200: MusicFetchList, ...LIST_ERRORS },
        detail: { tags: ["compat"], summary: "Music tasks by id; [] for no ids" },
      },
    );
  for (const prefix of ["/imgcompat", "/:mode/imgcompat"]) {
    const params = prefix === "/imgcompat" ? IdParams : ModeIdParams;
    app
      .get(
        `${prefix}/task/:id/fetch`,
        async ({ principal, params, request }) => {
          checkMode((params as { mode?: string } | undefined)?.mode);
          const task = await own(ctx, principal, params.id, "image");
          return imageCompatTask(ctx, task, linkBase(ctx.config, request));
        },
        {
          ...READ,
          params,
          response: { 200: ImageCompatTask, ...ONE_ERRORS },
          detail: { tags: ["compat"], summary: "One image task" },
        },
      )
      .post(
        `${prefix}/task/list-by-condition`,
        async ({ principal, params, body, request }) => {
          checkMode((params as { mode?: string } | undefined)?.mode);
          const tasks = await findOwnTasks(ctx.sql, body.ids, principal.userId, "image");
          const base = linkBase(ctx.config, request);
          return Promise.all(tasks.map((task) => imageCompatTask(ctx, task, base)));
        },
        {
          ...READ,
          body: IdsBody,
          response: {
            200: ImageCompatTaskList,
            ...(prefix === "/imgcompat" ? LIST_ERRORS : MODE_LIST_ERRORS),
          },
          detail: { tags: ["compat"], summary: "Image tasks by id; [] for no ids" },
        },
      )
      .get(
        `${prefix}/task/:id/image-seed`,
        async ({ principal, params }) => {
          checkMode((params as { mode?: string } | undefined)?.mode);
          const task = await own(ctx, principal, params.id, "image");
          const model = catalog.get(task.model);
          if (!model?.available)
            throw new ApiError(
              "model_unavailable",
              `The model of task ${task.id} (${task.model}) is no longer available, so its seed cannot be read`,
            );
          return {
            code: 1,
            description: "success",
            properties: { model: task.model, operation: task.operation },
            result: seedOf(task),
          };
        },
        {
          ...READ,
          params,
          // 400: the task's model is no longer available, or the id is not text.
          response: { 200: ImageCompatSeed, ...ONE_ERRORS },
          detail: { tags: ["compat"], summary: "The seed of an image task" },
        },
      );
  }
  return app;
}
