import type { DiagonalImage } from "./diagonal.ts";

/**
 * Lossless WebP (VP8L, no transforms, no colour cache, one prefix-code group). Row 0 and
 * the last column are literals; every other row is one backward reference to the row
 * above shifted by one pixel (distance width - 1), which is exactly a diagonal image.
 */

const CODE_LENGTH_ORDER = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
const LENGTH_PREFIXES = 24;
const DISTANCE_PREFIXES = 40;
const MAX_COPY = 4096;
/** Distance codes 1..120 name 2-D neighbours; a linear distance d is written as d + 120. */
const PLANE_CODES = 120;

class BitWriter {
  bytes = new Uint8Array(1 << 12);
  length = 0;
  private acc = 0;
  private count = 0;

  /** Writes the low `size` bits of `value`, least significant first; size <= 24. */
  write(value: number, size: number): void {
    this.acc |= value << this.count;
    this.count += size;
    while (this.count >= 8) {
      if (this.length === this.bytes.length) {
        const grown = new Uint8Array(this.bytes.length * 2);
        grown.set(this.bytes);
        this.bytes = grown;
      }
      this.bytes[this.length++] = this.acc & 0xff;
      this.acc >>>= 8;
      this.count -= 8;
    }
  }

  finish(): Uint8Array {
    if (this.count > 0) this.write(0, 8 - this.count);
    return this.bytes.subarray(0, this.length);
  }
}

/** Prefix coding of lengths and distances (VP8L spec 5.2.2): symbol, extra bit count, extra bits. */
function prefixOf(value: number): { symbol: number; extraSize: number; extra: number } {
  const x = value - 1;
  if (x < 4) return { symbol: x, extraSize: 0, extra: 0 };
  const high = 31 - Math.clz32(x);
  const second = (x >>> (high - 1)) & 1;
  return { symbol: 2 * high + second, extraSize: high - 1, extra: x & ((1 << (high - 1)) - 1) };
}

/**
 * Code lengths of a Huffman code over `counts`, none longer than `maxLength`. When the plain
 * tree is too deep, rare symbols are counted as if more frequent until it fits (the
 * approach of zlib's and libwebp's encoders). At least two symbols get a code, because a
 * one-symbol code with a nonzero length is not complete.
 */
export function huffmanLengths(source: ArrayLike<number>, maxLength: number): Uint8Array {
  const counts = Array.from(source);
  const used = counts.filter((c) => c > 0).length;
  if (used === 0) counts[0] = 1;
  if (used <= 1) counts[counts[0]! > 0 ? 1 : 0] = 1;
  for (let floor = 1; ; floor *= 2) {
    const lengths = treeDepths(counts.map((c) => (c > 0 ? Math.max(c, floor) : 0)));
    if (Math.max(...lengths) <= maxLength) return lengths;
  }
}

function treeDepths(counts: number[]): Uint8Array {
  interface Node {
    weight: number;
    symbols: number[];
  }
  let nodes: Node[] = [];
  counts.forEach((weight, symbol) => {
    if (weight > 0) nodes.push({ weight, symbols: [symbol] });
  });
  const lengths = new Uint8Array(counts.length);
  // Alphabets here have at most 280 symbols, so re-sorting is cheap and simple.
  while (nodes.length > 1) {
    nodes.sort((a, b) => a.weight - b.weight || a.symbols[0]! - b.symbols[0]!);
    const [a, b] = [nodes[0]!, nodes[1]!];
    for (const s of a.symbols) lengths[s]!++;
    for (const s of b.symbols) lengths[s]!++;
    nodes = [
      { weight: a.weight + b.weight, symbols: [...a.symbols, ...b.symbols] },
      ...nodes.slice(2),
    ];
  }
  return lengths;
}

/** Canonical codes (as in deflate), bit-reversed because VP8L reads codes MSB-first from an LSB-first stream. */
function canonicalCodes(lengths: Uint8Array): Uint32Array {
  const lengthCount = new Uint32Array(16);
  for (const length of lengths) if (length > 0) lengthCount[length]!++;
  const next = new Uint32Array(16);
  let code = 0;
  for (let length = 1; length < 16; length++) {
    code = (code + lengthCount[length - 1]!) << 1;
    next[length] = code;
  }
  const codes = new Uint32Array(lengths.length);
  lengths.forEach((length, symbol) => {
    if (length === 0) return;
    let value = next[length]!++;
    let reversed = 0;
    for (let i = 0; i < length; i++) {
      reversed = (reversed << 1) | (value & 1);
      value >>>= 1;
    }
    codes[symbol] = reversed;
  });
  return codes;
}

interface PrefixCode {
  lengths: Uint8Array;
  codes: Uint32Array;
}

/** Writes a prefix code for `counts` and returns it; a single symbol below 256 costs 0 bits per use. */
function writePrefixCode(out: BitWriter, counts: Uint32Array): PrefixCode {
  const used: number[] = [];
  counts.forEach((count, symbol) => {
    if (count > 0) used.push(symbol);
  });
  if (used.length <= 1 && (used[0] ?? 0) < 256) {
    const symbol = used[0] ?? 0;
    out.write(1, 1); // simple code
    out.write(0, 1); // one symbol
    if (symbol < 2) {
      out.write(0, 1);
      out.write(symbol, 1);
    } else {
      out.write(1, 1);
      out.write(symbol, 8);
    }
    return { lengths: new Uint8Array(counts.length), codes: new Uint32Array(counts.length) };
  }
  const lengths = huffmanLengths(counts, 15);
  writeCodeLengths(out, lengths);
  return { lengths, codes: canonicalCodes(lengths) };
}

