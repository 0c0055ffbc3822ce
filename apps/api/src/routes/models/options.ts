import type { CatalogModel } from "@gw/tariffs";
import { defaultOperation, defaultRate, rateRows } from "./present.ts";

const PRICING_MODES: Record<string, string> = {
  image: "per_image",
  second: "per_second",
  operation: "per_operation",
};

function priceFields(model: CatalogModel) {
  const prices = model.spec.text_prices;
  if (prices) {
    return {
      pricing_mode: "tokens",
      input_price_per_m: Number(prices.input_per_m),
      output_price_per_m: Number(prices.output_per_m),
      ...(prices.cache_read_per_m
        ? { cache_read_price_per_m: Number(prices.cache_read_per_m) }
        : {}),
      ...(prices.cache_write_per_m
        ? { cache_write_price_per_m: Number(prices.cache_write_per_m) }
        : {}),
    };
  }
  const main = defaultOperation(model) ?? [...model.operations.values()][0]!;
  const unit = main.spec.tariff.unit;
  const perUnit =
    model.kind === "image" && unit === "image"
      ? { image_output_price: defaultRate(main) }
      : model.kind === "video" && unit === "second"
        ? {
            video_price_per_second: defaultRate(main, { sound: false }),
            video_sound_price_per_second: defaultRate(main, { sound: true }),
          }
        : {};
  return {
    pricing_mode: PRICING_MODES[unit] ?? `per_${unit}`,
    ...Object.fromEntries(Object.entries(perUnit).filter(([, usd]) => usd !== undefined)),
    media_rates: rateRows(model),
  };
}

/** Spec 2.9: a family with its callable options (variants, or the model itself). */
export function modelOption(family: CatalogModel, options: CatalogModel[]) {
  return {
    model_id: family.id,
    display_name: family.spec.display_name,
    options: options.map((option) => ({
      id: option.id,
      label: option.family?.label ?? option.spec.display_name,
      ...priceFields(option),
    })),
  };
}
