/** Number formatting and the printed tables of every bench. */
export function fmtRate(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-";
}

export function fmtMs(value: number): string {
  if (!Number.isFinite(value)) return "-";
  return value < 10 ? value.toFixed(3) : value.toFixed(1);
}

/** `value / base` as "0.42x"; "-" when either side is missing. */
export function fmtRatio(value: number, base: number): string {
  if (!Number.isFinite(value) || !Number.isFinite(base) || base === 0) return "-";
  return `${(value / base).toFixed(2)}x`;
}

/** A plain-text table; columns whose cells all look numeric are right-aligned. */
export function printTable(title: string, headers: string[], rows: string[][]): void {
  const widths = headers.map((header, col) =>
    Math.max(header.length, ...rows.map((row) => (row[col] ?? "").length)),
  );
  const numeric = headers.map((_, col) =>
    rows.every((row) => /^[-\d.,x% ]*$/.test(row[col] ?? "")),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, col) => {
        const width = widths[col] ?? 0;
        return numeric[col] ? cell.padStart(width) : cell.padEnd(width);
      })
      .join(" | ");
  console.log(`\n${title}`);
  console.log(line(headers));
  console.log(widths.map((width) => "-".repeat(width)).join("-|-"));
  for (const row of rows) console.log(line(row));
}
