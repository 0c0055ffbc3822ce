import { Elysia } from "elysia";
import { ApiError } from "../../errors.ts";
import { noteRequest } from "../../observe/request-context.ts";
import { checkJsonDepth } from "./json-depth.ts";
import { parseMediaType } from "./media-type.ts";
import { MultipartBounds, type MultipartLimits } from "./multipart-bounds.ts";
import { refuseNul } from "./no-nul.ts";
import { readBounded } from "./read.ts";

export { MAX_JSON_DEPTH } from "./json-depth.ts";
export type { MultipartLimits } from "./multipart-bounds.ts";
export { parseJsonText } from "./no-nul.ts";

const JSON_TYPE = "application/json";
const MULTIPART_TYPE = "multipart/form-data";

/** What one route takes as a body. Routes not listed take JSON only, within the default. */
export interface BodyPolicy {
  /** A JSON body's limit; it can only lower the default (the quote's 1 MiB of spec 8). */
  maxBytes?: number;
  /** A multipart form and its bounds; without it multipart is refused (415). */
  multipart?: MultipartLimits;
}

/** Runs before any byte of the body is read: refuses callers the route would refuse. */
export type BodyGate = (context: {
  request: Request;
  route: string;
  server: { requestIP(request: Request): { address: string } | null } | null;
}) => Promise<void> | void;

export interface BodyOptions {
  /** Default JSON limit (MAX_JSON_BODY_BYTES). */
  maxBytes: number;
  /** By route pattern, as the route declares it (`/v1/images/edits`). */
  routes?: Record<string, BodyPolicy>;
  gate: BodyGate;
}

/** A header value fit to quote in a message: printable, and short. */
function shown(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, "?").slice(0, 100);
}

function refuseType(header: string | null, accepted: string[]): never {
  const send = accepted.join(" or ");
  throw new ApiError(
    "unsupported_media_type",
    header === null
      ? `The request has a body but no Content-Type; send ${send}`
      : `Content-Type '${shown(header)}' is not accepted here; send ${send}`,
  );
}

function parseJson(bytes: Buffer): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiError("invalid_request", "The JSON body is not valid UTF-8");
  }
  if (text.trim() === "")
    throw new ApiError("invalid_request", "The request body is empty; send a JSON object");
  checkJsonDepth(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", "The request body is not valid JSON");
  }
  refuseNul(value, "The body");
  return value;
}

async function parseForm(bytes: Buffer, header: string): Promise<FormData> {
  let form: FormData;
  try {
    form = (await new Response(bytes, {
      headers: { "content-type": header },
    }).formData()) as unknown as FormData;
  } catch {
    throw new ApiError("invalid_request", "The multipart body could not be parsed");
  }
  if ([...form.keys()].length === 0)
    throw new ApiError("invalid_request", "The multipart body has no fields");
  for (const [name, value] of form.entries()) {
    refuseNul(name, "A multipart field name");
    if (typeof value === "string") refuseNul(value, `Field '${name}'`);
  }
  return form;
}

/** The model a body names, for the access line and metrics (checked against the catalog there). */
function noteModelOf(body: unknown): void {
  const model = (body as { model?: unknown } | null)?.model;
  if (typeof model === "string" && model.length <= 128) noteRequest({ model });
}

/**
 * The one place request bodies are read, for every route (spec 8, issue 10). In order:
 * the route's gate (credentials) before any byte is read; the media type matched by
 * RFC 9110 (type and subtype case-insensitive, parameters parsed, only UTF-8 JSON) against
 * what the route documents, 415 otherwise; the declared length, then the bytes as they
 * arrive, against the route's limit (413); JSON nesting depth in a linear scan before
 * JSON.parse; multipart parts bounded while streaming. Elysia's own parsers never run.
 */
export function bodyPlugin({ maxBytes, routes = {}, gate }: BodyOptions) {
  const policies = new Map(Object.entries(routes));
  return new Elysia({ name: "gw/body", seed: maxBytes }).onParse(
    { as: "global" },
    async ({ request, route, server }) => {
      noteRequest({ route });
      await gate({ request, route, server });
      const policy = policies.get(route) ?? {};
      const header = request.headers.get("content-type");
      const type = header === null ? null : parseMediaType(header);
      const accepted = policy.multipart ? [JSON_TYPE, MULTIPART_TYPE] : [JSON_TYPE];
      if (!request.body) {
        if (type?.essence === MULTIPART_TYPE && policy.multipart)
          throw new ApiError("invalid_request", "The multipart body is empty");
        return undefined;
      }
      if (!type || !accepted.includes(type.essence)) refuseType(header, accepted);
      const limit =
        type.essence === MULTIPART_TYPE
          ? policy.multipart!.maxBytes
          : Math.min(maxBytes, policy.maxBytes ?? maxBytes);
      const declared = request.headers.get("content-length");
      if (declared !== null && Number(declared) > limit)
        throw new ApiError("payload_too_large", `The request body exceeds ${limit} bytes`);
      if (type.essence === JSON_TYPE) {
        const charset = type.params.get("charset")?.toLowerCase();
        if (charset !== undefined && charset !== "utf-8" && charset !== "utf8")
          throw new ApiError(
            "unsupported_media_type",
            `charset '${shown(charset)}' is not accepted; send UTF-8 JSON (Content-Type: ${JSON_TYPE})`,
          );
        const json = parseJson(await readBounded(request.body, limit));
        noteModelOf(json);
        return json;
      }
      const boundary = type.params.get("boundary");
      if (!boundary || boundary.length > 70)
        throw new ApiError(
          "invalid_request",
          "The multipart Content-Type needs a boundary parameter of 1 to 70 characters",
        );
      const bounds = new MultipartBounds(boundary, policy.multipart!);
      const bytes = await readBounded(request.body, limit, (chunk) => bounds.feed(chunk));
      if (bytes.byteLength === 0)
        throw new ApiError("invalid_request", "The multipart body is empty");
      const form = await parseForm(bytes, header!);
      noteModelOf({ model: form.get("model") });
      return form;
    },
  );
}
