import { type Access, allows, type Catalog } from "../catalog/catalog.ts";
import type { CatalogModel, Operation } from "../catalog/model.ts";
import type { Refusal } from "./errors.ts";
import { refuse } from "./errors.ts";
import { completeInput, mapTopLevel, type TopLevel, type UrlCheck } from "./input.ts";
import { carriesImage, chooseOperation, findModel } from "./operation.ts";

/** A media call as a client sends it (generation, edit or quote), already shape-checked. */
export interface MediaCall extends TopLevel {
  model: string;
  operation?: string;
  prompt?: string;
  input?: Record<string, unknown>;
}

/** A call the catalog accepts: the model that runs, its operation and the complete input. */
export interface NormalizedCall {
  /** The ID the client named (a family ID runs its default variant). */
  requested: string;
  model: CatalogModel;
  operation: Operation;
  input: Record<string, unknown>;
  prompt: string | undefined;
}

export interface NormalizeOptions {
  checkUrl: UrlCheck;
  /** Allow-lists of the caller (account access, key model limits); all must admit the model. */
  access: Access;
  /**
   * The model kinds the calling endpoint runs (the image endpoints: image only), so a
   * music or video model is refused there before anything is held, not run as an image.
   * The quote prices every kind and leaves it unset.
   */
  kinds?: readonly CatalogModel["kind"][];
  /** How the refusal names the endpoint, e.g. "POST /v1/images/generations". */
  endpoint?: string;
}

/**
 * Validates a media call against the catalog before anything is held or sent upstream:
 * model, access, operation choice, top-level fields mapped into the model's own, input
 * completed with defaults and checked. Refusals are values naming the offending field.
 */
export function normalizeCall(
  catalog: Catalog,
  call: MediaCall,
  options: NormalizeOptions,
): { ok: true; call: NormalizedCall } | Refusal {
  const found = findModel(catalog, call.model);
  if (!found.ok) return found;
  if (!allows(found.model, options.access))
    return refuse("model_not_allowed", `This key or account may not use model "${call.model}".`);
  const model = catalog.resolve(found.model);
  if (options.kinds && !options.kinds.includes(model.kind))
    return refuse(
      "unsupported_operation",
      `Model "${call.model}" is a${model.kind === "audio" ? "n" : ""} ${model.kind} model; ${options.endpoint ?? "this endpoint"} runs ${options.kinds.join(" and ")} models only.`,
    );
  if (!model.available || !found.model.available)
    return refuse("model_unavailable", `Model "${call.model}" is not available at the moment.`);
  const input = { ...(call.input ?? {}) };
  const chosen = chooseOperation(model, call.operation, carriesImage(model, call.image, input));
  if (!chosen.ok) return chosen;
  const { operation } = chosen;
  const where = `model "${call.model}" operation "${operation.name}"`;
  const mapped = mapTopLevel(where, operation, call, input);
  if (!mapped.ok) return mapped;
  const completed = completeInput(where, model, operation, input, call, options.checkUrl);
  if (!completed.ok) return completed;
  const promptRule = operation.spec.prompt ?? "required";
  const prompt = promptRule === "none" ? undefined : call.prompt?.trim() ? call.prompt : undefined;
  if (promptRule === "required" && prompt === undefined)
    return refuse("invalid_request", `prompt is required for ${where}.`);
  return {
    ok: true,
    call: { requested: call.model, model, operation, input, prompt },
  };
}
