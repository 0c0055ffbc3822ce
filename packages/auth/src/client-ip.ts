import {
  type Cidr,
  formatCidr,
  formatIp,
  type ListValidation,
  matchesAny,
  type ParsedIp,
  parseCidr,
  parseIp,
} from "./ip.ts";

// Conveniences for common deployments. There is deliberately no "trust everyone" keyword:
// that would let any client choose its own address via X-Forwarded-For.
const KEYWORDS = new Map<string, readonly string[]>([
  ["loopback", ["127.0.0.0/8", "::1"]],
  ["private", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]],
]);

// Some proxies (e.g. Azure) append "ip:port" or "[ipv6]:port" rather than a bare address.
const WITH_PORT = /^(\[[^\]]+\]|[\d.]+):\d{1,5}$/;

type Trusted = (ip: ParsedIp) => boolean;
export type ClientIpResolver = (peerIp: string | null, headers: Headers) => string | null;

/**
 * Builds a resolver that believes X-Forwarded-For only as far as trusted proxies vouch for it.
 * Throws on an invalid entry: configuration should have passed through parseTrustedProxies.
 */
export function createClientIpResolver(trustedProxies: readonly string[]): ClientIpResolver {
  const cidrs = trustedProxies.flatMap((entry) => {
    const expanded = expandEntry(entry);
    if (expanded === null) throw new TypeError(`invalid trusted proxy entry: ${entry}`);
    return expanded;
  });
  const trusted: Trusted = (ip) => matchesAny(cidrs, ip);
  return (peerIp, headers) => {
    const peer = peerIp === null ? null : parseIp(peerIp);
    if (peer === null) return null;
    // A direct client may send any header it likes; only a trusted peer's headers mean anything.
    if (!trusted(peer)) return formatIp(peer);
    return formatIp(clientFromForwarded(headers.get("x-forwarded-for"), peer, trusted));
  };
}

/**
 * Walks hops right to left. Each hop was appended by the party to its right, so once a hop is
 * untrusted it is the client and everything further left is hearsay it supplied.
 */
function clientFromForwarded(header: string | null, peer: ParsedIp, trusted: Trusted): ParsedIp {
  if (header === null) return peer;
  const hops = header.split(",");
  let nearest = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseHop(hops[i]?.trim() ?? "");
    // A trusted proxy that wrote garbage vouched for no one, so stop at the last known hop.
    if (hop === null) return nearest;
    if (!trusted(hop)) return hop;
    nearest = hop;
  }
  // Every hop is trusted: the request began inside our network, at the leftmost hop.
  return nearest;
}

function parseHop(text: string): ParsedIp | null {
  const withoutPort = WITH_PORT.exec(text)?.[1];
  return parseIp(text) ?? (withoutPort === undefined ? null : parseIp(withoutPort));
}

/** Keywords expand to their ranges; anything else must be a CIDR or a bare address. */
function expandEntry(entry: string): Cidr[] | null {
  const ranges = KEYWORDS.get(entry.toLowerCase()) ?? [entry];
  const cidrs = ranges.map((range) => parseCidr(range));
  return cidrs.every((c) => c !== null) ? (cidrs as Cidr[]) : null;
}

/** Reads a comma-separated env value into canonical entries; empty or unset means none. */
export function parseTrustedProxies(value: string | undefined): ListValidation {
  const entries = (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const canonical = new Set<string>();
  for (const entry of entries) {
    const text = canonicalEntry(entry);
    if (text === null) return { ok: false, invalid: entry };
    canonical.add(text);
  }
  return { ok: true, value: [...canonical] };
}

function canonicalEntry(entry: string): string | null {
  const keyword = entry.toLowerCase();
  if (KEYWORDS.has(keyword)) return keyword;
  const cidr = parseCidr(entry);
  return cidr === null ? null : formatCidr(cidr);
}
