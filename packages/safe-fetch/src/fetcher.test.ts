// Proves the safe fetcher against a real local HTTPS stub: allowed hosts are fetched with
// the certificate checked for the name given, everything private is refused (literal,
// every DNS answer, every redirect hop), the checked address is the one dialled, and the
// size, time, status and redirect limits end a fetch with their own failure code.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSafeFetcher, type SafeFetcherOptions } from "./fetcher.ts";
import { type HttpsStub, STUB_NAME, startHttpsStub } from "./testing/index.ts";

const IMAGE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const LIMIT_BYTES = 64 * 1024;
const CHUNK_BYTES = 16 * 1024;

let stub: HttpsStub;
let other: HttpsStub;

const image = () => new Response(IMAGE, { headers: { "content-type": "image/png" } });
const redirect = (location: string) => () =>
  new Response(null, { status: 302, headers: { location } });

function chainRoutes(): Record<string, () => Response> {
  const routes: Record<string, () => Response> = { "/chain/0": image };
  for (let n = 1; n <= 5; n++) routes[`/chain/${n}`] = redirect(`${n - 1}`);
  return routes;
}

/** A body sent in chunks with no Content-Length, far longer than the limit. */
function endlessChunks(): Response {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ >= 1000) controller.close();
      else controller.enqueue(new Uint8Array(CHUNK_BYTES));
    },
  });
  return new Response(body);
}

/** Sends one chunk, then never finishes. */
function stalledBody(): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(16));
    },
  });
  return new Response(body);
}

beforeAll(() => {
  other = startHttpsStub({ "/cat.png": image });
  stub = startHttpsStub({
    "/cat.png": image,
    "/big": () => new Response(new Uint8Array(LIMIT_BYTES + 1)),
    "/exact": () => new Response(new Uint8Array(LIMIT_BYTES)),
    "/chunked": endlessChunks,
    "/stalled": stalledBody,
    "/to-private-literal": redirect("https://10.0.0.1/cat.png"),
    "/to-metadata-name": redirect("https://metadata.attacker.example/latest"),
    "/to-other-stub": () => redirect(other.url("/cat.png"))(),
    "/to-http": redirect("http://images.example.com/cat.png"),
    "/to-stub-name": () => redirect(`https://${STUB_NAME}:${stub.port}/cat.png`)(),
    "/loop": redirect("/loop"),
    "/no-location": () => new Response(null, { status: 302 }),
    ...chainRoutes(),
  });
});

afterAll(async () => {
  await Promise.all([stub.stop(), other.stop()]);
});

/** A resolver from a fixed table that records every name it is asked. */
function tableResolver(table: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    const answers = table[host];
    if (answers === undefined) throw new Error(`ENOTFOUND ${host}`);
    return answers;
  };
  return { asked, resolve };
}

function stubFetcher(overrides: Partial<SafeFetcherOptions> = {}) {
  return createSafeFetcher({
    policy: { allowHosts: [stub.host] },
    caCerts: [stub.caPem],
    limits: { maxBytes: LIMIT_BYTES },
    ...overrides,
  });
}

describe("allowed hosts", () => {
  test("fetches from an allowed stub with its CA, sending only its own headers", async () => {
    const result = await stubFetcher().fetch(stub.url("/cat.png"));
    expect(result).toEqual({
      ok: true,
      bytes: IMAGE,
      contentType: "image/png",
      finalUrl: stub.url("/cat.png"),
    });
    const seen = stub.requests.at(-1)!;
    expect(seen.headers.get("user-agent")).toBe("media-gateway-fetch/1");
    expect(seen.headers.get("host")).toBe(stub.host);
    expect(seen.headers.get("cookie")).toBeNull();
    expect(seen.headers.get("authorization")).toBeNull();
  });

  test("the same stub is blocked when it is not allowed", async () => {
    const result = await stubFetcher({ policy: { allowHosts: [] } }).fetch(stub.url("/cat.png"));
    expect(result).toMatchObject({ ok: false, code: "blocked_url" });
  });

  test("the stub's address on another port is not allowed", async () => {
    const fetcher = stubFetcher({ policy: { allowHosts: ["127.0.0.1:1"] } });
    const result = await fetcher.fetch(stub.url("/cat.png"));
    expect(result).toMatchObject({ ok: false, code: "blocked_url" });
  });

  test("an allowed name uses the system resolver when none is injected", async () => {
    const fetcher = stubFetcher({ policy: { allowHosts: [`localhost:${stub.port}`] } });
    const result = await fetcher.fetch(`https://localhost:${stub.port}/cat.png`);
    expect(result).toMatchObject({ ok: true, bytes: IMAGE });
  });

  test("an untrusted certificate is a network error", async () => {
    const fetcher = stubFetcher({ caCerts: [] });
    const result = await fetcher.fetch(stub.url("/cat.png"));
    expect(result).toMatchObject({ ok: false, code: "network_error" });
  });

  test("the certificate must match the name, not the address dialled", async () => {
    const { resolve } = tableResolver({ "wrong.safe-fetch.test": ["127.0.0.1"] });
    const fetcher = stubFetcher({ policy: { allowHosts: ["wrong.safe-fetch.test"] }, resolve });
    const result = await fetcher.fetch(`https://wrong.safe-fetch.test:${stub.port}/cat.png`);
    expect(result).toMatchObject({ ok: false, code: "network_error" });
    expect((result as { message: string }).message).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
  });
});

