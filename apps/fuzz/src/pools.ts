/**
 * Values the generators draw from: plausible ones (what a client would send) and
 * hostile ones (what a fuzzer should). Kept in one place so each mutation file stays
 * about how a value is placed, not which values exist.
 */

/** A public HTTPS address as a client would give it; the sandbox's DNS fails it fast. */
export const PUBLIC_URLS = [
  "https://images.example.com/cat.png",
  "https://cdn.example.org/source.jpg",
  "https://example.net/hooks/task",
];

/** Addresses a gateway must never fetch or call for a client (SSRF). */
export const PRIVATE_URLS = [
  "http://127.0.0.1/",
  "https://127.0.0.1:6379/",
  "http://127.1/",
  "http://0.0.0.0:5432/",
  "http://localhost/admin/users",
  "https://localhost./x.png",
  "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
  "https://169.254.169.254/computeMetadata/v1/",
  "http://[::1]/",
  "https://[::1]:443/x.png",
  "https://[::ffff:127.0.0.1]/x.png",
  "https://[fd00::1]/x.png",
  "https://10.0.0.1/x.png",
  "https://192.168.1.1/x.png",
  "https://172.16.0.1/x.png",
  "https://100.64.0.1/x.png",
  "https://2130706433/x.png",
  "https://0x7f000001/x.png",
  "https://0177.0.0.1/x.png",
  "https://metadata.google.internal/computeMetadata/v1/",
  "file:///etc/passwd",
  "file://localhost/etc/shadow",
  "ftp://127.0.0.1/x.png",
  "gopher://127.0.0.1:6379/_FLUSHALL",
  "data:image/png;base64,iVBORw0KGgo=",
  "javascript:alert(1)",
  "https://user:pass@127.0.0.1/x.png",
  "https://example.com@127.0.0.1/x.png",
  "https://127.0.0.1.nip.io/x.png",
  "http:/127.0.0.1/x.png",
  "https:\\\\127.0.0.1\\x.png",
  "//127.0.0.1/x.png",
  " https://127.0.0.1/x.png",
  "https://127.0.0.1%2f@example.com/x.png",
];

/** Strings at the edges of what text fields and ids meet. */
export const HOSTILE_STRINGS = [
  "",
  " ",
  "\t\r\n",
  "0",
  "-1",
  "NaN",
  "nan",
  "Infinity",
  "-Infinity",
  "1e309",
  "-0",
  "0x10",
  "1_000",
  "null",
  "undefined",
  "true",
  "[]",
  "{}",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "../../../etc/passwd",
  "..%2f..%2fetc%2fpasswd",
  "%00",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff\ud800",
  "\ufeff",
  "\u202etxt.exe",
  "e\u0301\u0301\u0301\u0301",
  "😀".repeat(50),
  "'; drop table users; --",
  "' OR '1'='1",
  "$1",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j lookup, sent literally
  "${jndi:ldap://127.0.0.1/a}",
  "<script>alert(1)</script>",
  "%s%s%s%n",
  "\\",
  '"',
  "*",
  "[offline:fail]",
  "[offline:moderate]",
  "img_",
  "aud_x:-1",
  "9".repeat(40),
];

/** Numbers at the edges: signs, limits of int32/int64/double, fractions. */
export const EDGE_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  -0.5,
  1e-300,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53 + 2,
  -(2 ** 53),
  2 ** 63,
  1e21,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
];

/**
 * Number tokens JSON allows but JavaScript cannot round-trip: JSON.parse turns them into
 * Infinity, -0, a rounded float or a huge integer. Sent raw (see `rawToken`).
 */
export const RAW_NUMBER_TOKENS = [
  "1e999",
  "-1e999",
  "1E400",
  "-0.0",
  "0e0",
  "123456789012345678901234567890",
  "9223372036854775808",
  "0.000000000000000000000000000000000000000000000000001",
  "1.0",
  "4.000000000000000001",
];

const RAW = "\u0001raw:";

/** A placeholder the encoder replaces with the bare JSON token `text` (no quotes). */
export function rawToken(text: string): string {
  return `${RAW}${text}\u0001`;
}

/** JSON text with every raw-token placeholder made a bare token. */
export function withRawTokens(json: string): string {
  return json.replace(/"\\u0001raw:(.*?)\\u0001"/g, (_, token: string) => token);
}

/** Path segments that probe routing itself (already URL-encoded where they must be). */
export const HOSTILE_SEGMENTS = [
  "",
  "%00",
  "%ff",
  "%zz",
  "%",
  "..",
  "%2e%2e",
  "..%2f..%2fadmin",
  "%2fadmin%2fusers",
  "a%2Fb",
  "%20",
  "%E2%80%AE",
  "~",
  "*",
  "%2A",
  ";x=1",
  "x?y=z",
  "x#frag",
  "0",
  "-1",
  "00001",
  "1e3",
  "18446744073709551616",
  "9223372036854775807",
  "9223372036854775808",
  "999999999999999999",
  "NaN",
];
