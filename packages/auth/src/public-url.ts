import { type Cidr, matchesAny, parseCidr, parseIp } from "./ip.ts";

/**
 * Addresses that are not on the public internet: a gateway must never fetch from them
 * on a client's behalf (SSRF). IPv4-mapped IPv6 folds to IPv4 before matching.
 */
const NON_PUBLIC: readonly Cidr[] = [
  "0.0.0.0/8", // "this network"
  "10.0.0.0/8",
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8",
  "169.254.0.0/16", // link-local, cloud metadata
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved and broadcast
  "::/128",
  "::1/128",
  "64:ff9b::/96", // NAT64 reaches IPv4, private ones included
  "64:ff9b:1::/48",
  "100::/64",
  "2001::/23",
  "2001:db8::/32",
  "2002::/16", // 6to4 embeds any IPv4
  "fc00::/7", // unique local
  "fe80::/10", // link-local
  "fec0::/10",
  "ff00::/8",
].map((text) => parseCidr(text)!);

/** True for an address on the public internet. */
export function isPublicIp(text: string): boolean {
  const ip = parseIp(text);
  return ip !== null && !matchesAny(NON_PUBLIC, ip);
}

const LOCAL_NAMES =
  /(^|\.)(localhost|local|internal|intranet|lan|home|corp|home\.arpa|localdomain)$/i;

/**
 * Says why a client's file URL may not be used, or null when it may: HTTPS only, no
 * credentials, and no host that names a private, loopback or link-local place. Names
 * are judged as written; whoever fetches must check the resolved addresses again.
 */
export function checkPublicUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "not a valid URL";
  }
  if (url.protocol !== "https:") return `the scheme is ${url.protocol.slice(0, -1)}, not https`;
  if (url.username || url.password) return "it carries credentials";
  // The URL parser already turned forms like 0x7f.1 or 2130706433 into dotted quads.
  const host = url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (parseIp(host)) return isPublicIp(host) ? null : "the host is a private or reserved address";
  if (!host.includes(".")) return "the host is not a public domain name";
  if (LOCAL_NAMES.test(host)) return "the host is a local name";
  return null;
}
