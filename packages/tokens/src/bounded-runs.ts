import type { Tokenizer } from "ai-tokenizer";

/** Longest piece of text handed to the encoder at once. */
export const MAX_PIECE_CHARS = 1_000;

/**
 * The text in pieces of at most MAX_PIECE_CHARS, cut just before a space where there is
 * one (where the encoder's own pre-split would cut, so ordinary text counts the same),
 * else mid-run. The encoder's merge work grows with the square of a run without a break:
 * a 1 MiB run of one letter took minutes on the event loop; in pieces it takes
 * milliseconds, counted within a token per piece of the whole run.
 */
export function pieces(text: string): string[] {
  if (text.length <= MAX_PIECE_CHARS) return [text];
  const out: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + MAX_PIECE_CHARS, text.length);
    if (end < text.length) {
      const space = text.lastIndexOf(" ", end);
      if (space > start) end = space;
    }
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

/** The tokenizer with every text encoded piece by piece (same results for ordinary text). */
export function boundedRuns(tokenizer: Tokenizer): Tokenizer {
  const encode = tokenizer.encode.bind(tokenizer);
  return new Proxy(tokenizer, {
    get(target, property, receiver) {
      if (property === "encode")
        return (text: string, ...rest: unknown[]) => {
          const parts = pieces(text);
          if (parts.length === 1)
            return (encode as (...args: unknown[]) => number[])(text, ...rest);
          return parts.flatMap((part) =>
            (encode as (...args: unknown[]) => number[])(part, ...rest),
          );
        };
      if (property === "count")
        return (text: string) =>
          pieces(text).reduce(
            (sum, part) => sum + (encode as (t: string) => number[])(part).length,
            0,
          );
      return Reflect.get(target, property, receiver);
    },
  });
}
