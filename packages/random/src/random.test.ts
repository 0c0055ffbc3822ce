// Proves the seeded source: a seed draws the numbers it always drew (so a soak seed
// repeats its run), the same (seed, case) draws the same numbers whatever ran before,
// and neighbouring cases and seeds draw different ones.
import { expect, test } from "bun:test";
import { Random } from "./random.ts";

const draws = (random: Random, length = 8) => Array.from({ length }, () => random.uint32());

test("a seed draws what it always drew", () => {
  expect(draws(new Random(16), 6)).toEqual([
    3229448919, 2618730479, 246375841, 922280361, 662204326, 309209915,
  ]);
  expect(new Random(132348045).fork("calls").uint32()).toBe(2079532798);
});

test("fork streams depend on the seed and the name only", () => {
  const random = new Random(5);
  const first = draws(random.fork("a"));
  draws(random);
  expect(draws(random.fork("a"))).toEqual(first);
  expect(draws(random.fork("b"))).not.toEqual(first);
});

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
    expect(random.weightedKey({ never: 0, always: 1 })).toBe("always");
  }
});
