// Proves the streaming multipart bounds: a part over its limit or a part too many is
// refused while bytes arrive, delimiters split across chunks are still found, and a
// form within its limits passes whatever its chunking.
import { expect, test } from "bun:test";
import { MultipartBounds, PART_HEADER_BYTES } from "./multipart-bounds.ts";

const limits = { maxBytes: 1 << 30, maxPartBytes: 1000, maxParts: 3 };
const part = (name: string, size: number) =>
  `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${"x".repeat(size)}\r\n`;

function feedIn(body: string, chunkBytes: number): void {
  const bounds = new MultipartBounds("b", limits);
  const bytes = new TextEncoder().encode(body);
  for (let i = 0; i < bytes.length; i += chunkBytes) bounds.feed(bytes.subarray(i, i + chunkBytes));
}

test("a form within its limits passes at every chunk size", () => {
  const body = `${part("a", 1000)}${part("b", 10)}${part("c", 0)}--b--\r\n`;
  for (const size of [1, 2, 3, 5, 7, 64, body.length])
    expect(() => feedIn(body, size)).not.toThrow();
});

test("an oversized part or one part too many is refused", () => {
  const big = `${part("a", 1000 + PART_HEADER_BYTES + 10)}--b--\r\n`;
  for (const size of [1, 7, 4096]) expect(() => feedIn(big, size)).toThrow("exceeds 1000 bytes");
  const many = `${part("a", 1)}${part("b", 1)}${part("c", 1)}${part("d", 1)}--b--\r\n`;
  for (const size of [1, 3, many.length])
    expect(() => feedIn(many, size)).toThrow("more than 3 parts");
  // With no delimiter at all the preamble is the part that grows.
  expect(() => feedIn("y".repeat(20_000), 333)).toThrow("exceeds");
});
