import { Value } from "@sinclair/typebox/value";
import { Catalog } from "./catalog.ts";
import { compileModel, type Problems } from "./compile.ts";
import { DEFAULT_CATALOG } from "./default-catalog.ts";
import type { CatalogModel } from "./model.ts";
import { CatalogFile, type ModelSpec } from "./spec.ts";

/** A catalog that cannot be used; `problems` lists every reason with its path. */
export class CatalogError extends Error {
  constructor(
    readonly source: string,
    readonly problems: Problems,
  ) {
    super(`${source} is not a valid catalog:\n  - ${problems.slice(0, 50).join("\n  - ")}`);
  }
}

const MAX_FILE_BYTES = 4 * 1024 * 1024;

function shapeProblems(file: unknown): Problems {
  const problems: Problems = [];
  for (const error of Value.Errors(CatalogFile, file)) {
    problems.push(`${error.path || "/"}: ${error.message}`);
    if (problems.length >= 20) break;
  }
  return problems;
}

function merge(file: CatalogFile, problems: Problems): ModelSpec[] {
  const models: ModelSpec[] = file.replace_defaults ? [] : [...DEFAULT_CATALOG.models];
  for (const id of file.remove ?? []) {
    const index = models.findIndex((model) => model.id === id);
    if (index < 0) problems.push(`remove: "${id}" is not in the built-in catalog`);
    else models.splice(index, 1);
  }
  const named = new Set<string>();
  for (const model of file.models ?? []) {
    if (named.has(model.id)) problems.push(`models: "${model.id}" appears twice in the file`);
    named.add(model.id);
    const index = models.findIndex((existing) => existing.id === model.id);
    if (index >= 0) models[index] = model;
    else models.push(model);
  }
  return models;
}

/**
 * Builds the catalog: the built-in one, changed by an operator file when given. Returns
 * every problem at once so an operator fixes a file in one pass.
 */
export function buildCatalog(
  file: unknown = {},
): { ok: true; catalog: Catalog } | { ok: false; problems: Problems } {
  const shape = shapeProblems(file);
  if (shape.length > 0) return { ok: false, problems: shape };
  const problems: Problems = [];
  const specs = merge(file as CatalogFile, problems);
  const models: CatalogModel[] = [];
  specs.forEach((spec, index) => {
    models.push(...compileModel(`models[${index}] (${spec.id})`, spec, problems));
  });
  const seen = new Set<string>();
  for (const model of models) {
    if (seen.has(model.id)) problems.push(`model ID "${model.id}" is defined twice`);
    seen.add(model.id);
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, catalog: new Catalog(models) };
}

/** The catalog to serve: built-in, or changed by the JSON file at `path`. Throws CatalogError. */
export async function loadCatalog(path?: string): Promise<Catalog> {
  const source = path ? `catalog file ${path}` : "the built-in catalog";
  let file: unknown = {};
  if (path) {
    const handle = Bun.file(path);
    if (!(await handle.exists())) throw new CatalogError(source, ["the file does not exist"]);
    if (handle.size > MAX_FILE_BYTES)
      throw new CatalogError(source, [`the file is larger than ${MAX_FILE_BYTES} bytes`]);
    try {
      file = JSON.parse(await handle.text());
    } catch (error) {
      throw new CatalogError(source, [`not valid JSON: ${(error as Error).message}`]);
    }
  }
  const built = buildCatalog(file);
  if (!built.ok) throw new CatalogError(source, built.problems);
  return built.catalog;
}
