import type { SoakKey } from "./accounts.ts";
import { type CallPlan, isText, SOURCE_PNG } from "./load-mix.ts";

/** How a streamed answer ended, as the client saw it. */
export type StreamEnd = "complete" | "error_event" | "broken" | "aborted";

/** One HTTP attempt of a call. */
export interface Attempt {
  /** The x-request-id sent: text charges and task rows carry it. */
  requestId: string;
  api: number;
  /** The api process's incarnation when the attempt began. */
  incarnation: number;
  startedAt: number;
  endedAt: number;
  /** null: no answer (connection failed, or the client went away before the headers). */
  status: number | null;
  code: string | null;
  /** The error body's message, shortened (for the report's examples). */
  message: string | null;
  taskId: string | null;
  /** Images answered 200: the billed quota in the body. */
  billedQuota: bigint | null;
  error: string | null;
  /** The client went away on purpose. */
  aborted: boolean;
  stream: StreamEnd | null;
}

export interface CallRecord {
  plan: CallPlan;
  userId: string;
  attempts: Attempt[];
}

/** The api processes as the client sees them. */
export interface ApiTarget {
  url: string;
  up(): boolean;
  incarnation(): number;
}

export interface ClientOptions {
  apis: ApiTarget[];
  keys: SoakKey[];
  seed: number;
  /** How long the client waits for an image answer (the gateway answers 504 before). */
  imageWaitMs: number;
}

const MAX_ATTEMPTS = 4;
const OTHER_WAIT_MS = 30_000;

/** Where a stream says how it finished, per format; an error event says it failed. */
const STREAM_DONE = [
  "data: [DONE]",
  "event: message_stop",
  "response.completed",
  "response.incomplete",
  '"finishReason"',
];
const STREAM_ERROR = [/^event: error/m, /^data: \{"error"/m];

function connectionRefused(error: unknown): boolean {
  const text = `${(error as { code?: string }).code ?? ""} ${(error as Error).message ?? ""}`;
  return /ConnectionRefused|ECONNREFUSED|Unable to connect/i.test(text);
}

/** An up api, starting from the preferred one; waits while both are down. */
async function pickApi(apis: ApiTarget[], preferred: number): Promise<number> {
  for (let waited = 0; waited < 120_000; waited += 100) {
    for (let step = 0; step < apis.length; step++) {
      const index = (preferred + step) % apis.length;
      if (apis[index]!.up()) return index;
    }
    await Bun.sleep(100);
  }
  throw new Error("no api process came up for two minutes");
}

function bodyOf(plan: CallPlan): { body: string | FormData; type: string | null } {
  if (plan.form) {
    const form = new FormData();
    for (const [name, value] of Object.entries(plan.form)) form.append(name, value);
    form.append("image", new Blob([SOURCE_PNG], { type: "image/png" }), "source.png");
    return { body: form, type: null };
  }
  return { body: JSON.stringify(plan.json), type: "application/json" };
}

async function readStream(
  answer: Response,
  plan: CallPlan,
  abort: AbortController,
): Promise<StreamEnd> {
  const reader = answer.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (plan.disconnect && "afterFirstChunk" in plan.disconnect) {
        abort.abort();
        return "aborted";
      }
    }
  } catch {
    return abort.signal.aborted ? "aborted" : "broken";
  }
  if (STREAM_ERROR.some((pattern) => pattern.test(text))) return "error_event";
  return STREAM_DONE.some((marker) => text.includes(marker)) ? "complete" : "broken";
}

async function readJson(answer: Response, attempt: Attempt): Promise<void> {
  const body = (await answer.json().catch(() => null)) as Record<string, unknown> | null;
  const error = body?.error as { code?: string; message?: string } | undefined;
  attempt.code = typeof error?.code === "string" ? error.code : null;
  attempt.message = typeof error?.message === "string" ? error.message.slice(0, 200) : null;
  const billing = (body?.billing ?? (body?.metadata as { billing?: unknown })?.billing) as
    | { quota?: number }
    | undefined;
  if (answer.status === 200 && typeof billing?.quota === "number")
    attempt.billedQuota = BigInt(billing.quota);
}

