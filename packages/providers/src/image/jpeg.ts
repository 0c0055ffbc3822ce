import type { DiagonalImage } from "./diagonal.ts";

/**
 * Baseline JPEG (JFIF, 4:4:4, Annex K quantisation and Huffman tables). Block (bx, by) of a
 * diagonal image depends only on bx + by, so each distinct block is transformed once and
 * only the entropy coding runs per block.
 */

const ZIGZAG = Uint8Array.from([
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
  13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52,
  45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
]);
const LUMA_QUANT = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
  14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113,
  92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const CHROMA_QUANT = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
  47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
];

interface HuffmanSpec {
  counts: number[]; // number of codes of each length 1..16
  symbols: number[];
}
const DC_LUMA: HuffmanSpec = {
  counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
  symbols: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
};
const DC_CHROMA: HuffmanSpec = {
  counts: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
  symbols: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
};
const AC_LUMA: HuffmanSpec = {
  counts: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d],
  symbols: hexBytes(
    "01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa",
  ),
};
const AC_CHROMA: HuffmanSpec = {
  counts: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
  symbols: hexBytes(
    "000102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9fa",
  ),
};

function hexBytes(hex: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hex.length; i += 2) out.push(Number.parseInt(hex.slice(i, i + 2), 16));
  return out;
}

interface HuffmanTable {
  codes: Uint16Array; // by symbol
  lengths: Uint8Array; // by symbol; 0 = not in the table
}

/** Canonical codes from the counts per length (ITU T.81 Annex C). */
function buildTable(spec: HuffmanSpec): HuffmanTable {
  const codes = new Uint16Array(256);
  const lengths = new Uint8Array(256);
  let code = 0;
  let k = 0;
  for (let length = 1; length <= 16; length++) {
    for (let i = 0; i < spec.counts[length - 1]!; i++) {
      const symbol = spec.symbols[k++]!;
      codes[symbol] = code++;
      lengths[symbol] = length;
    }
    code <<= 1;
  }
  if (k !== spec.symbols.length) throw new Error("JPEG Huffman spec counts do not match symbols");
  return { codes, lengths };
}

const TABLES = {
  dcLuma: buildTable(DC_LUMA),
  acLuma: buildTable(AC_LUMA),
  dcChroma: buildTable(DC_CHROMA),
  acChroma: buildTable(AC_CHROMA),
};

function scaledQuant(base: number[], quality: number): Uint8Array {
  const scale = quality < 50 ? 5000 / quality : 200 - quality * 2;
  const out = new Uint8Array(64);
  for (let i = 0; i < 64; i++) {
    out[i] = Math.min(255, Math.max(1, Math.floor((base[i]! * scale + 50) / 100)));
  }
  return out;
}

/** cos((2x + 1) u pi / 16) scaled by C(u) / 2, so F(u, v) = sum over x, y of COS[u][x] COS[v][y] f. */
const COS = (() => {
  const table = new Float64Array(64);
  for (let u = 0; u < 8; u++) {
    const c = u === 0 ? Math.SQRT1_2 : 1;
    for (let x = 0; x < 8; x++)
      table[u * 8 + x] = (c / 2) * Math.cos(((2 * x + 1) * u * Math.PI) / 16);
  }
  return table;
})();

/** Forward DCT and quantisation of one 8x8 block, returned in zigzag order. */
function transform(block: Float64Array, quant: Uint8Array): Int16Array {
  const rows = new Float64Array(64);
  for (let y = 0; y < 8; y++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0;
      for (let x = 0; x < 8; x++) sum += COS[u * 8 + x]! * block[y * 8 + x]!;
      rows[y * 8 + u] = sum;
    }
  }
  const out = new Int16Array(64);
  for (let v = 0; v < 8; v++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0;
      for (let y = 0; y < 8; y++) sum += COS[v * 8 + y]! * rows[y * 8 + u]!;
      out[v * 8 + u] = Math.round(sum / quant[v * 8 + u]!);
    }
  }
  const zigzag = new Int16Array(64);
  for (let i = 0; i < 64; i++) zigzag[i] = out[ZIGZAG[i]!]!;
  return zigzag;
}

class BitWriter {
  bytes = new Uint8Array(1 << 16);
  length = 0;
  private acc = 0;
  private count = 0;

  /** Appends the low `size` bits of `code`, most significant first; size <= 16. */
  write(code: number, size: number): void {
    this.acc = (this.acc << size) | (code & ((1 << size) - 1));
    this.count += size;
    while (this.count >= 8) {
      this.count -= 8;
      const byte = (this.acc >>> this.count) & 0xff;
      this.push(byte);
      if (byte === 0xff) this.push(0); // byte stuffing
      this.acc &= (1 << this.count) - 1;
    }
  }

