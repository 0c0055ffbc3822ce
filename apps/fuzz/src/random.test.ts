// Proves the seeded source: the same (seed, case) always draws the same numbers, whatever
// ran before, and neighbouring cases and seeds draw different ones.
import { expect, test } from "bun:test";
import { Random } from "./random.ts";

const draws = (random: Random) => Array.from({ length: 8 }, () => random.uint32());

test("a case's stream depends only on its seed and index", () => {
  const first = draws(Random.forCase(7, 42));
  draws(Random.forCase(7, 41));
  expect(draws(Random.forCase(7, 42))).toEqual(first);
});

test("neighbouring cases and seeds differ", () => {
  const base = draws(Random.forCase(7, 42));
  expect(draws(Random.forCase(7, 43))).not.toEqual(base);
  expect(draws(Random.forCase(8, 42))).not.toEqual(base);
});

test("int, pick and weighted stay within their ranges", () => {
  const random = new Random(1);
  for (let i = 0; i < 1_000; i++) {
    const value = random.int(-3, 3);
    expect(value).toBeGreaterThanOrEqual(-3);
    expect(value).toBeLessThanOrEqual(3);
    expect(["a", "b"]).toContain(random.pick(["a", "b"]));
    expect(
      random.weighted([
        [0, "never"],
        [1, "always"],
      ]),
    ).toBe("always");
  }
});
