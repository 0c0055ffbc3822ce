// Proves imageSize's rules: size "WxH" wins, else resolution and aspect ratio with sides
// rounded to multiples of 8, else 1024x1024; input the catalog should refuse throws.
import { expect, test } from "bun:test";
import { imageSize } from "./size.ts";

test("size WxH wins over resolution, exactly as asked", () => {
  expect(imageSize({ size: "1536x1024", resolution: "4K" })).toEqual({ width: 1536, height: 1024 });
  expect(imageSize({ size: "1001x17" })).toEqual({ width: 1001, height: 17 });
});

test("resolution sets the long side and aspect_ratio the short one, in multiples of 8", () => {
  expect(imageSize({ resolution: "1K" })).toEqual({ width: 1024, height: 1024 });
  expect(imageSize({ resolution: "2K", aspect_ratio: "16:9" })).toEqual({
    width: 2048,
    height: 1152,
  });
  expect(imageSize({ resolution: "4K", aspect_ratio: "9:16" })).toEqual({
    width: 2304,
    height: 4096,
  });
  expect(imageSize({ resolution: "1K", aspect_ratio: "3:2" })).toEqual({
    width: 1024,
    height: 680,
  });
  expect(imageSize({ aspect_ratio: "4:3" })).toEqual({ width: 1024, height: 768 });
});

test("nothing asked, or size auto, means 1024x1024", () => {
  expect(imageSize({})).toEqual({ width: 1024, height: 1024 });
  expect(imageSize({ size: "auto" })).toEqual({ width: 1024, height: 1024 });
});

test("malformed or oversized values throw RangeError", () => {
  expect(() => imageSize({ size: "big" })).toThrow(RangeError);
  expect(() => imageSize({ size: "9000x10" })).toThrow(RangeError);
  expect(() => imageSize({ size: "0x10" })).toThrow(RangeError);
  expect(() => imageSize({ resolution: "8K" })).toThrow(RangeError);
  expect(() => imageSize({ resolution: "1K", aspect_ratio: "wide" })).toThrow(RangeError);
});
