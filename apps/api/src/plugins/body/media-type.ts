/** A parsed Content-Type (RFC 9110 section 8.3.1): essence and parameters, names lowercased. */
export interface MediaType {
  /** `type/subtype`, lowercased: media types compare case-insensitively. */
  essence: string;
  /** Parameter values as sent (quoted-strings unquoted); names lowercased. */
  params: Map<string, string>;
}

/** RFC 9110 `token`: what a type, subtype and parameter name may be made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Reads a quoted-string starting at `start` (the opening quote); returns its value and end. */
function quoted(header: string, start: number): { value: string; end: number } | null {
  let value = "";
  for (let i = start + 1; i < header.length; i++) {
    const char = header[i]!;
    if (char === '"') return { value, end: i + 1 };
    if (char === "\\") {
      i++;
      if (i >= header.length) return null;
      value += header[i];
    } else value += char;
  }
  return null;
}

/**
 * Parses `type "/" subtype *( OWS ";" OWS parameter )`. Returns null for anything that
 * is not a media type, so a caller can refuse it by name; a repeated parameter is null
 * too, since its meaning would be ambiguous.
 */
export function parseMediaType(header: string): MediaType | null {
  const semicolon = header.indexOf(";");
  const essence = (semicolon < 0 ? header : header.slice(0, semicolon)).trim();
  const slash = essence.indexOf("/");
  if (slash < 0 || !TOKEN.test(essence.slice(0, slash)) || !TOKEN.test(essence.slice(slash + 1)))
    return null;
  const params = new Map<string, string>();
  let i = semicolon < 0 ? header.length : semicolon;
  while (i < header.length) {
    // At a ";": skip it and whitespace; empty parameters (";;") are tolerated as RFC 9110 allows.
    i++;
    while (header[i] === " " || header[i] === "\t") i++;
    if (i >= header.length || header[i] === ";") continue;
    const equals = header.indexOf("=", i);
    if (equals < 0) return null;
    const name = header.slice(i, equals).toLowerCase();
    if (!TOKEN.test(name) || params.has(name)) return null;
    let value: string;
    if (header[equals + 1] === '"') {
      const read = quoted(header, equals + 1);
      if (!read) return null;
      value = read.value;
      i = read.end;
    } else {
      const end = header.indexOf(";", equals);
      i = end < 0 ? header.length : end;
      value = header.slice(equals + 1, i).trimEnd();
      if (!TOKEN.test(value)) return null;
    }
    params.set(name, value);
    while (header[i] === " " || header[i] === "\t") i++;
    if (i < header.length && header[i] !== ";") return null;
  }
  return { essence: essence.toLowerCase(), params };
}
