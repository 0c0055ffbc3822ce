import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { checkPublicUrl } from "@gw/auth";

export interface UrlPolicy {
  /**
   * Hosts (exact "host" or "host:port", IP literals included) an operator or a test
   * explicitly allows even though they are private or local, e.g. a local HTTPS stub
   * "127.0.0.1:8443" or "localhost:8443". Empty by default.
   */
  allowHosts: string[];
}

export const FETCH_ENV = {
  allowHosts: "FETCH_ALLOW_HOSTS",
  extraCaFile: "FETCH_EXTRA_CA_FILE",
} as const;

/** One allowed host; `port` null admits every port. */
interface HostRule {
  hostname: string;
  port: string | null;
}

/** Says whether a parsed URL names a host the policy allows. */
export type HostMatcher = (url: URL) => boolean;

const HTTPS_PORT = "443";
const EXPLICIT_PORT = /:\d+$/;
const NOT_IN_AUTHORITY = /[/?#@\\\s]/;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Parses "host" or "host:port" into the canonical form the URL parser gives, so that
 * "LOCALHOST", "127.1" or "[0::1]" match what a fetched URL says. A bare IPv6 address
 * is accepted without brackets, but then it cannot carry a port.
 */
function parseHostRule(entry: string): HostRule | null {
  const text = entry.trim();
  if (text === "" || NOT_IN_AUTHORITY.test(text)) return null;
  const bareIpv6 = !text.startsWith("[") && text.indexOf(":") !== text.lastIndexOf(":");
  const authority = bareIpv6 ? `[${text}]` : text;
  let url: URL;
  try {
    url = new URL(`https://${authority}/`);
  } catch {
    return null;
  }
  if (url.hostname === "") return null;
  // The URL parser drops ":443", yet "host:443" must still mean that port only.
  const port = EXPLICIT_PORT.test(authority) ? url.port || HTTPS_PORT : null;
  return { hostname: withoutTrailingDot(url.hostname), port };
}

function withoutTrailingDot(hostname: string): string {
  return hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
}

function compileRules(allowHosts: readonly string[]): HostRule[] {
  return allowHosts.map((entry) => {
    const rule = parseHostRule(entry);
    if (rule === null) throw new Error(`allowed host "${entry}" is not a host or host:port`);
    return rule;
  });
}

/** Compiles the policy's allowed hosts once; throws on an entry that is not a host. */
export function createHostMatcher(policy: UrlPolicy): HostMatcher {
  const rules = compileRules(policy.allowHosts);
  return (url) => {
    const hostname = withoutTrailingDot(url.hostname);
    const port = url.port || HTTPS_PORT;
    return rules.some((rule) => rule.hostname === hostname && (rule.port ?? port) === port);
  };
}

/**
 * Like checkPublicUrl (https only, no credentials, no private or local literal or name)
 * but admits the hosts the policy allows. Answers the reason a URL is refused, or null.
 */
export function createUrlCheck(policy: UrlPolicy): (url: string) => string | null {
  const allowed = createHostMatcher(policy);
  return (text) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return "not a valid URL";
    }
    const clean = url.protocol === "https:" && !url.username && !url.password;
    return clean && allowed(url) ? null : checkPublicUrl(text);
  };
}

/**
 * Reads FETCH_ALLOW_HOSTS (comma-separated "host" or "host:port") and FETCH_EXTRA_CA_FILE
 * (a PEM file of extra trusted certificates, for a test or private CA). Throws a clear
 * Error naming the variable when a value is malformed or the file is unusable.
 */
export function urlPolicyFromEnv(
  env: Record<string, string | undefined>,
): UrlPolicy & { caCerts?: string[] } {
  const allowHosts = (env[FETCH_ENV.allowHosts] ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  for (const entry of allowHosts) {
    if (parseHostRule(entry) === null) {
      throw new Error(`${FETCH_ENV.allowHosts}: "${entry}" is not a host or host:port`);
    }
  }
  const caFile = env[FETCH_ENV.extraCaFile]?.trim();
  if (!caFile) return { allowHosts };
  return { allowHosts, caCerts: readCaFile(caFile) };
}

function readCaFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new Error(`${FETCH_ENV.extraCaFile}: cannot read ${path} (${String(code)})`, {
      cause: error,
    });
  }
  const certs = text.match(PEM_CERTIFICATE) ?? [];
  if (certs.length === 0) {
    throw new Error(`${FETCH_ENV.extraCaFile}: ${path} holds no PEM certificate`);
  }
  certs.forEach((pem, index) => {
    try {
      new X509Certificate(pem);
    } catch (error) {
      throw new Error(
        `${FETCH_ENV.extraCaFile}: certificate ${index + 1} in ${path} is not valid`,
        { cause: error },
      );
    }
  });
  return certs;
}