describe("blocked URLs and addresses", () => {
  test("refuses http:// even for an allowed host", async () => {
    const result = await stubFetcher().fetch(`http://${stub.host}/cat.png`);
    expect(result).toMatchObject({ ok: false, code: "blocked_url" });
    expect((result as { message: string }).message).toContain("not https");
  });

  test.each([
    ["10.0.0.1"],
    ["169.254.169.254"],
    ["::1"],
    ["::ffff:127.0.0.1"],
    ["::127.0.0.1"],
    ["::ffff:0:7f00:1"],
    ["::ffff:0:a9fe:a9fe"],
    ["64:ff9b::a00:1"],
    ["2002:7f00:1::1"],
  ])("refuses a name resolving to %s", async (address) => {
    const { asked, resolve } = tableResolver({ "images.attacker.example": [address] });
    const result = await stubFetcher({ resolve }).fetch("https://images.attacker.example/x.png");
    expect(result).toEqual({
      ok: false,
      code: "blocked_url",
      message: "the host images.attacker.example resolves to a private or reserved address",
    });
    expect(asked).toEqual(["images.attacker.example"]);
  });

  test("refuses a name whose answers mix public and private addresses", async () => {
    const { resolve } = tableResolver({
      "mixed.attacker.example": [
        "93.184.215.14",
        "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
        "10.0.0.1",
      ],
    });
    const result = await stubFetcher({ resolve }).fetch("https://mixed.attacker.example/x.png");
    expect(result).toMatchObject({ ok: false, code: "blocked_url" });
  });

  test("a name that does not resolve is a network error", async () => {
    const { resolve } = tableResolver({});
    const result = await stubFetcher({ resolve }).fetch("https://nowhere.example/x.png");
    expect(result).toMatchObject({ ok: false, code: "network_error" });
  });
});

describe("rebinding defence", () => {
  test("dials the address it checked, resolving the name once", async () => {
    // The first answer is the stub; any later one would point nowhere. The name itself
    // is unknown to real DNS, so success means the connection went to the first answer.
    const answers = [["127.0.0.1"], ["192.0.2.1"]];
    let calls = 0;
    const resolve = async () => answers[Math.min(calls++, 1)]!;
    const fetcher = stubFetcher({ policy: { allowHosts: [STUB_NAME] }, resolve });
    const result = await fetcher.fetch(`https://${STUB_NAME}:${stub.port}/cat.png`);
    expect(result).toMatchObject({ ok: true, bytes: IMAGE });
    expect(calls).toBe(1);
    expect(stub.requests.at(-1)!.headers.get("host")).toBe(`${STUB_NAME}:${stub.port}`);
  });

  test("resolves again, once, on every redirect hop", async () => {
    const { asked, resolve } = tableResolver({ [STUB_NAME]: ["127.0.0.1"] });
    const fetcher = stubFetcher({ policy: { allowHosts: [STUB_NAME] }, resolve });
    const result = await fetcher.fetch(`https://${STUB_NAME}:${stub.port}/to-stub-name`);
    expect(result).toMatchObject({
      ok: true,
      finalUrl: `https://${STUB_NAME}:${stub.port}/cat.png`,
    });
    expect(asked).toEqual([STUB_NAME, STUB_NAME]);
  });
});

