import type { Catalog } from "../catalog/catalog.ts";
import { type CatalogModel, EDIT_OPERATIONS, type Operation } from "../catalog/model.ts";
import { type Refusal, refuse } from "./errors.ts";

const list = (names: Iterable<string>) => [...names].map((name) => `"${name}"`).join(", ");

/** The model a client named, with a hint when it appended "-edit" to a real ID. */
export function findModel(
  catalog: Catalog,
  id: string,
): { ok: true; model: CatalogModel } | Refusal {
  const model = catalog.get(id);
  if (model) return { ok: true, model };
  const base = id.endsWith("-edit") ? id.slice(0, -"-edit".length) : null;
  const hint =
    base && catalog.get(base)
      ? ` Model IDs take no "-edit" suffix: call "${base}" with an image or an explicit operation.`
      : " GET /v1/media/models lists the media models.";
  return refuse("model_not_found", `Model "${id}" does not exist.${hint}`);
}

/**
 * Spec 4.2 rules 4 and 5: an explicit operation wins; otherwise a source image selects
 * the model's edit mode and no image the default generate mode. Upscaling, region
 * editing, layer separation and segmentation are never chosen by attachment alone.
 */
export function chooseOperation(
  model: CatalogModel,
  explicit: string | undefined,
  hasImage: boolean,
): { ok: true; operation: Operation } | Refusal {
  const names = model.operations.keys();
  if (explicit !== undefined) {
    const operation = model.operations.get(explicit);
    if (operation) return { ok: true, operation };
    return refuse(
      "unsupported_operation",
      `Model "${model.id}" does not support operation "${explicit}"; it supports ${list(names)}.`,
    );
  }
  const fallback = [...model.operations.values()].find((operation) => operation.spec.default);
  if (hasImage) {
    const edit = EDIT_OPERATIONS.find((name) => model.operations.has(name));
    if (edit) return { ok: true, operation: model.operations.get(edit)! };
    if (fallback?.spec.image_field) return { ok: true, operation: fallback };
    return refuse(
      "unsupported_operation",
      `Model "${model.id}" has no edit mode to take a source image; name its operation explicitly (one of ${list(names)}).`,
    );
  }
  if (fallback) return { ok: true, operation: fallback };
  return refuse(
    "unsupported_operation",
    `Model "${model.id}" needs an explicit operation: one of ${list(names)}.`,
  );
}

/** True when the call carries a source image, at the top level or in an edit mode's own field. */
export function carriesImage(
  model: CatalogModel,
  image: unknown,
  input: Record<string, unknown>,
): boolean {
  if (Array.isArray(image) ? image.length > 0 : image !== undefined) return true;
  return EDIT_OPERATIONS.some((name) => {
    const field = model.operations.get(name)?.spec.image_field;
    return field !== undefined && input[field] !== undefined;
  });
}
