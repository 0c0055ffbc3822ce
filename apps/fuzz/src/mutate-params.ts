import type { Random } from "@gw/random";
import type { Draft } from "./draft.ts";
import type { Mutation } from "./mutation.ts";
import { HOSTILE_SEGMENTS } from "./pools.ts";
import { areaOf, ownerOf, tasksOf, type World } from "./world.ts";

/** Mutations of path and query parameters: others' ids, wrong kinds, edges, encodings. */

/** The path's parameters, unless a routing mutation already wrote the path out whole. */
const pathParamsOf = (draft: Draft) =>
  draft.rawPath === undefined ? draft.op.params.filter((param) => param.in === "path") : [];
const isTaskParam = (draft: Draft, name: string) =>
  (name === "task_id" || name === "id") && !draft.op.path.startsWith("/admin/");

/** Which task kind a task route reads; compat fetches read image tasks, musiccompat audio. */
function kindOf(draft: Draft): "image" | "audio" | "video" {
  const area = areaOf(draft.op);
  if (area === "audio" || draft.op.path.includes("musiccompat")) return "audio";
  if (area === "video") return "video";
  return "image";
}

const foreignId: Mutation = {
  name: "param:other-account",
  weight: 8,
  applies: (draft) => pathParamsOf(draft).some((param) => isTaskParam(draft, param.name)),
  apply(draft, world, random) {
    const owner = ownerOf(draft.role) ?? "a";
    const other = tasksOf(world, owner === "a" ? "b" : "a");
    const name = pathParamsOf(draft).find((param) => isTaskParam(draft, param.name))!.name;
    draft.pathParams[name] = random.pick(other[kindOf(draft)]);
    draft.mutation = `param:other-account:${name}=${owner === "a" ? "b" : "a"}'s ${kindOf(draft)} task`;
    draft.mustRefuse = "another account's task";
  },
};

const wrongKind: Mutation = {
  name: "param:wrong-kind",
  weight: 3,
  applies: foreignId.applies,
  apply(draft, world, random) {
    const own = tasksOf(world, ownerOf(draft.role) ?? "a");
    const kinds = (["image", "audio", "video"] as const).filter((kind) => kind !== kindOf(draft));
    const kind = random.pick(kinds);
    const name = pathParamsOf(draft).find((param) => isTaskParam(draft, param.name))!.name;
    const id = random.pick(own[kind]);
    const variants = [
      id,
      id.toUpperCase(),
      `${id} `,
      `${id}/`,
      id.slice(0, -1),
      `${kindOf(draft).slice(0, 3)}${id.slice(3)}`,
    ];
    const value = random.pick(variants);
    draft.pathParams[name] = encodeURIComponent(value);
    draft.mutation = `param:wrong-kind:${name}=${JSON.stringify(value)} (own ${kind} task, altered)`;
    // The last variant may name a real task of the right kind only by a vanishing chance.
    draft.mustRefuse = "no task of this kind has this id";
  },
};

function edgeSegment(random: Random): string {
  const pick = random.next();
  if (pick < 0.5) return random.pick(HOSTILE_SEGMENTS);
  if (pick < 0.7) return "x".repeat(random.pick([199, 200, 201, 512, 513, 10_000]));
  if (pick < 0.85)
    return encodeURIComponent(random.pick(["é", "😀", "\u202e", "ｉｍｇ", "\u0000", " "]));
  return String(random.pick([0, -1, 2 ** 53, 2 ** 63, 1e21]));
}

const edgeParam: Mutation = {
  name: "param:edge",
  weight: 6,
  applies: (draft) => pathParamsOf(draft).length > 0,
  apply(draft, _world, random) {
    const param = random.pick(pathParamsOf(draft));
    const value = edgeSegment(random);
    draft.pathParams[param.name] = value;
    draft.mutation = `param:edge:${param.name}=${value.length > 40 ? `${value.slice(0, 20)}...(${value.length})` : value}`;
  },
};

const QUERY_VALUES = [
  "",
  "-1",
  "0",
  "1.5",
  "1e3",
  "abc",
  "NaN",
  "Infinity",
  "99999999999999999999",
  "9223372036854775808",
  "-9223372036854775809",
  "2026-02-30",
  "9999-12-31",
  "0000-00-00",
  "null",
  "\u0000",
  "%",
  "😀",
  "<x>",
];

function queryValue(random: Random): string {
  return random.chance(0.1) ? "q".repeat(random.pick([201, 5_000])) : random.pick(QUERY_VALUES);
}

const edgeQuery: Mutation = {
  name: "query:edge",
  weight: 6,
  applies: (draft) => draft.op.params.some((param) => param.in === "query"),
  apply(draft, _world, random) {
    const names = draft.op.params
      .filter((param) => param.in === "query")
      .map((param) => param.name);
    const name = random.pick(names);
    const mode = random.pick(["value", "duplicate", "array", "raw"] as const);
    draft.query = draft.query.filter(([key]) => key !== name || name === "key");
    if (mode === "value") draft.query.push([name, queryValue(random)]);
    else if (mode === "duplicate") draft.query.push([name, "1"], [name, queryValue(random)]);
    else if (mode === "array") draft.query.push([`${name}[]`, "1"], [`${name}[0]`, "2"]);
    else {
      const raw = random.pick([
        "%zz",
        "%ff%fe",
        "&&&",
        "=",
        `${name}`,
        `${name}=%00`,
        `${name}=a&${"x=1&".repeat(2000)}`,
      ]);
      draft.rawQuery = [draft.query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&"), raw]
        .filter(Boolean)
        .join("&");
    }
    draft.mutation = `query:edge:${name} ${mode}${mode === "value" ? `=${JSON.stringify(draft.query.at(-1)?.[1] ?? "").slice(0, 40)}` : ""}`;
  },
};

/** Ids of another account inside a body: compat lists and music `audioId`. */
const foreignBodyIds: Mutation = {
  name: "param:other-account-body",
  weight: 4,
  applies: (draft) =>
    draft.body?.kind === "json" &&
    (draft.op.path.includes("list-by-condition") ||
      draft.op.path === "/musiccompat/fetch" ||
      (draft.op.path === "/v1/audio/generations" && ownerOf(draft.role) !== null)),
  apply(draft, world: World, random) {
    const owner = ownerOf(draft.role) ?? "a";
    const other = tasksOf(world, owner === "a" ? "b" : "a");
    const value = draft.body?.kind === "json" ? (draft.body.value as Record<string, unknown>) : {};
    if (draft.op.path === "/v1/audio/generations") {
      const operation = random.pick(["extend", "separate", "wav"]);
      draft.body = {
        kind: "json",
        value: { model: "sonora/music", operation, input: { audioId: random.pick(other.tracks) } },
      };
      draft.mutation = `param:other-account-body:input.audioId of another account (${operation})`;
      draft.mustRefuse = "a track of another account";
      return;
    }
    draft.body = { kind: "json", value: { ...value, ids: [...other.image, ...other.audio] } };
    draft.mutation = "param:other-account-body:ids of another account";
  },
};

export const PARAM_MUTATIONS: Mutation[] = [
  foreignId,
  wrongKind,
  edgeParam,
  edgeQuery,
  foreignBodyIds,
];
