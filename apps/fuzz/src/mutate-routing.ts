import { encodeDraft } from "./draft.ts";
import type { Mutation } from "./mutation.ts";

/** Mutations of the request line: other methods, mangled and unknown paths. */

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND", "TRACE"];

const wrongMethod: Mutation = {
  name: "route:method",
  weight: 3,
  applies: () => true,
  apply(draft, world, random) {
    const taken = new Set(
      world.operations.filter((op) => op.path === draft.op.path).map((op) => op.method),
    );
    const method = random.pick(METHODS.filter((name) => !taken.has(name)));
    draft.method = method;
    // fetch sends no body with these; the route's own body is beside the point here.
    if (["GET", "HEAD", "TRACE"].includes(method)) draft.body = null;
    draft.mutation = `route:method:${method}`;
    // A preflight is answered for any path (CORS); HEAD mirrors GET where GET exists.
    draft.mustRefuse = method === "OPTIONS" || method === "HEAD" ? null : "no such method here";
  },
};

const mangledPath: Mutation = {
  name: "route:path",
  weight: 4,
  applies: () => true,
  apply(draft, _world, random) {
    const path = encodeDraft({ ...draft, rawQuery: "" }).target.replace(/\?$/, "");
    const variants: [string, string][] = [
      ["trailing slash", `${path}/`],
      ["double slash", `/${path}`],
      ["inner double slash", path.replace("/", "//").replace(/^\/\/\//, "//")],
      ["upper case", path.toUpperCase()],
      ["encoded slashes", `/${path.slice(1).replaceAll("/", "%2F")}`],
      ["dot segment to admin", `${path}/%2e%2e/%2e%2e/admin/users`],
      ["encoded admin", "/%61dmin/users"],
      ["semicolon", `${path};jsessionid=1`],
      ["extra segment", `${path}/extra`],
      ["unknown", `/v1/${random.string(8)}`],
      ["long", `/v1/${"a".repeat(random.pick([2_000, 9_000, 70_000]))}`],
      ["nul", `${path}%00`],
      ["backslash", path.replace("/", "\\")],
      ["fullwidth", `/ｖ1${path.slice(3)}`],
    ];
    const [what, target] = random.pick(variants);
    draft.rawPath = target;
    draft.mutation = `route:path:${what}`;
    const reachesAdmin = /admin|%61dmin/i.test(target) && !draft.op.path.startsWith("/admin");
    draft.mustRefuse =
      reachesAdmin && draft.role !== "admin" ? "an admin route without the admin token" : null;
  },
};

export const ROUTING_MUTATIONS: Mutation[] = [wrongMethod, mangledPath];
