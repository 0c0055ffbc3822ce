// Proves that a request Bun cannot turn into a URL (HTTP/1.0 or HTTP/1.1 without a Host,
// or with an empty one) answers 400 in the error shape on any path, and that no answer
// of the server started as main.ts starts it carries a stack trace or a file path, in
// development mode too.
import { afterAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { createApp } from "./app.ts";
import { listenOptions } from "./server.ts";
import { startTestApi } from "./testing.ts";

const api = await startTestApi();
// A second app over the fixture's store, listening exactly as main.ts listens.
const built = await createApp({ config: api.config, sql: api.store.sql, redis: api.store.redis });
built.app.listen(listenOptions({ ...api.config, port: 0 }));
const port = built.app.server!.port!;
afterAll(async () => {
  built.closures.stop();
  built.waiter.stop();
  await built.app.stop(true);
});

/** Writes a raw request over TCP and returns everything the server answered. */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = "";
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    socket.setTimeout(5000, () => socket.destroy(new Error("no answer within 5 s")));
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(answer));
  });
}

test("a request without a usable Host is 400 in the error shape, without a stack", async () => {
  const requests = [
    "GET /v1/balance HTTP/1.0\r\n\r\n",
    "GET /v1/balance HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n",
    "GET /no/such/path HTTP/1.0\r\n\r\n",
    "POST /admin/users HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
  ];
  for (const request of requests) {
    const answer = await raw(request);
    expect(answer, request).toMatch(/^HTTP\/1\.[01] 400 /);
    const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.message).toContain("Host");
    expect(answer).not.toContain("/work/");
    expect(answer).not.toContain(" at ");
  }
  const ordinary = await raw("GET /v1/balance HTTP/1.0\r\nHost: localhost\r\n\r\n");
  expect(ordinary).toMatch(/^HTTP\/1\.[01] 401 /);
});

test("the server's last-resort error answer is the error shape, never Bun's debug page", async () => {
  const options = listenOptions(api.config);
  const answer = await options.error(new Error("boom at /work/main/secret.ts:1:1"));
  expect(answer.status).toBe(500);
  const text = await answer.text();
  expect(JSON.parse(text).error.code).toBe("internal_error");
  expect(text).not.toContain("/work/");
  expect(options.development).toBe(false);
});
