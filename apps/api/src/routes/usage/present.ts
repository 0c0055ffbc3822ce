import type { KeyLogRecord, SpendRecord, SpendSummary as Summary } from "@gw/ledger";
import type {
  KeyLog,
  SpendRecord as SpendRecordBody,
  SpendSummary as SpendSummaryBody,
} from "@gw/schemas";
import { quotaToUsd } from "@gw/tariffs";

const unix = (date: Date) => Math.floor(date.getTime() / 1000);

export function presentRecord(record: SpendRecord): SpendRecordBody {
  return {
    id: Number(record.id),
    created_at: unix(record.createdAt),
    request_id: record.requestId,
    model: record.model,
    kind: record.kind,
    amount_usd: quotaToUsd(record.quota),
    quota: Number(record.quota),
    prompt_tokens: record.promptTokens,
    completion_tokens: record.completionTokens,
    cache_read_tokens: record.cacheReadTokens,
    cache_write_tokens: record.cacheWriteTokens,
  };
}

export function presentSummary(
  summary: Summary,
  period: { start: number; end: number },
): SpendSummaryBody["data"] {
  return {
    start_timestamp: period.start,
    end_timestamp: period.end,
    requests: summary.requests,
    net_usd: quotaToUsd(summary.netQuota),
    net_quota: Number(summary.netQuota),
    by_model: summary.byModel.map((model) => ({
      model: model.model,
      requests: model.requests,
      net_usd: quotaToUsd(model.netQuota),
      net_quota: Number(model.netQuota),
      prompt_tokens: model.promptTokens,
      completion_tokens: model.completionTokens,
    })),
  };
}

/** new-api's log types, which key-log clients already read: 2 consumption, 6 refund. */
const LOG_TYPE = { charge: 2, refund: 6 } as const;

export function presentKeyLog(record: KeyLogRecord): KeyLog["data"][number] {
  return {
    created_at: unix(record.createdAt),
    request_id: record.requestId,
    model_name: record.model,
    type: LOG_TYPE[record.kind],
    quota: Number(record.quota),
    prompt_tokens: record.promptTokens,
    completion_tokens: record.completionTokens,
    use_time: record.useTimeSeconds,
    is_stream: record.isStream,
    other: JSON.stringify(record.other),
  };
}
