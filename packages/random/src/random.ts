/** SplitMix32 step: spreads a value over 32 bits (seeding, and deriving one case's seed). */
function mix32(value: number): number {
  let z = (value + 0x9e3779b9) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0;

/**
 * A seeded random source (SplitMix32 seeding a xoshiro128**), so one seed repeats a run:
 * the soak's accounts, calls and fault schedule, the fuzzer's cases, a test's
 * interleaving. Parts that must not shift each other take their own streams: `fork` by
 * name (the soak's parts), `forCase` by index (the fuzzer's cases).
 */
export class Random {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(private readonly seed: number) {
    let x = seed >>> 0;
    const next = () => {
      const mixed = mix32(x);
      x = (x + 0x9e3779b9) >>> 0;
      return mixed;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next() || 1;
  }

  /** The stream of case `index` of a run: the same whichever cases ran before it. */
  static forCase(seed: number, index: number): Random {
    return new Random(mix32(mix32(seed) ^ Math.imul(index + 1, 0x27d4eb2d)));
  }

  /** A 32-bit unsigned integer. */
  uint32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.uint32() / 4_294_967_296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of `options` by weight: `[[weight, value], ...]`. */
  weighted<T>(options: readonly (readonly [number, T])[]): T {
    const total = options.reduce((sum, [weight]) => sum + weight, 0);
    let at = this.next() * total;
    for (const [weight, value] of options) {
      at -= weight;
      if (at < 0) return value;
    }
    return options[options.length - 1]![1];
  }

  /** One key of `weights`, drawn in proportion to its weight. */
  weightedKey<K extends string>(weights: Readonly<Record<K, number>>): K {
    return this.weighted(
      (Object.entries(weights) as [K, number][]).map(([key, weight]) => [weight, key] as const),
    );
  }

  /** `length` characters drawn from `alphabet`. */
  string(length: number, alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"): string {
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.uint32() & 0xff;
    return out;
  }

  /** An independent stream named `label`, derived from this one's seed (not its draws). */
  fork(label: string): Random {
    let hash = (this.seed ^ 0x811c9dc5) >>> 0;
    for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 16777619);
    return new Random(hash >>> 0);
  }
}

/** A fresh seed when none is given: printed, so the run can be repeated. */
export function freshSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]! % 1_000_000_000;
}
