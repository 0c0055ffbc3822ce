// Proves the one body mechanism over the real api: credentials are checked before a body
// is read or validated, media types are matched by RFC 9110 and refused (415) before
// parsing, deep JSON is a quick 400, chunked bodies of every type stop at their route's
// limit while reading (413) without the process holding them, an empty multipart edit
// is a 400, and no refused request creates a user, task or hold.
import { describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, startTestApi } from "../../testing.ts";

// biome-ignore lint/suspicious/noExplicitAny: error bodies are checked field by field
type Body = any;

const api = await startTestApi();
const { secret } = await api.account({ balanceUsd: 5 });
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const withKey = { authorization: `Bearer ${secret}` };
const MB = 1024 * 1024;

async function counts() {
  const [row] = await api.store.sql<{ users: string; tasks: string; holds: string }[]>`
    select (select count(*) from users) as users, (select count(*) from tasks) as tasks,
           (select count(*) from holds) as holds`;
  return row;
}

async function post(path: string, headers: Record<string, string>, body: string | null) {
  const response = await fetch(`${api.url}${path}`, { method: "POST", headers, body });
  return { status: response.status, body: (await response.json()) as Body };
}

/** A chunked body of `totalBytes`: `head`, then `fill` repeated, produced as it is read. */
function chunked(totalBytes: number, fill: string, head = "", tail = ""): ReadableStream {
  const piece = new TextEncoder().encode(fill.repeat(Math.ceil((64 * 1024) / fill.length)));
  let sent = 0;
  let stage = 0;
  return new ReadableStream({
    pull(controller) {
      if (stage === 0) {
        stage = 1;
        controller.enqueue(new TextEncoder().encode(head));
      } else if (sent < totalBytes) {
        sent += piece.byteLength;
        controller.enqueue(piece);
      } else {
        controller.enqueue(new TextEncoder().encode(tail));
        controller.close();
      }
    },
  });
}

/** Sends a chunked body and returns the answer, or the status the server cut it with. */
async function postChunked(path: string, headers: Record<string, string>, body: ReadableStream) {
  try {
    const response = await fetch(`${api.url}${path}`, {
      method: "POST",
      headers,
      body,
      duplex: "half",
    });
    return { status: response.status, body: (await response.json()) as Body };
  } catch (error) {
    return { status: 0, body: { error: { code: String(error) } } };
  }
}

function rssMb(): number {
  Bun.gc(true);
  return process.memoryUsage().rss / MB;
}

