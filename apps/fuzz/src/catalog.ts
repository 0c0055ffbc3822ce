import type { Schema } from "./openapi.ts";

export interface MediaModel {
  id: string;
  kind: string;
  operations: string[];
  defaultOperation: string;
  /** The catalog's input schema per operation (GET /v1/media/models `input_schemas`). */
  inputSchemas: Record<string, Schema>;
}

/** The models a case may name: every media model with its schemas, and every text model. */
export interface Catalog {
  media: MediaModel[];
  text: string[];
  /** Every model id the api lists, media variants and text alike. */
  all: string[];
}

interface MediaList {
  data: {
    id: string;
    kind: string;
    operations: string[];
    default_operation: string;
    input_schemas: Record<string, Schema>;
    variants?: { id: string }[];
  }[];
}

async function getJson<T>(url: string, key: string): Promise<T> {
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return (await response.json()) as T;
}

/** Reads the catalog as a client does, with an ordinary key. */
export async function fetchCatalog(baseUrl: string, key: string): Promise<Catalog> {
  const media = await getJson<MediaList>(`${baseUrl}/v1/media/models`, key);
  const models = await getJson<{ data: { id: string }[] }>(`${baseUrl}/v1/models`, key);
  const mediaIds = new Set(
    media.data.flatMap((model) => [model.id, ...(model.variants ?? []).map((v) => v.id)]),
  );
  return {
    media: media.data.map((model) => ({
      id: model.id,
      kind: model.kind,
      operations: model.operations,
      defaultOperation: model.default_operation,
      inputSchemas: model.input_schemas,
    })),
    text: models.data.map((model) => model.id).filter((id) => !mediaIds.has(id)),
    all: [...new Set([...mediaIds, ...models.data.map((model) => model.id)])],
  };
}
