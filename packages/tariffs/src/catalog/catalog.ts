import type { CatalogModel } from "./model.ts";

/**
 * Allow-lists that must all admit a model: the account's access and the key's model
 * limits. An empty list admits everything; a family ID in a list admits its variants.
 */
export type Access = readonly (readonly string[])[];

export function allows(model: CatalogModel, access: Access): boolean {
  return access.every(
    (list) =>
      list.length === 0 ||
      list.includes(model.id) ||
      (model.family !== undefined && list.includes(model.family.id)),
  );
}

/** The loaded catalog: every callable model ID, in catalog order. */
export class Catalog {
  private readonly byId: Map<string, CatalogModel>;

  constructor(readonly models: readonly CatalogModel[]) {
    this.byId = new Map(models.map((model) => [model.id, model]));
  }

  get(id: string): CatalogModel | undefined {
    return this.byId.get(id);
  }

  /** The model that actually runs: a family's default (first) variant, or the model itself. */
  resolve(model: CatalogModel): CatalogModel {
    const first = model.variants?.[0];
    return first ? (this.byId.get(first.id) ?? model) : model;
  }

  /** The models a caller with this access may see and call. */
  visible(access: Access): CatalogModel[] {
    return this.models.filter((model) => allows(model, access));
  }

  /** Families (and models without variants) with their callable options, for model-options. */
  families(): { family: CatalogModel; options: CatalogModel[] }[] {
    return this.models
      .filter((model) => model.family === undefined)
      .map((family) => ({
        family,
        options: family.variants
          ? family.variants.map((variant) => this.byId.get(variant.id)!)
          : [family],
      }));
  }
}
