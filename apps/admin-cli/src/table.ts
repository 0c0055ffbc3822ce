/** Longest cell shown; a longer value (a long model list) is cut with an ellipsis. */
const MAX_CELL_WIDTH = 60;

export interface Column {
  header: string;
  /** Numbers and amounts read best right-aligned. */
  align?: "left" | "right";
}

/**
 * What the terminal will show: control characters (a name could carry escape sequences
 * or newlines) become `?`, and an overlong value is cut.
 */
export function cell(value: string, maxWidth = MAX_CELL_WIDTH): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what is removed.
  const printable = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  if (Bun.stringWidth(printable) <= maxWidth) return printable;
  let cut = printable;
  while (Bun.stringWidth(cut) > maxWidth - 1) cut = cut.slice(0, -1);
  return `${cut}…`;
}

function pad(value: string, width: number, align: Column["align"]): string {
  const fill = " ".repeat(Math.max(0, width - Bun.stringWidth(value)));
  return align === "right" ? fill + value : value + fill;
}

/** Rows under upper-case headers, columns two spaces apart, no trailing blanks. */
export function renderTable(columns: Column[], rows: string[][]): string {
  const cells = rows.map((row) => columns.map((_, index) => cell(row[index] ?? "")));
  const widths = columns.map((column, index) =>
    Math.max(Bun.stringWidth(column.header), ...cells.map((row) => Bun.stringWidth(row[index]!))),
  );
  const line = (values: string[]) =>
    values
      .map((value, index) => pad(value, widths[index]!, columns[index]!.align))
      .join("  ")
      .trimEnd();
  return [line(columns.map((column) => column.header.toUpperCase())), ...cells.map(line)].join(
    "\n",
  );
}

/** One record as `label  value` lines, labels aligned, for `show` commands. */
export function renderFields(fields: [label: string, value: string][]): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `  ${label.padEnd(width)}  ${cell(value)}`).join("\n");
}
