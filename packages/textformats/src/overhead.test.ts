// Proves the prompt-overhead rule of spec 4.11 at its exact boundaries: strictly more than
// 200 tokens and strictly more than 30% of the reported input, no media, a local count > 0.
import { describe, expect, test } from "bun:test";
import { overheadComment, promptExcessTokens, promptOverheadTokens } from "./overhead.ts";

const rule = (reported: number, local: number, hasMedia = false) =>
  promptOverheadTokens({ reportedInputTokens: reported, localInputTokens: local, hasMedia });

describe("promptOverheadTokens", () => {
  test("exactly 200 over is absent; 201 over is present", () => {
    // 30% of 300 is 90, far below: only the 200 bound decides.
    expect(rule(300, 100)).toBeUndefined();
    expect(rule(301, 100)).toBe(201);
  });

  test("exactly 30% of the reported input is absent; just over is present", () => {
    // reported 1000, local 700: 300 over is exactly 30%.
    expect(rule(1000, 700)).toBeUndefined();
    expect(rule(1000, 699)).toBe(301);
    // reported 1001, local 700: 301 over is just over 30% (300.3).
    expect(rule(1001, 700)).toBe(301);
    // Fractional 30%: reported 1003 → 300.9; 300 is below, 301 is above.
    expect(rule(1003, 703)).toBeUndefined();
    expect(rule(1003, 702)).toBe(301);
  });

  test("both bounds must hold", () => {
    // 250 over is above 200 but only 25% of 1000.
    expect(rule(1000, 750)).toBeUndefined();
    // 201 over and 67% of 301: present.
    expect(rule(301, 100)).toBe(201);
  });

  test("media makes it absent", () => {
    expect(rule(5000, 100, true)).toBeUndefined();
    expect(rule(5000, 100, false)).toBe(4900);
  });

  test("a zero local count makes it absent", () => {
    expect(rule(5000, 0)).toBeUndefined();
    expect(rule(5000, 1)).toBe(4999);
  });

  test("a reported input below the local count is absent", () => {
    expect(rule(100, 5000)).toBeUndefined();
  });
});

describe("promptExcessTokens (the key log's field)", () => {
  test("present whenever the reported input exceeds the local count, threshold or not", () => {
    expect(promptExcessTokens(1000, 999)).toBe(1);
    expect(promptExcessTokens(1000, 1000)).toBeUndefined();
    expect(promptExcessTokens(900, 1000)).toBeUndefined();
  });
});

test("the SSE comment line", () => {
  expect(overheadComment(1234)).toBe(": x-service-provider-prompt-tokens=1234\n\n");
});
