import type { Random } from "@gw/random";
import type { Draft } from "./draft.ts";
import type { World } from "./world.ts";

/** One kind of damage a case may do to a plausible request. */
export interface Mutation {
  /** The family, first word of the case's label (`field`, `body`, `auth`, ...). */
  name: string;
  weight: number;
  applies(draft: Draft, world: World): boolean;
  /** Changes the draft and says how in `draft.mutation` (and `mustRefuse` when it knows). */
  apply(draft: Draft, world: World, random: Random): void;
}

export type JsonPath = (string | number)[];

/** Every position in a JSON value (root excluded), breadth first, at most `limit`. */
export function pathsOf(value: unknown, limit = 200): JsonPath[] {
  const out: JsonPath[] = [];
  const queue: [unknown, JsonPath][] = [[value, []]];
  while (queue.length > 0 && out.length < limit) {
    const [node, path] = queue.shift()!;
    if (node === null || typeof node !== "object") continue;
    const entries: [string | number, unknown][] = Array.isArray(node)
      ? node.map((item, index) => [index, item])
      : Object.entries(node);
    for (const [key, child] of entries) {
      out.push([...path, key]);
      queue.push([child, [...path, key]]);
    }
  }
  return out;
}

export function getAt(value: unknown, path: JsonPath): unknown {
  let at = value;
  for (const step of path) at = (at as Record<string | number, unknown> | null)?.[step];
  return at;
}

/** Sets (or with `undefined`, removes) the value at `path`; the root must be an object. */
export function setAt(value: unknown, path: JsonPath, replacement: unknown): void {
  const parent = getAt(value, path.slice(0, -1)) as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (parent === null || typeof parent !== "object") return;
  if (replacement === undefined) {
    if (Array.isArray(parent) && typeof last === "number") parent.splice(last, 1);
    else delete parent[last];
  } else parent[last] = replacement;
}

export const label = (path: JsonPath) => (path.length === 0 ? "(root)" : path.join("."));

/** A short, printable form of a value for a case label. */
export function shortly(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : String(JSON.stringify(value));
  const printable = text.replace(/[^\x20-\x7e]/g, "?");
  return printable.length > 40 ? `${printable.slice(0, 37)}...(${text.length})` : printable;
}