  push(byte: number): void {
    if (this.length === this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes[this.length++] = byte;
  }

  /** Pads the last byte with one bits, as T.81 F.1.2.3 asks. */
  finish(): Uint8Array {
    if (this.count > 0) this.write(0x7f, 8 - this.count);
    return this.bytes.subarray(0, this.length);
  }
}

function magnitude(value: number): { size: number; bits: number } {
  const abs = Math.abs(value);
  const size = abs === 0 ? 0 : 32 - Math.clz32(abs);
  return { size, bits: value < 0 ? (value - 1) & ((1 << size) - 1) : value };
}

function encodeBlock(
  out: BitWriter,
  coefficients: Int16Array,
  previousDc: number,
  dc: HuffmanTable,
  ac: HuffmanTable,
): void {
  const diff = magnitude(coefficients[0]! - previousDc);
  out.write(dc.codes[diff.size]!, dc.lengths[diff.size]!);
  if (diff.size > 0) out.write(diff.bits, diff.size);
  let run = 0;
  for (let i = 1; i < 64; i++) {
    const value = coefficients[i]!;
    if (value === 0) {
      run++;
      continue;
    }
    while (run > 15) {
      out.write(ac.codes[0xf0]!, ac.lengths[0xf0]!);
      run -= 16;
    }
    const m = magnitude(value);
    const symbol = (run << 4) | m.size;
    out.write(ac.codes[symbol]!, ac.lengths[symbol]!);
    out.write(m.bits, m.size);
    run = 0;
  }
  if (run > 0) out.write(ac.codes[0]!, ac.lengths[0]!);
}

/** Y, Cb, Cr planes of the line (level-shifted by -128), extended to `length` pixels. */
function lineToYCbCr(image: DiagonalImage, length: number): Float64Array[] {
  const planes = [new Float64Array(length), new Float64Array(length), new Float64Array(length)];
  const pixels = image.width + image.height - 1;
  const { channels, line } = image;
  for (let k = 0; k < length; k++) {
    const at = Math.min(k, pixels - 1) * channels;
    const r = line[at]!;
    const g = channels === 1 ? r : line[at + 1]!;
    const b = channels === 1 ? r : line[at + 2]!;
    planes[0]![k] = 0.299 * r + 0.587 * g + 0.114 * b - 128;
    planes[1]![k] = -0.168736 * r - 0.331264 * g + 0.5 * b;
    planes[2]![k] = 0.5 * r - 0.418688 * g - 0.081312 * b;
  }
  return planes;
}

function segment(marker: number, body: number[]): number[] {
  return [0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body];
}

function headers(width: number, height: number, quants: Uint8Array[]): number[] {
  const jfif = segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const dqt = quants.flatMap((q, id) =>
    segment(0xdb, [id, ...Array.from(ZIGZAG, (natural) => q[natural]!)]),
  );
  const sof = segment(0xc0, [
    8,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    3,
    ...[1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1],
  ]);
  const dht = (
    [
      [0x00, DC_LUMA],
      [0x10, AC_LUMA],
      [0x01, DC_CHROMA],
      [0x11, AC_CHROMA],
    ] as const
  ).flatMap(([id, spec]) => segment(0xc4, [id, ...spec.counts, ...spec.symbols]));
  const sos = segment(0xda, [3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]);
  return [0xff, 0xd8, ...jfif, ...dqt, ...sof, ...dht, ...sos];
}

/** Encodes an opaque diagonal image (grey or RGB; alpha is dropped) as a baseline JPEG. */
export function encodeJpeg(image: DiagonalImage, quality = 90): Uint8Array {
  const { width, height } = image;
  const blocksWide = Math.ceil(width / 8);
  const blocksHigh = Math.ceil(height / 8);
  const diagonals = blocksWide + blocksHigh - 1;
  const planes = lineToYCbCr(image, 8 * (blocksWide + blocksHigh) - 1);
  const quants = [scaledQuant(LUMA_QUANT, quality), scaledQuant(CHROMA_QUANT, quality)];
  // Coefficients of each distinct block, per component: block (bx, by) is diagonal bx + by.
  const cache = planes.map((plane, component) => {
    const quant = quants[component === 0 ? 0 : 1]!;
    const blocks: Int16Array[] = [];
    const block = new Float64Array(64);
    for (let d = 0; d < diagonals; d++) {
      for (let y = 0; y < 8; y++) {
        for (let x = 0; x < 8; x++) block[y * 8 + x] = plane[8 * d + x + y]!;
      }
      blocks.push(transform(block, quant));
    }
    return blocks;
  });
  const out = new BitWriter();
  for (const byte of headers(width, height, quants)) out.push(byte);
  const previous = [0, 0, 0];
  for (let by = 0; by < blocksHigh; by++) {
    for (let bx = 0; bx < blocksWide; bx++) {
      for (let c = 0; c < 3; c++) {
        const coefficients = cache[c]![bx + by]!;
        const [dc, ac] =
          c === 0 ? [TABLES.dcLuma, TABLES.acLuma] : [TABLES.dcChroma, TABLES.acChroma];
        encodeBlock(out, coefficients, previous[c]!, dc, ac);
        previous[c] = coefficients[0]!;
      }
    }
  }
  out.finish();
  out.push(0xff);
  out.push(0xd9);
  return out.bytes.slice(0, out.length);
}
