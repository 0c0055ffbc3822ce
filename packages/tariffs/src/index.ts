export {
  applyDiscount,
  fractionToPpm,
  PPM,
  QUOTA_PER_USD,
  quotaToUsd,
  type UsdParse,
  usdToQuota,
} from "./money.ts";
