import { type Static, Type } from "@sinclair/typebox";

const Unix = (description: string) => Type.Integer({ description });
const Counter = (description: string) => Type.Integer({ minimum: 0, description });

/** Query of GET /api/usage/self/requests and /summary (spec 4.10); parsed by the route. */
export const SpendPeriodQuery = Type.Object({
  start_timestamp: Type.Optional(
    Type.String({ description: "Unix seconds, inclusive; default: end − 30 days." }),
  ),
  end_timestamp: Type.Optional(
    Type.String({
      description:
        "Unix seconds, exclusive; default: now. At most one day in the future; the period is at most 90 days.",
    }),
  ),
});

export const SpendHistoryQuery = Type.Object({
  ...SpendPeriodQuery.properties,
  limit: Type.Optional(Type.String({ description: "Records per page, 1 to 100; default 50." })),
  cursor: Type.Optional(
    Type.String({ description: "A positive integer: `next_cursor` of the previous page." }),
  ),
  format: Type.Optional(
    Type.String({
      description:
        "`csv` streams every record of the period as CSV (as does `Accept: text/csv`); `limit` does not apply. `json` (the default) pages.",
    }),
  ),
});

/** One charge or refund (spec 2.11). */
export const SpendRecord = Type.Object({
  id: Type.Integer({ description: "Record ID; records come in descending ID order." }),
  created_at: Unix("Unix seconds."),
  request_id: Type.Union([Type.String(), Type.Null()]),
  model: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Union([Type.Literal("charge"), Type.Literal("refund")]),
  amount_usd: Type.Number({ description: "Amount in USD; refunds are negative." }),
  quota: Type.Integer({ description: "Amount in quota (1 USD = 500,000); refunds are negative." }),
  prompt_tokens: Counter("Input tokens."),
  completion_tokens: Counter("Output tokens."),
  cache_read_tokens: Counter("Cached input tokens read."),
  cache_write_tokens: Counter("Input tokens written to the cache."),
});
export type SpendRecord = Static<typeof SpendRecord>;

export const SpendHistory = Type.Object({
  success: Type.Boolean(),
  data: Type.Object({
    items: Type.Array(SpendRecord),
    has_more: Type.Boolean({ description: "Another page exists." }),
    next_cursor: Type.Optional(
      Type.Integer({ description: "Pass as `cursor` for the next page; absent on the last page." }),
    ),
  }),
});
export type SpendHistory = Static<typeof SpendHistory>;

const Sums = {
  requests: Counter("Charge records; refunds do not add to it."),
  net_usd: Type.Number({ description: "Spend net of refunds, in USD." }),
  net_quota: Type.Integer({ description: "Spend net of refunds, in quota." }),
};

/** GET /api/usage/self/summary (spec 2.12). */
export const SpendSummary = Type.Object({
  success: Type.Boolean(),
  data: Type.Object({
    start_timestamp: Unix("The period's actual start (inclusive)."),
    end_timestamp: Unix("The period's actual end (exclusive)."),
    ...Sums,
    by_model: Type.Array(
      Type.Object({
        model: Type.Union([Type.String(), Type.Null()]),
        ...Sums,
        prompt_tokens: Counter("Input tokens."),
        completion_tokens: Counter("Output tokens."),
      }),
    ),
  }),
});
export type SpendSummary = Static<typeof SpendSummary>;

/** GET /api/log/token (spec 2.13): the key's newest records. */
export const KeyLog = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  data: Type.Array(
    Type.Object({
      created_at: Unix("Unix seconds."),
      request_id: Type.Union([Type.String(), Type.Null()]),
      model_name: Type.Union([Type.String(), Type.Null()]),
      type: Type.Integer({
        description: "2 = consumption (a charge), 6 = refund (new-api's codes).",
      }),
      quota: Type.Integer({ description: "Quota of the record; refunds are negative." }),
      prompt_tokens: Counter("Input tokens."),
      completion_tokens: Counter("Output tokens."),
      use_time: Counter("Seconds from the start of the call to this record."),
      is_stream: Type.Boolean(),
      other: Type.String({
        description:
          "A JSON object as a string: `estimated_prompt_tokens` and `provider_prompt_overhead_tokens` where known.",
      }),
    }),
  ),
});
export type KeyLog = Static<typeof KeyLog>;
