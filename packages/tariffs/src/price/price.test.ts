// Proves prices are rate x volume + input-file surcharges, then the account discount, in
// integer quota; that a stored snapshot settles by its own rates after the tariff changes;
// and that measured units quote as pending with a reserve to hold.
import { describe, expect, test } from "bun:test";
import { checkPublicUrl } from "@gw/auth";
import type { Catalog } from "../catalog/catalog.ts";
import { DEFAULT_CATALOG } from "../catalog/default-catalog.ts";
import { buildCatalog, loadCatalog } from "../catalog/load.ts";
import { type MediaCall, normalizeCall } from "../request/normalize.ts";
import { toBilling } from "./billing.ts";
import { priceCall, priceSnapshot } from "./price.ts";

const catalog = await loadCatalog();
function quote(call: MediaCall, discountPpm = 0, from: Catalog = catalog) {
  const result = normalizeCall(from, call, { checkUrl: checkPublicUrl, access: [] });
  if (!result.ok) throw new Error(result.message);
  return priceCall(result.call, discountPpm);
}
const url = (name: string) => `https://img.example.com/${name}.png`;

describe("price", () => {
  test("GPT-style: quality x size per image plus a surcharge per input image", () => {
    const { price } = quote({
      model: "gpt-image-1",
      prompt: "x",
      image: url("a"),
      input: { input_urls: [url("b"), url("c")], quality: "low", n: 2 },
    });
    // 2 images x $0.011 + 3 input images x $0.01 = $0.052
    expect(
      price.lines.map((line) => [line.unit, line.quantity, line.unitQuota, line.quota]),
    ).toEqual([
      ["image", 2, 5_500n, 11_000n],
      ["input_image", 3, 5_000n, 15_000n],
    ]);
    expect(price.quota).toBe(26_000n);
    expect(toBilling(price).usd).toBe(0.052);
  });

  test("the discount is its own line and rounds in the account's favour by at most one unit", () => {
    const { price } = quote({ model: "lumina-image", prompt: "x" }, 333_333);
    // $0.045 = 22,500 quota; 33.3333% of it is 7,499.99 -> 7,499 off.
    expect(price.quota).toBe(15_001n);
    const billing = toBilling(price);
    expect(billing.lines.at(-1)).toEqual({
      unit: "discount",
      quantity: 1,
      unit_usd: -0.014998,
      usd: -0.014998,
      parameters: { discount: 0.333333 },
      pending: false,
    });
    // The lines add up to the total, in quota.
    const sum = price.lines.reduce((total, line) => total + line.quota, 0n);
    expect(sum).toBe(price.quota);
  });

  test("a measured unit quotes as pending at $0, and holds its reserve", () => {
    const { price, snapshot } = quote({ model: "sonora/speech", prompt: "hello there" });
    expect(price.pending).toBe(true);
    expect(price.quota).toBe(0n);
    expect(price.holdQuota).toBe(600n * 550n);
    // Settled by the actual seconds: 42 s x $0.0011.
    const settled = priceSnapshot(snapshot, 42);
    expect(settled.pending).toBe(false);
    expect(settled.quota).toBe(23_100n);
  });

  test("images are settled by the number actually produced", () => {
    const { snapshot, price } = quote({
      model: "lumina-image",
      prompt: "x",
      input: { n: 4, resolution: "4K" },
    });
    expect(price.quota).toBe(240_000n);
    expect(priceSnapshot(snapshot, 3).quota).toBe(180_000n);
  });
});

describe("tariff versions", () => {
  test("a snapshot taken under one tariff settles by it after the tariff changes", () => {
    const { snapshot } = quote({ model: "lumina-image", prompt: "x", input: { n: 2 } }, 100_000);
    const changed = structuredClone(DEFAULT_CATALOG.models.find((m) => m.id === "lumina-image")!);
    changed.tariff_version = "2027-01-01";
    changed.operations!["text-to-image"]!.tariff.rates[0]!.usd = "0.05";
    const built = buildCatalog({ models: [changed] });
    if (!built.ok) throw new Error(built.problems.join("\n"));
    const now = quote(
      { model: "lumina-image", prompt: "x", input: { n: 2 } },
      100_000,
      built.catalog,
    );
    expect(now.price.version).toBe("2027-01-01");
    expect(now.price.quota).toBe(45_000n); // 2 x 25,000 - 10%
    // The stored snapshot (as JSON, the way a task keeps it) still settles at $0.045.
    const stored = JSON.parse(JSON.stringify(snapshot));
    const settled = priceSnapshot(stored, 2);
    expect(settled.version).toBe("2026-11-01");
    expect(settled.quota).toBe(40_500n); // 2 x 22,500 - 10%
  });
});
