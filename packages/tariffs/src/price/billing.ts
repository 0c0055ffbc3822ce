import { quotaToUsd } from "../money.ts";
import type { Price } from "./price.ts";

/** The billing object of spec 2.4: USD derived from quota at the edge, never summed as floats. */
export function toBilling(price: Price) {
  return {
    version: price.version,
    currency: "USD" as const,
    model: price.model,
    operation: price.operation,
    usd: quotaToUsd(price.quota),
    quota: Number(price.quota),
    pending: price.pending,
    lines: price.lines.map((line) => ({
      unit: line.unit,
      quantity: line.quantity,
      unit_usd: quotaToUsd(line.unitQuota),
      usd: quotaToUsd(line.quota),
      parameters: line.parameters,
      pending: line.pending,
    })),
  };
}
export type BillingObject = ReturnType<typeof toBilling>;
