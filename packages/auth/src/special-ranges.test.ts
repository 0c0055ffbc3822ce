// Proves every IANA special-purpose IPv4 and IPv6 block, multicast, and every IPv6 form
// that embeds an IPv4 address (compatible, mapped, translated, NAT64, 6to4, Teredo) is
// refused as a fetch target: its first, a middle and its last address, in every spelling
// the URL parser accepts, while public neighbours stay allowed.
import { describe, expect, test } from "bun:test";
import { parseIpv6Bytes } from "./ip-text.ts";
import { checkPublicUrl, isPublicIp } from "./public-url.ts";

/** [network, first, middle, last] of each refused block. */
const IPV4: [string, string, string, string][] = [
  ["0.0.0.0/8", "0.0.0.0", "0.1.2.3", "0.255.255.255"],
  ["10.0.0.0/8", "10.0.0.0", "10.128.7.9", "10.255.255.255"],
  ["100.64.0.0/10", "100.64.0.0", "100.100.1.1", "100.127.255.255"],
  ["127.0.0.0/8", "127.0.0.0", "127.0.0.1", "127.255.255.255"],
  ["169.254.0.0/16", "169.254.0.0", "169.254.169.254", "169.254.255.255"],
  ["172.16.0.0/12", "172.16.0.0", "172.20.1.1", "172.31.255.255"],
  ["192.0.0.0/24", "192.0.0.0", "192.0.0.9", "192.0.0.255"],
  ["192.0.2.0/24", "192.0.2.0", "192.0.2.77", "192.0.2.255"],
  ["192.31.196.0/24", "192.31.196.0", "192.31.196.1", "192.31.196.255"],
  ["192.52.193.0/24", "192.52.193.0", "192.52.193.1", "192.52.193.255"],
  ["192.88.99.0/24", "192.88.99.0", "192.88.99.1", "192.88.99.255"],
  ["192.168.0.0/16", "192.168.0.0", "192.168.1.1", "192.168.255.255"],
  ["192.175.48.0/24", "192.175.48.0", "192.175.48.6", "192.175.48.255"],
  ["198.18.0.0/15", "198.18.0.0", "198.18.200.1", "198.19.255.255"],
  ["198.51.100.0/24", "198.51.100.0", "198.51.100.5", "198.51.100.255"],
  ["203.0.113.0/24", "203.0.113.0", "203.0.113.9", "203.0.113.255"],
  ["224.0.0.0/4", "224.0.0.0", "230.1.2.3", "239.255.255.255"],
  ["240.0.0.0/4", "240.0.0.0", "250.1.2.3", "255.255.255.255"],
];

