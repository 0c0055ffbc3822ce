import { readFileSync } from "node:fs";
import { join } from "node:path";

const read = (name: string) => readFileSync(join(import.meta.dir, name), "utf8");

/**
 * The TEST-ONLY CA that signed the stub's certificate (names: localhost,
 * stub.safe-fetch.test, 127.0.0.1, ::1). Its key was thrown away; trust it in tests only.
 */
export const TEST_CA_PEM = read("test-only-ca.pem");
export const TEST_CA_FILE = join(import.meta.dir, "test-only-ca.pem");
/** A name on the stub's certificate that no real DNS answers: tests resolve it themselves. */
export const STUB_NAME = "stub.safe-fetch.test";

/** Answers one path; called for every request, so each answer is a fresh Response. */
export type StubRoute = (request: Request) => Response | Promise<Response>;

export interface StubRequest {
  method: string;
  path: string;
  headers: Headers;
}

export interface HttpsStub {
  /** "https://127.0.0.1:<port>" */
  origin: string;
  /** "127.0.0.1:<port>", the entry to put in UrlPolicy.allowHosts. */
  host: string;
  port: number;
  /** The CA to pass as caCerts: [caPem]. */
  caPem: string;
  /** origin + path, e.g. url("/cat.png"). */
  url(path?: string): string;
  /** Every request received, in order. */
  requests: StubRequest[];
  stop(): Promise<void>;
}

/**
 * Starts an HTTPS server on 127.0.0.1 (a free port) answering each exact path from
 * `routes` and 404 otherwise.
 */
export function startHttpsStub(routes: Record<string, StubRoute>): HttpsStub {
  const requests: StubRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: read("test-only-server.pem"), key: read("test-only-server.key") },
    fetch(request) {
      const path = new URL(request.url).pathname;
      requests.push({ method: request.method, path, headers: request.headers });
      const route = routes[path];
      if (route === undefined) return new Response("not found", { status: 404 });
      return route(request);
    },
  });
  const port = server.port!;
  const origin = `https://127.0.0.1:${port}`;
  return {
    origin,
    host: `127.0.0.1:${port}`,
    port,
    caPem: TEST_CA_PEM,
    url: (path = "/") => `${origin}${path.startsWith("/") ? path : `/${path}`}`,
    requests,
    stop: () => server.stop(true),
  };
}