describe("authentication before the body", () => {
  test("an admin call with a bad body and no token is 401, not a schema error", async () => {
    const before = await counts();
    const bad = await post("/admin/users", { "content-type": "application/json" }, '{"name":5}');
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe("invalid_admin_token");
    expect(JSON.stringify(bad.body)).not.toContain("name");
    const unparsable = await post("/admin/users", { "content-type": "application/json" }, "{");
    expect(unparsable.status).toBe(401);
    const wrong = await post(
      "/admin/users",
      { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}x` },
      '{"name":5}',
    );
    expect(wrong.status).toBe(401);
    expect(await counts()).toEqual(before);
  });

  test("a paid call with a bad body and no key is 401", async () => {
    const before = await counts();
    for (const path of ["/v1/images/generations", "/v1/images/edits", "/v1/media/quote"]) {
      const bad = await post(path, { "content-type": "application/json" }, '{"model":5}');
      expect(bad.status).toBe(401);
      expect(bad.body.error.code).toBe("invalid_api_key");
    }
    expect(await counts()).toEqual(before);
  });

  test("an admin read with bad params and no token is 401", async () => {
    const response = await fetch(`${api.url}/admin/users/not-a-number`);
    expect(response.status).toBe(401);
  });
});

describe("media types", () => {
  const json = '{"name":"media type test"}';
  test("types a route does not document are 415 before parsing, naming the problem", async () => {
    const before = await counts();
    const refused: Array<[string, string]> = [
      ["application/jsonx", "application/jsonx"],
      ["application/json; charset=utf-16", "utf-16"],
      ["text/plain", "text/plain"],
      ["application/x-www-form-urlencoded", "application/x-www-form-urlencoded"],
      ["multipart/form-data; boundary=x", "multipart/form-data"],
      ["application/octet-stream", "application/octet-stream"],
      ["json", "json"],
    ];
    for (const [type, named] of refused) {
      const answer = await post("/admin/users", { ...admin, "content-type": type }, json);
      expect(answer.status, type).toBe(415);
      expect(answer.body.error.code).toBe("unsupported_media_type");
      expect(answer.body.error.message).toContain(named);
      expect(answer.body.error.message).toContain("application/json");
    }
    for (const path of ["/v1/images/generations", "/v1/media/quote"]) {
      for (const type of ["multipart/form-data; boundary=x", "application/x-www-form-urlencoded"]) {
        const answer = await post(path, { ...withKey, "content-type": type }, "model=x");
        expect(answer.status, `${path} ${type}`).toBe(415);
      }
    }
    const none = await post("/admin/users", admin, json);
    expect(none.status).toBe(415);
    expect(await counts()).toEqual(before);
  });

  test("media types match case-insensitively with parameters parsed", async () => {
    for (const type of [
      "APPLICATION/JSON",
      'Application/Json ; Charset="UTF-8"',
      "application/json;charset=utf-8",
    ]) {
      const answer = await post("/admin/users", { ...admin, "content-type": type }, json);
      expect(answer.status, type).toBe(201);
    }
  });

  test("the edit route takes exactly JSON and multipart", async () => {
    const answer = await post(
      "/v1/images/edits",
      { ...withKey, "content-type": "text/plain" },
      "hello",
    );
    expect(answer.status).toBe(415);
    expect(answer.body.error.message).toContain("multipart/form-data");
  });
});

describe("nesting depth", () => {
  test("100k-deep JSON is a quick 400 with or without a token, and the api stays up", async () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const started = performance.now();
    const anonymous = await post("/admin/users", { "content-type": "application/json" }, deep);
    expect(anonymous.status).toBe(401);
    const refused = await post(
      "/admin/users",
      { ...admin, "content-type": "application/json" },
      deep,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("64");
    const paid = await post(
      "/v1/media/quote",
      { ...withKey, "content-type": "application/json" },
      `{"model":${deep}}`,
    );
    expect(paid.status).toBe(400);
    expect(performance.now() - started).toBeLessThan(2000);
    expect((await fetch(`${api.url}/v1/balance`, { headers: withKey })).status).toBe(200);
  });

  test("64 levels are accepted, 65 are not", async () => {
    const nest = (depth: number) =>
      `{"model":"gpt-image-1","prompt":"p","input":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
    const ok = await post(
      "/v1/media/quote",
      { ...withKey, "content-type": "application/json" },
      nest(64),
    );
    expect(ok.body.error?.message ?? "").not.toContain("levels");
    const deep = await post(
      "/v1/media/quote",
      { ...withKey, "content-type": "application/json" },
      nest(65),
    );
    expect(deep.status).toBe(400);
    expect(deep.body.error.message).toContain("64");
  });
});

describe("body bytes", () => {
  test("50 MB chunked bodies stop at the limit while reading, without being held", async () => {
    const before = await counts();
    const rssBefore = rssMb();
    const json = await postChunked(
      "/admin/users",
      { ...admin, "content-type": "application/json" },
      chunked(50 * MB, " ", '{"name":"x"', "}"),
    );
    expect(json.status).toBe(413);
    expect(json.body.error.code).toBe("payload_too_large");
    for (const type of ["text/plain", "application/octet-stream"]) {
      const answer = await postChunked(
        "/admin/users",
        { ...admin, "content-type": type },
        chunked(50 * MB, "x"),
      );
      expect(answer.status, type).toBe(415);
      const anonymous = await postChunked(
        "/admin/users",
        { "content-type": type },
        chunked(50 * MB, "x"),
      );
      expect(anonymous.status, type).toBe(401);
    }
    const boundary = "----bound";
    const form = await postChunked(
      "/v1/images/edits",
      { ...withKey, "content-type": `multipart/form-data; boundary=${boundary}` },
      chunked(
        50 * MB,
        "x",
        `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
        `\r\n--${boundary}--\r\n`,
      ),
    );
    expect(form.status).toBe(413);
    expect(form.body.error.message).toContain("20971520");
    const junk = await postChunked(
      "/v1/images/edits",
      { ...withKey, "content-type": `multipart/form-data; boundary=${boundary}` },
      chunked(50 * MB, "y"),
    );
    expect(junk.status).toBe(413);
    // Holding any one of these bodies would have grown the process by 50 MB or more.
    expect(rssMb() - rssBefore).toBeLessThan(45);
    expect(await counts()).toEqual(before);
  }, 30_000);

  test("a multipart edit with more parts than the form allows is refused while reading", async () => {
    const boundary = "b0";
    let body = "";
    for (let i = 0; i < 40; i++)
      body += `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="${i}.png"\r\n\r\nx\r\n`;
    body += `--${boundary}--\r\n`;
    const answer = await post(
      "/v1/images/edits",
      { ...withKey, "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain("parts");
  });
});

describe("multipart edge cases", () => {
  test("an empty multipart body to the edit route is 400 and creates nothing", async () => {
    const before = await counts();
    for (const body of ["", "--x--\r\n"]) {
      const answer = await post(
        "/v1/images/edits",
        { ...withKey, "content-type": "multipart/form-data; boundary=x" },
        body,
      );
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe("invalid_request");
    }
    const noBoundary = await post(
      "/v1/images/edits",
      { ...withKey, "content-type": "multipart/form-data" },
      "--x--\r\n",
    );
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body.error.message).toContain("boundary");
    expect(await counts()).toEqual(before);
  });
});

describe("messages", () => {
  test("a choice of values is named in the message", async () => {
    const answer = await post(
      "/admin/users",
      { ...admin, "content-type": "application/json" },
      '{"name":"x","status":"bogus"}',
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toBe(
      `Invalid body field 'status': must be one of "active", "disabled"`,
    );
  });
});
