/**
 * An in-memory S3-compatible server for tests, speaking enough of the public S3 REST API
 * (path-style) for Bun's S3Client: PUT/GET/HEAD/DELETE of objects and ListObjectsV2.
 * It checks that each request is SigV4-signed with the configured access key id, but not
 * the signature itself. Multipart uploads, copies, ranges and delimiters are refused
 * with 501 rather than half-implemented.
 */
export interface S3StubObject {
  body: Uint8Array;
  contentType: string;
  etag: string;
  /** Tests may back-date this to exercise age-based cleanup. */
  lastModifiedMs: number;
}

export interface S3StubOptions {
  bucket?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  region?: string;
  /** Largest page ListObjectsV2 answers (S3: 1000); smaller values exercise paging. */
  maxKeys?: number;
  /** Largest accepted object body (default 64 MiB). */
  maxBodyBytes?: number;
}

export interface S3Stub {
  /** `http://127.0.0.1:<port>`, for the client's `endpoint`. */
  readonly endpoint: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  /** The bucket's objects by key. */
  readonly objects: Map<string, S3StubObject>;
  /** How many requests arrived, by method (`GET`, `PUT`, `LIST`, ...). */
  readonly requestCounts: Map<string, number>;
  /** Options for `createS3Storage` (add `prefix` as needed). */
  readonly storageOptions: {
    bucket: string;
    endpoint: string;
    region: string;
    accessKeyId: string;
    secretAccessKey: string;
  };
  stop(): Promise<void>;
}

const CREDENTIAL = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\//;

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function errorResponse(status: number, code: string, message: string, resource = ""): Response {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message><Resource>${escapeXml(resource)}</Resource><RequestId>stub</RequestId></Error>`;
  return new Response(body, { status, headers: { "content-type": "application/xml" } });
}

function objectHeaders(object: S3StubObject): Headers {
  return new Headers({
    "content-type": object.contentType,
    "content-length": String(object.body.byteLength),
    etag: object.etag,
    "last-modified": new Date(object.lastModifiedMs).toUTCString(),
  });
}

export function startS3Stub(options: S3StubOptions = {}): S3Stub {
  const bucket = options.bucket ?? "stub-bucket";
  const accessKeyId = options.accessKeyId ?? "STUBACCESSKEY";
  const secretAccessKey = options.secretAccessKey ?? "stub-secret-access-key";
  const region = options.region ?? "us-east-1";
  const pageCap = options.maxKeys ?? 1000;
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  const objects = new Map<string, S3StubObject>();
  const requestCounts = new Map<string, number>();

  function listObjects(url: URL): Response {
    const query = url.searchParams;
    if (query.get("list-type") !== "2") {
      return errorResponse(501, "NotImplemented", "only ListObjectsV2 (list-type=2) is supported");
    }
    if (query.has("delimiter")) {
      return errorResponse(501, "NotImplemented", "delimiter is not supported by the stub");
    }
    const prefix = query.get("prefix") ?? "";
    const requested = Number(query.get("max-keys") ?? pageCap);
    const maxKeys = Math.max(
      0,
      Math.min(pageCap, Number.isFinite(requested) ? requested : pageCap),
    );
    const token = query.get("continuation-token");
    const startAfter = token
      ? Buffer.from(token, "base64url").toString()
      : (query.get("start-after") ?? "");
    const keys = [...objects.keys()]
      .filter((key) => key.startsWith(prefix) && key > startAfter)
      .sort();
    const page = keys.slice(0, maxKeys);
    const truncated = keys.length > page.length;
    const contents = page
      .map((key) => {
        const object = objects.get(key)!;
        return `<Contents><Key>${escapeXml(key)}</Key><LastModified>${new Date(object.lastModifiedMs).toISOString()}</LastModified><ETag>${escapeXml(object.etag)}</ETag><Size>${object.body.byteLength}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join("");
    const last = page.at(-1);
    const xml = [
      `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`,
      `<Name>${escapeXml(bucket)}</Name><Prefix>${escapeXml(prefix)}</Prefix>`,
      `<KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys>`,
      `<IsTruncated>${truncated}</IsTruncated>`,
      token ? `<ContinuationToken>${escapeXml(token)}</ContinuationToken>` : "",
      truncated && last
        ? `<NextContinuationToken>${Buffer.from(last).toString("base64url")}</NextContinuationToken>`
        : "",
      contents,
      "</ListBucketResult>",
    ].join("");
    return new Response(xml, { headers: { "content-type": "application/xml" } });
  }

  async function putObject(request: Request, key: string, url: URL): Promise<Response> {
    if (url.searchParams.has("uploadId") || request.headers.has("x-amz-copy-source")) {
      return errorResponse(501, "NotImplemented", "multipart uploads and copies are not supported");
    }
    const declared = Number(request.headers.get("content-length") ?? 0);
    if (declared > maxBodyBytes) return errorResponse(400, "EntityTooLarge", "body too large");
    const body = new Uint8Array(await request.arrayBuffer());
    if (body.byteLength > maxBodyBytes)
      return errorResponse(400, "EntityTooLarge", "body too large");
    const etag = `"${new Bun.CryptoHasher("md5").update(body).digest("hex")}"`;
    const contentType = request.headers.get("content-type") ?? "binary/octet-stream";
    objects.set(key, { body, contentType, etag, lastModifiedMs: Date.now() });
    return new Response(null, { status: 200, headers: { etag } });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const match = CREDENTIAL.exec(request.headers.get("authorization") ?? "");
    if (!match) return errorResponse(403, "AccessDenied", "request is not SigV4-signed");
    if (match[1] !== accessKeyId) {
      return errorResponse(403, "InvalidAccessKeyId", "unknown access key id");
    }
    const [, bucketName = "", ...rest] = url.pathname.split("/");
    let key: string;
    try {
      key = rest.map(decodeURIComponent).join("/");
    } catch {
      return errorResponse(400, "InvalidURI", "the path is not valid percent-encoding");
    }
    if (bucketName !== bucket) {
      return errorResponse(404, "NoSuchBucket", "the bucket does not exist", bucketName);
    }
    const method = request.method;
    if (key === "") {
      if (method !== "GET") return errorResponse(501, "NotImplemented", `${method} on a bucket`);
      requestCounts.set("LIST", (requestCounts.get("LIST") ?? 0) + 1);
      return listObjects(url);
    }
    requestCounts.set(method, (requestCounts.get(method) ?? 0) + 1);
    if (method === "PUT") return putObject(request, key, url);
    if (method === "DELETE") {
      objects.delete(key);
      return new Response(null, { status: 204 });
    }
    if (method !== "GET" && method !== "HEAD") {
      return errorResponse(405, "MethodNotAllowed", `${method} is not supported`);
    }
    if (request.headers.has("range")) {
      return errorResponse(501, "NotImplemented", "range reads are not supported");
    }
    const object = objects.get(key);
    if (!object) {
      return method === "HEAD"
        ? new Response(null, { status: 404 })
        : errorResponse(404, "NoSuchKey", "The specified key does not exist.", key);
    }
    return new Response(method === "HEAD" ? null : object.body, { headers: objectHeaders(object) });
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    maxRequestBodySize: maxBodyBytes,
    fetch: handle,
  });
  const endpoint = `http://127.0.0.1:${server.port}`;
  return {
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    region,
    objects,
    requestCounts,
    storageOptions: { bucket, endpoint, region, accessKeyId, secretAccessKey },
    stop: () => server.stop(true),
  };
}
