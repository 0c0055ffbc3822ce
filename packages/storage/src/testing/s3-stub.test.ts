// Proves the S3 stub speaks the public S3 REST shape other packages' tests rely on:
// signed-request checks, XML errors, HEAD, DELETE 204 and ListObjectsV2 paging.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type S3Stub, startS3Stub } from "./s3-stub.ts";

let stub: S3Stub;
const auth = (keyId: string) => ({
  authorization: `AWS4-HMAC-SHA256 Credential=${keyId}/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00`,
});
const call = (method: string, path: string, init: RequestInit = {}, keyId = stub.accessKeyId) =>
  fetch(`${stub.endpoint}${path}`, {
    method,
    ...init,
    headers: { ...auth(keyId), ...init.headers },
  });

beforeAll(() => {
  stub = startS3Stub({ bucket: "b1", accessKeyId: "KEYID", maxKeys: 2 });
});

afterAll(async () => {
  await stub.stop();
});

describe("S3 stub", () => {
  test("listens on 127.0.0.1 and advertises its storage options", () => {
    expect(stub.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stub.storageOptions).toMatchObject({ bucket: "b1", accessKeyId: "KEYID" });
  });

  test("refuses unsigned requests and unknown access key ids with 403", async () => {
    const unsigned = await fetch(`${stub.endpoint}/b1/a`);
    expect(unsigned.status).toBe(403);
    expect(await unsigned.text()).toContain("<Code>AccessDenied</Code>");
    const wrong = await call("GET", "/b1/a", {}, "OTHER");
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain("<Code>InvalidAccessKeyId</Code>");
  });

  test("PUT, GET, HEAD and DELETE an object", async () => {
    const put = await call("PUT", "/b1/x/1.png", {
      body: "png",
      headers: { "content-type": "image/png" },
    });
    expect(put.status).toBe(200);
    expect(put.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);

    const got = await call("GET", "/b1/x/1.png");
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("image/png");
    expect(await got.text()).toBe("png");

    const head = await call("HEAD", "/b1/x/1.png");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("3");

    expect((await call("DELETE", "/b1/x/1.png")).status).toBe(204);
    expect((await call("DELETE", "/b1/x/1.png")).status).toBe(204);
  });

  test("missing objects and buckets answer 404 with S3 XML errors", async () => {
    const missing = await call("GET", "/b1/x/none");
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("<Error><Code>NoSuchKey</Code>");
    expect((await call("HEAD", "/b1/x/none")).status).toBe(404);
    const noBucket = await call("GET", "/other/x");
    expect(noBucket.status).toBe(404);
    expect(await noBucket.text()).toContain("<Code>NoSuchBucket</Code>");
  });

  test("ListObjectsV2 filters by prefix and pages with continuation tokens", async () => {
    for (const key of ["p/a", "p/b&c", "p/d", "q/z"])
      await call("PUT", `/b1/${key}`, { body: "1" });
    const first = await (await call("GET", "/b1?list-type=2&prefix=p%2F")).text();
    expect(first).toContain("<IsTruncated>true</IsTruncated>");
    expect(first).toContain("<Key>p/a</Key>");
    expect(first).toContain("<Key>p/b&#38;c</Key>");
    const token = /<NextContinuationToken>([^<]+)</.exec(first)![1]!;
    const second = await (
      await call(
        "GET",
        `/b1/?list-type=2&prefix=p%2F&continuation-token=${encodeURIComponent(token)}`,
      )
    ).text();
    expect(second).toContain("<IsTruncated>false</IsTruncated>");
    expect(second).toContain("<Key>p/d</Key>");
    expect(second).not.toContain("q/z");
  });

  test("refuses what it does not implement with 501", async () => {
    expect((await call("PUT", "/b1/big?partNumber=1&uploadId=u", { body: "x" })).status).toBe(501);
    expect((await call("GET", "/b1?list-type=2&delimiter=%2F")).status).toBe(501);
  });
});
