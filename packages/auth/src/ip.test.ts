// Proves address and CIDR parsing, IPv4-mapped folding, boundary matching and allow-list rules.
import { describe, expect, test } from "bun:test";
import { BlockList } from "node:net";
import {
  type Cidr,
  cidrContains,
  compileAllowList,
  formatCidr,
  ipAllowed,
  normalizeAllowList,
  normalizeIp,
  type ParsedIp,
  parseCidr,
  parseIp,
} from "./ip.ts";

function ip(text: string): ParsedIp {
  const parsed = parseIp(text);
  if (parsed === null) throw new Error(`test fixture failed to parse: ${text}`);
  return parsed;
}

function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (parsed === null) throw new Error(`test fixture failed to parse: ${text}`);
  return parsed;
}

describe("parseIp", () => {
  test.each([
    ["1.2.3.4", 4, "1.2.3.4"],
    ["::", 6, "::"],
    ["::1", 6, "::1"],
    ["[::1]", 6, "::1"],
    ["fe80::1%eth0", 6, "fe80::1"],
    ["[fe80::1%25]", 6, "fe80::1"],
    ["FE80::A:B", 6, "fe80::a:b"],
    ["2001:db8:0:0:0:0:0:1", 6, "2001:db8::1"],
    ["::ffff:1.2.3.4", 4, "1.2.3.4"],
    ["::FFFF:10.1.2.3", 4, "10.1.2.3"],
    ["::ffff:a01:203", 4, "10.1.2.3"],
    ["[::ffff:10.1.2.3]", 4, "10.1.2.3"],
    ["0:0:0:0:0:ffff:7f00:1", 4, "127.0.0.1"],
    // IPv4-compatible (deprecated) and NAT64 forms are real IPv6 addresses, not folded
    ["::1.2.3.4", 6, "::102:304"],
    ["64:ff9b::1.2.3.4", 6, "64:ff9b::102:304"],
  ])("%p is IPv%p %p", (text, version, canonical) => {
    expect(parseIp(text)?.version).toBe(version as 4 | 6);
    expect(normalizeIp(text)).toBe(canonical);
  });

  test("folded IPv4 has 4 bytes", () => {
    expect(Array.from(ip("::ffff:10.1.2.3").bytes)).toEqual([10, 1, 2, 3]);
  });

  test.each([
    "",
    "localhost",
    "1.2.3",
    "1.2.3.4.5",
    "256.1.1.1",
    "01.1.1.1",
    "1.2.3.4/32",
    "[1.2.3.4]",
    "1.2.3.4%eth0",
    "[::1",
    "::1]",
    "[]",
    "fe80::1%",
    "fe80::1%eth 0",
    "fe80::1%a%b",
    "1:2:3:4:5:6:7:8:9",
    "::1::",
    " ::1",
    "1.2.3.4:80",
  ])("rejects %p", (text) => {
    expect(parseIp(text)).toBeNull();
  });
});

