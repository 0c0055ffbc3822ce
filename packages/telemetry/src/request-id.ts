import { randomUUID } from "node:crypto";

/** What a client's `x-request-id` may be to be kept: short, printable, no separators. */
const WELL_FORMED = /^[A-Za-z0-9._:@/+=-]{8,128}$/;

/**
 * The request's id: the client's `x-request-id` when it is well-formed (so a caller can
 * follow its own id through our logs), a fresh UUID otherwise.
 */
export function requestIdFrom(header: string | null | undefined): string {
  return header && WELL_FORMED.test(header) ? header : randomUUID();
}
