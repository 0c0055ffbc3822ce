#!/usr/bin/env bun
/**
 * The container health probe (the oven/bun slim image has no curl):
 *
 *   bun apps/deploy/src/healthcheck.ts [URL]
 *
 * Exit 0 when URL answers 2xx in time, 1 otherwise: Docker's HEALTHCHECK contract. URL
 * defaults to $HEALTHCHECK_URL, else the api's liveness http://127.0.0.1:$PORT/healthz.
 * A failure prints one line, which Docker keeps in `docker inspect`'s health log.
 */

/** Shorter than the HEALTHCHECK timeout, so the probe reports why instead of being killed. */
export const PROBE_TIMEOUT_MS = 2_000;

export type ProbeResult = { ok: true } | { ok: false; reason: string };

export function defaultUrl(env: Record<string, string | undefined>): string {
  return env.HEALTHCHECK_URL || `http://127.0.0.1:${env.PORT || "3000"}/healthz`;
}

export async function probe(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    // The body is not needed; reading it frees the connection at once.
    await response.arrayBuffer();
    return response.ok ? { ok: true } : { ok: false, reason: `${url} answered ${response.status}` };
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    const code = (error as { code?: unknown }).code;
    const reason = timedOut
      ? `no answer within ${timeoutMs} ms`
      : typeof code === "string"
        ? code
        : (error as Error).message;
    return { ok: false, reason: `${url}: ${reason}` };
  }
}

if (import.meta.main) {
  const result = await probe(process.argv[2] ?? defaultUrl(process.env));
  if (!result.ok) console.error(`[healthcheck] ${result.reason}`);
  process.exit(result.ok ? 0 : 1);
}