/** One HTTP attempt: sends, reads the whole answer (or goes away as planned), records it. */
async function attemptOnce(
  options: ClientOptions,
  plan: CallPlan,
  api: number,
  number: number,
): Promise<Attempt> {
  const key = options.keys[plan.keyIndex]!;
  const target = options.apis[api]!;
  const attempt: Attempt = {
    requestId: `soak-${options.seed}-${plan.index}-${number}`,
    api,
    incarnation: target.incarnation(),
    startedAt: Date.now(),
    endedAt: 0,
    status: null,
    code: null,
    message: null,
    taskId: null,
    billedQuota: null,
    error: null,
    aborted: false,
    stream: null,
  };
  const abort = new AbortController();
  const { body, type } = bodyOf(plan);
  const headers: Record<string, string> = {
    authorization: `Bearer ${key.secret}`,
    "x-request-id": attempt.requestId,
  };
  if (type) headers["content-type"] = type;
  if (plan.idempotencyKey) headers["idempotency-key"] = plan.idempotencyKey;
  const waitMs = plan.kind.startsWith("image") ? options.imageWaitMs : OTHER_WAIT_MS;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, waitMs);
  const planned =
    plan.disconnect && "afterMs" in plan.disconnect
      ? setTimeout(() => {
          attempt.aborted = true;
          abort.abort();
        }, plan.disconnect.afterMs)
      : undefined;
  try {
    const answer = await fetch(`${target.url}${plan.path}`, {
      method: "POST",
      headers,
      body,
      signal: abort.signal,
    });
    attempt.status = answer.status;
    attempt.taskId = answer.headers.get("x-task-id");
    const sse = (answer.headers.get("content-type") ?? "").includes("event-stream");
    if (sse && answer.status === 200) {
      attempt.stream = await readStream(answer, plan, abort);
      if (attempt.stream === "aborted") attempt.aborted = true;
    } else await readJson(answer, attempt);
  } catch (error) {
    attempt.error = connectionRefused(error)
      ? "refused"
      : timedOut
        ? "timed out"
        : (error as Error).message.slice(0, 120);
  } finally {
    clearTimeout(timer);
    clearTimeout(planned);
    attempt.endedAt = Date.now();
  }
  return attempt;
}

/** Whether to send again: only what a careful client would (see README, images). */
function retryable(plan: CallPlan, attempt: Attempt): boolean {
  if (attempt.aborted) return false;
  if (attempt.status === null) {
    // Nothing reached the api: always safe. Otherwise only with the same Idempotency-Key,
    // or for text, where a new call is a new request (the broken one costs at most once).
    if (attempt.error === "refused") return true;
    return plan.idempotencyKey !== null || isText(plan.kind);
  }
  if (attempt.status === 429) return true;
  // The gateway's 500 says "the request may be retried"; a client takes it at its word.
  if (attempt.status === 500 && attempt.code === "internal_error") return true;
  return attempt.status === 503 && attempt.code !== "endpoint_closed";
}

/** Runs one planned call: up to MAX_ATTEMPTS attempts, moving to the other api on failure. */
export async function runCall(options: ClientOptions, plan: CallPlan): Promise<CallRecord> {
  const record: CallRecord = {
    plan,
    userId: options.keys[plan.keyIndex]!.userId,
    attempts: [],
  };
  let preferred = plan.api;
  for (let number = 0; number < MAX_ATTEMPTS; number++) {
    const api = await pickApi(options.apis, preferred);
    const attempt = await attemptOnce(options, plan, api, number);
    record.attempts.push(attempt);
    if (!retryable(plan, attempt)) break;
    preferred = api + 1;
    await Bun.sleep(attempt.status === null ? 100 : 300 + 200 * number);
  }
  return record;
}
