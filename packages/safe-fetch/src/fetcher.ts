import { lookup } from "node:dns/promises";
import { checkServerIdentity, rootCertificates } from "node:tls";
import { isPublicIp, normalizeIp, parseIp } from "@gw/auth";
import { createHostMatcher, createUrlCheck, type HostMatcher, type UrlPolicy } from "./policy.ts";

export interface FetchLimits {
  /** Largest body accepted, in bytes (after any content decoding). */
  maxBytes: number;
  /** Bound on the whole fetch: every hop's DNS, connection, headers and body. */
  timeoutMs: number;
  /** Redirects followed before giving up. */
  maxRedirects: number;
}

export const DEFAULT_FETCH_LIMITS: Readonly<FetchLimits> = {
  maxBytes: 20 * 1024 * 1024,
  timeoutMs: 30_000,
  maxRedirects: 3,
};

export type FetchFailureCode =
  | "blocked_url"
  | "too_large"
  | "timeout"
  | "http_error"
  | "network_error"
  | "too_many_redirects";

export type FetchResult =
  | { ok: true; bytes: Uint8Array; contentType: string | null; finalUrl: string }
  | { ok: false; code: FetchFailureCode; message: string };

export interface SafeFetcherOptions {
  policy: UrlPolicy;
  /** Extra trusted certificates (PEM), added to the built-in roots. */
  caCerts?: string[];
  limits?: Partial<FetchLimits>;
  /** Every address of a host name; tests inject one. Default: the system resolver. */
  resolve?: (host: string) => Promise<string[]>;
}

/** A request body to send instead of a GET (webhook deliveries). */
export interface Outgoing {
  method: "POST";
  headers: Record<string, string>;
  body: string;
}

export interface SafeFetcher {
  /**
   * Fetches a client's URL without ever reaching a private network. Expected failures
   * are results; aborting `signal` rejects with its reason, as fetch does.
   */
  fetch(url: string, signal?: AbortSignal): Promise<FetchResult>;
  /**
   * Sends a body to a client's URL under the same rules (public addresses only, checked
   * and pinned at sending time). Redirects are not followed: a 3xx is a failure.
   */
  send(url: string, outgoing: Outgoing, signal?: AbortSignal): Promise<FetchResult>;
}

export const USER_AGENT = "media-gateway-fetch/1";
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** A host may answer many addresses; all are checked, only the first few are dialled. */
const MAX_ADDRESSES_DIALLED = 3;
/** Errors that mean "this address did not answer", worth trying the host's next one. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "EAFNOSUPPORT",
  "ConnectionRefused",
  "FailedToOpenSocket",
]);

interface Context {
  limits: FetchLimits;
  check: (url: string) => string | null;
  allowed: HostMatcher;
  resolve: (host: string) => Promise<string[]>;
  ca: string[] | undefined;
}

/** An expected failure raised deep in I/O and turned into a result at the top. */
class FetchFailure extends Error {
  constructor(
    readonly code: FetchFailureCode,
    message: string,
  ) {
    super(message);
  }
}

type Failure = Extract<FetchResult, { ok: false }>;
type HopResult = FetchResult | { redirectTo: string };

function failure(code: FetchFailureCode, message: string): Failure {
  return { ok: false, code, message };
}

export function createSafeFetcher(options: SafeFetcherOptions): SafeFetcher {
  const context: Context = {
    limits: validLimits({ ...DEFAULT_FETCH_LIMITS, ...options.limits }),
    check: createUrlCheck(options.policy),
    allowed: createHostMatcher(options.policy),
    resolve: options.resolve ?? resolveAll,
    // A `ca` option replaces the trusted roots, so the built-in ones are passed along.
    ca: options.caCerts?.length ? [...rootCertificates, ...options.caCerts] : undefined,
  };
  return {
    fetch: (url, signal) => fetchSafely(context, url, signal),
    send: (url, outgoing, signal) => fetchSafely(context, url, signal, outgoing),
  };
}

function validLimits(limits: FetchLimits): FetchLimits {
  for (const [name, value] of Object.entries(limits)) {
    const least = name === "maxRedirects" ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < least) {
      throw new Error(`fetch limit ${name} must be an integer >= ${least}, got ${value}`);
    }
  }
  return limits;
}

