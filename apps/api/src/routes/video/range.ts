/** A byte range of a file: inclusive start and end. */
export type ByteRange = { start: number; end: number };

/**
 * Reads an HTTP Range header (RFC 9110 §14) against a file's size: null means serve the
 * whole file (no header, another unit, or several ranges, which a server may answer in
 * full); "unsatisfiable" means 416. One `bytes=a-b`, `bytes=a-` or `bytes=-n` range is served.
 */
export function parseRange(
  header: string | null,
  size: number,
): ByteRange | null | "unsatisfiable" {
  if (header === null) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, from, to] = match as unknown as [string, string, string];
  if (from === "" && to === "") return null;
  if (from === "") {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === "" ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || (to !== "" && Number(to) < start)) return "unsatisfiable";
  return { start, end };
}