describe("parseCidr", () => {
  test.each([
    ["10.0.0.0/8", "10.0.0.0/8"],
    ["10.1.2.3/8", "10.0.0.0/8"],
    ["1.2.3.4", "1.2.3.4"],
    ["1.2.3.4/32", "1.2.3.4"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["255.255.255.255/0", "0.0.0.0/0"],
    ["172.16.0.0/12", "172.16.0.0/12"],
    ["192.168.1.130/25", "192.168.1.128/25"],
    ["2001:DB8::/32", "2001:db8::/32"],
    ["2001:db8:ffff::1/32", "2001:db8::/32"],
    ["::/0", "::/0"],
    ["::1", "::1"],
    ["::1/128", "::1"],
    ["fc00::/7", "fc00::/7"],
    ["fdff::/7", "fc00::/7"],
    // IPv4-mapped networks fold to IPv4 once the prefix reaches the IPv4 part
    ["::ffff:10.0.0.0/104", "10.0.0.0/8"],
    ["::ffff:0:0/96", "0.0.0.0/0"],
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["::ffff:1.2.3.4/128", "1.2.3.4"],
    ["::ffff:10.9.8.7/120", "10.9.8.0/24"],
    // below /96 the network is wider than the mapped range and stays IPv6
    ["::ffff:0:0/95", "::fffe:0:0/95"],
    ["::ffff:0:0/80", "::/80"],
  ])("%p → %p", (text, canonical) => {
    expect(formatCidr(cidr(text))).toBe(canonical);
  });

  test("folded mapped networks carry IPv4 version and prefix", () => {
    const folded = cidr("::ffff:10.0.0.0/104");
    expect(folded.version).toBe(4);
    expect(folded.prefix).toBe(8);
  });

  test.each([
    "",
    "/8",
    "10.0.0.0/",
    "10.0.0.0/33",
    "10.0.0.0/-1",
    "10.0.0.0/08",
    "10.0.0.0/8/8",
    "10.0.0.0/8 ",
    " 10.0.0.0/8",
    "10.0.0.0/ 8",
    "10.0.0.0/1e1",
    "10.0.0/8",
    "::/129",
    "::/1000",
    "[::1]/128",
    "fe80::%eth0/64",
    "garbage",
    "*",
  ])("rejects %p", (text) => {
    expect(parseCidr(text)).toBeNull();
  });
});

describe("cidrContains", () => {
  test.each([
    // IPv4 boundaries: first, last, and one either side
    ["10.0.0.0/8", "10.0.0.0", true],
    ["10.0.0.0/8", "10.255.255.255", true],
    ["10.0.0.0/8", "9.255.255.255", false],
    ["10.0.0.0/8", "11.0.0.0", false],
    ["172.16.0.0/12", "172.16.0.0", true],
    ["172.16.0.0/12", "172.31.255.255", true],
    ["172.16.0.0/12", "172.15.255.255", false],
    ["172.16.0.0/12", "172.32.0.0", false],
    ["192.168.1.128/25", "192.168.1.128", true],
    ["192.168.1.128/25", "192.168.1.255", true],
    ["192.168.1.128/25", "192.168.1.127", false],
    ["192.168.1.128/25", "192.168.2.0", false],
    ["1.2.3.4/32", "1.2.3.4", true],
    ["1.2.3.4/32", "1.2.3.5", false],
    ["1.2.3.4/32", "1.2.3.3", false],
    ["0.0.0.0/0", "0.0.0.0", true],
    ["0.0.0.0/0", "255.255.255.255", true],
    ["0.0.0.0/0", "::1", false],
    // IPv6 boundaries
    ["2001:db8::/32", "2001:db8::", true],
    ["2001:db8::/32", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true],
    ["2001:db8::/32", "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", false],
    ["2001:db8::/32", "2001:db9::", false],
    ["fc00::/7", "fc00::", true],
    ["fc00::/7", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true],
    ["fc00::/7", "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false],
    ["fc00::/7", "fe00::", false],
    ["2001:db8::1/128", "2001:db8::1", true],
    ["2001:db8::1/128", "2001:db8::2", false],
    ["2001:db8::1/128", "2001:db8::", false],
    ["::/0", "::", true],
    ["::/0", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true],
    // versions must match after folding, so ::/0 does not cover IPv4 peers
    ["::/0", "1.2.3.4", false],
    ["::/0", "::ffff:1.2.3.4", false],
    // IPv4-mapped folding, both ways
    ["10.0.0.0/8", "::ffff:10.1.2.3", true],
    ["10.0.0.0/8", "::ffff:11.0.0.0", false],
    ["::ffff:10.0.0.0/104", "10.1.2.3", true],
    ["::ffff:10.0.0.0/104", "::ffff:10.255.255.255", true],
    ["::ffff:10.0.0.0/104", "11.0.0.0", false],
    ["::ffff:1.2.3.4", "1.2.3.4", true],
  ])("%p contains %p: %p", (range, address, expected) => {
    expect(cidrContains(cidr(range), ip(address))).toBe(expected);
  });

  test("agrees with node:net BlockList on random addresses and prefixes", () => {
    for (let i = 0; i < 3_000; i++) {
      const v6 = i % 2 === 1;
      const network = randomAddress(v6);
      const prefix = (Math.random() * (v6 ? 129 : 33)) | 0;
      const probe = mutateLowBits(network, v6, prefix);
      const family = v6 ? "ipv6" : "ipv4";
      const list = new BlockList();
      list.addSubnet(network, prefix, family);
      const range = cidr(`${network}/${prefix}`);
      expect([network, prefix, probe, cidrContains(range, ip(probe))]).toEqual([
        network,
        prefix,
        probe,
        list.check(probe, family),
      ]);
    }
  });
});

function randomAddress(v6: boolean): string {
  if (!v6) return Array.from({ length: 4 }, () => (Math.random() * 256) | 0).join(".");
  // avoid the mapped range so both sides treat it as plain IPv6
  const groups = Array.from({ length: 8 }, () => ((Math.random() * 0x10000) | 0).toString(16));
  groups[0] = "2001";
  return groups.join(":");
}

/** Flips one random bit, so the probe lands just inside or just outside the network. */
function mutateLowBits(address: string, v6: boolean, prefix: number): string {
  const parsed = ip(address);
  const bytes = Uint8Array.from(parsed.bytes);
  const width = v6 ? 128 : 32;
  const near = Math.random() < 0.5 && prefix < width;
  const bit = near
    ? prefix + ((Math.random() * (width - prefix)) | 0)
    : (Math.random() * width) | 0;
  // keep the first group fixed in v6 so the probe never lands in the mapped range
  if (!v6 || bit >= 16) bytes[bit >> 3] = (bytes[bit >> 3] ?? 0) ^ (0x80 >> (bit & 7));
  return normalizeIp(v6 ? formatBytes6(bytes) : Array.from(bytes).join(".")) ?? "";
}

function formatBytes6(bytes: Uint8Array): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(":");
}

describe("ipAllowed / compileAllowList", () => {
  test("an empty list imposes no restriction, even on unknown addresses", () => {
    expect(ipAllowed([], "1.2.3.4")).toBe(true);
    expect(ipAllowed([], null)).toBe(true);
    expect(ipAllowed([], "garbage")).toBe(true);
  });

  test("a non-empty list refuses missing or unparseable addresses", () => {
    expect(ipAllowed(["0.0.0.0/0"], null)).toBe(false);
    expect(ipAllowed(["0.0.0.0/0"], "garbage")).toBe(false);
    expect(ipAllowed(["0.0.0.0/0"], "")).toBe(false);
  });

  test("any matching entry admits", () => {
    const list = ["10.0.0.0/8", "2001:db8::/32", "203.0.113.7"];
    expect(ipAllowed(list, "10.9.9.9")).toBe(true);
    expect(ipAllowed(list, "::ffff:10.9.9.9")).toBe(true);
    expect(ipAllowed(list, "2001:db8::42")).toBe(true);
    expect(ipAllowed(list, "[2001:db8::42]")).toBe(true);
    expect(ipAllowed(list, "203.0.113.7")).toBe(true);
    expect(ipAllowed(list, "203.0.113.8")).toBe(false);
    expect(ipAllowed(list, "2001:db9::1")).toBe(false);
  });

  test("an invalid entry matches nothing but keeps the list restrictive", () => {
    expect(ipAllowed(["not-an-ip"], "1.2.3.4")).toBe(false);
    expect(ipAllowed(["not-an-ip", "1.2.3.4"], "1.2.3.4")).toBe(true);
  });

  test("a compiled list answers like ipAllowed", () => {
    const list = ["10.0.0.0/8", "::1"];
    const allowed = compileAllowList(list);
    for (const probe of ["10.0.0.1", "11.0.0.1", "::1", "::2", null, "x"]) {
      expect(allowed(probe)).toBe(ipAllowed(list, probe));
    }
  });
});

describe("normalizeAllowList", () => {
  test("canonicalizes, trims and de-duplicates in order", () => {
    const result = normalizeAllowList([
      " 10.1.2.3/8 ",
      "2001:DB8:0::/32",
      "1.2.3.4",
      "::ffff:10.0.0.0/104",
      "1.2.3.4/32",
      "::1/128",
    ]);
    expect(result).toEqual({ ok: true, value: ["10.0.0.0/8", "2001:db8::/32", "1.2.3.4", "::1"] });
  });

  test("an empty list is valid", () => {
    expect(normalizeAllowList([])).toEqual({ ok: true, value: [] });
  });

  test("reports the first invalid entry as written", () => {
    const result = normalizeAllowList(["10.0.0.0/8", "10.0.0.0/33", "nope"]);
    expect(result).toEqual({ ok: false, invalid: "10.0.0.0/33" });
    expect(normalizeAllowList([""])).toEqual({ ok: false, invalid: "" });
  });
});