async function resolveAll(host: string): Promise<string[]> {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

async function fetchSafely(
  context: Context,
  url: string,
  callerSignal: AbortSignal | undefined,
  outgoing?: Outgoing,
): Promise<FetchResult> {
  const deadline = AbortSignal.timeout(context.limits.timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline;
  try {
    if (outgoing) {
      const result = await fetchHop(context, url, signal, outgoing);
      return "redirectTo" in result
        ? failure("http_error", "the server redirected; deliveries do not follow redirects")
        : result;
    }
    return await followRedirects(context, url, signal);
  } catch (error) {
    if (callerSignal?.aborted) throw callerSignal.reason;
    if (deadline.aborted) {
      return failure("timeout", `the fetch took longer than ${context.limits.timeoutMs} ms`);
    }
    if (error instanceof FetchFailure) return failure(error.code, error.message);
    throw error;
  }
}

async function followRedirects(
  context: Context,
  url: string,
  signal: AbortSignal,
): Promise<FetchResult> {
  let current = url;
  for (let hop = 0; hop <= context.limits.maxRedirects; hop++) {
    const result = await fetchHop(context, current, signal);
    if (!("redirectTo" in result)) return result;
    current = result.redirectTo;
  }
  return failure(
    "too_many_redirects",
    `the URL redirects more than ${context.limits.maxRedirects} times`,
  );
}

/** One request, checked from scratch: URL, DNS answers, then the pinned connection. */
async function fetchHop(
  context: Context,
  text: string,
  signal: AbortSignal,
  outgoing?: Outgoing,
): Promise<HopResult> {
  const reason = context.check(text);
  if (reason !== null) return failure("blocked_url", `the URL is not allowed: ${reason}`);
  const url = new URL(text);
  const hostname = bareHostname(url);
  const addresses = await addressesOf(context, hostname, signal);
  if (!context.allowed(url) && !addresses.every(isPublicIp)) {
    return failure("blocked_url", `the host ${hostname} resolves to a private or reserved address`);
  }
  const response = await dial(context, url, addresses, signal, outgoing);
  return readResponse(context, url, response, signal);
}

/** The host without IPv6 brackets or a trailing dot, as DNS and TLS want it. */
function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
}

async function addressesOf(
  context: Context,
  hostname: string,
  signal: AbortSignal,
): Promise<string[]> {
  if (parseIp(hostname) !== null) return [hostname];
  let answers: string[];
  try {
    answers = await untilAborted(context.resolve(hostname), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw new FetchFailure("network_error", `could not resolve ${hostname}`);
  }
  const addresses = answers.map((answer) => normalizeIp(answer));
  if (addresses.length === 0 || addresses.some((address) => address === null)) {
    throw new FetchFailure("network_error", `${hostname} did not resolve to usable addresses`);
  }
  return addresses as string[];
}

/**
 * Connects to the checked addresses themselves, never to the name, so a second DNS
 * answer (rebinding) cannot redirect the connection. The name still goes out as SNI
 * and Host, and the certificate must be valid for it.
 */
async function dial(
  context: Context,
  url: URL,
  addresses: string[],
  signal: AbortSignal,
  outgoing?: Outgoing,
): Promise<Response> {
  const hostname = bareHostname(url);
  const candidates = addresses.slice(0, MAX_ADDRESSES_DIALLED);
  for (const [index, address] of candidates.entries()) {
    const target = new URL(url.href);
    target.hostname = address.includes(":") ? `[${address}]` : address;
    try {
      return await fetch(target, requestInit(context, url, hostname, signal, outgoing));
    } catch (error) {
      if (signal.aborted) throw error;
      const code = errorCode(error);
      const last = index === candidates.length - 1;
      if (last || !UNREACHABLE.has(code)) {
        throw new FetchFailure("network_error", `could not fetch from ${hostname}: ${code}`);
      }
    }
  }
  throw new Error("unreachable: dial tries at least one address");
}

function requestInit(
  context: Context,
  url: URL,
  hostname: string,
  signal: AbortSignal,
  outgoing?: Outgoing,
): BunFetchRequestInit {
  const literal = parseIp(hostname) !== null;
  return {
    method: outgoing?.method ?? "GET",
    // Only these headers (and a delivery's own): no cookies, no credentials of the gateway's.
    headers: {
      ...outgoing?.headers,
      host: url.host,
      "user-agent": USER_AGENT,
      accept: "*/*",
      "accept-encoding": "identity",
    },
    ...(outgoing ? { body: outgoing.body } : {}),
    redirect: "manual",
    signal,
    // A connection of its own per request: none is shared with another host name.
    keepalive: false,
    // A proxy would dial on our behalf; the checked address is dialled directly.
    proxy: false,
    // HTTP/1.1 whatever flags are set, so the Host header above is what the server sees.
    protocol: "http1.1",
    tls: {
      // SNI carries names only, never an IP literal (RFC 6066).
      ...(literal ? {} : { serverName: hostname }),
      ...(context.ca ? { ca: context.ca } : {}),
      // Explicit, so NODE_TLS_REJECT_UNAUTHORIZED=0 cannot switch verification off.
      rejectUnauthorized: true,
      // The URL we dial is an IP; the certificate must match the name the client gave.
      checkServerIdentity: (_dialled, cert) => checkServerIdentity(hostname, cert),
    },
  };
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code !== "" ? code : "connection failed";
}

async function readResponse(
  context: Context,
  url: URL,
  response: Response,
  signal: AbortSignal,
): Promise<HopResult> {
  const { maxBytes } = context.limits;
  if (REDIRECT_STATUSES.has(response.status)) {
    discard(response);
    return redirectTarget(url, response);
  }
  if (response.status < 200 || response.status > 299) {
    discard(response);
    return failure("http_error", `the server answered HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    discard(response);
    return failure("too_large", `the server declares ${declared} bytes, over ${maxBytes}`);
  }
  const bytes = await readLimited(response, maxBytes, signal);
  if (bytes === null) return failure("too_large", `the body is larger than ${maxBytes} bytes`);
  const contentType = response.headers.get("content-type");
  return { ok: true, bytes, contentType, finalUrl: url.href };
}

function redirectTarget(url: URL, response: Response): HopResult {
  const location = response.headers.get("location");
  if (location === null) {
    return failure("http_error", `the server answered HTTP ${response.status} without a Location`);
  }
  try {
    return { redirectTo: new URL(location, url).href };
  } catch {
    return failure("http_error", `the server redirected to an invalid Location`);
  }
}

/** Drops a body we will not read, so the connection closes instead of lingering. */
function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

/** The body, or null as soon as it grows past maxBytes (the rest is never read). */
async function readLimited(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Uint8Array | null> {
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await untilAborted(reader.read(), signal);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) return null;
      chunks.push(value);
    }
  } catch (error) {
    if (signal.aborted) throw error;
    throw new FetchFailure("network_error", "the connection broke while reading the body");
  } finally {
    reader.cancel().catch(() => {});
  }
  return concat(chunks, total);
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Settles like `promise`, or rejects with the signal's reason once it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
