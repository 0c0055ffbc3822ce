import { CountTokensRequest, CountTokensResponse, ErrorBody } from "@gw/schemas";
import { allows, type Catalog } from "@gw/tariffs";
import { countRequestTokens, isKnownProfile, loadProfile } from "@gw/tokens";
import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { BEARER_OR_API_KEY } from "../docs.ts";
import { accessOf } from "../models/access.ts";

/** POST /v1/messages/count_tokens and its aliases (spec 4.9). */
export const COUNT_TOKENS_PATHS = [
  "/v1/messages/count_tokens",
  "/msgcompat/v1/messages/count_tokens",
  "/v1/v1/messages/count_tokens",
] as const;

/** The key may come as Bearer or as `x-api-key` (with `msgcompat-version` or `anthropic-version`). */
export const COUNT_TOKENS_AUTH = { mode: "ordinary" as const, apiKeyHeader: true };

/** Every text model's tokenizer profile must be one ai-tokenizer knows; checked at start. */
function checkProfiles(catalog: Catalog): void {
  for (const model of catalog.models)
    if (model.kind === "text" && !isKnownProfile(model.spec.tokenizer ?? ""))
      throw new Error(
        `catalog: text model ${model.id} has tokenizer ${JSON.stringify(model.spec.tokenizer)}, which ai-tokenizer does not know`,
      );
}

/**
 * Counts a message-API request's input tokens locally with the model's tokenizer (its
 * catalog `tokenizer` profile); no provider is called and nothing is charged. The key +
 * model + user window applies (spec 8.4).
 */
export function countTokensRoutes({ auth, rateLimit, catalog }: AppContext) {
  checkProfiles(catalog);
  const app = new Elysia({ name: "gw/routes/tokens" }).use(auth).use(rateLimit);
  for (const path of COUNT_TOKENS_PATHS)
    app.post(
      path,
      async ({ body, principal }) => {
        const model = catalog.get(body.model);
        if (!model || !allows(model, accessOf(principal)))
          throw new ApiError(
            "model_not_found",
            `The model '${body.model}' does not exist or is not available to this key`,
          );
        if (model.kind !== "text" || !model.spec.tokenizer)
          throw new ApiError(
            "unsupported_operation",
            `The model '${body.model}' is a ${model.kind} model; count_tokens takes message-API text models`,
          );
        const profile = await loadProfile(model.spec.tokenizer);
        return { input_tokens: countRequestTokens(profile, body) };
      },
      {
        auth: COUNT_TOKENS_AUTH,
        limit: { model: true },
        body: CountTokensRequest,
        response: {
          200: CountTokensResponse,
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          429: ErrorBody,
        },
        detail: {
          tags: ["tokens"],
          summary:
            "Input tokens of a message-API request, counted locally (free; no provider call)",
          security: BEARER_OR_API_KEY,
        },
      },
    );
  return app;
}
