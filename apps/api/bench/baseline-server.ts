/**
 * The floor for the balance bench: a bare `Bun.serve` answering GET /v1/balance with a
 * constant body once an Authorization header is present. No framework, no database.
 * Prints one JSON line `{"url"}` once it serves.
 */
import { exitWithParent } from "@gw/benchkit";

const BODY = JSON.stringify({ balance: 10, total_spent: 0 });
const UNAUTHORIZED = JSON.stringify({
  error: { code: "invalid_api_key", message: "Invalid or missing API key" },
});

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    const { pathname } = new URL(request.url);
    if (request.method !== "GET" || pathname !== "/v1/balance") {
      return new Response("not found", { status: 404 });
    }
    if (!request.headers.get("authorization")) {
      return new Response(UNAUTHORIZED, {
        status: 401,
        headers: { "content-type": "application/json" },
      });
    }
    return new Response(BODY, { headers: { "content-type": "application/json" } });
  },
});

let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await server.stop(true);
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
exitWithParent(() => void shutdown());

console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}` }));
