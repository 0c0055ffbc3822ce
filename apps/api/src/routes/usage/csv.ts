import type { SpendRecord } from "@gw/ledger";
import { presentRecord } from "./present.ts";

/** The CSV columns: the JSON record's fields, in its order. */
export const CSV_COLUMNS = [
  "id",
  "created_at",
  "request_id",
  "model",
  "kind",
  "amount_usd",
  "quota",
  "prompt_tokens",
  "completion_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
] as const;

/**
 * One CSV cell (RFC 4180). Text that a spreadsheet would run as a formula (= + - @ first)
 * is prefixed with a quote mark; numbers are written as they are.
 */
function cell(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function csvHeader(): string {
  return `${CSV_COLUMNS.join(",")}\r\n`;
}

export function csvRows(records: SpendRecord[]): string {
  let out = "";
  for (const record of records) {
    const body = presentRecord(record);
    out += `${CSV_COLUMNS.map((column) => cell(body[column])).join(",")}\r\n`;
  }
  return out;
}

/** A streamed CSV body: the header, then each batch of records as the database yields it. */
export function csvStream(batches: AsyncGenerator<SpendRecord[]>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvHeader()));
        return;
      }
      const next = await batches.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(csvRows(next.value)));
    },
    async cancel() {
      await batches.return(undefined);
    },
  });
}
