export { KEY_LOG_LIMIT, type KeyLogRecord, keyLog } from "./key-log.ts";
export {
  type Page,
  type PageQuery,
  type Period,
  type SpendRecord,
  spendPage,
  spendRecords,
} from "./records.ts";
export { rolledThrough, rollSpendDays } from "./rollup.ts";
export { type ModelSpend, type SpendSummary, spendSummary } from "./summary.ts";
