import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import type { RedisClient } from "./redis.ts";

/** A Lua script loaded from its own `verbNoun-<numKeys>.lua` file. */
export interface LuaScript {
  name: string;
  numKeys: number;
  source: string;
  sha: string;
}

export function loadLua(path: string): LuaScript {
  const file = basename(path, ".lua");
  const match = /^(.+)-(\d+)$/.exec(file);
  if (!match) throw new Error(`Lua file ${path} must be named verbNoun-<numKeys>.lua`);
  const source = readFileSync(path, "utf8");
  return {
    name: match[1]!,
    numKeys: Number(match[2]),
    source,
    sha: createHash("sha1").update(source).digest("hex"),
  };
}

/**
 * Runs a script by EVALSHA and falls back to EVAL once when the server has not
 * cached it (a restart, a flush, or a new cluster node), like BullMQ does.
 */
export async function runLua(
  redis: RedisClient,
  script: LuaScript,
  keys: string[],
  args: (string | number | bigint)[],
): Promise<unknown> {
  if (keys.length !== script.numKeys) {
    throw new Error(`${script.name} takes ${script.numKeys} keys, got ${keys.length}`);
  }
  const argv = args.map(String);
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...argv);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("NOSCRIPT")) {
      return await redis.eval(script.source, keys.length, ...keys, ...argv);
    }
    throw error;
  }
}
