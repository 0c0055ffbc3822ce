import { AsyncLocalStorage } from "node:async_hooks";

/** What the gateway learns about one request as it goes, for its access line and metrics. */
export interface RequestInfo {
  /** The x-request-id it answers with. */
  id: string;
  /** performance.now() at arrival. */
  start: number;
  /** The route pattern it matched (`/v1/images/tasks/:id`), once routed. */
  route?: string;
  /** The catalog model it named. */
  model?: string;
  /** The id (never the secret) of the key that made it. */
  keyId?: string;
  /** Time its task spent in the worker (upstream call included), for the overhead metric. */
  upstreamMs?: number;
  /** The rate-limit group that refused it. */
  limitedBy?: string;
  /** An unexpected failure, for the error line. */
  error?: unknown;
}

const current = new AsyncLocalStorage<RequestInfo>();

/** Runs the handling of one request with its info reachable from anywhere below. */
export function withRequest<T>(info: RequestInfo, handle: () => T): T {
  return current.run(info, handle);
}

/** The request being handled, when called while handling one. */
export function currentRequest(): RequestInfo | undefined {
  return current.getStore();
}

/** Notes a field of the request being handled (nothing outside a request). */
export function noteRequest(fields: Partial<Omit<RequestInfo, "id" | "start">>): void {
  const info = current.getStore();
  if (info) Object.assign(info, fields);
}
