/** The part of JSON Schema the OpenAPI document and the catalog's input schemas use. */
export type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  $ref?: string;
};

export interface Param {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: Schema;
}

/** Who may call an operation, as its `security` says. */
export type AuthKind = "key" | "admin" | "metrics" | "none";

export interface Operation {
  /** `GET /v1/images/tasks/{task_id}`: how the summary names it. */
  id: string;
  method: string;
  path: string;
  params: Param[];
  /** Request body schemas by media type; empty when the operation takes no body. */
  bodies: { json?: Schema; multipart?: Schema };
  auth: AuthKind;
  /** Names of the security schemes it accepts (`bearer`, `apiKey`, `googQueryKey`, ...). */
  schemes: string[];
}

interface RawOperation {
  parameters?: (Param & { $ref?: string })[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: Record<string, unknown>[];
}

interface Document {
  security?: Record<string, unknown>[];
  paths: Record<string, Record<string, RawOperation>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

function authOf(security: Record<string, unknown>[] | undefined): AuthKind {
  const names = new Set((security ?? []).flatMap((entry) => Object.keys(entry)));
  if (names.has("admin")) return "admin";
  if (names.has("metrics")) return "metrics";
  if (names.has("bearer") || names.has("apiKey")) return "key";
  return "none";
}

/** Inlines `#/components/schemas/...` references (the document has few; bounded depth). */
function resolve(schema: Schema | undefined, doc: Document, depth = 0): Schema | undefined {
  if (!schema || depth > 20) return schema;
  if (schema.$ref) {
    const name = schema.$ref.replace("#/components/schemas/", "");
    return resolve(doc.components?.schemas?.[name], doc, depth + 1);
  }
  return schema;
}

/** Every operation of the api's OpenAPI document, in document order. */
export function operationsOf(doc: Document): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      if (!METHODS.has(method)) continue;
      const content = raw.requestBody?.content ?? {};
      const bodies: Operation["bodies"] = {};
      const json = resolve(content["application/json"]?.schema, doc);
      const multipart = resolve(content["multipart/form-data"]?.schema, doc);
      if (json) bodies.json = json;
      if (multipart) bodies.multipart = multipart;
      operations.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        params: (raw.parameters ?? []).map((param) => ({
          name: param.name,
          in: param.in,
          required: Boolean(param.required),
          schema: resolve(param.schema, doc) ?? {},
        })),
        bodies,
        auth: authOf(raw.security ?? doc.security),
        schemes: (raw.security ?? doc.security ?? []).flatMap((entry) => Object.keys(entry)),
      });
    }
  }
  return operations;
}

/** The served document: GET /swagger/json of the api under test. */
export async function fetchOperations(baseUrl: string): Promise<Operation[]> {
  const response = await fetch(`${baseUrl}/swagger/json`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET /swagger/json answered ${response.status}`);
  return operationsOf((await response.json()) as Document);
}
