export { type Access, allows, Catalog } from "./catalog/catalog.ts";
export { DEFAULT_CATALOG } from "./catalog/default-catalog.ts";
export { describeField } from "./catalog/fields.ts";
export { buildCatalog, CatalogError, loadCatalog } from "./catalog/load.ts";
export {
  type CatalogModel,
  EDIT_OPERATIONS,
  type Operation,
  type Scalar,
} from "./catalog/model.ts";
export { CatalogFile, type ModelSpec, type OperationSpec } from "./catalog/spec.ts";
export {
  applyDiscount,
  fractionToPpm,
  PPM,
  QUOTA_PER_USD,
  quotaToUsd,
  type UsdParse,
  usdTextToQuota,
  usdToQuota,
} from "./money.ts";
export { type BillingObject, toBilling } from "./price/billing.ts";
export {
  type Price,
  type PriceLine,
  type PriceSnapshot,
  priceCall,
  priceSnapshot,
  snapshotCall,
} from "./price/price.ts";
export { type TextTokens, textPriceQuota } from "./price/text.ts";
export type { CallRejection, Refusal } from "./request/errors.ts";
export type { TopLevel, UrlCheck } from "./request/input.ts";
export {
  type MediaCall,
  type NormalizedCall,
  type NormalizeOptions,
  normalizeCall,
} from "./request/normalize.ts";