const IPV6: [string, string, string, string][] = [
  ["::/96 (unspecified, loopback, IPv4-compatible)", "::", "::7f00:1", "::ffff:ffff"],
  ["::ffff:0:0/96 (IPv4-mapped private)", "::ffff:10.0.0.1", "::ffff:7f00:1", "::ffff:c0a8:101"],
  ["::ffff:0:0:0/96 (IPv4-translated)", "::ffff:0:0:0", "::ffff:0:7f00:1", "::ffff:0:ffff:ffff"],
  ["64:ff9b::/96", "64:ff9b::", "64:ff9b::a00:1", "64:ff9b::ffff:ffff"],
  ["64:ff9b:1::/48", "64:ff9b:1::", "64:ff9b:1:1::7f00:1", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"],
  ["100::/64", "100::", "100::1", "100::ffff:ffff:ffff:ffff"],
  ["100:0:0:1::/64", "100:0:0:1::", "100:0:0:1::5", "100:0:0:1:ffff:ffff:ffff:ffff"],
  [
    "2001::/23 (Teredo among them)",
    "2001::",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
  ],
  ["2001:db8::/32", "2001:db8::", "2001:db8:1::1", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["2002::/16 (6to4)", "2002::", "2002:7f00:1::1", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  [
    "2620:4f:8000::/48",
    "2620:4f:8000::",
    "2620:4f:8000::1",
    "2620:4f:8000:ffff:ffff:ffff:ffff:ffff",
  ],
  ["3fff::/20", "3fff::", "3fff:abc::1", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["5f00::/16", "5f00::", "5f00:1::1", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["fc00::/7", "fc00::", "fd12:3456::1", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["fe80::/10", "fe80::", "fe80::1", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["fec0::/10", "fec0::", "fec0::1", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["ff00::/8", "ff00::", "ff02::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
];

/** Spellings of one IPv6 address the URL parser accepts: compressed, expanded, uppercase. */
function spellings6(address: string): string[] {
  const bytes = parseIpv6Bytes(address)!;
  const groups = Array.from({ length: 8 }, (_, i) =>
    ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16),
  );
  const expanded = groups.map((g) => g.padStart(4, "0")).join(":");
  const dotted = `${groups.slice(0, 6).join(":")}:${bytes.slice(12).join(".")}`;
  return [address, expanded, expanded.toUpperCase(), dotted];
}

/** Spellings of one IPv4 address the URL parser accepts: dotted, hex, octal, one number. */
function spellings4(address: string): string[] {
  const parts = address.split(".").map(Number);
  const value = parts.reduce((sum, part) => sum * 256 + part, 0);
  return [
    address,
    parts.map((part) => `0x${part.toString(16)}`).join("."),
    parts.map((part) => `0${part.toString(8)}`).join("."),
    String(value),
  ];
}

describe("IPv4 special-purpose blocks", () => {
  for (const [network, ...addresses] of IPV4) {
    test(`${network} is refused in every spelling, also inside IPv6 forms`, () => {
      for (const address of addresses) {
        for (const spelling of spellings4(address))
          expect({ spelling, why: checkPublicUrl(`https://${spelling}/a.png`) }).toEqual({
            spelling,
            why: "the host is a private or reserved address",
          });
        expect({ address, public: isPublicIp(address) }).toEqual({ address, public: false });
        // Mapped (::ffff:a.b.c.d) and compatible (::a.b.c.d) forms of the same address.
        for (const wrapped of [`::ffff:${address}`, `::${address}`, `::ffff:0:${address}`])
          expect({ wrapped, why: checkPublicUrl(`https://[${wrapped}]/a.png`) }).toEqual({
            wrapped,
            why: "the host is a private or reserved address",
          });
      }
    });
  }
});

describe("IPv6 special-purpose blocks", () => {
  for (const [network, ...addresses] of IPV6) {
    test(`${network} is refused in every spelling`, () => {
      for (const address of addresses) {
        for (const spelling of spellings6(address)) {
          expect({ spelling, public: isPublicIp(spelling) }).toEqual({ spelling, public: false });
          expect({ spelling, why: checkPublicUrl(`https://[${spelling}]/a.png`) }).toEqual({
            spelling,
            why: "the host is a private or reserved address",
          });
        }
      }
    });
  }
});

describe("the forms of the issue", () => {
  test.each(["https://[::127.0.0.1]/", "https://[::ffff:0:7f00:1]/", "https://[::ffff:7f00:1]/"])(
    "%s is refused",
    (url) => {
      expect(checkPublicUrl(url)).toBe("the host is a private or reserved address");
    },
  );
});

describe("public neighbours", () => {
  test.each([
    "1.1.1.1",
    "8.8.8.8",
    "9.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.1",
    "192.169.0.0",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "::ffff:8.8.8.8",
    "2606:4700:4700::1111",
    "2001:200::1",
    "2a00:1450:4001:80b::200e",
    "2003::1",
  ])("%s stays allowed", (address) => {
    expect(isPublicIp(address)).toBe(true);
    const host = address.includes(":") ? `[${address}]` : address;
    expect(checkPublicUrl(`https://${host}/a.png`)).toBeNull();
  });

  test("the table's spellings name the same address", () => {
    for (const [, ...addresses] of IPV6)
      for (const address of addresses)
        for (const spelling of spellings6(address))
          expect(parseIpv6Bytes(spelling)).toEqual(parseIpv6Bytes(address));
  });
});
