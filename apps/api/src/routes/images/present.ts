import type { ErrorCode, ImageData, ImagesResult, ImageTask } from "@gw/schemas";
import { signLink } from "@gw/storage";
import type { TaskFile, TaskRow } from "@gw/tasks";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { PROGRESS, unixSeconds } from "../task-view.ts";

/**
 * Where result links point: PUBLIC_BASE_URL; else the origin the client called, but only
 * when its host is one the operator listed in PUBLIC_HOSTS; else the api's own port on
 * localhost. A Host header alone never chooses where links point, so a request with
 * `Host: evil.example` cannot make the gateway hand out links to another site.
 */
export function linkBase(
  config: Pick<AppContext["config"], "publicBaseUrl" | "publicHosts" | "port">,
  request: Request,
): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const url = new URL(request.url);
  const listed = config.publicHosts;
  if (listed.includes(url.host.toLowerCase()) || listed.includes(url.hostname.toLowerCase()))
    return url.origin;
  return `http://localhost:${config.port}`;
}

async function present(
  ctx: AppContext,
  task: TaskRow,
  file: TaskFile,
  base: string,
  inline: string | undefined,
): Promise<ImageData> {
  const mask = file.index === undefined ? {} : { index: file.index, name: file.name ?? "" };
  if (task.response_format === "b64_json" && inline !== undefined)
    return { b64_json: inline, content_type: file.content_type, ...mask };
  if (task.response_format === "b64_json") {
    const stored = await ctx.storage.get(file.key);
    if (!stored) throw new ApiError("not_found", `The result files of task ${task.id} expired`);
    return {
      b64_json: Buffer.from(stored.bytes).toString("base64"),
      content_type: file.content_type,
      ...mask,
    };
  }
  // Links expire a link lifetime after completion, never later, whenever they are shown.
  const expires = unixSeconds(task.finished_at!) + ctx.config.linkTtlSeconds;
  return {
    url: `${base}${signLink(ctx.config.linkSecret, file.key, expires)}`,
    content_type: file.content_type,
    ...mask,
  };
}

async function resultData(
  ctx: AppContext,
  task: TaskRow,
  base: string,
  inline: string[] | null = null,
): Promise<ImageData[]> {
  const files = task.result?.files ?? [];
  return Promise.all(files.map((file, index) => present(ctx, task, file, base, inline?.[index])));
}

/** The billing object stored at settlement (spec 2.4), typed as the schema says. */
const billingOf = (task: TaskRow) => task.billing as unknown as ImagesResult["billing"];

/** The finished task as both image endpoints answer it. */
export async function imagesResult(
  ctx: AppContext,
  task: TaskRow,
  base: string,
  /** The files as base64 when the worker's announcement carried them. */
  inline: string[] | null = null,
): Promise<ImagesResult> {
  return {
    id: task.id,
    task_id: task.id,
    object: "image.result",
    created: unixSeconds(task.finished_at!),
    model: task.model,
    operation: task.operation,
    data: await resultData(ctx, task, base, inline),
    billing: billingOf(task),
  };
}

/** How a failed task's code reaches the client (spec 7.3: funds were released). */
const FAILURES: Record<string, ErrorCode> = {
  moderation: "content_policy_violation",
  invalid_request: "invalid_request",
  source_unavailable: "source_image_unavailable",
  source_invalid: "source_image_invalid",
  upstream_timeout: "upstream_timeout",
  upstream_unavailable: "upstream_unavailable",
  rate_limited: "upstream_unavailable",
  expired: "task_expired",
  insufficient_funds: "insufficient_funds",
  key_budget_exceeded: "key_budget_exceeded",
};

export function failureError(
  task: TaskRow,
  what = "Image task",
  money = "Nothing was charged.",
): ApiError {
  const code = FAILURES[task.fail_code ?? ""] ?? "upstream_error";
  return new ApiError(
    code,
    `${what} ${task.id} failed: ${task.fail_reason ?? "unknown reason"}. ${money}`,
    { "x-task-id": task.id },
  );
}

/** GET /v1/images/tasks/{task_id}: the task in any state. */
export async function imageTask(ctx: AppContext, task: TaskRow, base: string): Promise<ImageTask> {
  const view: ImageTask = {
    id: task.id,
    task_id: task.id,
    object: "image.task",
    status: task.status,
    progress: PROGRESS[task.status],
    model: task.model,
    operation: task.operation,
    created_at: unixSeconds(task.created_at),
    finished_at: task.finished_at ? unixSeconds(task.finished_at) : null,
  };
  if (task.status === "completed") {
    view.data = await resultData(ctx, task, base).catch(() => []);
    view.billing = billingOf(task);
  }
  if (task.status === "failed") {
    const error = failureError(task);
    view.failReason = task.fail_reason ?? "";
    view.error = { code: error.code, message: error.message };
  }
  return view;
}
