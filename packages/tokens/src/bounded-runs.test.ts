import { expect, test } from "bun:test";
import { Tokenizer } from "ai-tokenizer";
import { MAX_PIECE_CHARS, pieces } from "./bounded-runs.ts";
import { countRequestTokens } from "./messages.ts";
import { loadProfile } from "./profiles.ts";

test("ordinary text is cut only before spaces, and counts the same as whole", async () => {
  const text = "The quick brown fox jumps over the lazy dog. ".repeat(200);
  const cut = pieces(text);
  expect(cut.join("")).toBe(text);
  expect(cut.every((piece) => piece.length <= MAX_PIECE_CHARS)).toBe(true);
  expect(cut.slice(1).every((piece) => piece.startsWith(" "))).toBe(true);
  const { tokenizer } = await loadProfile("openai/gpt-4o-mini");
  const raw = new Tokenizer(
    (await import("ai-tokenizer/encoding/o200k_base")) as ConstructorParameters<
      typeof Tokenizer
    >[0],
  );
  expect(tokenizer.count(text)).toBe(raw.encode(text).length);
  expect(tokenizer.encode(text).length).toBe(raw.encode(text).length);
});

test("a 1 MiB run without a break is counted in well under a second (was minutes: quadratic)", async () => {
  const profile = await loadProfile("anthropic/claude-sonnet-4.5");
  const began = performance.now();
  const count = countRequestTokens(profile, {
    model: "m",
    messages: [{ role: "user", content: "y".repeat(1024 * 1024) }],
  } as never);
  expect(count).toBeGreaterThan(1000);
  // Not a speed assertion: a guard against the quadratic case coming back (it took minutes).
  expect(performance.now() - began).toBeLessThan(20_000);
});
