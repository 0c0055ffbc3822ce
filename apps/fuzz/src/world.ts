import type { Catalog, MediaModel } from "./catalog.ts";
import type { Role } from "./draft.ts";
import type { Fixture, OwnTasks } from "./fixture.ts";
import type { Operation } from "./openapi.ts";
import { FUZZ_ADMIN_TOKEN } from "./stack.ts";

/** Everything a case is generated from: the api's operations, its catalog and the scene. */
export interface World {
  operations: Operation[];
  catalog: Catalog;
  fixture: Fixture;
}

/** The kind of task or model an operation deals in, read from its path. */
export type Area = "image" | "audio" | "video" | "text" | "media" | "compat" | "admin" | "other";

export function areaOf(op: Operation): Area {
  const path = op.path;
  if (path.startsWith("/admin/")) return "admin";
  if (path.startsWith("/v1/images/")) return "image";
  if (path.startsWith("/v1/audio/")) return "audio";
  if (path.startsWith("/v1/video")) return "video";
  if (path === "/v1/media/quote") return "media";
  if (path.includes("imgcompat") || path.includes("musiccompat")) return "compat";
  if (/messages|chat|responses|count_tokens/.test(path)) return "text";
  if (op.method === "POST" && path.includes("/models/{model}")) return "text";
  return "other";
}

/** Whether a successful call of this operation may start a task or charge money. */
export function isPaid(op: Operation): boolean {
  const area = areaOf(op);
  return (
    op.method === "POST" &&
    ["image", "audio", "video", "text"].includes(area) &&
    !op.path.includes("count_tokens")
  );
}

export function mediaModels(world: World, kind: string): MediaModel[] {
  return world.catalog.media.filter((model) => model.kind === kind);
}

/** The secret a role calls with; `none` has none. */
export function secretOf(role: Role, fixture: Fixture): string | null {
  switch (role) {
    case "a":
    case "b":
    case "broke":
    case "victim":
      return fixture[role].key;
    case "limited":
      return fixture.limitedKey;
    case "admin":
      return FUZZ_ADMIN_TOKEN;
    case "none":
      return null;
    case "forged":
      return `sk-${"A".repeat(48)}`;
    default:
      return fixture.refusedKeys[role];
  }
}

/** The account whose data a role may see: `a` for every key of `a`. */
export function ownerOf(role: Role): "a" | "b" | null {
  if (role === "b") return "b";
  if (["a", "limited", "disabled", "expired", "deleted", "tinyBudget", "ipBound"].includes(role))
    return "a";
  return null;
}

export function tasksOf(world: World, owner: "a" | "b"): OwnTasks {
  return world.fixture.tasksOf[owner];
}

/** Every task id and track id of accounts other than `owner`: what its answers must never show. */
export function foreignIds(world: World, owner: "a" | "b"): string[] {
  const other = tasksOf(world, owner === "a" ? "b" : "a");
  return [...other.image, ...other.audio, ...other.video];
}
