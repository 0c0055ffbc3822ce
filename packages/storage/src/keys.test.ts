// Proves the key and prefix rules refuse every path that could escape the storage root
// or need URL encoding, and that content types follow the key's extension.
import { describe, expect, test } from "bun:test";
import { contentTypeOf, isValidKey, isValidPrefix, MAX_KEY_LENGTH } from "./keys.ts";

describe("isValidKey", () => {
  test("accepts the keys the gateway writes", () => {
    for (const key of ["results/t_1/0.png", "uploads/abc-DEF/3", "a", "x.y/z-1_2.json"]) {
      expect(isValidKey(key)).toBe(true);
    }
    expect(isValidKey(`a/${"b".repeat(MAX_KEY_LENGTH - 2)}`)).toBe(true);
  });

  test("refuses traversal, absolute paths, odd characters and overlong keys", () => {
    const bad = [
      "",
      "/results/a.png",
      "results/../secret",
      "..",
      "a/..b",
      "a..b",
      "./a",
      "a/./b",
      "a//b",
      "a/",
      "a\\b",
      "a\u0000b",
      "a b",
      "a%2e",
      "a~b",
      "ä",
      "a?b",
      `a/${"b".repeat(MAX_KEY_LENGTH - 1)}`,
    ];
    for (const key of bad) expect(isValidKey(key)).toBe(false);
    expect(isValidKey(undefined)).toBe(false);
    expect(isValidKey(42)).toBe(false);
  });
});

describe("isValidPrefix", () => {
  test("is a valid key followed by a slash", () => {
    expect(isValidPrefix("uploads/t1/")).toBe(true);
    expect(isValidPrefix("results/")).toBe(true);
    for (const prefix of ["", "/", "uploads/t1", "uploads//", "../", "/uploads/"]) {
      expect(isValidPrefix(prefix)).toBe(false);
    }
  });
});

describe("contentTypeOf", () => {
  test("maps the known extensions, case-insensitively", () => {
    expect(contentTypeOf("results/t/0.png")).toBe("image/png");
    expect(contentTypeOf("results/t/0.jpeg")).toBe("image/jpeg");
    expect(contentTypeOf("results/t/0.JPG")).toBe("image/jpeg");
    expect(contentTypeOf("results/t/0.webp")).toBe("image/webp");
    expect(contentTypeOf("results/t/0.gif")).toBe("image/gif");
    expect(contentTypeOf("results/t/0.mp3")).toBe("audio/mpeg");
    expect(contentTypeOf("results/t/0.wav")).toBe("audio/wav");
    expect(contentTypeOf("results/t/0.mp4")).toBe("video/mp4");
    expect(contentTypeOf("results/t/0.json")).toBe("application/json");
  });

  test("falls back to application/octet-stream", () => {
    for (const key of ["uploads/t/0", "a/b.tar", "a.png/b", "a/.png", "a/b."]) {
      expect(contentTypeOf(key)).toBe("application/octet-stream");
    }
  });
});
