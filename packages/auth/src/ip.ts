import {
  formatIpv4,
  formatIpv6,
  isIpv4Mapped,
  parseIpv4Bytes,
  parseIpv6Bytes,
  parseSmallDecimal,
} from "./ip-text.ts";

export interface ParsedIp {
  version: 4 | 6;
  bytes: Uint8Array;
}

/** A network: `bytes` has every bit past `prefix` cleared. */
export interface Cidr {
  version: 4 | 6;
  bytes: Uint8Array;
  prefix: number;
}

export type ListValidation = { ok: true; value: string[] } | { ok: false; invalid: string };

const ZONE = /^[\w.-]+$/;

/**
 * Parses an IPv4 or IPv6 address, tolerating "[...]" brackets and a "%zone" suffix on IPv6.
 * IPv4-mapped IPv6 folds to IPv4, because dual-stack sockets report IPv4 peers that way.
 */
export function parseIp(s: string): ParsedIp | null {
  const bracketed = s.startsWith("[") && s.endsWith("]");
  const inner = bracketed ? s.slice(1, -1) : s;
  const zoneAt = inner.indexOf("%");
  if (zoneAt === -1) return bracketed ? parseIpv6(inner) : parseAddress(inner);
  // A zone names a local interface; it only scopes IPv6 and is irrelevant for matching.
  if (!ZONE.test(inner.slice(zoneAt + 1))) return null;
  return parseIpv6(inner.slice(0, zoneAt));
}

function parseAddress(text: string): ParsedIp | null {
  const v4 = parseIpv4Bytes(text);
  return v4 ? { version: 4, bytes: v4 } : parseIpv6(text);
}

function parseIpv6(text: string): ParsedIp | null {
  const bytes = parseIpv6Bytes(text);
  if (bytes === null) return null;
  return isIpv4Mapped(bytes) ? { version: 4, bytes: bytes.slice(12) } : { version: 6, bytes };
}

/** Canonical text: dotted quad, or RFC 5952 IPv6. */
export function formatIp(ip: ParsedIp): string {
  return ip.version === 4 ? formatIpv4(ip.bytes) : formatIpv6(ip.bytes);
}

/** Parses then formats, so equal addresses compare equal as strings. */
export function normalizeIp(s: string): string | null {
  const ip = parseIp(s);
  return ip === null ? null : formatIp(ip);
}

/**
 * Parses "addr" or "addr/prefix" (no brackets or zones: these are configuration, not sockets).
 * Host bits are cleared; ::ffff:a.b.c.d/96+ folds to IPv4 with the prefix reduced by 96.
 */
export function parseCidr(s: string): Cidr | null {
  const slash = s.indexOf("/");
  const text = slash === -1 ? s : s.slice(0, slash);
  const v4 = parseIpv4Bytes(text);
  const bytes = v4 ?? parseIpv6Bytes(text);
  if (bytes === null) return null;
  const width = bytes.length * 8;
  const prefix = slash === -1 ? width : parseSmallDecimal(s.slice(slash + 1), width);
  if (prefix === null) return null;
  if (v4 === null && prefix >= 96 && isIpv4Mapped(bytes)) {
    return network(4, bytes.slice(12), prefix - 96);
  }
  return network(v4 ? 4 : 6, bytes, prefix);
}

function network(version: 4 | 6, bytes: Uint8Array, prefix: number): Cidr {
  const masked = Uint8Array.from(bytes, (b, i) => b & byteMask(prefix, i));
  return { version, bytes: masked, prefix };
}

/** The mask of byte `index` under a prefix: 0xff inside it, 0 past it, partial at the edge. */
function byteMask(prefix: number, index: number): number {
  const bits = Math.min(8, Math.max(0, prefix - index * 8));
  return (0xff << (8 - bits)) & 0xff;
}

/** A full-length prefix prints as a bare address, so "1.2.3.4/32" and "1.2.3.4" read the same. */
export function formatCidr(cidr: Cidr): string {
  const address = formatIp(cidr);
  return cidr.prefix === cidr.bytes.length * 8 ? address : `${address}/${cidr.prefix}`;
}

/**
 * True when the address lies in the network. Versions must match after folding, so ::/0
 * does not cover IPv4 clients; list 0.0.0.0/0 as well for that.
 */
export function cidrContains(cidr: Cidr, ip: ParsedIp): boolean {
  if (cidr.version !== ip.version) return false;
  for (let i = 0; i * 8 < cidr.prefix; i++) {
    const mask = byteMask(cidr.prefix, i);
    if (((ip.bytes[i] ?? 0) & mask) !== cidr.bytes[i]) return false;
  }
  return true;
}

export function matchesAny(cidrs: readonly Cidr[], ip: ParsedIp): boolean {
  return cidrs.some((cidr) => cidrContains(cidr, ip));
}

/**
 * Parses an allow-list once for hot paths. An empty list means "no restriction". Entries that
 * fail to parse match nothing but still count, so a typo can never lift a restriction.
 */
export function compileAllowList(list: readonly string[]): (ip: string | null) => boolean {
  if (list.length === 0) return () => true;
  const cidrs = list.map((entry) => parseCidr(entry)).filter((c): c is Cidr => c !== null);
  return (ip) => {
    const parsed = ip === null ? null : parseIp(ip);
    return parsed !== null && matchesAny(cidrs, parsed);
  };
}

export function ipAllowed(allowList: readonly string[], ip: string | null): boolean {
  return compileAllowList(allowList)(ip);
}

/** Validates admin input: trims, canonicalizes and de-duplicates entries, keeping order. */
export function normalizeAllowList(list: readonly string[]): ListValidation {
  const canonical = new Set<string>();
  for (const entry of list) {
    const cidr = parseCidr(entry.trim());
    if (cidr === null) return { ok: false, invalid: entry };
    canonical.add(formatCidr(cidr));
  }
  return { ok: true, value: [...canonical] };
}