/** Normal code: the code lengths, themselves coded with a code-length code (spec 3.7.2.1.2). */
function writeCodeLengths(out: BitWriter, lengths: Uint8Array): void {
  const tokens: { symbol: number; extraSize: number; extra: number }[] = [];
  for (let i = 0; i < lengths.length; ) {
    const length = lengths[i]!;
    let run = 1;
    while (length === 0 && i + run < lengths.length && lengths[i + run] === 0 && run < 138) run++;
    if (length === 0 && run >= 11) tokens.push({ symbol: 18, extraSize: 7, extra: run - 11 });
    else if (length === 0 && run >= 3) tokens.push({ symbol: 17, extraSize: 3, extra: run - 3 });
    else {
      run = 1;
      tokens.push({ symbol: length, extraSize: 0, extra: 0 });
    }
    i += run;
  }
  const histogram = new Uint32Array(19);
  for (const token of tokens) histogram[token.symbol]!++;
  const codeLengthLengths = huffmanLengths(histogram, 7);
  const codeLengthCodes = canonicalCodes(codeLengthLengths);
  let count = CODE_LENGTH_ORDER.length;
  while (count > 4 && codeLengthLengths[CODE_LENGTH_ORDER[count - 1]!] === 0) count--;
  out.write(0, 1); // normal code
  out.write(count - 4, 4);
  for (let i = 0; i < count; i++) out.write(codeLengthLengths[CODE_LENGTH_ORDER[i]!]!, 3);
  out.write(0, 1); // max_symbol = alphabet size
  for (const token of tokens) {
    out.write(codeLengthCodes[token.symbol]!, codeLengthLengths[token.symbol]!);
    if (token.extraSize > 0) out.write(token.extra, token.extraSize);
  }
}

type Op = { literal: number } | { copy: number };

/** The pixel stream as literals (line indexes) and copies (lengths), in scan order. */
function* operations(width: number, height: number): Generator<Op> {
  for (let x = 0; x < width; x++) yield { literal: x };
  for (let y = 1; y < height; y++) {
    for (let left = width - 1; left > 0; left -= MAX_COPY) yield { copy: Math.min(left, MAX_COPY) };
    yield { literal: y + width - 1 };
  }
}

export function encodeWebp(image: DiagonalImage): Uint8Array {
  const { width, height, channels, line } = image;
  const argb = (k: number): [number, number, number, number] => {
    const at = k * channels;
    if (channels === 1) return [255, line[at]!, line[at]!, line[at]!];
    return [channels === 4 ? line[at + 3]! : 255, line[at]!, line[at + 1]!, line[at + 2]!];
  };
  const distance = prefixOf(width - 1 + PLANE_CODES);
  const green = new Uint32Array(256 + LENGTH_PREFIXES);
  const red = new Uint32Array(256);
  const blue = new Uint32Array(256);
  const alpha = new Uint32Array(256);
  const distances = new Uint32Array(DISTANCE_PREFIXES);
  let hasAlpha = false;
  for (const op of operations(width, height)) {
    if ("copy" in op) {
      green[256 + prefixOf(op.copy).symbol]!++;
      distances[distance.symbol]!++;
      continue;
    }
    const [a, r, g, b] = argb(op.literal);
    alpha[a]!++;
    red[r]!++;
    green[g]!++;
    blue[b]!++;
    hasAlpha ||= a !== 255;
  }
  const out = new BitWriter();
  out.write(0x2f, 8);
  out.write(width - 1, 14);
  out.write(height - 1, 14);
  out.write(hasAlpha ? 1 : 0, 1);
  out.write(0, 3); // version
  out.write(0, 1); // no transform
  out.write(0, 1); // no colour cache
  out.write(0, 1); // no meta prefix codes
  const codes = [green, red, blue, alpha, distances].map((counts) => writePrefixCode(out, counts));
  const [gc, rc, bc, ac, dc] = codes as [
    PrefixCode,
    PrefixCode,
    PrefixCode,
    PrefixCode,
    PrefixCode,
  ];
  const emit = (code: PrefixCode, symbol: number) =>
    out.write(code.codes[symbol]!, code.lengths[symbol]!);
  for (const op of operations(width, height)) {
    if ("copy" in op) {
      const length = prefixOf(op.copy);
      emit(gc, 256 + length.symbol);
      out.write(length.extra, length.extraSize);
      emit(dc, distance.symbol);
      out.write(distance.extra, distance.extraSize);
      continue;
    }
    const [a, r, g, b] = argb(op.literal);
    emit(gc, g);
    emit(rc, r);
    emit(bc, b);
    emit(ac, a);
  }
  return riff(out.finish());
}

function riff(vp8l: Uint8Array): Uint8Array {
  const padded = vp8l.length + (vp8l.length & 1);
  const out = new Uint8Array(20 + padded);
  const view = new DataView(out.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < 4; i++) out[at + i] = text.charCodeAt(i);
  };
  ascii(0, "RIFF");
  view.setUint32(4, 12 + padded, true);
  ascii(8, "WEBP");
  ascii(12, "VP8L");
  view.setUint32(16, vp8l.length, true);
  out.set(vp8l, 20);
  return out;
}
