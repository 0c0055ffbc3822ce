import type { FuzzCase } from "./cases.ts";
import type { Outcome } from "./send.ts";
import { foreignIds, ownerOf, type World } from "./world.ts";

export interface Violation {
  /** `5xx`, `hang`, `shape`, `accepted`, `leak`, `state`, ... */
  kind: string;
  detail: string;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Answers whose body the HTTP client drops: HEAD by definition, TRACE as Bun's fetch does. */
const BODYLESS = new Set(["HEAD", "TRACE"]);

/** Whether the body is exactly `{error: {message, type, code}}`, every one a non-empty string. */
export function errorShapeProblem(outcome: Outcome): string | null {
  if (!outcome.contentType?.includes("application/json"))
    return `Content-Type is ${JSON.stringify(outcome.contentType)}, not application/json`;
  let body: unknown;
  try {
    body = JSON.parse(outcome.body);
  } catch {
    return `the body is not JSON: ${JSON.stringify(outcome.body.slice(0, 120))}`;
  }
  const top = body as { error?: Record<string, unknown> } | null;
  if (top === null || typeof top !== "object" || Array.isArray(top))
    return "the body is not an object";
  const keys = Object.keys(top);
  if (keys.length !== 1 || keys[0] !== "error") return `top-level keys are ${keys.join(",")}`;
  const error = top.error;
  if (error === null || typeof error !== "object") return "error is not an object";
  const fields = Object.keys(error).sort().join(",");
  if (fields !== "code,message,type") return `error has fields ${fields}`;
  for (const name of ["message", "type", "code"])
    if (typeof error[name] !== "string" || error[name] === "")
      return `error.${name} is not a non-empty string`;
  return null;
}

function requestText(fuzzCase: FuzzCase): string {
  const body = fuzzCase.request.body;
  const text =
    body instanceof Uint8Array ? new TextDecoder().decode(body.subarray(0, 1 << 20)) : "";
  return `${decodeURIComponentSafe(fuzzCase.request.target)} ${text}`;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The answer alone: status class, timeliness, error shape, refusals and leaks. */
export function checkAnswer(world: World, fuzzCase: FuzzCase, outcome: Outcome): Violation[] {
  const found: Violation[] = [];
  const { status } = outcome;
  if (status === null) {
    found.push({ kind: "no-answer", detail: outcome.error ?? "no answer" });
    return found;
  }
  if (status >= 500) {
    const code = /"code":"([a-z_]+)"/.exec(outcome.body)?.[1] ?? "?";
    found.push({ kind: "5xx", detail: `${status} ${code}: ${outcome.body.slice(0, 300)}` });
  } else if (status < 200 || (status >= 300 && status < 400))
    found.push({ kind: "status", detail: `unexpected status ${status}` });
  if (status >= 400 && !BODYLESS.has(fuzzCase.request.method)) {
    const problem = errorShapeProblem(outcome);
    if (problem)
      found.push({
        kind: "shape",
        detail: `${status}: ${problem}; body ${JSON.stringify(outcome.body.slice(0, 200))}`,
      });
  }
  if (status >= 200 && status < 300) {
    // Spec 4.8: a single-model GET answers an unknown id with 200 and the error object;
    // that is a refusal in a success status, not an acceptance.
    const refusedIn200 = errorShapeProblem(outcome) === null;
    // A CORS preflight is answered before credentials or bodies are looked at, by design.
    const preflight = fuzzCase.request.method === "OPTIONS";
    if (fuzzCase.mustRefuse && !refusedIn200 && !preflight)
      found.push({ kind: "accepted", detail: `${status} although ${fuzzCase.mustRefuse}` });
    if (
      outcome.contentType?.includes("application/json") &&
      !BODYLESS.has(fuzzCase.request.method)
    ) {
      try {
        JSON.parse(outcome.body);
      } catch {
        found.push({
          kind: "shape",
          detail: `${status} with a JSON Content-Type but a body that does not parse`,
        });
      }
    }
  }
  const owner = ownerOf(fuzzCase.role);
  if (owner !== null) {
    const sent = requestText(fuzzCase);
    const leaked = foreignIds(world, owner).filter(
      (id) => outcome.body.includes(id) && !sent.includes(id),
    );
    if (leaked.length > 0)
      found.push({
        kind: "leak",
        detail: `${status} shows another account's ${leaked.join(", ")}`,
      });
  }
  return found;
}

/**
 * What a refusal that names a task (`x-task-id`) may change: the task was made, ran and
 * failed (a source it could not fetch, a moderation refusal), its hold made and voided,
 * and a webhook told. Money and history stay as they were.
 */
const FAILED_TASK_MAY_CHANGE = new Set(["tasks", "taskStates", "holds", "webhookDeliveries"]);

/**
 * The state around the answer: a refused call (4xx) and a safe method (GET, HEAD,
 * OPTIONS) must leave money, tasks and history exactly as they were.
 */
export function checkState(fuzzCase: FuzzCase, outcome: Outcome, changes: string[]): Violation[] {
  if (changes.length === 0 || outcome.status === null) return [];
  const refused = outcome.status >= 400 && outcome.status < 500;
  const safe = SAFE_METHODS.has(fuzzCase.request.method);
  if (!refused && !safe) return [];
  const failedTask = refused && !safe && outcome.headers?.get("x-task-id");
  const counted = failedTask
    ? changes.filter((change) => !FAILED_TASK_MAY_CHANGE.has(change.split(":")[0]!))
    : changes;
  if (counted.length === 0) return [];
  const what = failedTask
    ? `refused call naming task ${failedTask}`
    : refused
      ? "refused call"
      : "safe call";
  return [
    {
      kind: "state",
      detail: `${what} (${outcome.status}) changed ${counted.join("; ")}; answer ${outcome.body.slice(0, 300)}`,
    },
  ];
}
