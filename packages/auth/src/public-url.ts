import { type Cidr, matchesAny, parseCidr, parseIp } from "./ip.ts";

/**
 * Addresses a gateway must never fetch from on a client's behalf (SSRF): every entry of
 * the IANA IPv4 and IPv6 special-purpose address registries, multicast, and every IPv6
 * form that embeds an IPv4 address. IANA marks a few special-purpose blocks globally
 * reachable (AS112, AMT, 192.0.0.9-10, some 2001::/23 entries); no client image lives
 * there, so they are refused too. IPv4-mapped IPv6 (::ffff:a.b.c.d) folds to IPv4
 * before matching; the other embedding forms are refused whole: IPv4-compatible
 * (::a.b.c.d, in ::/96 with :: and ::1), IPv4-translated (::ffff:0:a.b.c.d), NAT64,
 * 6to4 and Teredo.
 */
const NON_PUBLIC: readonly Cidr[] = [
  // IPv4 special-purpose registry
  "0.0.0.0/8", // "this network"
  "10.0.0.0/8", // private
  "100.64.0.0/10", // shared address space (carrier-grade NAT)
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local, cloud metadata
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments (192.0.0.0/29, .8, .9, .10, .170, .171)
  "192.0.2.0/24", // documentation TEST-NET-1
  "192.31.196.0/24", // AS112-v4
  "192.52.193.0/24", // AMT
  "192.88.99.0/24", // deprecated 6to4 relay anycast
  "192.168.0.0/16", // private
  "192.175.48.0/24", // direct delegation AS112
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation TEST-NET-2
  "203.0.113.0/24", // documentation TEST-NET-3
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, with the limited broadcast 255.255.255.255
  // IPv6 special-purpose registry
  "::/96", // unspecified, loopback and IPv4-compatible ::a.b.c.d
  "::ffff:0:0:0/96", // IPv4-translated ::ffff:0:a.b.c.d (RFC 2765)
  "64:ff9b::/96", // NAT64 reaches IPv4, private ones included
  "64:ff9b:1::/48", // local-use IPv4/IPv6 translation
  "100::/64", // discard-only
  "100:0:0:1::/64", // dummy prefix
  "2001::/23", // IETF protocol assignments, Teredo 2001::/32 among them
  "2001:db8::/32", // documentation
  "2002::/16", // 6to4 embeds any IPv4
  "2620:4f:8000::/48", // direct delegation AS112
  "3fff::/20", // documentation
  "5f00::/16", // segment routing SIDs
  "fc00::/7", // unique local
  "fe80::/10", // link-local
  "fec0::/10", // deprecated site-local
  "ff00::/8", // multicast
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
