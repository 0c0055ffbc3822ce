// Proves the raw address codecs: strict IPv4, every IPv6 text form, and RFC 5952 output.
import { describe, expect, test } from "bun:test";
import { formatIpv6, parseIpv4Bytes, parseIpv6Bytes } from "./ip-text.ts";

const hex = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString("hex") : null);

describe("parseIpv4Bytes", () => {
  test("reads dotted quads", () => {
    expect(hex(parseIpv4Bytes("0.0.0.0"))).toBe("00000000");
    expect(hex(parseIpv4Bytes("255.255.255.255"))).toBe("ffffffff");
    expect(hex(parseIpv4Bytes("192.168.1.10"))).toBe("c0a8010a");
  });

  test.each([
    "",
    "1.2.3",
    "1.2.3.4.5",
    "256.0.0.0",
    "1.2.3.-1",
    "01.2.3.4",
    "1.2.3.04",
    "1..3.4",
    "1.2.3.4.",
    " 1.2.3.4",
    "1.2.3.4 ",
    "0x1.2.3.4",
    "1e1.2.3.4",
    "1.2.3.1000",
  ])("rejects %p", (text) => {
    expect(parseIpv4Bytes(text)).toBeNull();
  });
});

describe("parseIpv6Bytes", () => {
  test.each([
    ["::", "00000000000000000000000000000000"],
    ["::1", "00000000000000000000000000000001"],
    ["1::", "00010000000000000000000000000000"],
    ["2001:db8::1", "20010db8000000000000000000000001"],
    ["2001:DB8:0:0:0:0:0:1", "20010db8000000000000000000000001"],
    ["1:2:3:4:5:6:7:8", "00010002000300040005000600070008"],
    ["1::2:3:4:5:6:7", "00010000000200030004000500060007"],
    ["1:2:3:4:5:6:7::", "00010002000300040005000600070000"],
    ["::ffff:1.2.3.4", "00000000000000000000ffff01020304"],
    ["64:ff9b::192.0.2.33", "0064ff9b0000000000000000c0000221"],
    ["1:2:3:4:5:6:1.2.3.4", "00010002000300040005000601020304"],
    ["0000:0000:0000:0000:0000:0000:0000:0001", "00000000000000000000000000000001"],
  ])("reads %p", (text, expected) => {
    expect(hex(parseIpv6Bytes(text))).toBe(expected);
  });

  test.each([
    "",
    ":",
    ":::",
    "::::",
    "1::2::3",
    "1:::2",
    ":1::",
    "::1:",
    "1:2:3:4:5:6:7",
    "1:2:3:4:5:6:7:8:9",
    "::1:2:3:4:5:6:7:8",
    "12345::",
    "g::",
    "1.2.3.4",
    "1.2.3.4::",
    "::1.2.3.4:1",
    "1:2:3:4:5:6:7:1.2.3.4",
    "::256.1.1.1",
    "::1 ",
    "[::1]",
    "fe80::1%eth0",
  ])("rejects %p", (text) => {
    expect(parseIpv6Bytes(text)).toBeNull();
  });
});

describe("formatIpv6 (RFC 5952)", () => {
  test.each([
    ["::", "::"],
    ["::1", "::1"],
    ["1::", "1::"],
    ["2001:0DB8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    // a single zero group is not compressed
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    // the longest run wins
    ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1"],
    // on a tie the first run wins
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["1:0:0:0:0:0:0:0", "1::"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["abcd:ef01:2345:6789:abcd:ef01:2345:6789", "abcd:ef01:2345:6789:abcd:ef01:2345:6789"],
    // IPv4-mapped keeps the dotted tail, as RFC 5952 section 5 recommends
    ["::ffff:c000:0280", "::ffff:192.0.2.128"],
  ])("%p → %p", (text, expected) => {
    const bytes = parseIpv6Bytes(text);
    expect(bytes).not.toBeNull();
    expect(formatIpv6(bytes as Uint8Array)).toBe(expected);
  });

  test("round-trips random addresses", () => {
    for (let i = 0; i < 2_000; i++) {
      const bytes = new Uint8Array(16);
      // sparse bytes make zero runs of every length likely
      for (let j = 0; j < 16; j++) bytes[j] = Math.random() < 0.6 ? 0 : (Math.random() * 256) | 0;
      expect(hex(parseIpv6Bytes(formatIpv6(bytes)))).toBe(hex(bytes));
    }
  });
});
