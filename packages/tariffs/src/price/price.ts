import { matchesRate } from "../catalog/compile.ts";
import type { Scalar } from "../catalog/model.ts";
import { applyDiscount, PPM } from "../money.ts";
import type { NormalizedCall } from "../request/normalize.ts";

export interface PriceLine {
  unit: string;
  quantity: number;
  unitQuota: bigint;
  quota: bigint;
  /** The conditions of the rate (resolution, quality, ...), or what a surcharge counts. */
  parameters: Record<string, Scalar>;
  /** True while the quantity is not measured yet (seconds of a speech result). */
  pending: boolean;
}

export interface Price {
  version: string;
  model: string;
  operation: string;
  lines: PriceLine[];
  /** The known total after discount; not final while `pending`. */
  quota: bigint;
  pending: boolean;
  /** What to hold for this call: the total, or for measured units the reserve volume. */
  holdQuota: bigint;
}

/**
 * The rates a task starts with, stored with it and settled by even after the tariff
 * changes. Plain JSON (bigints as decimal strings) so Postgres and Redis keep it as is.
 */
export interface PriceSnapshot {
  version: string;
  model: string;
  operation: string;
  unit: string;
  unitQuota: string;
  parameters: Record<string, Scalar>;
  quantity: number;
  measured: boolean;
  reserveQuantity: number;
  surcharges: {
    unit: string;
    unitQuota: string;
    quantity: number;
    parameters: Record<string, Scalar>;
  }[];
  discountPpm: number;
}

const count = (value: unknown) =>
  Array.isArray(value) ? value.length : typeof value === "string" ? 1 : 0;

/** Fixes the rates of a validated call: the snapshot a task stores at submission. */
export function snapshotCall(call: NormalizedCall, discountPpm: number): PriceSnapshot {
  const { operation, input } = call;
  const { tariff } = operation.spec;
  // Validation guarantees a rate (coverage is checked when the catalog loads).
  const rate = operation.rates.find((candidate) => matchesRate(candidate, input))!;
  const basis = tariff.quantity;
  const measured = "measured" in basis;
  const quantity =
    "field" in basis ? Number(input[basis.field]) : "fixed" in basis ? basis.fixed : 0;
  return {
    version: call.model.spec.tariff_version,
    model: call.model.id,
    operation: operation.name,
    unit: tariff.unit,
    unitQuota: rate.quota.toString(),
    parameters: { ...rate.when },
    quantity,
    measured,
    reserveQuantity: measured ? (basis.reserve ?? 0) : quantity,
    surcharges: operation.surcharges.map((surcharge) => ({
      unit: surcharge.unit,
      unitQuota: surcharge.quota.toString(),
      quantity: surcharge.count.reduce((sum, name) => sum + count(input[name]), 0),
      parameters: { fields: surcharge.count.join(",") },
    })),
    discountPpm,
  };
}

function line(
  unit: string,
  quantity: number,
  unitQuota: bigint,
  parameters: Record<string, Scalar>,
  pending = false,
): PriceLine {
  return { unit, quantity, unitQuota, quota: unitQuota * BigInt(quantity), parameters, pending };
}

function total(snapshot: PriceSnapshot, lines: PriceLine[]) {
  const subtotal = lines.reduce((sum, each) => sum + each.quota, 0n);
  const discounted = applyDiscount(subtotal, snapshot.discountPpm);
  return { subtotal, discounted };
}

function discountLine(snapshot: PriceSnapshot, subtotal: bigint, discounted: bigint): PriceLine[] {
  if (snapshot.discountPpm === 0 || subtotal === discounted) return [];
  const off = discounted - subtotal;
  return [line("discount", 1, off, { discount: snapshot.discountPpm / Number(PPM) })];
}

/**
 * The price of a snapshot: rate x volume + surcharges, then the discount. `measured`
 * is the actual volume once known (images produced, seconds of audio); without it the
 * quote's volume is used and a measured unit stays pending.
 */
export function priceSnapshot(snapshot: PriceSnapshot, measured?: number): Price {
  const pending = snapshot.measured && measured === undefined;
  const quantity = measured ?? snapshot.quantity;
  if (!Number.isSafeInteger(quantity) || quantity < 0)
    throw new RangeError(`bad quantity ${quantity}`);
  const main = line(
    snapshot.unit,
    quantity,
    BigInt(snapshot.unitQuota),
    snapshot.parameters,
    pending,
  );
  const surcharges = snapshot.surcharges
    .filter((surcharge) => surcharge.quantity > 0)
    .map((surcharge) =>
      line(surcharge.unit, surcharge.quantity, BigInt(surcharge.unitQuota), surcharge.parameters),
    );
  const lines = [main, ...surcharges];
  const { subtotal, discounted } = total(snapshot, lines);
  const reserve =
    snapshot.measured && pending
      ? total(snapshot, [
          line(snapshot.unit, snapshot.reserveQuantity, BigInt(snapshot.unitQuota), {}),
          ...surcharges,
        ]).discounted
      : discounted;
  return {
    version: snapshot.version,
    model: snapshot.model,
    operation: snapshot.operation,
    lines: [...lines, ...discountLine(snapshot, subtotal, discounted)],
    quota: discounted,
    pending,
    holdQuota: reserve,
  };
}

/** Quote of a validated call: its snapshot priced at the requested volume. */
export function priceCall(call: NormalizedCall, discountPpm: number) {
  const snapshot = snapshotCall(call, discountPpm);
  return { snapshot, price: priceSnapshot(snapshot) };
}