describe("redirects", () => {
  test("follows relative redirects up to maxRedirects", async () => {
    const result = await stubFetcher().fetch(stub.url("/chain/3"));
    expect(result).toMatchObject({ ok: true, bytes: IMAGE, finalUrl: stub.url("/chain/0") });
  });

  test("one more redirect than maxRedirects fails", async () => {
    const result = await stubFetcher().fetch(stub.url("/chain/4"));
    expect(result).toMatchObject({ ok: false, code: "too_many_redirects" });
    const loop = await stubFetcher({ limits: { maxRedirects: 0 } }).fetch(stub.url("/loop"));
    expect(loop).toMatchObject({ ok: false, code: "too_many_redirects" });
  });

  test("a redirect to a private literal is blocked", async () => {
    const result = await stubFetcher().fetch(stub.url("/to-private-literal"));
    expect(result).toMatchObject({ ok: false, code: "blocked_url" });
  });

  test("a redirect to a name resolving to the metadata address is blocked", async () => {
    const { resolve } = tableResolver({ "metadata.attacker.example": ["169.254.169.254"] });
    const result = await stubFetcher({ resolve }).fetch(stub.url("/to-metadata-name"));
    expect(result).toMatchObject({ ok: false, code: "blocked_url" });
  });

  test("a redirect to another local server that is not allowed is blocked", async () => {
    const before = other.requests.length;
    const result = await stubFetcher().fetch(stub.url("/to-other-stub"));
    expect(result).toMatchObject({ ok: false, code: "blocked_url" });
    expect(other.requests.length).toBe(before);
  });

  test("a redirect to http:// is blocked", async () => {
    const result = await stubFetcher().fetch(stub.url("/to-http"));
    expect(result).toMatchObject({ ok: false, code: "blocked_url" });
  });

  test("a redirect without Location is an HTTP error", async () => {
    const result = await stubFetcher().fetch(stub.url("/no-location"));
    expect(result).toMatchObject({ ok: false, code: "http_error" });
  });
});

describe("limits and statuses", () => {
  test("a 404 is an HTTP error naming the status, without the body", async () => {
    const result = await stubFetcher().fetch(stub.url("/missing"));
    expect(result).toEqual({
      ok: false,
      code: "http_error",
      message: "the server answered HTTP 404",
    });
  });

  test("a body of exactly maxBytes is accepted", async () => {
    const result = await stubFetcher().fetch(stub.url("/exact"));
    expect(result).toMatchObject({ ok: true });
    expect((result as { bytes: Uint8Array }).bytes.byteLength).toBe(LIMIT_BYTES);
  });

  test("a Content-Length over maxBytes is refused before reading", async () => {
    const result = await stubFetcher().fetch(stub.url("/big"));
    expect(result).toMatchObject({ ok: false, code: "too_large" });
    expect((result as { message: string }).message).toContain("declares");
  });

  test("a chunked body is cut off once it passes maxBytes", async () => {
    const result = await stubFetcher().fetch(stub.url("/chunked"));
    expect(result).toEqual({
      ok: false,
      code: "too_large",
      message: `the body is larger than ${LIMIT_BYTES} bytes`,
    });
  });

  test("a body that stalls ends in a timeout", async () => {
    const fetcher = stubFetcher({ limits: { timeoutMs: 300 } });
    const result = await fetcher.fetch(stub.url("/stalled"));
    expect(result).toMatchObject({ ok: false, code: "timeout" });
  });

  test("a resolver that never answers ends in a timeout", async () => {
    const resolve = () => new Promise<string[]>(() => {});
    const fetcher = stubFetcher({ limits: { timeoutMs: 100 }, resolve });
    const result = await fetcher.fetch("https://slow-dns.example/x.png");
    expect(result).toMatchObject({ ok: false, code: "timeout" });
  });

  test("the caller's abort rejects with its reason", async () => {
    const controller = new AbortController();
    const pending = stubFetcher().fetch(stub.url("/stalled"), controller.signal);
    controller.abort(new Error("shutting down"));
    await expect(pending).rejects.toThrow("shutting down");
  });

  test("limits that are not positive integers are refused", () => {
    expect(() => stubFetcher({ limits: { maxBytes: 0 } })).toThrow(/maxBytes/);
    expect(() => stubFetcher({ limits: { timeoutMs: 1.5 } })).toThrow(/timeoutMs/);
    expect(() => stubFetcher({ limits: { maxRedirects: -1 } })).toThrow(/maxRedirects/);
  });
});

describe("several addresses", () => {
  test("an address that refuses the connection gives way to the next one", async () => {
    // The stub listens on 127.0.0.1 only, so its port on ::1 refuses (or is unreachable).
    const { resolve } = tableResolver({ [STUB_NAME]: ["::1", "127.0.0.1"] });
    const fetcher = stubFetcher({ policy: { allowHosts: [STUB_NAME] }, resolve });
    const result = await fetcher.fetch(`https://${STUB_NAME}:${stub.port}/cat.png`);
    expect(result).toMatchObject({ ok: true, bytes: IMAGE });
  });
});
