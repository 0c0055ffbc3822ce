import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { text, type Values } from "./args.ts";
import { fail, ok, type Result, usage } from "./failure.ts";

export const DEFAULT_URL = "http://localhost:3000";

/** Where `bun run start` keeps the admin token it generated, under DATA_DIR. */
const LOCAL_TOKEN_FILE = "admin-token";

/** Larger than any token; a bigger file is the wrong file. */
const MAX_TOKEN_FILE_BYTES = 4096;

export interface Connection {
  /** The gateway's base address, without a trailing slash. */
  url: string;
  token: string;
}

type Env = Record<string, string | undefined>;

function baseUrl(input: string): Result<string> {
  try {
    const url = new URL(input);
    if (url.protocol === "http:" || url.protocol === "https:")
      return ok(url.href.replace(/\/+$/, ""));
  } catch {}
  return usage(
    `The gateway address (--url or GATEWAY_URL) must be http(s), such as ${DEFAULT_URL}, got '${input}'`,
  );
}

/** Reads a token file; the message names the file, never what is in it. */
function readTokenFile(path: string): Result<string> {
  let content: string;
  try {
    const size = Bun.file(path).size;
    if (size > MAX_TOKEN_FILE_BYTES)
      return fail({ code: "no_token", message: `${path} is not a token file (${size} bytes)` });
    content = readFileSync(path, "utf8").trim();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return fail({ code: "no_token", message: `Cannot read the token file ${path} (${reason})` });
  }
  if (content === "") return fail({ code: "no_token", message: `The token file ${path} is empty` });
  return ok(content);
}

/** The local start's token file: $DATA_DIR/admin-token, else .data/admin-token at the repo root. */
function localTokenFile(env: Env): string {
  const dataDir = env.DATA_DIR || join(import.meta.dir, "..", "..", "..", ".data");
  return resolve(dataDir, LOCAL_TOKEN_FILE);
}

const isLoopback = (url: string) =>
  ["localhost", "127.0.0.1", "[::1]"].includes(new URL(url).hostname);

/**
 * The gateway and token to use: flags first, then GATEWAY_URL and ADMIN_TOKEN, then the
 * token file the local start (`bun run start`) writes, which is only ever sent to this
 * machine's own gateway.
 */
export function resolveConnection(values: Values, env: Env): Result<Connection> {
  const url = baseUrl(text(values, "url") ?? (env.GATEWAY_URL || DEFAULT_URL));
  if (!url.ok) return url;
  const flagToken = text(values, "token");
  const tokenFile = text(values, "token-file");
  if (flagToken !== undefined && tokenFile !== undefined)
    return usage("Give either --token or --token-file, not both");
  let token: Result<string>;
  if (flagToken !== undefined) token = ok(flagToken.trim());
  else if (tokenFile !== undefined) token = readTokenFile(tokenFile);
  else if (env.ADMIN_TOKEN) token = ok(env.ADMIN_TOKEN.trim());
  else if (isLoopback(url.value) && existsSync(localTokenFile(env)))
    token = readTokenFile(localTokenFile(env));
  else
    token = fail({
      code: "no_token",
      message: "No admin token: set ADMIN_TOKEN, or pass --token-file PATH",
    });
  if (!token.ok) return token;
  if (token.value === "") return fail({ code: "no_token", message: "The admin token is empty" });
  // Checked here, so a malformed token never reaches a header (or an error message).
  if (!/^[\x21-\x7e]+$/.test(token.value))
    return fail({
      code: "no_token",
      message: "The admin token has spaces, line breaks or other characters a token cannot have",
    });
  return ok({ url: url.value, token: token.value });
}
