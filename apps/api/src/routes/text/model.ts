import type { Principal } from "@gw/accounts";
import type { TextProvider } from "@gw/providers";
import { allows, type CatalogModel, type TextTokens } from "@gw/tariffs";
import type { TextFormat } from "@gw/textformats";
import { loadProfile, type TokenizerProfile } from "@gw/tokens";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { accessOf } from "../models/access.ts";

export type { TextTokens };

/**
 * A call's output cap when the request sets none: the model's own output limit, but at
 * most this, so an uncapped call does not hold the price of the model's whole output.
 */
export const DEFAULT_OUTPUT_CAP = 4_096;

/** What a text call needs to know of its model: prices, tokenizer, caps, and its upstream. */
export interface TextModel {
  model: CatalogModel;
  prices: NonNullable<CatalogModel["spec"]["text_prices"]>;
  profile: TokenizerProfile;
  /** The most output tokens a request may ask for. */
  maxOutput: number;
  /** The cap held for when the request names none. */
  defaultOutput: number;
  provider: TextProvider;
  upstreamModel: string;
  /** The format the provider is called in: the client's own when it speaks it. */
  upstreamFormat: TextFormat;
}

const notFound = (id: string) =>
  new ApiError(
    "model_not_found",
    `The model '${id.slice(0, 200)}' does not exist or is not available to this key`,
  );

/**
 * The text model a call names, checked against the account's and key's model access,
 * and where it runs: PROVIDER_ROUTES over the catalog's upstream, as for media.
 */
export async function resolveTextModel(
  ctx: AppContext,
  principal: Principal,
  id: string,
  clientFormat: TextFormat,
): Promise<TextModel> {
  const model = ctx.catalog.get(id);
  if (!model || !allows(model, accessOf(principal))) throw notFound(id);
  if (model.kind !== "text" || !model.spec.text_prices || !model.spec.tokenizer)
    throw new ApiError(
      "unsupported_operation",
      `The model '${id}' is a ${model.kind} model; this endpoint takes text models (see GET /v1/models)`,
    );
  if (!model.available)
    throw new ApiError("model_unavailable", `The model '${id}' is not available right now`);
  const route = ctx.text.route(model.id);
  if (!route)
    throw new ApiError(
      "upstream_unavailable",
      `No provider is configured for the model '${id}'; nothing was charged`,
    );
  const maxOutput = model.spec.output_tokens ?? DEFAULT_OUTPUT_CAP;
  return {
    model,
    prices: model.spec.text_prices,
    profile: await loadProfile(model.spec.tokenizer),
    maxOutput,
    defaultOutput: Math.min(maxOutput, DEFAULT_OUTPUT_CAP),
    provider: route.provider,
    upstreamModel: route.upstreamModel,
    upstreamFormat: route.provider.formats.includes(clientFormat)
      ? clientFormat
      : route.provider.formats[0]!,
  };
}
