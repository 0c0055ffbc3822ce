// Raw text codecs for IP addresses. Policy (brackets, zones, IPv4-mapped folding) lives in ip.ts.

// Leading zeros are rejected: some parsers read "010" as octal, so accepting it would be ambiguous.
const DECIMAL = /^(?:0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;
const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** Parses a non-negative decimal with no leading zeros, up to `max`; null otherwise. */
export function parseSmallDecimal(text: string, max: number): number | null {
  if (!DECIMAL.test(text)) return null;
  const n = Number(text);
  return n <= max ? n : null;
}

/** Parses a strict dotted quad into 4 bytes. */
export function parseIpv4Bytes(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (const [i, part] of parts.entries()) {
    const n = parseSmallDecimal(part, 255);
    if (n === null) return null;
    bytes[i] = n;
  }
  return bytes;
}

/** Parses any RFC 4291 textual IPv6 form (no brackets or zone) into 16 bytes. */
export function parseIpv6Bytes(text: string): Uint8Array | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const compressed = halves.length === 2;
  const head = parseGroups(halves[0] ?? "", !compressed);
  const tail = compressed ? parseGroups(halves[1] ?? "", true) : [];
  if (head === null || tail === null) return null;
  const explicit = head.length + tail.length;
  // "::" stands for at least one zero group, so a compressed form holds at most seven.
  if (compressed ? explicit > 7 : explicit !== 8) return null;
  const zeros = new Array<number>(8 - explicit).fill(0);
  return groupsToBytes([...head, ...zeros, ...tail]);
}

/** Splits colon-separated hex groups; the final group may be a dotted quad worth two groups. */
function parseGroups(text: string, mayEndWithIpv4: boolean): number[] | null {
  if (text === "") return [];
  const parts = text.split(":");
  const groups: number[] = [];
  for (const [i, part] of parts.entries()) {
    if (HEX_GROUP.test(part)) {
      groups.push(Number.parseInt(part, 16));
      continue;
    }
    const v4 = mayEndWithIpv4 && i === parts.length - 1 ? parseIpv4Bytes(part) : null;
    if (v4 === null) return null;
    groups.push(...bytesToGroups(v4));
  }
  return groups;
}

function groupsToBytes(groups: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(groups.length * 2);
  for (const [i, group] of groups.entries()) {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  }
  return bytes;
}

function bytesToGroups(bytes: Uint8Array): number[] {
  const groups: number[] = [];
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    groups.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  }
  return groups;
}

/** True for ::ffff:a.b.c.d, the form dual-stack sockets use to report IPv4 peers. */
export function isIpv4Mapped(bytes: Uint8Array): boolean {
  return bytes.length === 16 && MAPPED_PREFIX.every((b, i) => bytes[i] === b);
}

export function formatIpv4(bytes: Uint8Array): string {
  return Array.from(bytes).join(".");
}

/** RFC 5952 text: lowercase, no leading zeros, the longest run of 2+ zero groups as "::". */
export function formatIpv6(bytes: Uint8Array): string {
  if (isIpv4Mapped(bytes)) return `::ffff:${formatIpv4(bytes.subarray(12))}`;
  const hex = bytesToGroups(bytes).map((g) => g.toString(16));
  const run = longestZeroRun(hex);
  if (run.length < 2) return hex.join(":");
  const before = hex.slice(0, run.start).join(":");
  const after = hex.slice(run.start + run.length).join(":");
  return `${before}::${after}`;
}

/** Finds the longest run of "0" groups; the first one wins ties, as RFC 5952 requires. */
function longestZeroRun(hex: readonly string[]): { start: number; length: number } {
  let best = { start: 0, length: 0 };
  let start = -1;
  for (let i = 0; i <= hex.length; i++) {
    if (i < hex.length && hex[i] === "0") {
      if (start === -1) start = i;
      continue;
    }
    if (start !== -1 && i - start > best.length) best = { start, length: i - start };
    start = -1;
  }
  return best;
}
