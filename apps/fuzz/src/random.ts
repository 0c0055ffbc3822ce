/** SplitMix32 step: spreads a seed over 32 bits (also used to derive one case's seed). */
function mix32(value: number): number {
  let z = (value + 0x9e3779b9) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0;

/**
 * A seeded random source (xoshiro128**). Every case draws from its own stream,
 * `Random.forCase(seed, index)`, so a case is the same whichever cases ran before it:
 * `--seed S --case I` reproduces it alone.
 */
export class Random {
  private s: [number, number, number, number];

  constructor(seed: number) {
    const a = mix32(seed);
    const b = mix32(a);
    const c = mix32(b);
    this.s = [a, b, c, mix32(c) || 1];
  }

  static forCase(seed: number, index: number): Random {
    return new Random(mix32(mix32(seed) ^ Math.imul(index + 1, 0x27d4eb2d)));
  }

  uint32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
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
}
